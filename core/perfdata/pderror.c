/*
 * pderror.c - the reader's sticky error and its string copies, used by every
 * stage of the reader (perfdata_int.h).  A file of its own so that the stages
 * depend on it and on nothing above them: perfdata.c calls the stages, never
 * the other way round.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "perfdata/perfdata_int.h"
#include "util/strtab.h"

int pd_error(struct lp_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (pd->failed)
		return err;
	if (off == PD_NO_OFF)
		n = snprintf(pd->err, sizeof pd->err, "%s: ", pd->path);
	else
		n = snprintf(pd->err, sizeof pd->err, "%s: offset %llu: ", pd->path,
			     (unsigned long long)off);
	if (n > 0 && (size_t)n < sizeof pd->err) {
		va_start(ap, fmt);
		vsnprintf(pd->err + n, sizeof pd->err - (size_t)n, fmt, ap);
		va_end(ap);
	}
	pd->failed = err;
	return err;
}

const char *pd_strdup(struct lp_perfdata *pd, const void *s, size_t n)
{
	return lp_strtab_store(pd->strs, s, strnlen(s, n));
}
