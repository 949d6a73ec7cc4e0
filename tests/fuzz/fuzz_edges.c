/* fuzz_edges.c - the edge lists reader on arbitrary bytes (see fuzz_graph.h). */
#include "fuzz_graph.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_graph(data, size, GIO_EDGES);
}
