/*
 * grow.h - internal to core/: the one way arrays grow here.
 */
#ifndef LP_GROW_H
#define LP_GROW_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Makes room for one more element in the array *pv of *cap elements of
 * elem bytes, nr of them in use: nothing when nr < *cap, else realloc to
 * twice *cap (first when it is 0), at most max elements.  pv is the address
 * of the array's pointer (any object pointer type; read and written with
 * memcpy, so no pointer is accessed through another type).  On failure *pv
 * and *cap are unchanged and -ENOMEM comes back; else 0. */
static inline int lp_grow(void *pv, size_t *cap, size_t nr, size_t elem, size_t first,
			  size_t max)
{
	size_t n = *cap ? *cap * 2 : first;
	void *old, *v;

	if (nr < *cap)
		return 0;
	memcpy(&old, pv, sizeof old);
	if (n > max || n > SIZE_MAX / elem || !(v = realloc(old, n * elem)))
		return -ENOMEM;
	memcpy(pv, &v, sizeof v);
	*cap = n;
	return 0;
}

#endif
