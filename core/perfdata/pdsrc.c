/*
 * pdsrc.c - where perf.data bytes come from.
 *
 * A regular file is mapped, so that the header, the attrs and the feature
 * sections can be read at random; its records, though, are read with
 * pread(2), as standard input or a FIFO (pipe mode) is with read(2).
 * Walking the mapping record by record instead (2 MiB windows, their
 * pages dropped with MADV_DONTNEED once their records are delivered, so
 * that memory stays flat) trades the kernel's copy for its per-page
 * mapping and unmapping work, which costs as much (measured: see
 * docs/performance.md, "Measured choices in the code"); and a file that
 * shrinks under a mapping kills the reader with SIGBUS.
 *
 * Records are read straight into the chunks of the order arena
 * (pdorder.c), READ_MAX bytes at a time, so that the order queue keeps
 * them where they lie instead of copying each one again; when a chunk is
 * full the unread bytes (less than a record) move to the start of a new
 * one, and the old chunk lives on as long as records queued from it do.
 * Bytes are placed in a chunk at the same offset within a 4 KiB page as
 * in the file: the kernel copies whole pages then, and the copy avoids a
 * much slower case, a destination a few bytes past the source within a
 * page (measured: docs/performance.md, "Measured choices in the code").
 *
 * Invariants: pd_src_next() hands out whole records only (8 <= size, every
 * byte present), at 8-byte aligned addresses (an unaligned record, which
 * pipe files of perf 4.x produce, is copied to a scratch buffer first, and
 * is then in no chunk), and never reads past src.end.  A record pointer
 * stays valid until the next pd_src_next/pd_src_skip/pd_src_take/
 * pd_src_read call, and longer while a reference is held on its chunk.
 */
#include <errno.h>
#include <poll.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfdata/perfdata_int.h"

#define READ_MAX (256u << 10)   /* bytes asked of one read: they stay in cache */
#define READ_MIN (64u << 10)    /* room a chunk must have left to be read into */
#define PAGE 4096u
#define PIPE_HINT "pipe a recording in (perf record -o - -- CMD | luaprof run SCRIPT -i -)"
#define MAX_RECORD 65536

static int stream_init(struct lp_perfdata *pd, int fd, bool own)
{
	struct pd_src *s = &pd->src;

	s->fd = fd;
	s->own_fd = own;
	s->chunk = PD_NO_CHUNK;
	if (!s->map)
		s->end = s->data_end = UINT64_MAX;
	return 0;
}

/* Maps the whole file and keeps fd for reading its records; fd is closed
 * with the source unless it is standard input. */
static int map_file(struct lp_perfdata *pd, int fd, size_t size)
{
	struct pd_src *s = &pd->src;
	void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);

	if (m == MAP_FAILED) {
		int err = -errno;

		if (fd != 0)
			close(fd);
		return pd_error(pd, PD_NO_OFF, err, "cannot map the file: %s", strerror(-err));
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	s->map = m;
	s->map_len = size;
	s->end = s->data_end = size;
	return stream_init(pd, fd, fd != 0);
}

/* "-" is standard input: mapped when it is a regular file (a redirect),
 * else read as a stream. */
/* A named pipe, opened without blocking in open(2) (which waits for a
 * writer and is restarted after a signal), then waited on in poll(2), which
 * a signal always interrupts: -EINTR then, for the caller to stop or ask
 * again.  The fd is made blocking once a writer has written or gone. */
