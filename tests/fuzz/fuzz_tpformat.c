/*
 * fuzz_tpformat.c - the tracepoint format parser (lp_tp_format_parse) and
 * the field decoder on any bytes.  The first two bytes give the length of
 * the format text (little-endian, at most what follows); the text comes
 * next and the rest is one sample's raw data.  Every field of a format
 * that parses is decoded from the data, and everything handed back is
 * read, so ASan catches a pointer outside the text or the data.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void touch(const void *p, size_t n)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < n; i++)
		sink += b[i];
}

static void decode(const struct lp_tp_field *f, const uint8_t *raw, size_t size)
{
	uint64_t v;
	const char *s;
	const uint8_t *p;
	size_t len;
	touch(f->name, strlen(f->name));
	touch(f->type, strlen(f->type));
	if (!lp_tp_read_int(f, raw, size, &v))
		sink += v;
	if (f->kind == LP_TP_STRING && !lp_tp_read_string(f, raw, size, &s, &len))
		touch(s, len);
	if (!lp_tp_read_bytes(f, raw, size, &p, &len)) {
		touch(p, len);
		for (size_t i = 0; f->kind == LP_TP_ARRAY && i < len / f->elem_size; i++)
			sink += lp_tp_elem(f, p, i);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	size_t n = (size_t)data[0] | (size_t)data[1] << 8;
	if (n > size - 2)
		n = size - 2;
	/* exact-size copies, so ASan sees a read past either end */
	char *text = malloc(n ? n : 1);
	size_t raw_len = size - 2 - n;
	uint8_t *raw = malloc(raw_len ? raw_len : 1);
	if (!text || !raw) {
		free(text);
		free(raw);
		return 0;
	}
	memcpy(text, data + 2, n);
	memcpy(raw, data + 2 + n, raw_len);
	struct lp_tp_format *f;
	if (lp_tp_format_parse(text, n, "fuzz", &f) == 0) {
		touch(f->name, strlen(f->name));
		touch(f->system, strlen(f->system));
		for (size_t i = 0; i < f->nr_fields; i++)
			decode(&f->fields[i], raw, raw_len);
		if (f->nr_fields)
			sink += lp_tp_field_find(f, f->fields[f->nr_fields - 1].name) != NULL;
		lp_tp_format_free(f);
	}
	free(text);
	free(raw);
	return 0;
}
