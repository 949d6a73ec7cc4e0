/* restream - read a stream on stdin and write it again on stdout at level
 * LEVEL (default 1), through whichever deflate engine this copy was linked
 * with.  Built twice (ISA-L and zlib) so tests/cmd/codec.sh can pass
 * streams from one engine to the other.  Prints the engine with -e.
 *   restream [-e] [LEVEL [THREADS]] <in >out */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"

int main(int argc, char **argv)
{
	st_matrices m;
	st_error err;

	if (argc > 1 && !strcmp(argv[1], "-e")) {
		puts(st_engine());
		return 0;
	}
	int level = argc > 1 ? atoi(argv[1]) : 1;
	int threads = argc > 2 ? atoi(argv[2]) : 0;
	if (st_read_all(0, "-", 0, &m, &err) < 0) {
		fprintf(stderr, "restream: %s\n", err.msg);
		return 2;
	}
	int rc = st_write_all(1, &m.h, m.weights, m.dist, m.pred, level, threads, &err);
	if (rc < 0)
		fprintf(stderr, "restream: %s\n", err.msg);
	st_matrices_free(&m);
	return rc < 0 ? 2 : 0;
}