static int open_fifo(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;
	while ((n = poll(&p, 1, -1)) == 0)
		;
	int flags = n > 0 ? fcntl(fd, F_GETFL) : -1;
	if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

int pd_src_open(struct lp_perfdata *pd, const char *path)
{
	bool in = !strcmp(path, "-");
	struct stat st;
	int err;
	int fd = in ? 0 : !stat(path, &st) && S_ISFIFO(st.st_mode) ? open_fifo(path)
								     : open(path, O_RDONLY | O_CLOEXEC);

	pd->src.fd = -1;
	if (fd == -EINTR)
		return pd_error(pd, PD_NO_OFF, -EINTR, "interrupted while waiting for a writer "
				"to the named pipe");
	if (fd < 0 && fd != -1)
		return pd_error(pd, PD_NO_OFF, fd, "cannot open: %s", strerror(-fd));
	if (fd < 0)
		return pd_error(pd, PD_NO_OFF, -errno, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) < 0) {
		err = -errno;
		if (!in)
			close(fd);
		if (in && err == -EBADF)
			return pd_error(pd, PD_NO_OFF, err, "closed: " PIPE_HINT);
		return pd_error(pd, PD_NO_OFF, err, "cannot stat: %s", strerror(-err));
	}
	if (S_ISREG(st.st_mode) && st.st_size > 0)
		return map_file(pd, fd, (size_t)st.st_size);
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return stream_init(pd, fd, !in);       /* pipe, FIFO, socket, tty */
	if (!in)
		close(fd);
	if (S_ISDIR(st.st_mode))
		return pd_error(pd, PD_NO_OFF, -EISDIR, "is a directory (the perf record "
				"--threads layout is not supported)");
	return pd_error(pd, 0, -EPROTO, "empty file, not a perf.data file");
}

/* The chunk is the order arena's, freed with it (lp_perfdata_close frees
 * the arena after the source). */
void pd_src_close(struct pd_src *s)
{
	if (s->map)
		munmap((void *)(uintptr_t)s->map, s->map_len);
	if (s->own_fd && s->fd >= 0)
		close(s->fd);
	free(s->scratch);
	memset(s, 0, sizeof *s);
	s->fd = -1;
	s->chunk = PD_NO_CHUNK;
}

static bool (*stop_fn)(void *ctx);
static void *stop_ctx;

void lp_perfdata_set_stop(bool (*stop)(void *ctx), void *ctx)
{
	stop_fn = stop;
	stop_ctx = ctx;
}

/* A stream's wait for bytes, in poll(2), which a signal interrupts even
 * under SA_RESTART (read(2) would be restarted, and a stalled pipe would
 * hold the reader past any signal): 0 once there is something to read
 * (or the end, or an error read(2) then reports), -EINTR when a signal
 * came and stop_fn says to stop. */
static int wait_input(const struct pd_src *s)
{
	struct pollfd p = { .fd = s->fd, .events = POLLIN };
	while (poll(&p, 1, -1) < 0) {
		if (errno != EINTR)
			return 0;
		if (stop_fn && stop_fn(stop_ctx))
			return -EINTR;
	}
	return 0;
}

/* Reads on at the end of the buffered bytes: a file never past src.end
 * (the feature sections follow the records). */
static ssize_t read_some(struct pd_src *s)
{
	uint64_t at = s->pos + (s->len - s->head);
	size_t room = PD_CHUNK_SIZE - s->len;

	if (room > READ_MAX)
		room = READ_MAX;
	if (!s->map)
		return read(s->fd, s->buf + s->len, room);
	if (at >= s->end)
		return 0;
	if (room > s->end - at)
		room = (size_t)(s->end - at);
	return pread(s->fd, s->buf + s->len, room, (off_t)at);
}

/* Moves the unread bytes (fewer than a record) to a new chunk, at pos's
 * offset within a page, and drops the old chunk. */
static int next_chunk(struct lp_perfdata *pd)
{
	struct pd_src *s = &pd->src;
	size_t keep = s->len - s->head, at = s->pos % PAGE;
	uint32_t idx;

	if (pd_chunk_new(&pd->order, &idx))
		return pd_error(pd, s->pos, -ENOMEM, "out of memory for the read buffer");
	uint8_t *mem = pd_chunk_mem(&pd->order, idx);
	if (keep)
		memcpy(mem + at, s->buf + s->head, keep);
	if (s->chunk != PD_NO_CHUNK)
		pd_chunk_put(&pd->order, s->chunk);
	s->chunk = idx;
	s->buf = mem;
	s->head = at;
	s->len = at + keep;
	return 0;
}

