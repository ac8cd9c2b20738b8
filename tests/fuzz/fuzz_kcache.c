/*
 * fuzz_kcache.c - the readers of cached symbol tables (kcache.c:
 * lp_kcache_parse for kallsyms tables, lp_ocache_parse for object files',
 * then lp_symtab_import's checks of the records) on any bytes as a cache
 * file image.  The key is taken from the image's own
 * header when it has one, so that inputs get past the staleness check.
 * Every symbol of a table that passes is looked up at its start and at
 * addresses around it, and its name and module read, so that ASan catches
 * a table pointing outside the image and a lookup that does not end (an
 * "up" chain with a loop) hangs the run.  The image is imported a second
 * time from a file holding it (a memfd, memfile.h), as a cache file is
 * (records checked and read with pread): it must be taken or refused as
 * the in-memory one is, and answer every lookup alike.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "luaprof/sym.h"
#include "sym/sym_int.h"
#include "luaprof/ranges.h"
#include "sym/symtab_int.h"
#include "memfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

#define KEY_AT 16       /* the key's place in the header: after magic, rec_size, flags */

static void look(const struct lp_symtab *t, const struct lp_kcache *c, uint64_t addr)
{
	const struct lp_sym *s = lp_symtab_find(t, addr);
	if (!s)
		return;
	uint16_t tag = lp_symtab_tag(t, s);
	if (tag >= c->nr_mods || s->name < c->names || s->name >= c->names + c->names_len)
		abort();
	sink += strlen(s->name) + strlen(c->names + c->mods[tag]);
}

static const struct lp_sym *find(const struct lp_symtab *t, uint64_t addr, bool sized)
{
	return sized ? lp_symtab_find_sized(t, addr) : lp_symtab_find(t, addr);
}

/* Whether t and f (the same table imported from the file) answer a
 * lookup at addr alike, and as g does having forgotten the ranges its
 * lookups answered before (ranges.h): t and f answer from theirs. */
static void same(const struct lp_symtab *t, const struct lp_symtab *f, const struct lp_symtab *g,
		 uint64_t addr, bool sized)
{
	const struct lp_sym *a = find(t, addr, sized), *b = find(f, addr, sized);
	lp_ranges_clear(g->hot[sized]);
	const struct lp_sym *c = find(g, addr, sized);
	if (!a != !b || (a && (a->start != b->start || a->end != b->end || strcmp(a->name, b->name) ||
			       lp_symtab_tag(t, a) != lp_symtab_tag(f, b))))
		abort();
	if (!a != !c || (a && (a->start != c->start || a->end != c->end || strcmp(a->name, c->name))))
		abort();
}

/* Imports the table c describes (an image at base, also in file fd) and
 * looks up around every symbol, then near symbols the input's bytes
 * pick; sized: as an object's table is looked up (lp_dso_find). */
static void walk(const struct lp_kcache *c, const void *base, int fd, bool sized,
		 const uint8_t *data, size_t size)
{
	struct lp_symtab *t = lp_symtab_import(c->recs, c->nr_recs, c->names, c->names_len,
					       c->nr_mods, NULL);
	struct lp_symsrc src = { fd, (uint64_t)((const char *)c->recs - (const char *)base),
				 (uint64_t)(c->names - (const char *)base) };
	struct lp_symtab *f = lp_symtab_import(c->recs, c->nr_recs, c->names, c->names_len,
					       c->nr_mods, &src);
	struct lp_symtab *g = lp_symtab_import(c->recs, c->nr_recs, c->names, c->names_len,
					       c->nr_mods, NULL);
	if (!t != !f || !t != !g)
		abort();
	size_t n = t ? lp_symtab_count(t) : 0;
	for (size_t i = 0; i < n; i++) {
		const struct lp_sym *s = lp_symtab_at(t, i);
		look(t, c, s->start);
		look(t, c, s->start - 1);
		look(t, c, s->end);
		same(t, f, g, s->start, sized);
		same(t, f, g, s->end, sized);
		same(t, f, g, s->start + (s->end - s->start) / 2, sized);
	}
	for (size_t k = 0; n && k + 4 <= size && k < 4096; k += 4) {
		const struct lp_sym *s = lp_symtab_at(t, (size_t)(data[k] | data[k + 1] << 8) % n);
		same(t, f, g, s->start + (uint64_t)(int8_t)data[k + 2] * (data[k + 3] + 1u), sized);
	}
	lp_symtab_free(t);
	lp_symtab_free(f);
	lp_symtab_free(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	char path[64];
	struct lp_kcache_key key = { 0 };
	struct lp_kcache c;
	uint64_t *image = malloc(size + 8);     /* 8-byte aligned, as a mapping is */

	if (!image)
		return 0;
	memcpy(image, data, size);
	memfile(&fd, data, size, path, sizeof path);
	if (size >= KEY_AT + sizeof key)
		memcpy(&key, data + KEY_AT, sizeof key);
	if (!lp_kcache_parse(image, size, &key, &c))
		walk(&c, image, fd, false, data, size);
	if (!lp_ocache_parse(image, size, &key, &c)) {
		if (c.nr_mods != 1 || c.flaw || c.hidden)
			abort();                /* an object's table has one name, no flaw */
		walk(&c, image, fd, true, data, size);
	}
	free(image);
	return 0;
}
