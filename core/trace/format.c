/*
 * format.c - parsing a tracepoint's format file (see lp_tp_format_parse):
 *
 *   name: sched_switch
 *   ID: 372
 *   format:
 *   	field:unsigned short common_type;	offset:0;	size:2;	signed:0;
 *   	...
 *   	field:char prev_comm[16];	offset:8;	size:16;	signed:0;
 *   	field:__data_loc char[] filename;	offset:8;	size:4;	signed:0;
 *
 *   print fmt: "...", ...
 *
 * A field's declaration is "TYPE NAME" or "TYPE NAME[N]"; dynamic fields
 * are "__data_loc T[] NAME" (a u32: offset | length << 16 of data further
 * on) and "__rel_loc T[] NAME" (the offset counts from the field's end).
 * Old kernels leave out "signed:"; it is then guessed from the type.
 *
 * The result is one allocation: the format, its fields, then a pool with
 * every string.  The pool can hold twice the text, and no string copied
 * into it is longer than the line it comes from, so it cannot overflow.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "luaprof/trace.h"

#define MAX_OFFSET 65536u      /* a sample's raw data is smaller than this */

struct pool {
	char *p, *end;
};

/* Copies [s, s + n) and a NUL into the pool. */
static const char *pool_put(struct pool *pl, const char *s, size_t n)
{
	char *d = pl->p;
	if (n + 1 > (size_t)(pl->end - pl->p))
		return NULL;
	memcpy(d, s, n);
	d[n] = '\0';
	pl->p += n + 1;
	return d;
}

/* [s, e) without leading and trailing blanks. */
static void trim(const char **s, const char **e)
{
	while (*s < *e && isspace((unsigned char)**s))
		(*s)++;
	while (*e > *s && isspace((unsigned char)(*e)[-1]))
		(*e)--;
}

static bool starts(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);
	return (size_t)(e - s) >= n && !memcmp(s, word, n);
}

/* ---- element sizes and signedness from C type names ----------------------- */

static const struct { const char *name; uint8_t size; bool sign; } ctypes[] = {
	{ "char", 1, true }, { "u8", 1, false }, { "s8", 1, true }, { "__u8", 1, false },
	{ "__s8", 1, true }, { "bool", 1, false }, { "_Bool", 1, false },
	{ "uint8_t", 1, false }, { "int8_t", 1, true },
	{ "short", 2, true }, { "u16", 2, false }, { "s16", 2, true }, { "__u16", 2, false },
	{ "__s16", 2, true }, { "__be16", 2, false }, { "__le16", 2, false },
	{ "uint16_t", 2, false }, { "int16_t", 2, true },
	{ "int", 4, true }, { "u32", 4, false }, { "s32", 4, true }, { "__u32", 4, false },
	{ "__s32", 4, true }, { "__be32", 4, false }, { "__le32", 4, false },
	{ "uint32_t", 4, false }, { "int32_t", 4, true }, { "pid_t", 4, true },
	{ "unsigned", 4, false },
	{ "long", 8, true }, { "u64", 8, false }, { "s64", 8, true }, { "__u64", 8, false },
	{ "__s64", 8, true }, { "__be64", 8, false }, { "__le64", 8, false },
	{ "uint64_t", 8, false }, { "int64_t", 8, true }, { "size_t", 8, false },
	{ "long long", 8, true },
};

/* The C type [s, e) without const/volatile/signed/unsigned qualifiers;
 * *is_unsigned tells whether "unsigned" was among them. */
static void base_type(const char **s, const char *e, bool *is_unsigned)
{
	static const char *const quals[] = { "const ", "volatile ", "unsigned ", "signed " };
	bool again = true;
	*is_unsigned = false;
	while (again) {
		again = false;
		for (size_t i = 0; i < sizeof quals / sizeof *quals; i++)
			if (starts(*s, e, quals[i])) {
				*is_unsigned |= i == 2;
				*s += strlen(quals[i]);
				again = true;
			}
	}
}

/* The size of the C type [s, e) (0 when unknown) and whether it is signed. */
static uint8_t ctype_size(const char *s, const char *e, bool *sign)
{
	bool uns;
	trim(&s, &e);
	if (memchr(s, '*', (size_t)(e - s)))
		return *sign = false, 8;
	base_type(&s, e, &uns);
	if (s == e && uns)
		return *sign = false, 4;        /* "unsigned" alone */
	for (size_t i = 0; i < sizeof ctypes / sizeof *ctypes; i++) {
		size_t n = strlen(ctypes[i].name);
		if ((size_t)(e - s) == n && !memcmp(s, ctypes[i].name, n)) {
			*sign = ctypes[i].sign && !uns;
			return ctypes[i].size;
		}
	}
	*sign = false;
	return 0;
}

