/* heap.h - a binary min-heap of (key, vertex, tail) for the sparse room's
 * searches: search.c's Dijkstra (tail unused) and preds.c's joining of the
 * vertices left out (key: how far an arc is from tight).  Internal. */
#ifndef APSP_SPARSE_HEAP_H
#define APSP_SPARSE_HEAP_H

#include <stdint.h>
#include <stdlib.h>

typedef struct el_heap_entry {
	double key;
	uint32_t v, u;
} el_heap_entry;

typedef struct el_heap {
	el_heap_entry *at;
	uint64_t size, cap;
} el_heap;

/* Add e, growing the room as needed: 0, or -1 (out of memory). */
static inline int el_heap_push(el_heap *h, el_heap_entry e)
{
	if (h->size == h->cap) {
		const uint64_t cap = h->cap ? 2 * h->cap : 1024;
		el_heap_entry *at = realloc(h->at, cap * sizeof *at);
		if (!at)
			return -1;
		h->at = at, h->cap = cap;
	}
	uint64_t i = h->size++;
	while (i > 0 && h->at[(i - 1) / 2].key > e.key)
		h->at[i] = h->at[(i - 1) / 2], i = (i - 1) / 2;
	h->at[i] = e;
	return 0;
}

/* Take the entry of least key (h not empty). */
static inline el_heap_entry el_heap_pop(el_heap *h)
{
	const el_heap_entry top = h->at[0], last = h->at[--h->size];
	uint64_t i = 0;
	for (;;) {
		uint64_t c = 2 * i + 1;
		if (c >= h->size)
			break;
		if (c + 1 < h->size && h->at[c + 1].key < h->at[c].key)
			c++;
		if (last.key <= h->at[c].key)
			break;
		h->at[i] = h->at[c], i = c;
	}
	if (h->size)
		h->at[i] = last;
	return top;
}

#endif
