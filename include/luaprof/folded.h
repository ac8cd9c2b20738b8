/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * folded.h - FlameGraph's folded stacks: one line per stack, frames root
 * first separated by ';', a space, then the count ("a;b;c 12"); a second
 * count makes the line differential ("a;b;c 12 15", as difffolded.pl
 * writes it).
 */
#ifndef LUAPROF_FOLDED_H
#define LUAPROF_FOLDED_H

#include <stddef.h>
#include <stdint.h>

/* Parses one line (no newline; a trailing '\r' is ignored): returns the
 * number of counts (1 or 2), the stack as [line, line + *stack_len) and the
 * counts in counts[] (counts[0] the last one on the line, counts[1] the
 * first of two: the base of a differential line); -EINVAL when the line is not folded text (no count,
 * a count that is not a whole number below 2^63, an empty stack). */
int lp_folded_line(const char *line, size_t len, size_t *stack_len, uint64_t counts[2]);

/* Called for each stack; non-zero stops the parse and is returned. */
typedef int (*lp_folded_fn)(void *ctx, const char *stack, size_t len, const uint64_t *counts,
			    int nr_counts);

/* Parses folded text (len bytes, not NUL-terminated): blank lines and lines
 * starting with '#' are skipped.  Returns 0, fn's non-zero, or -EINVAL at
 * the first bad line, whose number (from 1) goes to *bad_line. */
int lp_folded_parse(const char *buf, size_t len, lp_folded_fn fn, void *ctx, size_t *bad_line);

#endif