static bool is_char(const char *s, const char *e)
{
	bool uns;
	trim(&s, &e);
	base_type(&s, e, &uns);
	return !uns && (size_t)(e - s) == 4 && !memcmp(s, "char", 4);
}

/* ---- one field line ------------------------------------------------------------ */

/* The value of "key:N;" in [s, e), or -1 when absent or not a number. */
static long long attr_value(const char *s, const char *e, const char *key)
{
	size_t n = strlen(key);
	for (const char *p = s; p + n < e; p++) {
		if (memcmp(p, key, n) || (p > s && !isspace((unsigned char)p[-1]) && p[-1] != ';'))
			continue;
		char buf[24];
		size_t k = 0;
		for (p += n; p < e && k + 1 < sizeof buf && *p != ';'; p++)
			buf[k++] = *p;
		buf[k] = '\0';
		char *end;
		long long v = strtoll(buf, &end, 10);
		return end == buf || *end || v < 0 ? -1 : v;
	}
	return -1;
}

/* A declaration's parts, each the text [s, e): its type, its name and
 * its array length ("16" of "char comm[16]"; s NULL when the field is not
 * a fixed array). */
struct span {
	const char *s, *e;
};
struct decl {
	struct span type, name, len;
};

/* Splits the declaration [s, e) into *d. */
static int split_decl(const char *s, const char *e, struct decl *d)
{
	trim(&s, &e);
	d->len.s = d->len.e = NULL;
	if (e > s && e[-1] == ']') {
		const char *open = e - 1;
		while (open > s && *open != '[')
			open--;
		if (*open != '[')
			return -EPROTO;
		d->len = (struct span){ open + 1, e - 1 };
		e = open;
	}
	const char *n = e;
	while (n > s && (isalnum((unsigned char)n[-1]) || n[-1] == '_'))
		n--;
	if (n == e || n == s || isdigit((unsigned char)*n))
		return -EPROTO;         /* no name, or no type before it */
	d->name = (struct span){ n, e };
	const char *ts = s, *te = n;
	trim(&ts, &te);
	d->type = (struct span){ ts, te };
	/* brackets in the type only as a dynamic field's "T[]" */
	const char *br = memchr(ts, '[', (size_t)(te - ts));
	if (br && (br + 2 != te || br[1] != ']' || !(starts(ts, te, "__data_loc") ||
						     starts(ts, te, "__rel_loc"))))
		return -EPROTO;
	return ts < te ? 0 : -EPROTO;
}

/* Sets kind, elem_size and count from the type and the sizes. */
static void classify(struct lp_tp_field *f, const struct decl *d)
{
	const char *ts = d->type.s, *te = d->type.e, *as = d->len.s, *ae = d->len.e;
	bool sign;
	if ((starts(ts, te, "__data_loc") || starts(ts, te, "__rel_loc")) && f->size == 4) {
		f->dyn = true;
		f->rel = starts(ts, te, "__rel_loc");
		ts += f->rel ? 9 : 10;
		if (te - ts >= 2 && te[-1] == ']' && te[-2] == '[')
			te -= 2;
		f->elem_size = ctype_size(ts, te, &sign);
		f->kind = is_char(ts, te) ? LP_TP_STRING : f->elem_size ? LP_TP_ARRAY : LP_TP_BYTES;
		return;
	}
	if (as) {
		char *end;
		unsigned long n = strtoul(as, &end, 0);
		f->elem_size = ctype_size(ts, te, &sign);
		if (end == ae && n && f->size % n == 0 && f->size / n <= 8 &&
		    ((f->size / n) & (f->size / n - 1)) == 0)
			f->elem_size = (uint8_t)(f->size / n);
		f->count = f->elem_size ? f->size / f->elem_size : 0;
		f->kind = is_char(ts, te) ? LP_TP_STRING : f->count ? LP_TP_ARRAY : LP_TP_BYTES;
		return;
	}
	f->kind = (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) ? LP_TP_INT
										 : LP_TP_BYTES;
}

/* The type as shown: "TYPE" or "TYPE[N]". */
static const char *type_text(struct pool *pl, const struct decl *dc)
{
	const char *ts = dc->type.s, *te = dc->type.e, *as = dc->len.s, *ae = dc->len.e;
	char *d = pl->p;
	size_t tn = (size_t)(te - ts), an = as ? (size_t)(ae - as) : 0;
	if (!as)
		return pool_put(pl, ts, tn);
	if (tn + an + 3 > (size_t)(pl->end - pl->p))
		return NULL;
	memcpy(d, ts, tn);
	d[tn] = '[';
	memcpy(d + tn + 1, as, an);
	d[tn + 1 + an] = ']';
	d[tn + 2 + an] = '\0';
	pl->p += tn + an + 3;
	return d;
}

