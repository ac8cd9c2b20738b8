/*
 * minidebug.c - MiniDebugInfo: the .gnu_debugdata section Fedora and
 * others leave in stripped objects, an xz-compressed ELF whose .symtab
 * names the functions .dynsym does not (static ones).  Decompressed with
 * liblzma, into memory only, and never beyond MINIDEBUG_MAX bytes.
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "sym/sym_int.h"
#include "util/elffile.h"

#define MINIDEBUG_MAX (64u << 20)
#ifndef XZ_MEMLIMIT     /* make fuzz builds with a small one: see the Makefile */
#define XZ_MEMLIMIT (256u << 20)        /* the decoder's memory, its dictionary mostly */
#endif

/* Makes room for more output: doubles the buffer, up to max. */
static int more_room(lzma_stream *s, uint8_t **buf, size_t *cap, size_t first, size_t max)
{
	size_t ncap = *cap ? *cap * 2 : first;
	if (*cap >= max)
		return -EINVAL;                 /* larger than max */
	if (ncap > max)
		ncap = max;
	uint8_t *nb = realloc(*buf, ncap);
	if (!nb)
		return -ENOMEM;
	s->next_out = nb + *cap;
	s->avail_out = ncap - *cap;
	*buf = nb;
	*cap = ncap;
	return 0;
}

int lp_xz_decode(const void *data, size_t size, size_t max, void **out, size_t *out_size)
{
	lzma_stream s = LZMA_STREAM_INIT;
	uint8_t *buf = NULL;
	size_t cap = 0, first = size < max / 4 ? size * 4 + 4096 : max;
	int rc = 0;
	if (lzma_stream_decoder(&s, XZ_MEMLIMIT, 0) != LZMA_OK)
		return -ENOMEM;
	s.next_in = data;
	s.avail_in = size;
	while (!rc) {
		if (!s.avail_out && (rc = more_room(&s, &buf, &cap, first, max)))
			break;
		lzma_ret r = lzma_code(&s, LZMA_FINISH);
		if (r == LZMA_STREAM_END) {
			*out_size = cap - s.avail_out;
			*out = buf;
			lzma_end(&s);
			return 0;
		}
		if (r != LZMA_OK)
			rc = r == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	}
	lzma_end(&s);
	free(buf);
	return rc;
}

Elf *lp_minidebug_open(Elf *e, void **image)
{
	Elf_Scn *scn = lp_elf_section(e, ".gnu_debugdata", SHT_PROGBITS, NULL);
	Elf_Data *d = scn ? elf_rawdata(scn, NULL) : NULL;
	size_t size;
	*image = NULL;
	if (!d || !d->d_buf || !d->d_size ||
	    lp_xz_decode(d->d_buf, d->d_size, MINIDEBUG_MAX, image, &size))
		return NULL;
	Elf *mini = lp_elf_mem(*image, size);
	if (mini)
		return mini;
	free(*image);
	*image = NULL;
	return NULL;
}
