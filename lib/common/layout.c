/* layout.c - the layout of the public structs and constants, told by name
 * (st_layout), for programs that mirror them by hand (the Python package,
 * through ctypes) and must refuse a library that does not match. */
#include <stddef.h>
#include <string.h>

#include "certify.h"
#include "stats.h"
#include "stream.h"

static const struct {
	const char *name;
	int64_t value;
} layout[] = {
	{"version", ST_LAYOUT_VERSION},
	{"sizeof st_error", sizeof(st_error)},
	{"sizeof gs_stats", sizeof(gs_stats)},
	{"offsetof gs_stats.harmonic", offsetof(gs_stats, harmonic)},
	{"sizeof gs_summary", sizeof(gs_summary)},
	{"offsetof gs_summary.wiener_exact", offsetof(gs_summary, wiener_exact)},
	{"sizeof gs_betweenness", sizeof(gs_betweenness)},
	{"offsetof gs_betweenness.arc", offsetof(gs_betweenness, arc)},
	{"sizeof gs_bc_opts", sizeof(gs_bc_opts)},
	{"sizeof ce_fault", sizeof(ce_fault)},
	{"offsetof ce_fault.what", offsetof(ce_fault, what)},
	{"ST_INT32", ST_INT32},
	{"ST_FLOAT32", ST_FLOAT32},
	{"ST_FLOAT64", ST_FLOAT64},
	{"ST_DIRECTED", ST_DIRECTED},
	{"ST_NEGATIVE", ST_NEGATIVE},
	{"ST_NEGCYCLE", ST_NEGCYCLE},
	{"ST_INF_I32", ST_INF_I32},
	{"GS_OUT", GS_OUT},
	{"GS_IN", GS_IN},
};

int64_t st_layout(const char *name)
{
	for (size_t i = 0; i < sizeof layout / sizeof *layout; i++)
		if (!strcmp(layout[i].name, name))
			return layout[i].value;
	return -1;
}
