/*
 * chunks.h - internal to core/: bytes carved from large chunks that are
 * freed together (interned strings, hash map keys).
 */
#ifndef LP_CHUNKS_H
#define LP_CHUNKS_H

#include <stdlib.h>

struct lp_chunk {
	struct lp_chunk *next;
	size_t used, size;
	char data[];
};

/* n bytes from the newest chunk of *head, or from a new one of at least
 * chunk_size bytes; NULL when out of memory.  They stay put until
 * lp_chunks_free(*head). */
static inline char *lp_chunks_alloc(struct lp_chunk **head, size_t n, size_t chunk_size)
{
	struct lp_chunk *c = *head;
	if (!c || c->size - c->used < n) {
		size_t size = n > chunk_size ? n : chunk_size;
		if (!(c = malloc(sizeof *c + size)))
			return NULL;
		c->size = size;
		c->used = 0;
		c->next = *head;
		*head = c;
	}
	char *p = c->data + c->used;
	c->used += n;
	return p;
}

static inline void lp_chunks_free(struct lp_chunk *c)
{
	while (c) {
		struct lp_chunk *next = c->next;
		free(c);
		c = next;
	}
}

#endif
