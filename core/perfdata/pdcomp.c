/*
 * pdcomp.c - the records inside PERF_RECORD_COMPRESSED (81) and
 * COMPRESSED2 (83), written by `perf record -z`.
 *
 * The payloads of all compressed records of a file form one zstd stream
 * (one decompression context for the whole file, as perf keeps it), and
 * their output forms one inner stream of ordinary records.  A record may
 * straddle two compressed records: the unread tail of the inner stream is
 * kept and the next payload is appended to it.  Like perf, the inner records
 * of one wrapper are all read before the next outer record.
 *
 *   COMPRESSED:  header, zstd data up to header.size
 *   COMPRESSED2: header, u64 data_size, zstd data (data_size bytes), padding
 *
 * Invariants: inner records are whole and 8-byte aligned when handed out
 * (copied to scratch otherwise), and carry the offset of their wrapper; the
 * inner buffer never grows past MAX_INNER, whatever the data claims.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "perfdata/perfdata_int.h"

#define MAX_INNER (256u << 20)
#define MIN_ROOM (256u << 10)
#define MAX_RECORD 65536

struct pd_comp {
	ZSTD_DStream *z;
	uint8_t *buf;           /* inner bytes not read yet: buf[head, len) */
	size_t cap, head, len;
	uint64_t off;           /* wrapper the bytes came from */
	uint8_t *scratch;
};

void pd_comp_free(struct pd_comp *c)
{
	if (!c)
		return;
	ZSTD_freeDStream(c->z);
	free(c->buf);
	free(c->scratch);
	free(c);
}

size_t pd_comp_pending(const struct pd_comp *c)
{
	return c ? c->len - c->head : 0;
}

static struct pd_comp *comp_new(void)
{
	struct pd_comp *c = calloc(1, sizeof *c);

	if (!c)
		return NULL;
	c->z = ZSTD_createDStream();
	c->scratch = malloc(MAX_RECORD);
	if (!c->z || !c->scratch || ZSTD_isError(ZSTD_initDStream(c->z))) {
		pd_comp_free(c);
		return NULL;
	}
	return c;
}

/* Moves the unread tail to the front and makes room for more output. */
static int make_room(struct pd_comp *c)
{
	size_t cap;
	uint8_t *b;

	if (c->head) {
		memmove(c->buf, c->buf + c->head, c->len - c->head);
		c->len -= c->head;
		c->head = 0;
	}
	if (c->cap - c->len >= MIN_ROOM)
		return 0;
	cap = c->cap ? c->cap * 2 : 4 * MIN_ROOM;
	if (cap > MAX_INNER)
		return -E2BIG;
	b = realloc(c->buf, cap);
	if (!b)
		return -ENOMEM;
	c->buf = b;
	c->cap = cap;
	return 0;
}

/* The zstd payload of a wrapper record. */
static int payload(struct lp_perfdata *pd, const struct pd_rec *r, ZSTD_inBuffer *in)
{
	const uint8_t *p = (const uint8_t *)r->h;
	size_t size = r->h->size;

	if (r->h->type == PD_COMPRESSED) {
		*in = (ZSTD_inBuffer){ p + 8, size - 8, 0 };
		return 0;
	}
	if (size < 16 || pd_u64(p + 8) > size - 16)
		return pd_error(pd, r->off, -EPROTO,
				"COMPRESSED2 record of %zu bytes claims more data than it holds", size);
	*in = (ZSTD_inBuffer){ p + 16, (size_t)pd_u64(p + 8), 0 };
	return 0;
}

static int inflate(struct lp_perfdata *pd, struct pd_comp *c, ZSTD_inBuffer *in,
		   uint64_t off)
{
	for (;;) {
		ZSTD_outBuffer out;
		size_t ret;
		int err = make_room(c);

		if (err)
			return pd_error(pd, off, err, err == -E2BIG ?
					"compressed data expands beyond %u MiB" : "out of memory",
					MAX_INNER >> 20);
		out = (ZSTD_outBuffer){ c->buf + c->len, c->cap - c->len, 0 };
		ret = ZSTD_decompressStream(c->z, &out, in);
		if (ZSTD_isError(ret))
			return pd_error(pd, off, -EPROTO, "cannot decompress: %s",
					ZSTD_getErrorName(ret));
		c->len += out.pos;
		if (in->pos == in->size && out.pos < out.size)
			return 0;
	}
}

int pd_comp_feed(struct lp_perfdata *pd, const struct pd_rec *r)
{
	ZSTD_inBuffer in;
	int err;

	if (r->inner)
		return pd_error(pd, r->off, -EPROTO, "compressed record inside compressed data");
	if (!pd->comp && !(pd->comp = comp_new()))
		return pd_error(pd, r->off, -ENOMEM, "cannot set up zstd decompression");
	if ((err = payload(pd, r, &in)))
		return err;
	pd->comp->off = r->off;
	return inflate(pd, pd->comp, &in, r->off);
}

int pd_comp_next(struct lp_perfdata *pd, struct pd_rec *r)
{
	struct pd_comp *c = pd->comp;
	struct perf_event_header h;
	const uint8_t *p;

	if (!c || c->len - c->head < sizeof h)
		return 0;
	p = c->buf + c->head;
	memcpy(&h, p, sizeof h);
	if (h.size < sizeof h)
		return pd_error(pd, c->off, -EPROTO,
				"record type %u of size %u inside the compressed data",
				h.type, h.size);
	if (h.size > c->len - c->head)
		return 0;                       /* continues in the next wrapper */
	if ((uintptr_t)p & 7) {
		memcpy(c->scratch, p, h.size);
		p = c->scratch;
	}
	*r = (struct pd_rec){ .h = (const void *)p, .off = c->off, .inner = true,
			      .chunk = PD_NO_CHUNK };
	c->head += h.size;
	return 1;
}
