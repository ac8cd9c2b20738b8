/* Part of include/luaprof/: the core's interface to the layer above it (lua/). */
/*
 * pprof.h - profiles in pprof's format (profile.proto, gzip-compressed):
 * what `go tool pprof`, Pyroscope, Parca and Grafana read.
 *
 * A profile is built by interning: mappings (objects with their address
 * range and build-id), locations (an address in a mapping, with one Line
 * per function, the innermost inlined one first), functions (name, file),
 * and samples (a stack of locations, leaf first, with one value per
 * sample type).  Identical stacks with identical labels are merged, their
 * values summed.  Ids are 1, 2, ... in the order things were first seen,
 * so the same input gives the same bytes.
 */
#ifndef LUAPROF_PPROF_H
#define LUAPROF_PPROF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "luaprof/buf.h"

#define LP_PPROF_MAX_VALUES 8
#define LP_PPROF_MAX_LABELS 8

struct lp_pprof_line {
	const char *function;   /* NULL: "[unknown]" */
	const char *system_name;        /* mangled name, or NULL */
	const char *file;       /* source file, or NULL */
	int64_t line;           /* 0: unknown */
};

struct lp_pprof_label {
	const char *key;
	const char *str;        /* a string label, or NULL for a number */
	int64_t num;
};

struct lp_pprof;

/* An empty profile; NULL and errno on failure. */
struct lp_pprof *lp_pprof_new(void);
void lp_pprof_free(struct lp_pprof *p);

/* Declares the next sample value's type, e.g. ("samples", "count") or
 * ("cpu", "nanoseconds"); before the first sample.  0, -E2BIG past
 * LP_PPROF_MAX_VALUES, -EBUSY after a sample, or -ENOMEM. */
int lp_pprof_sample_type(struct lp_pprof *p, const char *type, const char *unit);

/* The sampling period and its type, the profile's start (ns since the
 * epoch) and length, and the sample type shown by default. 0 or -ENOMEM. */
int lp_pprof_period(struct lp_pprof *p, const char *type, const char *unit, int64_t period);
/* Sets the period alone (once the samples tell it). */
void lp_pprof_period_value(struct lp_pprof *p, int64_t period);
void lp_pprof_times(struct lp_pprof *p, int64_t time_nanos, int64_t duration_nanos);
int lp_pprof_default_type(struct lp_pprof *p, const char *type);

/* The id of the mapping [start, limit) of file at file_offset, added when
 * new (*added set); 0 when out of memory. */
uint64_t lp_pprof_mapping(struct lp_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			  const char *file, bool *added);

/* Sets mapping id's build-id (raw bytes, written as lowercase hex).
 * 0 or -ENOMEM. */
int lp_pprof_build_id(struct lp_pprof *p, uint64_t mapping, const uint8_t *id, size_t len);

/* The id of the location at address in mapping (0: none) with lines
 * (innermost first; n may be 0 for an unsymbolized address); 0 when out of
 * memory. */
uint64_t lp_pprof_location(struct lp_pprof *p, uint64_t mapping, uint64_t address,
			   const struct lp_pprof_line *lines, size_t n);

/* Adds values (one per declared sample type) to the sample of the stack
 * locs (leaf first) with labels.  0, -EINVAL (no sample type declared,
 * too many labels), or -ENOMEM. */
int lp_pprof_add(struct lp_pprof *p, const uint64_t *locs, size_t n, const int64_t *values,
		 const struct lp_pprof_label *labels, size_t nr_labels);

/* Appends the encoded profile to out: gzip-compressed when gzip, else the
 * bare protobuf message.  0, -ENOMEM, or -EIO (zlib). */
int lp_pprof_write(struct lp_pprof *p, struct lp_buf *out, int gzip);

#endif
