/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * optval.h - script options given on the command line: `--name=value`,
 * `--name` and `--no-name`, and the typed values they carry.
 */
#ifndef LUAPROF_OPTVAL_H
#define LUAPROF_OPTVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define LP_OPT_NAME_MAX 64

enum lp_opt_type { LP_OPT_STRING, LP_OPT_INTEGER, LP_OPT_NUMBER, LP_OPT_BOOLEAN, LP_OPT_LIST };

/* The type named s ("string", "integer", "number", "boolean", "list"), or
 * -EINVAL. */
int lp_opt_type(const char *s);
const char *lp_opt_type_name(enum lp_opt_type t);

/* Whether s is a valid option name: 1 to LP_OPT_NAME_MAX characters of
 * [a-z0-9_-], starting with a letter or digit. */
bool lp_opt_name_ok(const char *s, size_t n);

/* Splits arg ("--name=value" or "--name") into the name (copied into name,
 * NUL-terminated) and the value (a pointer into arg, NULL when there is no
 * '=').  Returns 0, or -EINVAL when arg is not of that form. */
int lp_opt_split(const char *arg, char name[LP_OPT_NAME_MAX + 1], const char **value);

/* Typed values from text; each returns 0 or -EINVAL (-ERANGE for an
 * integer out of range).  Integers are decimal or 0x hex with an optional
 * sign and an optional K/M/G suffix (powers of 1000); numbers as strtod
 * reads them but finite; booleans true/false, yes/no, on/off, 1/0. */
int lp_opt_integer(const char *s, int64_t *out);
int lp_opt_number(const char *s, double *out);
int lp_opt_boolean(const char *s, bool *out);

/* The next element of a comma-separated list: *s advances past it (and its
 * comma); the element is [*start, *start + *len).  Returns false at the end.
 * Empty elements are skipped. */
bool lp_opt_list_next(const char **s, const char **start, size_t *len);

#endif
