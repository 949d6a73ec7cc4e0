/* omp.h - a one-thread stand-in for fuzz builds where clang has no libomp. */
#ifndef APSP_OMP_STUB_H
#define APSP_OMP_STUB_H
static inline int omp_get_thread_num(void) { return 0; }
static inline int omp_get_num_threads(void) { return 1; }
static inline int omp_get_max_threads(void) { return 1; }
static inline int omp_get_num_procs(void) { return 1; }
#endif
