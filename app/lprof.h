/*
 * lprof — where a plugin's time goes, by line of Lua source, for people tuning a check
 * on a large project (FERRY_PROFILE=1 ferry check ...). While profiling, the plugin
 * sandbox's hook calls lprof_sample at every function call and return and every
 * LPROF_STEP VM instructions; each sample charges the time since the previous sample
 * ended to the innermost Lua line, so the time of a host call (a query, a string
 * search) lands on the line that made it, and the sampling's own time on no line. The
 * clock is the monotonic one (a thread's CPU clock is a system call, which at every
 * call and return would be most of what is measured): on a loaded machine a line's
 * share includes time its thread waited for a core, so compare shares within a run.
 *
 * An lprof belongs to one plugin run on one thread; lprof_report's text belongs to the
 * caller, the lprof to whoever made it (lprof_free).
 */
#ifndef FERRY_LPROF_H
#define FERRY_LPROF_H

#include <lua.h>
#include <stddef.h>

#define LPROF_STEP 1000 /* VM instructions between samples while profiling */

typedef struct lprof lprof;

/* A profile starting now. */
lprof *lprof_new(void);
void lprof_free(lprof *p);

/* Charges the time since the previous sample to the innermost Lua line L is running. */
void lprof_sample(lprof *p, lua_State *L);

/* The `top` heaviest lines, one per row ("  41.2%  1.234 s  lib/cuda.lua:652"), under a
 * heading naming the plugin `id`. Caller frees. */
char *lprof_report(const lprof *p, const char *id, size_t top);

#endif
