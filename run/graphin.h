/* graphin.h - a graph read from text as the tools read it: Matrix Market,
 * DIMACS .gr or an edge list (lib/graphio.h), plain, gzip-compressed or a
 * member of an archive.  mtx2bin imports it; the engines solve it directly. */
#ifndef APSP_GRAPHIN_H
#define APSP_GRAPHIN_H

#include "graphio.h"

/* Read the graph on fd (path: its name for messages, NULL or "-" for
 * standard input) into g under o.  member: the archive member to read
 * (NULL: NAME/NAME.mtx, or the only matrix).  *label gets a malloc'd short
 * name for messages (the file's or the member's base name).  Dies on any
 * error (exit 2, "file:line: reason"). */
void graphin_read(int fd, const char *path, const char *member, const gio_opts *o,
                  gio_graph *g, char **label);

/* 1 when the input on fd is a graph as text (or compressed, or an archive)
 * rather than a matrix stream, judged by its first byte, which stays to be
 * read: 0 for a stream, and where the byte cannot be looked at without
 * taking it (a terminal) or there is none. */
int graphin_is_text(int fd);

/* 1 where archives are read (built with libarchive), else 0 (gzip only). */
int graphin_archives(void);

#endif
