/* types.h - what every apsp module shares: the error record, the element
 * types, a graph's flags, the INF convention and the size limit.
 * Public: installed as <apsp/types.h> with libapsp (make install; pkg-config
 * apsp); every other public header includes it.
 */
#ifndef APSP_TYPES_H
#define APSP_TYPES_H

#include <stdint.h>

/* Why a call failed: every function that can fail returns a negative value
 * (or NULL) and leaves a message here. */
typedef struct st_error {
	char msg[256];
} st_error;

/* Element types of weights and distances: int32 and float32 are 4 bytes
 * wide, float64 8 (ST_TYPE_SIZE).  Predecessors are int32 whatever the type. */
enum st_type { ST_INT32 = 1, ST_FLOAT32 = 2, ST_FLOAT64 = 3 };
#define ST_TYPE_SIZE(type) ((type) == ST_FLOAT64 ? 8u : 4u)

/* A graph's flags, as a stream's header and a graph reader carry them. */
enum st_flag {
	ST_DIRECTED = 1u << 0,    /* edge (i,j) does not imply (j,i) */
	ST_NEGATIVE = 1u << 1,    /* some edge weight is negative */
	ST_NEGCYCLE = 1u << 2,    /* a negative cycle was found: no distances follow */
};

/* Unreachable in an int32 matrix.  Finite int32 distances and weights lie
 * strictly between -ST_INF_I32 and ST_INF_I32, so the sum of two finite values
 * never overflows.  float32 and float64 use +infinity.  A predecessor of -1 means none. */
#define ST_INF_I32 0x3fffffff

#define ST_MAX_N ((uint64_t)1 << 31) /* vertices; sizes beyond are refused */

/* For programs that mirror the public structs and constants by hand (the
 * Python package, through ctypes): st_layout(name) gives the library's
 * value of "version" (ST_LAYOUT_VERSION, raised whenever a public struct
 * or constant changes), "sizeof S" and "offsetof S.FIELD" of the structs
 * st_error, gs_stats, gs_summary and ce_fault, and of the constants ST_INT32,
 * ST_FLOAT32, ST_FLOAT64, ST_DIRECTED, ST_NEGATIVE, ST_NEGCYCLE, ST_INF_I32,
 * GS_OUT and GS_IN; -1 for a name it does not know.  Such a program
 * refuses a library whose answers differ from its own copies. */
#define ST_LAYOUT_VERSION 2
int64_t st_layout(const char *name);

#endif
