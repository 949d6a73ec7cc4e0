/* mkstreams.c - writes the hand-made streams beside it (see README). */
#include "stream.h"
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <unistd.h>
static void out(const char *path, st_header *h, const void *w, const void *d, const void *p) {
	st_error e; int fd = open(path, O_WRONLY|O_CREAT|O_TRUNC, 0644);
	char *argv[] = {"handmade", NULL};
	st_header_add_pg(h, "handmade", "0", 1, argv, &e);
	if (st_write_all(fd, h, w, d, p, 1, 1, &e) < 0) { fprintf(stderr, "%s\n", e.msg); }
	close(fd);
}
int main(void) {
	const int I = ST_INF_I32;
	/* 3 vertices padded to 4: 0->1 (5), 1->2 (-2), 2->0 (4); vertex 3 padding */
	int32_t w[16] = {0,5,I,I,  I,0,-2,I,  4,I,0,I,  I,I,I,0};
	int32_t d[9] = {0,5,3, 2,0,-2, 4,9,0};
	int32_t p[9] = {-1,0,1, 2,-1,1, 2,0,-1};
	st_header h; st_header_init(&h, 3, 4, ST_INT32);
	h.matrices = ST_WEIGHTS; h.flags = ST_DIRECTED|ST_NEGATIVE;
	out("weights3.apm", &h, w, 0, 0); st_header_free(&h);
	st_header_init(&h, 3, 1, ST_INT32);
	h.matrices = ST_WEIGHTS|ST_DIST|ST_PRED; h.flags = ST_DIRECTED|ST_NEGATIVE;
	int32_t w3[9] = {0,5,I, I,0,-2, 4,I,0};
	out("result3.apm", &h, w3, d, p); st_header_free(&h);
	float fi = INFINITY;
	float fd[4] = {0, 0.1f, fi, 0};
	float fw[4] = {0, 0.1f, fi, 0};
	st_header_init(&h, 2, 1, ST_FLOAT32);
	h.matrices = ST_WEIGHTS|ST_DIST; h.flags = ST_DIRECTED;
	out("float2.apm", &h, fw, fd, 0); st_header_free(&h);
	st_header_init(&h, 3, 1, ST_INT32);
	h.matrices = 0; h.flags = ST_DIRECTED|ST_NEGATIVE|ST_NEGCYCLE; h.cycle_vertex = 2;
	out("negcycle.apm", &h, 0, 0, 0); st_header_free(&h);
	return 0;
}
