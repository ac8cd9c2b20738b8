/*
 * pderror.c - the reader's sticky error and its string copies, used by every
 * stage of the reader (perfdata_int.h).  A file of its own so that the stages
 * depend on it and on nothing above them: perfdata.c calls the stages, never
 * the other way round.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "luaprof/err.h"
#include "perfdata/perfdata_int.h"
#include "util/strtab.h"

int pd_error(struct lp_perfdata *pd, uint64_t off, int err, const char *fmt, ...)
{
	va_list ap;

	if (pd->failed)
		return pd_error_again(pd, err);
	va_start(ap, fmt);
	lp_verr(err, fmt, ap);
	va_end(ap);
	if (off == PD_NO_OFF)
		lp_err(err, "%s: %s", pd->path, lp_last_error());
	else
		lp_err(err, "%s: offset %llu: %s", pd->path, (unsigned long long)off,
		       lp_last_error());
	pd->failmsg = strdup(lp_last_error());
	pd->failed = err;
	return err;
}

int pd_error_again(const struct lp_perfdata *pd, int err)
{
	if (!pd->failed)
		lp_err_clear();
	else
		lp_err(err, "%s", pd->failmsg ? pd->failmsg : "out of memory");
	return err;
}

const char *pd_strdup(struct lp_perfdata *pd, const void *s, size_t n)
{
	return lp_strtab_store(pd->strs, s, strnlen(s, n));
}
