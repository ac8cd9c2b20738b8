/*
 * field.c - reading a tracepoint field out of one sample's raw data.
 *
 * The data is the kernel's record of the event (common fields first);
 * nothing outside [raw, raw + size) is read: every field, and the data a
 * dynamic field points at, is checked to lie inside it first.
 */
#include <errno.h>
#include <string.h>

#include "luaprof/trace.h"

/* n bytes at off lie inside size bytes (no overflow: all are < 2^32). */
static bool inside(uint64_t off, uint64_t n, size_t size)
{
	return off <= size && n <= size - off;
}

/* An integer of n (1, 2, 4 or 8) bytes at p, sign-extended when sign. */
static uint64_t load(const uint8_t *p, unsigned n, bool sign)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	switch (n) {
	case 1: memcpy(&u8, p, 1); return sign ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2: memcpy(&u16, p, 2); return sign ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4: memcpy(&u32, p, 4); return sign ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	default: memcpy(&u64, p, 8); return u64;
	}
}

int lp_tp_read_int(const struct lp_tp_field *f, const void *raw, size_t size, uint64_t *v)
{
	unsigned n = f->size;
	if (n != 1 && n != 2 && n != 4 && n != 8)
		return -ERANGE;
	if (!inside(f->offset, n, size))
		return -ERANGE;
	*v = load((const uint8_t *)raw + f->offset, n, f->is_signed);
	return 0;
}

int lp_tp_read_bytes(const struct lp_tp_field *f, const void *raw, size_t size,
		     const uint8_t **p, size_t *len)
{
	uint64_t off = f->offset, n = f->size;
	if (!inside(off, n, size))
		return -ERANGE;
	if (f->dyn) {
		uint32_t loc;
		memcpy(&loc, (const uint8_t *)raw + off, sizeof loc);
		off = (loc & 0xffff) + (f->rel ? f->offset + f->size : 0);
		n = loc >> 16;
		if (!inside(off, n, size))
			return -ERANGE;
	}
	*p = (const uint8_t *)raw + off;
	*len = (size_t)n;
	return 0;
}

int lp_tp_read_string(const struct lp_tp_field *f, const void *raw, size_t size,
		      const char **s, size_t *len)
{
	const uint8_t *p;
	size_t n;
	int rc = lp_tp_read_bytes(f, raw, size, &p, &n);
	if (rc)
		return rc;
	const uint8_t *nul = memchr(p, 0, n);
	*s = (const char *)p;
	*len = nul ? (size_t)(nul - p) : n;
	return 0;
}

uint64_t lp_tp_elem(const struct lp_tp_field *f, const uint8_t *p, size_t i)
{
	return load(p + i * f->elem_size, f->elem_size, f->is_signed);
}