/* Before a read: room in the chunk for want bytes from head and for a
 * read of some size, and, when nothing is buffered (after a skip), head
 * placed at pos's offset within a page. */
static int make_room(struct lp_perfdata *pd, size_t want)
{
	struct pd_src *s = &pd->src;

	if (s->chunk == PD_NO_CHUNK)
		return next_chunk(pd);
	if (s->head == s->len)
		s->head = s->len = s->len + ((s->pos - s->len) & (PAGE - 1));
	if (s->len > PD_CHUNK_SIZE - READ_MIN || PD_CHUNK_SIZE - s->head < want)
		return next_chunk(pd);
	return 0;
}

/* fill's work when the bytes are not there yet. */
static __attribute__((noinline)) ssize_t refill(struct lp_perfdata *pd, size_t want)
{
	struct pd_src *s = &pd->src;
	int err;

	if (s->eof)
		return (ssize_t)(s->len - s->head);
	if ((err = make_room(pd, want)))
		return err;
	while (s->len - s->head < want) {
		if (!s->map && (err = wait_input(s)))
			return err;             /* the input ends here: no error */
		ssize_t n = read_some(s);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return pd_error(pd, s->pos, -errno, "read failed: %s", strerror(errno));
		if (n == 0) {
			s->eof = true;
			break;
		}
		s->len += (size_t)n;
	}
	return (ssize_t)(s->len - s->head);
}

/* Makes at least want bytes (at most MAX_RECORD) available at buf + head,
 * as far as the input has them.  Returns the bytes available or -errno.
 * Inline for the common case, the bytes already read (twice per record). */
static inline ssize_t fill(struct lp_perfdata *pd, size_t want)
{
	const struct pd_src *s = &pd->src;

	if (s->len - s->head >= want)
		return (ssize_t)(s->len - s->head);
	return refill(pd, want);
}

int pd_src_read(struct lp_perfdata *pd, void *dst, size_t n)
{
	struct pd_src *s = &pd->src;
	ssize_t have;

	if (s->map) {
		if (s->pos > s->map_len || n > s->map_len - s->pos)
			return pd_error(pd, s->pos, -EPROTO,
					"file ends inside the header (%zu bytes)", s->map_len);
		memcpy(dst, s->map + s->pos, n);
	} else {
		have = fill(pd, n);
		if (have < 0)
			return (int)have;
		if (!have && !s->pos)
			return pd_error(pd, PD_NO_OFF, -EPROTO, "empty input, no perf.data stream: "
					PIPE_HINT);
		if ((size_t)have < n)
			return pd_error(pd, s->pos, -EPROTO, "input ends inside the header");
		memcpy(dst, s->buf + s->head, n);
		s->head += n;
	}
	s->pos += n;
	return 0;
}

/* The record at p, copied to the scratch buffer when p is unaligned. */
static const struct perf_event_header *aligned(struct lp_perfdata *pd, const uint8_t *p,
					       size_t size)
{
	struct pd_src *s = &pd->src;

	if (!((uintptr_t)p & 7))
		return (const void *)p;
	if (!s->scratch) {
		s->scratch = malloc(MAX_RECORD);
		if (!s->scratch)
			return NULL;
	}
	memcpy(s->scratch, p, size);
	return (const void *)s->scratch;
}

static int bad_size(struct lp_perfdata *pd, const struct perf_event_header *h)
{
	return pd_error(pd, pd->src.pos, -EPROTO,
			"record type %u has size %u, smaller than its 8-byte header",
			h->type, h->size);
}

/* The file ends before the data section the header declares. */
static int cut_short(struct lp_perfdata *pd)
{
	const struct pd_src *s = &pd->src;

	return pd_error(pd, s->pos, -EPROTO, "the file ends at %zu bytes, inside the data "
			"section (which the header says runs to offset %llu): truncated "
			"recording", s->map_len, (unsigned long long)s->data_end);
}

