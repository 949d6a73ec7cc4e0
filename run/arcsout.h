/* arcsout.h - a graph written as a list of arcs (mtx2bin and gengraph
 * --layout, --keep-order): when the list is chosen over the matrix, and the
 * stream written, with the sparse engine's vertex order kept beside it
 * where asked, so that every run on the stream skips computing it. */
#ifndef APSP_ARCSOUT_H
#define APSP_ARCSOUT_H

#include <stdint.h>

#include "stream.h"

/* How a graph is written (--layout): as the weight matrix, as a list of
 * arcs (ST_ARCS), or auto: the list where the matrix would take over
 * LAYOUT_AUTO_MATRIX bytes and the list at most a sixteenth of them.
 * Smaller graphs stay matrices, which every reader takes (earlier
 * versions' too) and which compress to little anyway. */
enum { LAYOUT_AUTO, LAYOUT_MATRIX, LAYOUT_ARCS };
#define LAYOUT_AUTO_MATRIX ((uint64_t)256 << 20)
int arcsout_parse_layout(const char *arg); /* dies with a usage error */
int arcsout_chosen(int layout, uint64_t npad, uint32_t type, uint64_t arcs);

/* --keep-order: a usage error where it cannot be kept (a matrix chosen by
 * --layout, no METIS in this build). */
void arcsout_check_keep(int keep_order, int layout);

/* Write the list of arcs list (h: its header, matrices ST_ARCS, arcs
 * counted) to out, and with keep_order the sparse engine's vertex order
 * (the split nested dissection of the arcs, ord_split_dissection_arcs)
 * beside it.  Dies on error (the output named by tool_output_name()). */
void arcsout_write(int out, st_header *h, const void *list, int keep_order);

#endif