/* "field:DECL;	offset:N;	size:N;	signed:N;" in [s, e). */
static int parse_field(const char *s, const char *e, struct pool *pl, struct lp_tp_field *f)
{
	const char *semi = memchr(s, ';', (size_t)(e - s));
	struct decl d;
	if (!semi || split_decl(s, semi, &d))
		return -EPROTO;
	long long off = attr_value(semi, e, "offset:");
	long long size = attr_value(semi, e, "size:");
	long long sign = attr_value(semi, e, "signed:");
	if (off < 0 || size < 0 || off > MAX_OFFSET || size > MAX_OFFSET)
		return -EPROTO;
	memset(f, 0, sizeof *f);
	f->offset = (uint32_t)off;
	f->size = (uint32_t)size;
	bool guess;
	ctype_size(d.type.s, d.type.e, &guess);
	f->is_signed = sign < 0 ? guess : sign != 0;
	f->name = pool_put(pl, d.name.s, (size_t)(d.name.e - d.name.s));
	f->type = type_text(pl, &d);
	if (!f->name || !f->type)
		return -EPROTO;
	f->common = !strncmp(f->name, "common_", 7);
	classify(f, &d);
	return 0;
}

/* ---- the file ---------------------------------------------------------------------- */

struct parse {
	struct lp_tp_format *f;
	struct lp_tp_field *fields;
	size_t max_fields;
	struct pool pl;
	bool have_id;
};

/* One line [s, e); returns 1 at "print fmt:", where parsing stops. */
static int parse_line(struct parse *ps, const char *s, const char *e)
{
	trim(&s, &e);
	if (starts(s, e, "name:")) {
		const char *v = s + 5, *ve = e;
		trim(&v, &ve);
		ps->f->name = pool_put(&ps->pl, v, (size_t)(ve - v));
		return ps->f->name && *ps->f->name ? 0 : -EPROTO;
	}
	if (starts(s, e, "ID:")) {
		char buf[24], *end;
		size_t n = (size_t)(e - s - 3) < sizeof buf - 1 ? (size_t)(e - s - 3) : sizeof buf - 1;
		memcpy(buf, s + 3, n);
		buf[n] = '\0';
		ps->f->id = strtoull(buf, &end, 10);
		ps->have_id = end != buf && !*end;
		return ps->have_id ? 0 : -EPROTO;
	}
	if (starts(s, e, "field:")) {
		if (ps->f->nr_fields == ps->max_fields)
			return -EPROTO;
		return parse_field(s + 6, e, &ps->pl, &ps->fields[ps->f->nr_fields++]);
	}
	return starts(s, e, "print fmt:") ? 1 : 0;
}

static size_t count_fields(const char *text, size_t len)
{
	size_t n = 0;
	for (const char *p = text, *end = text + len; (p = memmem(p, (size_t)(end - p), "field:", 6));
	     p += 6)
		n++;
	return n;
}

int lp_tp_format_parse(const char *text, size_t len, const char *system,
		       struct lp_tp_format **out)
{
	size_t nf = count_fields(text, len), sys_len = strlen(system);
	size_t pool = 2 * len + sys_len + 2;
	if (len > (64u << 20))
		return -EPROTO;
	struct lp_tp_format *f = calloc(1, sizeof *f + nf * sizeof(struct lp_tp_field) + pool);
	if (!f)
		return -ENOMEM;
	struct parse ps = { .f = f, .fields = (struct lp_tp_field *)(f + 1), .max_fields = nf };
	ps.pl.p = (char *)(ps.fields + nf);
	ps.pl.end = ps.pl.p + pool;
	f->fields = ps.fields;
	f->system = pool_put(&ps.pl, system, sys_len);
	int rc = 0;
	for (const char *s = text, *end = text + len; s < end && !rc;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *e = nl ? nl : end;
		rc = parse_line(&ps, s, e);
		s = e + 1;
	}
	if (rc < 0 || !f->name || !ps.have_id) {
		free(f);
		return -EPROTO;
	}
	*out = f;
	return 0;
}

void lp_tp_format_free(struct lp_tp_format *f)
{
	free(f);
}

const struct lp_tp_field *lp_tp_field_find(const struct lp_tp_format *f, const char *name)
{
	for (size_t i = 0; i < f->nr_fields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}
