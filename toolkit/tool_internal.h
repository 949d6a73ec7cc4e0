/* tool_internal.h - what tool.c shares with its parts beside it
 * (output.c, progress.c, process.c); not for the programs, which include
 * tool.h. */
#ifndef APSP_TOOL_INTERNAL_H
#define APSP_TOOL_INTERNAL_H

/* A fatal message was printed: the exit checks are skipped. */
extern int tool_dying;
/* The reader went away: end as a default SIGPIPE would, without a word. */
_Noreturn void tool_quiet_pipe_exit(void);
/* A pipe's buffer widened (failure is harmless). */
void tool_widen_pipe(int fd);
/* The uncommitted temporary output removed, if any. */
void tool_output_drop(void);
/* At exit: that, and standard output checked. */
void tool_output_at_exit(void);
/* The progress line's clock started (at tool_init). */
void tool_progress_init(void);

#endif
