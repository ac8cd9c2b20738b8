/*
 * optval.c - parsing the text of script options: names, and values of
 * each type.  Everything here reads untrusted command-line strings, and
 * is fuzzed (tests/fuzz/fuzz_optval.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "luaprof/optval.h"

static const char *const type_names[] = { "string", "integer", "number", "boolean", "list" };

int lp_opt_type(const char *s)
{
	for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
		if (!strcmp(s, type_names[i]))
			return (int)i;
	return -EINVAL;
}

const char *lp_opt_type_name(enum lp_opt_type t)
{
	return (unsigned)t < sizeof type_names / sizeof type_names[0] ? type_names[t] : "?";
}

bool lp_opt_name_ok(const char *s, size_t n)
{
	if (n == 0 || n > LP_OPT_NAME_MAX || s[0] == '-' || s[0] == '_')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return false;
	}
	return true;
}

int lp_opt_split(const char *arg, char name[LP_OPT_NAME_MAX + 1], const char **value)
{
	if (strncmp(arg, "--", 2))
		return -EINVAL;
	arg += 2;
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	if (!lp_opt_name_ok(arg, n))
		return -EINVAL;
	memcpy(name, arg, n);
	name[n] = '\0';
	*value = eq ? eq + 1 : NULL;
	return 0;
}

static int64_t suffix(char c)
{
	switch (c) {
	case 'k': case 'K': return 1000;
	case 'm': case 'M': return 1000000;
	case 'g': case 'G': return 1000000000;
	default: return 0;
	}
}

int lp_opt_integer(const char *s, int64_t *out)
{
	char *end;
	const char *digits = s + (*s == '-' || *s == '+');
	int base = digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X') ? 16 : 10;
	errno = 0;
	long long v = strtoll(s, &end, base);
	if (end == s || (*s != '-' && *s != '+' && (*s < '0' || *s > '9')))
		return -EINVAL;
	if (errno == ERANGE)
		return -ERANGE;
	if (*end) {
		int64_t mul = suffix(*end);
		if (!mul || end[1])
			return -EINVAL;
		if (v > INT64_MAX / mul || v < INT64_MIN / mul)
			return -ERANGE;
		v *= mul;
	}
	*out = v;
	return 0;
}

int lp_opt_number(const char *s, double *out)
{
	char *end;
	double d = strtod(s, &end);
	if (end == s || *end || !isfinite(d) || isspace((unsigned char)*s))
		return -EINVAL;
	*out = d;
	return 0;
}

int lp_opt_boolean(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1" };
	static const char *const no[] = { "false", "no", "off", "0" };
	for (size_t i = 0; i < 4; i++) {
		if (!strcasecmp(s, yes[i]))
			return *out = true, 0;
		if (!strcasecmp(s, no[i]))
			return *out = false, 0;
	}
	return -EINVAL;
}

bool lp_opt_list_next(const char **s, const char **start, size_t *len)
{
	const char *p = *s;
	while (*p == ',')
		p++;
	if (!*p)
		return *s = p, false;
	const char *comma = strchr(p, ',');
	*start = p;
	*len = comma ? (size_t)(comma - p) : strlen(p);
	*s = p + *len;
	return true;
}