/* What ends the input early: the data section of a file, or a stream. */
static const char *input_name(const struct pd_src *s)
{
	return s->map ? "data" : "input";
}

int pd_src_next(struct lp_perfdata *pd, struct pd_rec *r)
{
	struct pd_src *s = &pd->src;
	struct perf_event_header h;
	ssize_t have;
	bool cut = s->end < s->data_end;

	if (s->pos >= s->end)
		return cut ? cut_short(pd) : 0;
	have = fill(pd, sizeof h);
	if (have < 0 || (have == 0 && !s->map))
		return (int)have;       /* a failed read, or a stream's clean end */
	if ((size_t)have < sizeof h && s->unclosed)
		return 0;       /* a cut record ends an unclosed file */
	if ((size_t)have < sizeof h)
		return cut ? cut_short(pd) : pd_error(pd, s->pos, -EPROTO,
				"%s ends inside a record header (%zd bytes left)", input_name(s), have);
	memcpy(&h, s->buf + s->head, sizeof h);
	if (h.size < sizeof h)
		return bad_size(pd, &h);
	have = fill(pd, h.size);
	if (have < 0)
		return (int)have;
	if ((size_t)have < h.size && s->unclosed)
		return 0;
	if ((size_t)have < h.size)
		return cut ? cut_short(pd) : pd_error(pd, s->pos, -EPROTO,
				"record type %u of %u bytes runs past the end of the %s (%zd bytes left)",
				h.type, h.size, input_name(s), have);
	r->inner = false;
	r->h = aligned(pd, s->buf + s->head, h.size);
	if (!r->h)
		return pd_error(pd, s->pos, -ENOMEM, "out of memory");
	r->chunk = (const uint8_t *)r->h == s->buf + s->head ? s->chunk : PD_NO_CHUNK;
	r->off = s->pos;
	s->head += h.size;
	s->pos += h.size;
	return 1;
}

/* Passes over n payload bytes that follow the record just fetched,
 * copying them to dst unless it is NULL. */
static int consume(struct lp_perfdata *pd, uint64_t n, const char *what, uint8_t *dst)
{
	struct pd_src *s = &pd->src;

	if (n > PD_MAX_PAYLOAD || (s->map && n > s->end - s->pos))
		return pd_error(pd, s->pos, -EPROTO,
				"%s payload of %llu bytes runs past the end of the data",
				what, (unsigned long long)n);
	if (s->map) {           /* a file: drop what is buffered, read on past it */
		size_t buffered = s->len - s->head;

		if (dst)
			memcpy(dst, s->map + s->pos, (size_t)n);
		s->head = n < buffered ? s->head + (size_t)n : s->len;
		s->pos += n;
		return 0;
	}
	for (uint64_t left = n; left;) {
		ssize_t have = fill(pd, 1);
		size_t k;

		if (have < 0)
			return (int)have;
		if (have == 0)
			return pd_error(pd, s->pos, -EPROTO,
					"input ends inside a %s payload of %llu bytes",
					what, (unsigned long long)n);
		k = (size_t)have < left ? (size_t)have : (size_t)left;
		if (dst)
			memcpy(dst + (n - left), s->buf + s->head, k);
		s->head += k;
		s->pos += k;
		left -= k;
	}
	return 0;
}

int pd_src_skip(struct lp_perfdata *pd, uint64_t n, const char *what)
{
	return consume(pd, n, what, NULL);
}

int pd_src_take(struct lp_perfdata *pd, uint64_t n, const char *what, uint8_t **out)
{
	uint8_t *buf;
	int err;

	if (n > PD_MAX_PAYLOAD)
		return consume(pd, n, what, NULL);      /* reports it */
	if (!(buf = malloc(n ? (size_t)n : 1)))
		return pd_error(pd, pd->src.pos, -ENOMEM, "out of memory");
	if ((err = consume(pd, n, what, buf))) {
		free(buf);
		return err;
	}
	*out = buf;
	return 0;
}
