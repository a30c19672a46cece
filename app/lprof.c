#include "lprof.h"

#include "util.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct lprof_line {
	const void *source;   /* the chunk's source string while the state lives: the key */
	int line;
	char *where;          /* "short_src:line", copied at the first sample */
	double seconds;
} lprof_line;

struct lprof {
	lprof_line *v;        /* open addressing, cap a power of two */
	size_t n, cap;
	double last, total;   /* clock at the end of the last sample; seconds charged */
};

/* The monotonic clock (read in user space, unlike a thread's CPU clock, which is a
 * system call: at every call and return that would be most of what is measured). */
static double clock_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

lprof *lprof_new(void)
{
	lprof *p = xcalloc(1, sizeof *p);
	p->cap = 256;
	p->v = xcalloc(p->cap, sizeof *p->v);
	p->last = clock_now();
	return p;
}

void lprof_free(lprof *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->cap; i++)
		free(p->v[i].where);
	free(p->v);
	free(p);
}

static size_t slot_of(const lprof_line *v, size_t cap, const void *source, int line)
{
	size_t h = ((uintptr_t)source >> 4) * 31u + (size_t)line * 2654435761u;
	size_t i = h & (cap - 1);
	while (v[i].where && (v[i].source != source || v[i].line != line))
		i = (i + 1) & (cap - 1);
	return i;
}

static void grow(lprof *p)
{
	size_t cap = p->cap * 2;
	lprof_line *v = xcalloc(cap, sizeof *v);
	for (size_t i = 0; i < p->cap; i++)
		if (p->v[i].where)
			v[slot_of(v, cap, p->v[i].source, p->v[i].line)] = p->v[i];
	free(p->v);
	p->v = v;
	p->cap = cap;
}

void lprof_sample(lprof *p, lua_State *L)
{
	double dt = clock_now() - p->last;
	/* the innermost Lua line: a C function's time (a host call, a string search) is
	 * its caller's */
	lua_Debug ar;
	int level = 0;
	for (;; level++) {
		if (level > 8 || !lua_getstack(L, level, &ar) || !lua_getinfo(L, "Sl", &ar)) {
			p->last = clock_now();
			return;
		}
		if (ar.currentline > 0)
			break;
	}
	p->total += dt;
	if ((p->n + 1) * 2 > p->cap)
		grow(p);
	size_t i = slot_of(p->v, p->cap, ar.source, ar.currentline);
	if (!p->v[i].where) {
		p->v[i].source = ar.source;
		p->v[i].line = ar.currentline;
		p->v[i].where = xasprintf("%s:%d", ar.short_src, ar.currentline);
		p->n++;
	}
	p->v[i].seconds += dt;
	p->last = clock_now(); /* the sample's own time is nobody's */
}

static int heavier(const void *a, const void *b)
{
	const lprof_line *x = *(const lprof_line *const *)a, *y = *(const lprof_line *const *)b;
	return (x->seconds < y->seconds) - (x->seconds > y->seconds);
}

char *lprof_report(const lprof *p, const char *id, size_t top)
{
	const lprof_line **rows = xcalloc(p->n ? p->n : 1, sizeof *rows);
	size_t n = 0;
	for (size_t i = 0; i < p->cap; i++)
		if (p->v[i].where)
			rows[n++] = &p->v[i];
	qsort(rows, n, sizeof *rows, heavier);
	char *out = xasprintf("ferry: profile of %s, %.3f s sampled\n", id, p->total);
	for (size_t i = 0; i < n && i < top; i++) {
		char *more = xasprintf("%s  %5.1f%%  %7.3f s  %s\n", out,
		                       p->total > 0 ? 100.0 * rows[i]->seconds / p->total : 0.0,
		                       rows[i]->seconds, rows[i]->where);
		free(out);
		out = more;
	}
	free(rows);
	return out;
}
