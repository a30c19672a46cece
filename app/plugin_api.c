/* plugin_api — see plugin_api.h. The sandbox and the ctx table plugins see. */
#include "plugin_api.h"
#include "acache.h"
#include "luacopy.h"
#include "lprof.h"
#include "phase.h"
#include "embedded.h"
#include "err.h"
#include "intl.h"
#include "onnx.h"
#include "seal.h"
#include "profile.h"
#include "safetext.h"
#include "bench.h"
#include "gbtext.h"
#include "util.h"

#include <cJSON.h>
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include <ctype.h>
#include <pthread.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Registry keys: their addresses are unique to this file. */
static const char key_sandbox = 0; /* lightuserdata: the papi_sandbox */
static const char key_find = 0;    /* the original string.find, for ctx.files */
static const char key_ctx = 0;     /* the ctx table of the running plugin */
static const char key_fix = 0;     /* the plugin's fix function, or nil */
static const char key_loaded = 0;  /* require's cache: name -> module (false while loading) */
static const char key_data = 0;    /* ctx.data's cache: name -> table */
static const char key_node = 0;    /* the field names of a node, in node_fields' order */

#define BOX_META "ferry.box"
#define HOOK_STEP 10000     /* instructions between budget checks */
#define KILL_STEP 1         /* after a kill, the hook fires at every instruction */
#define MAX_FINDINGS 100000 /* per plugin run */
#define MAX_METRICS 10000   /* per plugin run */
#define MAX_HANDOVER (64u * 1024 * 1024) /* bytes of findings and metrics per plugin run */
#define MAX_MESSAGE (64u * 1024)         /* bytes of one message or suggestion */
#define MAX_NAME 1024                     /* bytes of a category, key, metric name or unit */
#define MAX_EDITS 10000     /* per finding */
#define MAX_FOLLOWS 256     /* sites a finding follows (ctx.report's follows) */
#define MAX_ARGV 256
#define EXEC_OUT_CAP (8u * 1024 * 1024) /* bytes kept of a program's stdout and stderr each */

void papi_plugin_done(papi_plugin *p)
{
	if (!p)
		return;
	free(p->info.id);
	free(p->info.phase);
	free(p->info.title);
	free(p->info.textdomain);
	free(p->info.localedir);
	free(p->info.severity);
	free(p->info.category);
	free(p->info.warning);
	free(p->info.sha256);
	free(p->info.description);
	free(p->info.origin);
	for (size_t i = 0; i < p->info.nsettings; i++) {
		plugin_setting *s = &p->info.settings[i];
		free(s->name);
		free(s->key);
		free(s->type);
		free(s->words);
		free(s->def);
		free(s->help);
	}
	free(p->info.settings);
	free(p->chunk);
	for (size_t i = 0; i < p->ntriggers; i++)
		free(p->triggers[i]);
	free(p->triggers);
	free(p->groups);
	free(p->run_trig);
	pysrc_query_free(p->query);
	for (size_t i = 0; i < p->nqc; i++) {
		free(p->qc_src[i]);
		if (p->qc_owned[i])
			pysrc_query_free(p->qc[i]);
	}
	free(p->qc_src);
	free(p->qc);
	free(p->qc_owned);
	memset(p, 0, sizeof *p);
}

/* An analysis of one file for ctx.shared: being worked out by a plugin (busy), or its
 * value and the translations of its texts as luacopy bytes. */
typedef struct papi_shared {
	struct papi_shared *next;
	char *name;
	int busy;
	char *value, *texts;
	size_t nvalue, ntexts;
} papi_shared;

static void shared_free(papi_shared *v)
{
	free(v->name);
	free(v->value);
	free(v->texts);
	free(v);
}

/* Frees f's shared analyses; with ready_only, those being worked out stay. */
static void shared_drop(papi_file *f, int ready_only)
{
	papi_shared **at = &f->shared;
	while (*at) {
		papi_shared *v = *at;
		if (ready_only && v->busy) {
			at = &v->next;
			continue;
		}
		*at = v->next;
		shared_free(v);
	}
}

static void file_done(papi_file *f)
{
	if (!f)
		return;
	shared_drop(f, 0);
	free(f->path);
	pysrc_free(f->src);
	free(f->problem);
	free(f->hits);
}

void papi_run_done(papi_run *run)
{
	if (!run)
		return;
	project_list_done(&run->files);
	for (size_t i = 0; i < run->npy; i++)
		file_done(&run->py[i]);
	free(run->py);
	for (size_t i = 0; i < run->nextra; i++) {
		file_done(run->extra[i]);
		free(run->extra[i]);
	}
	free(run->extra);
	free(run->triggers);
	for (size_t i = 0; i < run->ndata; i++) {
		free(run->data[i].name);
		cJSON_Delete(run->data[i].json);
	}
	free(run->data);
	for (size_t i = 0; i < run->nqueries; i++)
		free(run->queries[i].users);
	free(run->queries);
	for (size_t i = 0; i < run->nunions; i++) {
		pysrc_combo_free(run->unions[i].combo);
		free(run->unions[i].part);
	}
	free(run->unions);
	free(run->wanted_after);
	for (size_t i = 0; i < run->fp_cap; i++)
		free(run->fp_keys[i]);
	free(run->fp_keys);
	free(run->fp_counts);
	memset(run, 0, sizeof *run);
}

/* A project file's text as a plugin last read it, and what identified it on disk. */
struct papi_text {
	char *path;
	char *text;
	size_t len;
	off_t size;
	struct timespec mtime;
	int binary;               /* holds a NUL byte (looked for once, when read) */
};

static void last_read_drop(papi_sandbox *sb)
{
	if (!sb->last_read)
		return;
	free(sb->last_read->path);
	free(sb->last_read->text);
	free(sb->last_read);
	sb->last_read = NULL;
}

void papi_sandbox_done(papi_sandbox *sb)
{
	if (!sb)
		return;
	last_read_drop(sb);
	free(sb->unsealed);
	sb->unsealed = NULL;
	for (size_t i = 0; i < sb->nfound; i++)
		finding_clear(&sb->found[i]);
	free(sb->found);
	sb->found = NULL;
	sb->nfound = sb->capfound = 0;
	for (size_t i = 0; i < sb->nskipped; i++)
		free(sb->skipped[i]);
	free(sb->skipped);
	sb->skipped = NULL;
	sb->nskipped = 0;
	for (size_t i = 0; i < sb->nmetric; i++) {
		free(sb->metrics[i].name);
		free(sb->metrics[i].unit);
	}
	free(sb->metrics);
	sb->metrics = NULL;
	sb->nmetric = 0;
}

/* ---- the scheduler: plugins on threads, advancing through the files together ------- */

/* A lane runs this many files ahead of one waiting for a slot before it gives its own
 * slot up: few hand-overs, and still only a few dozen trees in memory. */
#define LANE_SLACK 16

static long long now_ms(void);

static void run_lock(papi_run *run)
{
	if (run->sched)
		pthread_mutex_lock(&run->sched->mu);
}

static void run_unlock(papi_run *run)
{
	if (run->sched)
		pthread_mutex_unlock(&run->sched->mu);
}

void papi_sched_init(papi_sched *s, papi_lane *lanes, size_t n, unsigned slots)
{
	pthread_mutex_init(&s->mu, NULL);
	pthread_cond_init(&s->parsed_cv, NULL);
	pthread_cond_init(&s->done_cv, NULL);
	s->slots = slots ? slots : 1;
	s->lanes = lanes;
	s->nlanes = n;
	s->low = -1;
	atomic_init(&s->cancel, 0);
	for (size_t i = 0; i < n; i++) {
		lanes[i].pos = lanes[i].pinned = -1;
		lanes[i].files = 0;
		lanes[i].waiting = lanes[i].granted = lanes[i].finished = 0;
		pthread_cond_init(&lanes[i].cv, NULL);
	}
}

void papi_sched_done(papi_sched *s)
{
	for (size_t i = 0; i < s->nlanes; i++)
		pthread_cond_destroy(&s->lanes[i].cv);
	pthread_cond_destroy(&s->done_cv);
	pthread_cond_destroy(&s->parsed_cv);
	pthread_mutex_destroy(&s->mu);
}

static int lane_before(const papi_lane *a, const papi_lane *b)
{
	return a->pos < b->pos || (a->pos == b->pos && a->order < b->order);
}

/* Hands the free slots to the waiting lanes furthest behind. Lock held. */
static void grant(papi_sched *s)
{
	while (s->slots > 0) {
		papi_lane *best = NULL;
		for (size_t i = 0; i < s->nlanes; i++) {
			papi_lane *o = &s->lanes[i];
			if (o->waiting && (!best || lane_before(o, best)))
				best = o;
		}
		if (!best)
			return;
		best->waiting = 0;
		best->granted = 1;
		s->slots--;
		pthread_cond_signal(&best->cv);
	}
}

/* Waits for a slot. Lock held. */
static void wait_slot(papi_sched *s, papi_lane *l)
{
	l->waiting = 1;
	l->granted = 0;
	grant(s);
	while (!l->granted)
		pthread_cond_wait(&l->cv, &s->mu);
	l->granted = 0;
}

/* Released trees between two returns of free pages to the system. At 64, diffusers' full
 * check peaked at 277-294 MB (the whole unions remember more matches per tree at a time);
 * at 16, 264-265 MB, for about half a second more of system time. */
#define PAPI_TRIM_EVERY 16

static void release_tree(papi_run *run, papi_file *f)
{
	pysrc_free(f->src);
	f->src = NULL;
	shared_drop(f, 1); /* every plugin has moved past the file: no one asks again soon */
	f->state = PAPI_RELEASED;
	/* every lane's thread has its own malloc arena, and a freed tree stays in the arena
	 * of the thread that parsed it: give the pages back now and then, or the process
	 * keeps the high-water mark of every arena */
#ifdef __GLIBC__
	if (++run->released % PAPI_TRIM_EVERY == 0)
		malloc_trim(0);
#endif
}

/* The tree of a file nobody holds and every unfinished lane has passed goes. Lock held. */
static void maybe_release(papi_run *run, long idx)
{
	papi_file *f = &run->py[idx];
	if (idx < run->sched->low && f->users == 0 && f->state == PAPI_PARSED)
		release_tree(run, f);
}

/* Recomputes how far every unfinished lane has come and releases the trees below. */
static void update_low(papi_run *run)
{
	papi_sched *s = run->sched;
	long low = LONG_MAX;
	for (size_t i = 0; i < s->nlanes; i++)
		if (!s->lanes[i].finished && s->lanes[i].pos < low)
			low = s->lanes[i].pos;
	if (low == LONG_MAX || low > (long)run->npy)
		low = (long)run->npy;
	long old = s->low < 0 ? 0 : s->low;
	s->low = low;
	for (long i = old; i < low; i++)
		maybe_release(run, i);
}

static void unpin(papi_run *run, papi_lane *l)
{
	if (l->pinned < 0)
		return;
	long idx = l->pinned;
	l->pinned = -1;
	run->py[idx].users--;
	maybe_release(run, idx);
}

/* Keeps f's tree for l until l comes to it (drop_ahead). Lock held. */
static void hold_ahead(papi_lane *l, papi_file *f)
{
	f->users++;
	f->ahead_for = l;
	l->ahead_held++;
}

/* Lets go of a tree parsed ahead for l that l has not used. Lock held. */
static void drop_ahead(papi_run *run, papi_lane *l, long idx)
{
	papi_file *f = &run->py[idx];
	if (f->ahead_for != l)
		return;
	f->ahead_for = NULL;
	f->users--;
	l->ahead_held--;
	maybe_release(run, idx);
	if (l->ahead_next < l->nahead) /* room for the next: wake the host's thread */
		pthread_cond_broadcast(&run->sched->done_cv);
}

static void pin(papi_run *run, papi_lane *l, long idx)
{
	if (l->pinned == idx)
		return;
	unpin(run, l);
	run->py[idx].users++;
	l->pinned = idx;
	l->files++;
	drop_ahead(run, l, idx); /* its own hold replaces the one made for it */
	/* a file of its list not parsed ahead in time: the ones before it are behind it now */
	for (size_t i = l->ahead_next; i < l->nahead && i < l->ahead_next + PAPI_AHEAD_SCAN; i++)
		if (l->ahead[i] == idx) {
			l->ahead_next = i + 1;
			break;
		}
}

/* Forgets the files l said it would query next, letting go of their trees. Lock held. */
static void forget_ahead(papi_run *run, papi_lane *l)
{
	for (size_t i = 0; i < l->ahead_next; i++)
		drop_ahead(run, l, l->ahead[i]);
	free(l->ahead);
	l->ahead = NULL;
	l->nahead = l->ahead_next = 0;
}

void papi_lane_enter(papi_run *run, papi_lane *l)
{
	pthread_mutex_lock(&run->sched->mu);
	wait_slot(run->sched, l);
	pthread_mutex_unlock(&run->sched->mu);
}

void papi_lane_leave(papi_run *run, papi_lane *l)
{
	papi_sched *s = run->sched;
	pthread_mutex_lock(&s->mu);
	unpin(run, l);
	forget_ahead(run, l);
	l->finished = 1;
	update_low(run);
	s->slots++;
	grant(s);
	pthread_cond_broadcast(&s->done_cv);
	pthread_mutex_unlock(&s->mu);
}

/* The lane moves on to file idx; when a waiting lane is far behind, it gets the slot and
 * this one waits (the wait does not count against the plugin's time limit). Lock held. */
static void lane_advance(papi_sandbox *sb, long idx)
{
	papi_run *run = sb->run;
	papi_sched *s = run->sched;
	papi_lane *l = sb->lane;
	if (idx <= l->pos)
		return;
	l->pos = idx;
	update_low(run);
	int behind = 0;
	for (size_t i = 0; i < s->nlanes && !behind; i++)
		behind = s->lanes[i].waiting && s->lanes[i].pos + LANE_SLACK < idx;
	if (!behind)
		return;
	long long t0 = now_ms();
	s->slots++;
	wait_slot(s, l);
	sb->deadline_ms += now_ms() - t0;
}

static void parse_now(papi_run *run, papi_file *f);

/* Before a plugin waits on parsed_cv for another plugin's work: gives its CPU slot to
 * another lane. Returns the time the wait began, for wait_done. Lock held. */
static long long wait_begin(papi_sandbox *sb)
{
	if (sb->lane) {
		sb->run->sched->slots++;
		grant(sb->run->sched);
	}
	return now_ms();
}

/* After such a wait: takes a slot again, and the wait does not count against the
 * plugin's time limit. Lock held. */
static void wait_done(papi_sandbox *sb, long long t0)
{
	if (sb->lane)
		wait_slot(sb->run->sched, sb->lane);
	sb->deadline_ms += now_ms() - t0;
}

/* Reads and parses py file f when it has no tree; waits while another lane parses it,
 * giving its CPU slot to another lane meanwhile (the wait does not count against the
 * plugin's time limit). Lock held (released during the parse). */
static void ensure_parsed(papi_sandbox *sb, papi_file *f)
{
	papi_run *run = sb->run;
	if (f->state == PAPI_PARSING) {
		long long t0 = wait_begin(sb);
		while (f->state == PAPI_PARSING)
			pthread_cond_wait(&run->sched->parsed_cv, &run->sched->mu);
		wait_done(sb, t0);
	}
	if (f->state != PAPI_UNPARSED && f->state != PAPI_RELEASED)
		return;
	parse_now(run, f);
}

/* Parses f (unparsed or released) and records the result; others asking for it meanwhile
 * wait. Lock held (released during the parse). */
static void parse_now(papi_run *run, papi_file *f)
{
	int first = f->state == PAPI_UNPARSED;
	f->state = PAPI_PARSING;
	run_unlock(run);
	pysrc *src = NULL;
	char *err = NULL;
	pysrc_parse_file(&src, &err, run->opts->root, f->path);
	uint32_t line = 0, col = 0;
	int syntax = first && src && pysrc_first_error(src, &line, &col);
	run_lock(run);
	if (first) {
		f->tried = 1;
		f->syntax_error = syntax;
		f->err_line = line;
		f->err_col = col;
		if (src)
			run->parsed++;
		if (err && !f->problem)
			f->problem = err;
		else
			free(err);
	} else {
		run->reparsed++;
		free(err);
	}
	f->src = src;
	f->state = src ? PAPI_PARSED : PAPI_FAILED;
	if (run->sched)
		pthread_cond_broadcast(&run->sched->parsed_cv);
}

int papi_parse_ahead(papi_run *run)
{
	papi_sched *s = run->sched;
	if (!s || s->slots == 0 || atomic_load(&s->cancel))
		return 0;
	for (size_t i = 0; i < s->nlanes; i++) {
		papi_lane *l = &s->lanes[i];
		while (!l->finished && l->ahead_next < l->nahead && l->ahead_held < PAPI_AHEAD_TREES) {
			long idx = l->ahead[l->ahead_next++];
			papi_file *f = &run->py[idx];
			if (l->pinned == idx)
				continue; /* it holds the tree already */
			if (f->state == PAPI_PARSED && !f->ahead_for) {
				hold_ahead(l, f); /* parsed by another check: kept until this one comes */
				continue;
			}
			if (f->state != PAPI_UNPARSED && f->state != PAPI_RELEASED)
				continue;
			size_t list = l->ahead_lists;
			s->slots--; /* the slot is free: no lane waits for one */
			parse_now(run, f);
			s->slots++;
			grant(s);
			/* held for the lane unless, meanwhile, it finished, gave another list, or
			 * came to this file itself */
			if (f->state == PAPI_PARSED && !l->finished && l->ahead_lists == list && l->pinned != idx)
				hold_ahead(l, f);
			else if (f->state == PAPI_PARSED)
				maybe_release(run, idx);
			run->parsed_ahead++;
			return 1;
		}
	}
	return 0;
}

int papi_bundled_read(char **out, size_t *len, const plugin_host_opts *opts, const char *rel)
{
	*out = NULL;
	*len = 0;
	if (opts->source_dir) {
		char *path = util_path_join(opts->source_dir, rel);
		int rc = util_read_file(out, len, path);
		free(path);
		if (rc != 0)
			return err_set(FERRY_ENOTFOUND, _("plugins/%s: not found"), rel);
		return 0;
	}
	char *name = xasprintf("plugins/%s", rel);
	const struct embedded_file *f = embedded_find(name);
	free(name);
	if (!f)
		return err_set(FERRY_ENOTFOUND, _("plugins/%s: not found"), rel);
	*out = xmalloc(f->len + 1);
	memcpy(*out, f->data, f->len);
	(*out)[f->len] = '\0';
	*len = f->len;
	return 0;
}

/* ---- the sandbox: allocator, hook, message handler ---------------------------------- */

/* Lua's allocator with a cap: a request that would take the state past mem_cap fails,
 * which Lua turns into a memory error (and the hook then makes it stick). */
static void *capped_alloc(void *ud, void *ptr, size_t osize, size_t nsize)
{
	papi_sandbox *sb = ud;
	size_t old = ptr ? osize : 0;
	if (nsize == 0) {
		free(ptr);
		sb->mem_used -= old;
		return NULL;
	}
	if (nsize > old && sb->mem_used + (nsize - old) > sb->mem_cap) {
		sb->mem_exceeded = 1;
		sb->refused = nsize;
		return NULL;
	}
	void *p = realloc(ptr, nsize);
	if (!p)
		return NULL;
	/* The core retries a refused allocation once after an emergency collection: when
	 * that retry succeeds, the cap was not really exceeded. */
	if (sb->mem_exceeded && !sb->killed && nsize == sb->refused)
		sb->mem_exceeded = 0;
	sb->refused = 0;
	sb->mem_used = sb->mem_used - old + nsize;
	if (sb->mem_used > sb->mem_peak)
		sb->mem_peak = sb->mem_used;
	return p;
}

static papi_sandbox *sandbox_of(lua_State *L)
{
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_sandbox);
	papi_sandbox *sb = lua_touserdata(L, -1);
	lua_pop(L, 1);
	return sb;
}

static const char *kill_reason(const papi_sandbox *sb)
{
	if (sb->killed == PAPI_KILL_MEMORY)
		return "memory limit exceeded";
	if (sb->killed == PAPI_KILL_BUDGET)
		return "instruction budget exceeded";
	if (sb->killed == PAPI_KILL_TIME)
		return "time limit exceeded";
	return "plugin state closing";
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Adds cost to the instructions counted and decides whether the run is over: the
 * memory cap, the budget, or the wall-clock deadline. Returns the kill (sticky). */
static int account(papi_sandbox *sb, unsigned long long cost)
{
	if (sb->killed)
		return sb->killed;
	sb->used = cost > ~0ULL - sb->used ? ~0ULL : sb->used + cost;
	if (sb->mem_exceeded)
		sb->killed = PAPI_KILL_MEMORY;
	else if (sb->used > sb->budget)
		sb->killed = PAPI_KILL_BUDGET;
	else if (sb->deadline_ms && sb->used >= sb->clock_at) {
		/* the clock once per HOOK_STEP counted: every hook, not every small library call */
		sb->clock_at = sb->used + HOOK_STEP;
		if (now_ms() > sb->deadline_ms)
			sb->killed = PAPI_KILL_TIME;
	}
	return sb->killed;
}

/* The instruction budget. Once the budget or the memory cap is exceeded the kill is
 * sticky: the hook re-arms itself to fire at every instruction and raises again each
 * time, so a pcall inside the plugin cannot swallow it. (A coarser re-arm is not enough:
 * `while true do pcall(function() while true do end end) end` would always be hit
 * inside the inner loop, in phase with the count.) The pcall and xpcall the plugin sees
 * also re-raise a kill as soon as they return. */
static void count_hook(lua_State *L, lua_Debug *ar)
{
	papi_sandbox *sb = sandbox_of(L);
	if (sb->prof && !sb->killed)
		lprof_sample(sb->prof, L);
	if (ar->event != LUA_HOOKCOUNT)
		return; /* a call or return, seen only while profiling */
	if (account(sb, sb->prof ? LPROF_STEP : HOOK_STEP) || sb->closing ||
	    (sb->run && sb->run->sched && atomic_load(&sb->run->sched->cancel))) {
		lua_sethook(L, count_hook, LUA_MASKCOUNT, KILL_STEP);
		luaL_error(L, "%s", kill_reason(sb));
	}
}

/* Message handler: the error message with a traceback. Non-string error values are
 * described without calling their metamethods (no plugin code runs here). */
int papi_traceback(lua_State *L)
{
	const char *msg = lua_tostring(L, 1);
	if (!msg)
		msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
	luaL_traceback(L, L, msg, 1);
	return 1;
}

/* ---- library calls, charged by their work ------------------------------------------ */

/* The VM hook counts instructions, not the work inside one library call: string.find on
 * 16 MiB, table.move over 2^40 slots, or a backtracking pattern all run in C with the hook
 * silent. Each such function of string, table and utf8 is replaced by a wrapper that
 * charges its work to the budget before calling the original (so the budget and the
 * deadline are checked between calls) and refuses a pattern whose backtracking could run
 * for minutes on the subject it is given. */

#define BYTES_PER_INSTR 4    /* bytes of library work counted as one instruction */
#define PATTERN_LIMIT 1e9    /* worst-case matcher steps allowed for one call */

enum lib_cost {
	LC_LEN1,     /* the length of the first argument */
	LC_PATTERN,  /* match/gsub: the subject's length, and the pattern's worst case */
	LC_FIND,     /* the same, unless the search is plain */
	LC_GMATCH,   /* the same, never anchored */
	LC_REP,      /* the length of the result */
	LC_MOVE,     /* table.move: the number of slots */
	LC_TLEN,     /* the table's length (insert, remove shift it) */
	LC_SORT,     /* n log n of the table's length */
	LC_RANGE,    /* unpack: the range i..j (default 1..#t) */
	LC_CONCAT,   /* concat: the same, its range from the third argument */
};

typedef struct cset {
	uint32_t w[8];
} cset;

static void cs_add(cset *s, unsigned c)
{
	s->w[(c & 255) >> 5] |= 1u << (c & 31);
}

static int cs_meets(const cset *a, const cset *b)
{
	for (int i = 0; i < 8; i++)
		if (a->w[i] & b->w[i])
			return 1;
	return 0;
}

/* Whether character c is in the pattern class %cl (Lua's classes; others are literal). */
static int class_has(int cl, int c)
{
	int r;
	switch (tolower(cl)) {
	case 'a': r = isalpha(c); break;
	case 'c': r = iscntrl(c); break;
	case 'd': r = isdigit(c); break;
	case 'g': r = isgraph(c); break;
	case 'l': r = islower(c); break;
	case 'p': r = ispunct(c); break;
	case 's': r = isspace(c); break;
	case 'u': r = isupper(c); break;
	case 'w': r = isalnum(c); break;
	case 'x': r = isxdigit(c); break;
	default: return cl == c;
	}
	return isupper(cl) ? !r : r != 0;
}

/* The members of every class letter, computed once: the pattern check runs on every
 * string.find of every plugin, and testing 256 characters per class each time was a
 * quarter of a large project's check. */
static cset class_sets[256];
static pthread_once_t class_sets_once = PTHREAD_ONCE_INIT;

static void class_sets_make(void)
{
	for (int cl = 0; cl < 256; cl++)
		for (int c = 0; c < 256; c++)
			if (class_has(cl, c))
				cs_add(&class_sets[cl], (unsigned)c);
}

static void add_class(cset *set, int cl)
{
	pthread_once(&class_sets_once, class_sets_make);
	const cset *m = &class_sets[cl & 255];
	for (int i = 0; i < 8; i++)
		set->w[i] |= m->w[i];
}

/* Reads one single-character class at *pp (a character, '.', %x or [set]) into *set.
 * Returns 0 at a malformed pattern (Lua reports it when the call runs). */
static int pat_class(const char **pp, const char *e, cset *set)
{
	const char *p = *pp;
	memset(set, 0, sizeof *set);
	if (*p == '%') {
		if (p + 1 >= e)
			return 0;
		add_class(set, (unsigned char)p[1]);
		*pp = p + 2;
		return 1;
	}
	if (*p == '.') {
		memset(set, 0xff, sizeof *set);
		*pp = p + 1;
		return 1;
	}
	if (*p != '[') {
		cs_add(set, (unsigned char)*p);
		*pp = p + 1;
		return 1;
	}
	const char *q = p + 1;
	int neg = q < e && *q == '^';
	q += neg;
	do { /* a ']' right after '[' or '[^' is a member */
		if (q >= e)
			return 0;
		if (*q == '%') {
			if (q + 1 >= e)
				return 0;
			add_class(set, (unsigned char)q[1]);
			q += 2;
		} else if (q + 2 < e && q[1] == '-' && q[2] != ']') {
			for (unsigned c = (unsigned char)q[0]; c <= (unsigned char)q[2]; c++)
				cs_add(set, c);
			q += 3;
		} else {
			cs_add(set, (unsigned char)*q++);
		}
	} while (q < e && *q != ']');
	if (q >= e)
		return 0;
	if (neg)
		for (int i = 0; i < 8; i++)
			set->w[i] = ~set->w[i];
	*pp = q + 1;
	return 1;
}

static int cs_full(const cset *s)
{
	for (int i = 0; i < 8; i++)
		if (s->w[i] != 0xffffffffu)
			return 0;
	return 1;
}

/* Whether nothing but closing captures and a final '$' (or nothing) follows p. */
static int ends_after(const char *p, const char *e)
{
	while (p < e && *p == ')')
		p++;
	return p == e || (*p == '$' && p + 1 == e);
}

/* The longest run of repetitions (x*, x+, x-, x?) whose characters overlap, followed by
 * something that can fail: the matcher may try every way to share a subject of n bytes
 * among them, about n^run steps. An unanchored search adds a leading "any prefix". */
static int pattern_run(const char *p, size_t lp, int may_anchor)
{
	const char *e = p + lp;
	int anchored = may_anchor && p < e && *p == '^';
	p += anchored;
	cset chain, full, set;
	memset(&chain, 0, sizeof chain);
	memset(&full, 0xff, sizeof full);
	int run = 0, worst = 0, first = 1;
	while (p < e) {
		if (*p == '(' || *p == ')') {
			p++;
			continue;
		}
		if (*p == '%' && p + 1 < e && p[1] == 'f') { /* a frontier matches no character */
			p += 2;
			if (p >= e || !pat_class(&p, e, &set))
				break;
			continue;
		}
		if (*p == '$' && p + 1 == e) {
			memset(&set, 0, sizeof set);
			p++;
		} else if (*p == '%' && p + 1 < e && (p[1] == 'b' || isdigit((unsigned char)p[1]))) {
			set = full;
			p += p[1] == 'b' ? 4 : 2;
		} else {
			if (!pat_class(&p, e, &set))
				break;
			if (p < e && (*p == '*' || *p == '+' || *p == '-' || *p == '?')) {
				if (*p == '*' && cs_full(&set) && ends_after(p + 1, e))
					break; /* a greedy .* that reaches the end: it matches at once, nothing is retried */
				p++;
				if (first && !anchored) {
					run = 1;
					chain = full;
				}
				first = 0;
				if (run && cs_meets(&chain, &set)) {
					run++;
					for (int i = 0; i < 8; i++)
						chain.w[i] |= set.w[i];
				} else {
					run = 1;
					chain = set;
				}
				continue;
			}
		}
		first = 0;
		if (run >= 2 && run > worst)
			worst = run;
		if (!run || !cs_meets(&chain, &set)) {
			run = 0;
			memset(&chain, 0, sizeof chain);
		}
	}
	return worst;
}

/* The integer argument at idx, or def when absent. */
static lua_Integer opt_arg(lua_State *L, int idx, lua_Integer def)
{
	return lua_isnoneornil(L, idx) ? def : lua_tointeger(L, idx);
}

static unsigned long long span(lua_Integer from, lua_Integer to)
{
	return to < from ? 0 : (unsigned long long)to - (unsigned long long)from + 1;
}

/* The first bytes of a pattern for an error line: control bytes as \n, \t or \xHH, so
 * the message stays one line. */
static const char *pattern_shown(const char *pat, size_t lp, char *out, size_t size)
{
	size_t o = 0;
	for (size_t i = 0; i < lp && o + 5 < size; i++) {
		unsigned char c = (unsigned char)pat[i];
		if (c == '\n' || c == '\t') {
			out[o++] = '\\';
			out[o++] = c == '\n' ? 'n' : 't';
		} else if (c < 0x20 || c == 0x7f) {
			o += (size_t)snprintf(out + o, size - o, "\\x%02x", c);
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return out;
}

/* The work of a library call about to run with the arguments on the stack. */
static unsigned long long lib_cost(lua_State *L, int kind)
{
	size_t len = 0;
	switch (kind) {
	case LC_LEN1:
		if (lua_type(L, 1) == LUA_TSTRING)
			lua_tolstring(L, 1, &len);
		return len / BYTES_PER_INSTR + 1;
	case LC_PATTERN:
	case LC_FIND:
	case LC_GMATCH: {
		size_t lp = 0;
		if (lua_type(L, 1) != LUA_TSTRING && lua_type(L, 1) != LUA_TNUMBER)
			return 1;
		lua_tolstring(L, 1, &len);
		const char *pat = lua_type(L, 2) == LUA_TSTRING ? lua_tolstring(L, 2, &lp) : NULL;
		int plain = kind == LC_FIND && lua_toboolean(L, 4);
		int run = pat && !plain ? pattern_run(pat, lp, kind != LC_GMATCH) : 0;
		if (run >= 2 && pow((double)len, run) > PATTERN_LIMIT) {
			char msg[256], shown[48];
			snprintf(msg, sizeof msg, "string.%s: the pattern '%s' could backtrack for hours on a "
			         "%zu-byte text (%d overlapping repetitions in a row); match line by line or "
			         "make the repeated classes disjoint", lua_tostring(L, lua_upvalueindex(3)),
			         pattern_shown(pat, lp, shown, sizeof shown), len, run);
			luaL_error(L, "%s", msg);
		}
		return len / BYTES_PER_INSTR + 1;
	}
	case LC_REP: {
		if (lua_type(L, 1) == LUA_TSTRING)
			lua_tolstring(L, 1, &len);
		size_t lsep = 0;
		if (lua_type(L, 3) == LUA_TSTRING)
			lua_tolstring(L, 3, &lsep);
		lua_Integer n = lua_tointeger(L, 2);
		if (n <= 0)
			return 1;
		double bytes = (double)n * (double)(len + lsep);
		return bytes / BYTES_PER_INSTR >= 1e18 ? ~0ULL : (unsigned long long)(bytes / BYTES_PER_INSTR) + 1;
	}
	case LC_MOVE:
		return span(lua_tointeger(L, 2), lua_tointeger(L, 3)) + 1;
	case LC_TLEN:
		return lua_type(L, 1) == LUA_TTABLE ? lua_rawlen(L, 1) + 1 : 1;
	case LC_SORT: {
		double n = lua_type(L, 1) == LUA_TTABLE ? (double)lua_rawlen(L, 1) : 0;
		return (unsigned long long)(n * log2(n + 2)) + 1;
	}
	case LC_RANGE:
	case LC_CONCAT: {
		lua_Integer n = lua_type(L, 1) == LUA_TTABLE ? (lua_Integer)lua_rawlen(L, 1) : 0;
		int i = kind == LC_CONCAT ? 3 : 2;
		return span(opt_arg(L, i, 1), opt_arg(L, i + 1, n)) + 1;
	}
	}
	return 1;
}

/* The wrapper: upvalues are the original function, the cost kind and the name. */
static int l_charged(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
	if (account(sb, lib_cost(L, kind)))
		return luaL_error(L, "%s", kill_reason(sb));
	int n = lua_gettop(L);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, n, LUA_MULTRET);
	return lua_gettop(L);
}

/* Replaces the costly functions of the libraries (global tables, before a plugin's
 * environment copies them; strings' metatable reaches the same string table). */
static void charge_libraries(lua_State *L)
{
	static const struct {
		const char *lib, *fn;
		int kind;
	} v[] = {
		{LUA_STRLIBNAME, "find", LC_FIND},      {LUA_STRLIBNAME, "match", LC_PATTERN},
		{LUA_STRLIBNAME, "gsub", LC_PATTERN},   {LUA_STRLIBNAME, "gmatch", LC_GMATCH},
		{LUA_STRLIBNAME, "rep", LC_REP},        {LUA_STRLIBNAME, "sub", LC_LEN1},
		{LUA_STRLIBNAME, "upper", LC_LEN1},     {LUA_STRLIBNAME, "lower", LC_LEN1},
		{LUA_STRLIBNAME, "reverse", LC_LEN1},   {LUA_STRLIBNAME, "byte", LC_LEN1},
		{LUA_STRLIBNAME, "format", LC_LEN1},    {LUA_STRLIBNAME, "unpack", LC_LEN1},
		{LUA_UTF8LIBNAME, "len", LC_LEN1},      {LUA_UTF8LIBNAME, "codepoint", LC_LEN1},
		{LUA_UTF8LIBNAME, "offset", LC_LEN1},   {LUA_TABLIBNAME, "move", LC_MOVE},
		{LUA_TABLIBNAME, "insert", LC_TLEN},    {LUA_TABLIBNAME, "remove", LC_TLEN},
		{LUA_TABLIBNAME, "sort", LC_SORT},      {LUA_TABLIBNAME, "concat", LC_CONCAT},
		{LUA_TABLIBNAME, "unpack", LC_RANGE},
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		lua_getglobal(L, v[i].lib);
		lua_getfield(L, -1, v[i].fn);
		lua_pushinteger(L, v[i].kind);
		lua_pushstring(L, v[i].fn);
		lua_pushcclosure(L, l_charged, 3);
		lua_setfield(L, -2, v[i].fn);
		lua_pop(L, 1);
	}
}

/* ---- boxes: C memory owned by a userdata so a Lua error cannot leak it -------------- */

typedef struct box {
	void *p;                 /* the resource, or NULL */
	void (*release)(void *); /* how to free it */
} box;

/* Releases b's resource now, before the collector would: the collector does not see C
 * memory, so a box left to it holds its resource for as long as the Lua heap is quiet.
 * The box stays on the stack, empty. */
static void box_drop(box *b)
{
	if (b->p && b->release)
		b->release(b->p);
	b->p = NULL;
}

static int box_gc(lua_State *L)
{
	box_drop(luaL_checkudata(L, 1, BOX_META));
	return 0;
}

static void cjson_release(void *p)
{
	cJSON_Delete(p);
}

/* Pushes a new, empty box (closed before any resource is put in it). */
static box *box_new(lua_State *L, void (*release)(void *))
{
	box *b = lua_newuserdatauv(L, sizeof *b, 0);
	b->p = NULL;
	b->release = release;
	luaL_setmetatable(L, BOX_META);
	return b;
}

/* ---- _(): translatable text ------------------------------------------------------- */

static const char key_i18n = 0; /* table: English text _() returned -> its id and arguments (JSON) */

static void free_release(void *p)
{
	free(p);
}

/* Pushes the state's table of remembered texts (key_i18n), made when missing. */
static void push_remembered_texts(lua_State *L)
{
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_i18n);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_rawsetp(L, LUA_REGISTRYINDEX, &key_i18n);
	}
}

/* _(msgid [, args]): msgid with each {name} filled from args, in English, the text
 * findings are stored in. The id and the arguments are remembered under the result, so
 * report() can store them with the finding and every reader sees it in their language. */
static int l_gettext(lua_State *L)
{
	const char *msgid = luaL_checkstring(L, 1);
	int has_args = !lua_isnoneornil(L, 2);
	if (has_args)
		luaL_checktype(L, 2, LUA_TTABLE);
	lua_settop(L, 2);
	box *bx = box_new(L, cjson_release); /* index 3 */
	cJSON *entry = cJSON_CreateObject();
	bx->p = entry;
	cJSON_AddStringToObject(entry, "id", msgid);
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_i18n); /* index 4: the remembered texts, or nil */
	int remembered = lua_istable(L, 4);
	if (has_args) {
		cJSON *args = cJSON_AddObjectToObject(entry, "args");
		lua_pushnil(L);
		while (lua_next(L, 2)) {
			int kt = lua_type(L, -2), vt = lua_type(L, -1);
			if (kt != LUA_TSTRING)
				return luaL_error(L, "_: argument names must be strings");
			if (vt != LUA_TSTRING && vt != LUA_TNUMBER && vt != LUA_TBOOLEAN)
				return luaL_error(L, "_: argument '%s' must be a string, number or boolean",
				                  lua_tostring(L, -2));
			/* an argument that is itself a _() result is kept with its id and arguments,
			 * so it is shown translated too */
			cJSON *nested = NULL;
			if (vt == LUA_TSTRING && remembered) {
				lua_pushvalue(L, -1);
				lua_rawget(L, 4);
				if (lua_isstring(L, -1))
					nested = cJSON_Parse(lua_tostring(L, -1));
				lua_pop(L, 1);
			}
			if (nested) {
				cJSON_AddItemToObject(args, lua_tostring(L, -2), nested);
				lua_pop(L, 1);
				continue;
			}
			/* as .. would show it; code spanning lines quoted on one line */
			char *v = safetext_quote_line(luaL_tolstring(L, -1, NULL));
			cJSON_AddStringToObject(args, lua_tostring(L, -3), v);
			free(v);
			lua_pop(L, 2);
		}
	}
	lua_settop(L, 3);
	box *tb = box_new(L, free_release); /* index 4 */
	tb->p = intl_format(msgid, cJSON_GetObjectItemCaseSensitive(entry, "args"));
	box *jb = box_new(L, free_release); /* index 5 */
	jb->p = cJSON_PrintUnformatted(entry);
	push_remembered_texts(L);
	lua_pushstring(L, tb->p);
	lua_pushstring(L, jb->p);
	lua_rawset(L, -3);
	lua_pushstring(L, tb->p);
	box_drop(bx); /* every message goes through here: free its parts now */
	box_drop(tb);
	box_drop(jb);
	return 1;
}

/* N_(msgid): msgid itself, marked for the catalog; translated where it is used, _(msgid). */
static int l_gettext_noop(lua_State *L)
{
	luaL_checkstring(L, 1);
	lua_settop(L, 1);
	return 1;
}

/* The remembered id and arguments of text, as JSON (Lua-owned), or NULL. */
static const char *i18n_of(lua_State *L, const char *text)
{
	if (!text)
		return NULL;
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_i18n);
	if (!lua_istable(L, -1)) {
		lua_pop(L, 1);
		return NULL;
	}
	lua_pushstring(L, text);
	lua_rawget(L, -2);
	const char *json = lua_tostring(L, -1);
	lua_remove(L, -2); /* the result stays on the stack, anchoring the string */
	return json;
}

/* ---- environment and require -------------------------------------------------------- */

static int l_print(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	luaL_Buffer b;
	int n = lua_gettop(L);
	luaL_buffinit(L, &b);
	for (int i = 1; i <= n; i++) {
		if (i > 1)
			luaL_addchar(&b, '\t');
		luaL_tolstring(L, i, NULL);
		luaL_addvalue(&b);
	}
	luaL_pushresult(&b);
	if (getenv("FERRY_DEBUG"))
		fprintf(stderr, "ferry: %s: %s\n", sb->plugin ? sb->plugin->info.id : sb->origin,
		        lua_tostring(L, -1));
	return 0;
}

static int l_collectgarbage(lua_State *L)
{
	const char *opt = luaL_optstring(L, 1, "count");
	if (strcmp(opt, "count") != 0)
		return luaL_error(L, "collectgarbage: only \"count\" is allowed");
	int kb = lua_gc(L, LUA_GCCOUNT, 0), rest = lua_gc(L, LUA_GCCOUNTB, 0);
	lua_pushnumber(L, (lua_Number)kb + (lua_Number)rest / 1024.0);
	return 1;
}

/* After a kill or a read of altered evidence, the error goes on up instead of being caught. */
static void check_killed(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	if (!sb->killed && sb->mem_exceeded)
		sb->killed = PAPI_KILL_MEMORY;
	if (sb->killed || sb->closing)
		luaL_error(L, "%s", kill_reason(sb));
	if (sb->unsealed)
		luaL_error(L, "%s", sb->unsealed);
}

static int l_pcall(lua_State *L)
{
	luaL_checkany(L, 1);
	int st = lua_pcall(L, lua_gettop(L) - 1, LUA_MULTRET, 0);
	check_killed(L);
	lua_pushboolean(L, st == LUA_OK);
	lua_insert(L, 1);
	return lua_gettop(L);
}

/* xpcall whose message handler runs after the failed call has unwound, as an ordinary
 * call. Lua runs a message handler with hooks switched off (and a kill raised by the hook
 * leaves them off), so a handler run in place could loop out of the budget's reach. The
 * plugin sees the same results; only where the handler runs differs, which nothing in
 * the sandbox can observe (there is no debug library). */
static int l_xpcall(lua_State *L)
{
	int n = lua_gettop(L);
	luaL_checktype(L, 2, LUA_TFUNCTION);
	lua_pushvalue(L, 1); /* handler, f, args... */
	lua_copy(L, 2, 1);
	lua_copy(L, -1, 2);
	lua_pop(L, 1);
	int st = lua_pcall(L, n - 2, LUA_MULTRET, 0);
	check_killed(L);
	if (st == LUA_OK) {
		lua_pushboolean(L, 1);
		lua_replace(L, 1);
		return lua_gettop(L);
	}
	/* stack: handler, error */
	st = lua_pcall(L, 1, 1, 0);
	check_killed(L);
	lua_pushboolean(L, 0);
	lua_insert(L, -2);
	if (st != LUA_OK) {
		lua_pop(L, 1);
		lua_pushliteral(L, "error in error handling");
	}
	return 2;
}

/* setmetatable without finalizers: Lua runs __gc with hooks switched off, so a
 * finalizer could loop forever out of the budget's reach. */
static int l_setmetatable(lua_State *L)
{
	if (lua_type(L, 2) == LUA_TTABLE) {
		lua_pushliteral(L, "__gc");
		int t = lua_rawget(L, 2);
		lua_pop(L, 1);
		if (t != LUA_TNIL)
			return luaL_error(L, "setmetatable: __gc finalizers are not allowed in plugins");
	}
	lua_settop(L, 2);
	lua_pushvalue(L, lua_upvalueindex(1));
	lua_insert(L, 1);
	lua_call(L, 2, 1);
	return 1;
}

static int l_require(lua_State *L);

static void copy_lib(lua_State *L, int env, const char *name, const char *skip)
{
	lua_getglobal(L, name);
	lua_newtable(L);
	lua_pushnil(L);
	while (lua_next(L, -3)) {
		if (lua_type(L, -2) == LUA_TSTRING && skip && strcmp(lua_tostring(L, -2), skip) == 0) {
			lua_pop(L, 1);
			continue;
		}
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, -4);
	}
	lua_setfield(L, env, name);
	lua_pop(L, 1);
}

/* Pushes a fresh environment built from the allow-list (see plugins/README.md). */
static void push_env(lua_State *L)
{
	static const char *const base[] = {
		"assert", "error", "ipairs", "next", "pairs", "select",
		"tonumber", "tostring", "type", "rawequal", "rawget", "rawset", "rawlen",
		"getmetatable", "_VERSION", NULL,
	};
	lua_newtable(L);
	int env = lua_gettop(L);
	for (int i = 0; base[i]; i++) {
		lua_getglobal(L, base[i]);
		lua_setfield(L, env, base[i]);
	}
	lua_pushcfunction(L, l_print);
	lua_setfield(L, env, "print");
	lua_pushcfunction(L, l_gettext);
	lua_setfield(L, env, "_");
	lua_pushcfunction(L, l_gettext_noop);
	lua_setfield(L, env, "N_");
	lua_pushcfunction(L, l_collectgarbage);
	lua_setfield(L, env, "collectgarbage");
	lua_pushcfunction(L, l_require);
	lua_setfield(L, env, "require");
	lua_getglobal(L, "setmetatable");
	lua_pushcclosure(L, l_setmetatable, 1);
	lua_setfield(L, env, "setmetatable");
	lua_pushcfunction(L, l_pcall);
	lua_setfield(L, env, "pcall");
	lua_pushcfunction(L, l_xpcall);
	lua_setfield(L, env, "xpcall");
	copy_lib(L, env, LUA_STRLIBNAME, "dump");
	copy_lib(L, env, LUA_TABLIBNAME, NULL);
	copy_lib(L, env, LUA_MATHLIBNAME, NULL);
	copy_lib(L, env, LUA_UTF8LIBNAME, NULL);
	lua_pushvalue(L, env);
	lua_setfield(L, env, "_G");
}

/* Chunks compiled so far in this process, as Lua bytecode, by chunk name and text: a check
 * run loads every plugin twice (its declaration, then its run, in separate Lua states) and
 * each library once per plugin using it, and compiling that source again each time was
 * most of the cost of a run on a small project. Loading the bytecode is about eight times
 * faster than compiling the text. Only bytecode lua_dump made here from text that
 * compiled is ever loaded as binary; a plugin's own chunks stay text ("t"). Entries live
 * until the process ends; bounded by COMPILED_MAX (further chunks compile each time). */
#define COMPILED_MAX 512
typedef struct compiled_chunk {
	char *name, *text;        /* owned copies: the key */
	size_t len;
	unsigned long long hash;
	sbuf code;                /* lua_dump's output */
} compiled_chunk;
static struct {
	pthread_mutex_t mu;
	compiled_chunk c[COMPILED_MAX];
	size_t n;
} compiled = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int dump_to_sbuf(lua_State *L, const void *p, size_t sz, void *ud)
{
	(void)L;
	sbuf_add(ud, p, sz);
	return 0;
}

/* Pushes the compiled chunk for text, from the process's bytecode when it compiled before;
 * else raises the compiler's error. */
static void load_compiled(lua_State *L, const char *text, size_t len, const char *chunkname)
{
	unsigned long long h = util_fnv1a(text, len);
	int found = 0;
	pthread_mutex_lock(&compiled.mu);
	for (size_t i = 0; i < compiled.n && !found; i++) {
		const compiled_chunk *c = &compiled.c[i];
		if (c->hash == h && c->len == len && strcmp(c->name, chunkname) == 0 &&
		    memcmp(c->text, text, len) == 0) {
			found = 1;
			/* entries never change once added: the buffer can be read unlocked, but
			 * the load is short and keeps this simple */
			if (luaL_loadbufferx(L, c->code.buf, c->code.len, chunkname, "b") != LUA_OK)
				found = -1;
		}
	}
	pthread_mutex_unlock(&compiled.mu);
	if (found == -1)
		lua_error(L); /* out of memory within the plugin's cap */
	if (found)
		return;
	if (luaL_loadbufferx(L, text, len, chunkname, "t") != LUA_OK)
		lua_error(L);
	sbuf code;
	sbuf_init(&code);
	lua_dump(L, dump_to_sbuf, &code, 0);
	pthread_mutex_lock(&compiled.mu);
	if (compiled.n < COMPILED_MAX) {
		compiled_chunk *c = &compiled.c[compiled.n++];
		c->name = xstrdup(chunkname);
		c->text = xmalloc(len ? len : 1);
		memcpy(c->text, text, len);
		c->len = len;
		c->hash = h;
		c->code = code;
		sbuf_init(&code);
	}
	pthread_mutex_unlock(&compiled.mu);
	sbuf_done(&code);
}

/* Loads text as a chunk in a fresh environment and calls it (errors propagate). */
static void load_in_env(lua_State *L, const char *text, size_t len, const char *chunkname, int nres)
{
	load_compiled(L, text, len, chunkname);
	push_env(L);
	if (!lua_setupvalue(L, -2, 1))
		lua_pop(L, 1);
	lua_call(L, 0, nres);
}

static int valid_name(const char *s, int allow_dash)
{
	if (!*s)
		return 0;
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || (allow_dash && c == '-')))
			return 0;
	}
	return 1;
}

/* require(name): only plugins/lib/<name>.lua of the bundled source, as text. */
static int l_require(lua_State *L)
{
	const char *name = luaL_checkstring(L, 1);
	papi_sandbox *sb = sandbox_of(L);
	if (!valid_name(name, 0))
		return luaL_error(L, "require: '%s' is not a module of plugins/lib", name);
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_loaded);
	int cache = lua_gettop(L);
	lua_getfield(L, cache, name);
	if (lua_toboolean(L, -1))
		return 1;
	if (!lua_isnil(L, -1))
		return luaL_error(L, "require: '%s' requires itself", name);
	lua_pop(L, 1);
	box *b = box_new(L, free);
	char *rel = xasprintf("lib/%s.lua", name);
	size_t len;
	int rc = papi_bundled_read((char **)&b->p, &len, sb->opts, rel);
	free(rel);
	if (rc != 0)
		return luaL_error(L, "require: no module '%s' in plugins/lib", name);
	lua_pushboolean(L, 0);
	lua_setfield(L, cache, name);
	char *chunkname = xasprintf("@plugins/lib/%s.lua", name);
	lua_pushstring(L, chunkname);
	free(chunkname);
	load_in_env(L, b->p, len, lua_tostring(L, -1), 1);
	box_drop(b); /* the module ran: its source text is not needed */
	if (lua_isnil(L, -1)) {
		lua_pop(L, 1);
		lua_pushboolean(L, 1);
	}
	lua_pushvalue(L, -1);
	lua_setfield(L, cache, name);
	return 1;
}

/* ---- files ------------------------------------------------------------------------- */

static papi_run *run_of(lua_State *L, papi_sandbox *sb)
{
	if (!sb->run)
		luaL_error(L, "ctx: only available while the plugin runs");
	return sb->run;
}

static int by_path(const void *key, const void *elem)
{
	return strcmp(key, ((const papi_file *)elem)->path);
}

static papi_file *py_file(papi_run *run, const char *path)
{
	if (!run->npy)
		return NULL;
	return bsearch(path, run->py, run->npy, sizeof *run->py, by_path);
}

static void seal_stored(lua_State *L, papi_run *run, const char *abs);

/* Reads a project file for a plugin. Returns its text, borrowed from the parsed tree or
 * from the plugin's last read (sb->last_read: valid until its next file_text call), or
 * NULL with the reason pushed on the stack. Exactly one value is pushed either way (nil
 * with a text). *binary (when not NULL) says whether the text holds a NUL byte: known
 * without a scan (a tree's text never does; a read is scanned once), since checks call
 * this once per node and scanning the whole file each time made those calls quadratic. */
static const char *file_text_of(lua_State *L, papi_sandbox *sb, const char *path, size_t *len, int *binary)
{
	int ignored;
	if (!binary)
		binary = &ignored;
	*binary = 0;
	papi_run *run = run_of(L, sb);
	papi_file *f = py_file(run, path);
	const char *text = NULL;
	run_lock(run);
	if (f && f->state == PAPI_PARSED) {
		if (sb->lane)
			pin(run, sb->lane, f - run->py); /* the text stays while the lane holds it */
		text = pysrc_text(f->src, len);
	}
	run_unlock(run);
	if (text) {
		lua_pushnil(L);
		return text;
	}
	char *abs = NULL;
	if (project_resolve(&abs, run->opts->root, path) != 0) {
		lua_pushstring(L, err_message());
		return NULL;
	}
	if (strstr(abs, "/.ferry/artifacts/")) { /* a file of an ingested artifact: sealed as ctx.read_artifact reads it */
		box *ab = box_new(L, free); /* freed also when the seal raises */
		ab->p = abs;
		seal_stored(L, run, abs);
		ab->p = NULL;
		lua_pop(L, 1);
	}
	struct stat st;
	if (stat(abs, &st) != 0 || !S_ISREG(st.st_mode)) {
		free(abs);
		lua_pushfstring(L, "%s: not a regular file", path);
		return NULL;
	}
	if ((unsigned long long)st.st_size > PAPI_MAX_SOURCE) {
		free(abs);
		lua_pushfstring(L, "%s: file too large (%d MiB)", path, (int)(st.st_size >> 20));
		return NULL;
	}
	struct papi_text *t = sb->last_read;
	if (t && strcmp(t->path, path) == 0 && t->size == st.st_size && t->mtime.tv_sec == st.st_mtim.tv_sec &&
	    t->mtime.tv_nsec == st.st_mtim.tv_nsec) {
		free(abs);
		lua_pushnil(L);
		*len = t->len;
		*binary = t->binary;
		return t->text;
	}
	char *read = NULL;
	int rc = util_read_file(&read, len, abs);
	free(abs);
	if (rc != 0) {
		lua_pushfstring(L, "%s: unreadable", path);
		return NULL;
	}
	last_read_drop(sb);
	t = sb->last_read = xcalloc(1, sizeof *t);
	t->path = xstrdup(path);
	t->text = read;
	t->len = *len;
	t->size = st.st_size;
	t->mtime = st.st_mtim;
	t->binary = *binary = memchr(read, '\0', *len) != NULL;
	sb->reads++;
	run_lock(run);
	run->reads++;
	run->read_bytes += *len;
	run_unlock(run);
	lua_pushnil(L);
	return read;
}

static const char *file_text(lua_State *L, papi_sandbox *sb, const char *path, size_t *len)
{
	return file_text_of(L, sb, path, len, NULL);
}

/* ctx.read / ctx.lines / node_text refuse binary files. */
static const char *text_for_plugin(lua_State *L, papi_sandbox *sb, const char *path, size_t *len)
{
	int binary;
	const char *text = file_text_of(L, sb, path, len, &binary);
	if (text && binary) {
		lua_pop(L, 1);
		lua_pushfstring(L, "%s: binary file", path);
		return NULL;
	}
	return text;
}

static int ctx_files(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	int has_pattern = !lua_isnoneornil(L, 1);
	if (has_pattern)
		luaL_checkstring(L, 1);
	lua_newtable(L);
	lua_Integer k = 0;
	for (size_t i = 0; i < run->files.n; i++) {
		const char *p = run->files.paths[i];
		if (has_pattern) {
			lua_rawgetp(L, LUA_REGISTRYINDEX, &key_find);
			lua_pushstring(L, p);
			lua_pushvalue(L, 1);
			lua_call(L, 2, 1);
			int hit = !lua_isnil(L, -1);
			lua_pop(L, 1);
			if (!hit)
				continue;
		}
		lua_pushstring(L, p);
		lua_rawseti(L, -2, ++k);
	}
	return 1;
}

int papi_offered(const papi_plugin *p, const unsigned char *hits)
{
	if (p->ntriggers == 0)
		return 1;
	if (!hits)
		return 0;
	/* triggers of one group are contiguous (see the declaration parser) */
	for (size_t t = 0; t < p->ntriggers;) {
		size_t end = t;
		int all = 1;
		while (end < p->ntriggers && p->groups[end] == p->groups[t]) {
			all &= hits[p->run_trig[end]] != 0;
			end++;
		}
		if (all)
			return 1;
		t = end;
	}
	return 0;
}

static int ctx_python_files(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	lua_newtable(L);
	lua_Integer k = 0;
	for (size_t i = 0; i < run->npy; i++) {
		papi_file *f = &run->py[i];
		if (!f->hits)
			continue; /* unreadable, binary or not UTF-8 */
		if (!papi_offered(sb->plugin, f->hits))
			continue;
		lua_pushstring(L, f->path);
		lua_rawseti(L, -2, ++k);
	}
	return 1;
}

/* The text of the file named by argument 1 for a ctx call, or NULL after pushing nil and
 * the reason (the caller then returns 2 values). */
static const char *ctx_file_text(lua_State *L, size_t *len)
{
	papi_sandbox *sb = sandbox_of(L);
	const char *text = text_for_plugin(L, sb, luaL_checkstring(L, 1), len);
	if (!text) {
		lua_pushnil(L);
		lua_insert(L, -2);
	}
	return text;
}

static int ctx_read(lua_State *L)
{
	size_t len;
	const char *text = ctx_file_text(L, &len);
	if (!text)
		return 2;
	lua_pushlstring(L, text, len);
	return 1;
}

static int ctx_lines(lua_State *L)
{
	size_t len;
	const char *text = ctx_file_text(L, &len);
	if (!text)
		return 2;
	lua_newtable(L);
	lua_Integer k = 0;
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len;
		size_t stop = end;
		if (stop > at && text[stop - 1] == '\r')
			stop--;
		lua_pushlstring(L, text + at, stop - at);
		lua_rawseti(L, -2, ++k);
		at = end + 1;
	}
	return 1;
}

/* ctx.loc(path, comment?): counts the file's lines that hold code: not blank and, when
 * a comment prefix is given, not starting (after white space) with it. In C because a
 * survey counts every file of a large project. */
static int ctx_loc(lua_State *L)
{
	size_t clen = 0;
	const char *comment = luaL_optlstring(L, 2, "", &clen);
	size_t len;
	const char *text = ctx_file_text(L, &len);
	if (!text)
		return 2;
	lua_Integer n = 0;
	size_t at = 0;
	while (at < len) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t end = nl ? (size_t)(nl - text) : len, i = at;
		while (i < end && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\f'))
			i++;
		if (i < end && !(clen && end - i >= clen && memcmp(text + i, comment, clen) == 0))
			n++;
		at = end + 1;
	}
	lua_pushinteger(L, n);
	return 1;
}

/* ctx.find_names(path, names): the distinct identifiers of the file's text that are keys
 * of the table names, in the order they first appear. An identifier is what Lua's
 * "[%a_][%w_]*" finds scanning the text (ASCII letters, digits and '_', not starting with
 * a digit); comments and strings are not told apart. In C because a project-wide search
 * looks for hundreds of names in every file, and a token at a time in Lua was the search's
 * whole cost. The keys go into a hash set (Lua-owned memory, so an error midway leaks
 * nothing) once per call. */
typedef struct name_set {
	const char **key;
	size_t *len;
	unsigned char *seen;
	size_t mask;
} name_set;

static long name_find(const name_set *set, const char *s, size_t n)
{
	for (size_t i = util_fnv1a(s, n) & set->mask;; i = (i + 1) & set->mask) {
		if (!set->key[i])
			return -1;
		if (set->len[i] == n && memcmp(set->key[i], s, n) == 0)
			return (long)i;
	}
}

static int ctx_find_names(lua_State *L)
{
	luaL_checktype(L, 2, LUA_TTABLE);
	size_t n = 0;
	lua_pushnil(L);
	while (lua_next(L, 2)) {
		if (lua_type(L, -2) == LUA_TSTRING)
			n++;
		lua_pop(L, 1);
	}
	size_t len;
	const char *text = ctx_file_text(L, &len);
	if (!text)
		return 2;
	size_t cap = 16;
	while (cap < 2 * n + 2)
		cap *= 2;
	size_t bytes = cap * (sizeof(const char *) + sizeof(size_t) + 1);
	char *block = lua_newuserdatauv(L, bytes, 0);
	memset(block, 0, bytes);
	name_set set = {(const char **)(void *)block, (size_t *)(void *)(block + cap * sizeof(const char *)),
	                (unsigned char *)block + cap * (sizeof(const char *) + sizeof(size_t)), cap - 1};
	/* the keys stay alive in the table at index 2 for the whole call */
	lua_pushnil(L);
	while (lua_next(L, 2)) {
		lua_pop(L, 1);
		if (lua_type(L, -1) != LUA_TSTRING)
			continue;
		size_t kl;
		const char *k = lua_tolstring(L, -1, &kl);
		size_t i = util_fnv1a(k, kl) & set.mask;
		while (set.key[i])
			i = (i + 1) & set.mask;
		set.key[i] = k;
		set.len[i] = kl;
	}
	lua_newtable(L);
	lua_Integer found = 0;
	for (size_t at = 0; at < len;) {
		if (!util_ident_start((unsigned char)text[at])) {
			at++;
			continue;
		}
		size_t start = at++;
		while (at < len && util_ident_char((unsigned char)text[at]))
			at++;
		long slot = n ? name_find(&set, text + start, at - start) : -1;
		if (slot >= 0 && !set.seen[slot]) {
			set.seen[slot] = 1;
			lua_pushlstring(L, text + start, at - start);
			lua_rawseti(L, -2, ++found);
		}
	}
	return 1;
}

static int ctx_node_text(lua_State *L)
{
	lua_Integer s = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
	size_t len;
	const char *text = ctx_file_text(L, &len);
	if (!text)
		return 2;
	if (s < 0 || e < s || (size_t)e > len)
		return luaL_error(L, "node_text: range %d..%d outside %s", (int)s, (int)e, lua_tostring(L, 1));
	lua_pushlstring(L, text + s, (size_t)(e - s));
	return 1;
}

/* ctx.find(path, literal[, start_byte, end_byte]): the byte offset of the first occurrence
 * of literal in the file, or in that range of it; nil when there is none. Searched in C:
 * copying each function's text into Lua to look for one word cost the CUDA-dependence index
 * more than the queries it ran. */
static int ctx_find(lua_State *L)
{
	size_t nlit;
	const char *lit = luaL_checklstring(L, 2, &nlit);
	lua_Integer s = luaL_optinteger(L, 3, 0);
	size_t len;
	const char *text = ctx_file_text(L, &len);
	if (!text)
		return 2;
	lua_Integer e = luaL_optinteger(L, 4, (lua_Integer)len);
	if (s < 0 || e < s || (size_t)e > len)
		return luaL_error(L, "find: range %d..%d outside %s", (int)s, (int)e, lua_tostring(L, 1));
	const char *at = nlit ? memmem(text + s, (size_t)(e - s), lit, nlit) : text + s;
	if (at)
		lua_pushinteger(L, (lua_Integer)(at - text));
	else
		lua_pushnil(L);
	return 1;
}

/* ---- queries ----------------------------------------------------------------------- */

typedef struct cap_rec {
	size_t match;          /* index of the match it belongs to */
	pysrc_capture cap;     /* borrowed strings: query, grammar and source outlive the call */
} cap_rec;

typedef struct cap_list {
	cap_rec *v;
	size_t n, cap, matches;
	size_t bytes, limit;  /* estimated Lua bytes of the matches so far, and the most allowed */
	int overflow;
} cap_list;

static void cap_list_release(void *p)
{
	cap_list *l = p;
	free(l->v);
	free(l);
}

/* Bytes a capture takes once it is a Lua node table (fields, strings, the match table). */
#define NODE_COST 512

static int collect_match(const pysrc_capture *caps, size_t ncaps, void *payload)
{
	cap_list *l = payload;
	for (size_t i = 0; i < ncaps; i++)
		l->bytes += NODE_COST + (caps[i].end_byte - caps[i].start_byte);
	if (l->bytes > l->limit) {
		l->overflow = 1;
		return 1;
	}
	for (size_t i = 0; i < ncaps; i++) {
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 64;
			l->v = xrealloc(l->v, l->cap * sizeof *l->v);
		}
		l->v[l->n].match = l->matches;
		l->v[l->n].cap = caps[i];
		l->n++;
	}
	l->matches++;
	return 0;
}

/* A node's fields. A query can hand millions of nodes to a plugin: their names are made
 * Lua strings once per state (push_node_fields) rather than looked up for every field of
 * every node. */
enum { NF_TEXT = 1, NF_TYPE, NF_START_BYTE, NF_END_BYTE, NF_LINE, NF_COL, NF_END_LINE, NF_END_COL, NF_COUNT = NF_END_COL };
static const char *const node_fields[NF_COUNT] = {"text", "type", "start_byte", "end_byte",
                                                   "line", "col", "end_line", "end_col"};

static void make_node_fields(lua_State *L)
{
	lua_createtable(L, NF_COUNT, 0);
	for (int i = 0; i < NF_COUNT; i++) {
		lua_pushstring(L, node_fields[i]);
		lua_rawseti(L, -2, i + 1);
	}
	lua_rawsetp(L, LUA_REGISTRYINDEX, &key_node);
}

/* Pushes the table of field names; its stack index is what push_node takes. */
static int push_node_fields(lua_State *L)
{
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_node);
	return lua_gettop(L);
}

static void set_node_field(lua_State *L, int fields, int f)
{
	lua_rawgeti(L, fields, f);
	lua_insert(L, -2);
	lua_rawset(L, -3);
}

/* Pushes c as a node {text=, type=, start_byte=, ...}; fields: see push_node_fields. */
static void push_node(lua_State *L, const pysrc_capture *c, int fields)
{
	lua_createtable(L, 0, NF_COUNT);
	lua_pushlstring(L, c->text, c->end_byte - c->start_byte);
	set_node_field(L, fields, NF_TEXT);
	lua_pushstring(L, c->type);
	set_node_field(L, fields, NF_TYPE);
	lua_Integer v[] = {c->start_byte, c->end_byte, c->line, c->col, c->end_line, c->end_col};
	for (int f = NF_START_BYTE; f <= NF_END_COL; f++) {
		lua_pushinteger(L, v[f - NF_START_BYTE]);
		set_node_field(L, fields, f);
	}
}

/* The parsed tree of path, parsing it now when no earlier step did. NULL with a reason
 * pushed when it cannot be parsed; nothing pushed otherwise. A Python file of the project
 * becomes the one the lane holds (its tree stays until the lane uses another file). */
static pysrc *parsed(lua_State *L, papi_sandbox *sb, const char *path)
{
	papi_run *run = run_of(L, sb);
	papi_file *f = py_file(run, path);
	if (f) {
		run_lock(run);
		if (sb->lane) {
			long idx = f - run->py;
			pin(run, sb->lane, idx);
			lane_advance(sb, idx);
		}
		if (sb->plugin)
			f->phases |= phase_bit(sb->plugin->info.phase); /* its problems concern this phase too */
		ensure_parsed(sb, f);
		pysrc *src = f->src;
		const char *why = f->problem;
		run_unlock(run);
		if (run->sched && atomic_load(&run->sched->cancel))
			luaL_error(L, "cancelled");
		if (!src)
			lua_pushstring(L, why ? why : "cannot be parsed");
		return src;
	}
	run_lock(run);
	for (size_t i = 0; i < run->nextra; i++)
		if (strcmp(run->extra[i]->path, path) == 0) {
			pysrc *src = run->extra[i]->src;
			if (!src)
				lua_pushstring(L, run->extra[i]->problem ? run->extra[i]->problem : "cannot be parsed");
			run_unlock(run);
			return src;
		}
	run_unlock(run);
	size_t len;
	const char *text = file_text(L, sb, path, &len);
	if (!text)
		return NULL;
	pysrc *src = NULL;
	char *problem = NULL;
	if (pysrc_parse(&src, path, text, len) != 0)
		problem = xstrdup(err_message());
	lua_pop(L, 1);
	run_lock(run);
	papi_file *e = NULL;
	for (size_t i = 0; i < run->nextra && !e; i++)
		if (strcmp(run->extra[i]->path, path) == 0)
			e = run->extra[i]; /* another lane parsed it meanwhile */
	if (e) {
		pysrc_free(src);
		free(problem);
	} else {
		e = xcalloc(1, sizeof *e);
		e->path = xstrdup(path);
		e->tried = 1;
		e->src = src;
		e->problem = problem;
		e->state = src ? PAPI_PARSED : PAPI_FAILED;
		run->extra = xrealloc(run->extra, (run->nextra + 1) * sizeof *run->extra);
		run->extra[run->nextra++] = e;
		if (src)
			run->parsed++;
	}
	src = e->src;
	const char *why = e->problem;
	run_unlock(run);
	if (!src)
		lua_pushstring(L, why ? why : "cannot be parsed");
	return src;
}

/* Queries given to ctx.query, compiled once for the whole process: the checks share
 * helpers (the Python library's queries), so twenty plugins asked for the same texts and
 * each compiled its own copy, which cost more than parsing some files. The table owns
 * the compiled queries; they live until the process ends (a query is immutable, and
 * every plugin's cache below may point at it). Bounded: past the limit a query is
 * compiled for the asking plugin alone. */
#define SHARED_QUERIES_MAX 1024
static struct {
	pthread_mutex_t mu;
	char *src[SHARED_QUERIES_MAX];
	pysrc_query *q[SHARED_QUERIES_MAX];
	size_t n;
} shared_queries = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* The compiled query for source: from the shared table (*owned 0), else compiled for the
 * caller (*owned 1). NULL with the error set when it does not compile. */
static pysrc_query *shared_query(const char *source, int *owned)
{
	pysrc_query *q = NULL;
	*owned = 0;
	pthread_mutex_lock(&shared_queries.mu);
	for (size_t i = 0; i < shared_queries.n && !q; i++)
		if (strcmp(shared_queries.src[i], source) == 0)
			q = shared_queries.q[i];
	if (!q && pysrc_query_new(&q, source) == 0) {
		if (shared_queries.n < SHARED_QUERIES_MAX) {
			shared_queries.src[shared_queries.n] = xstrdup(source);
			shared_queries.q[shared_queries.n++] = q;
		} else {
			*owned = 1;
		}
	}
	pthread_mutex_unlock(&shared_queries.mu);
	return q;
}

static const pysrc_query *plugin_query(lua_State *L, papi_plugin *p, const char *source)
{
	if (!source) {
		if (!p->query)
			luaL_error(L, "query: the plugin declares no query and none was given");
		return p->query;
	}
	for (size_t i = 0; i < p->nqc; i++)
		if (strcmp(p->qc_src[i], source) == 0)
			return p->qc[i];
	int owned;
	pysrc_query *q = shared_query(source, &owned);
	if (!q)
		luaL_error(L, "query: %s", err_message());
	p->qc_src = xrealloc(p->qc_src, (p->nqc + 1) * sizeof *p->qc_src);
	p->qc = xrealloc(p->qc, (p->nqc + 1) * sizeof *p->qc);
	p->qc_owned = xrealloc(p->qc_owned, (p->nqc + 1) * sizeof *p->qc_owned);
	p->qc_src[p->nqc] = xstrdup(source);
	p->qc[p->nqc] = q;
	p->qc_owned[p->nqc] = (unsigned char)owned;
	p->nqc++;
	return q;
}

/* Remembers that this plugin skipped path (once per path). */
static void note_skipped(papi_sandbox *sb, const char *path, const char *why)
{
	size_t n = strlen(path);
	for (size_t i = 0; i < sb->nskipped; i++)
		if (strncmp(sb->skipped[i], path, n) == 0 && sb->skipped[i][n] == '\t')
			return;
	sb->skipped = xrealloc(sb->skipped, (sb->nskipped + 1) * sizeof *sb->skipped);
	sb->skipped[sb->nskipped++] = xasprintf("%s\t%s", path, why);
}

/* Notes that sb's plugin runs q on the Python file f (or another file: NULL) and returns
 * q's place among the run's queries. Lock held. */
static size_t note_query(papi_run *run, papi_sandbox *sb, const papi_file *f, const pysrc_query *q)
{
	papi_shared_query *sq = NULL;
	for (size_t i = 0; i < run->nqueries && !sq; i++)
		if (pysrc_query_same(run->queries[i].q, q))
			sq = &run->queries[i];
	if (!sq) {
		size_t n = run->nqueries;
		run->queries = xrealloc(run->queries, (n + 1) * sizeof *run->queries);
		run->queries[n] = (papi_shared_query){.q = q, .in_union = -1};
		run->nqueries = n + 1;
		sq = &run->queries[n];
	}
	size_t u = 0;
	while (u < sq->nusers && sq->users[u].p != sb->plugin)
		u++;
	if (u == sq->nusers) {
		sq->users = xrealloc(sq->users, (sq->nusers + 1) * sizeof *sq->users);
		sq->users[sq->nusers++] = (papi_query_user){.p = sb->plugin, .lane = sb->lane, .last = -1};
	}
	long idx = f ? (long)(f - run->py) : -1;
	if (idx >= 0 && sq->users[u].last != idx) {
		sq->users[u].last = idx;
		sq->users[u].files++;
		if (++sq->files >= PAPI_UNION_FILES && !sq->recurring) {
			sq->recurring = 1;
			run->nrecurring++;
		}
	}
	return (size_t)(sq - run->queries);
}

/* How likely user is to run its query on a file with these trigger hits: likely when the
 * file is offered to it and it ran the query on most files it queried so far, a spare
 * chance when the file is offered to it, none when not (a PYSRC_WANT_ level). */
static int likely_user(const papi_query_user *user, const papi_file *f)
{
	if (!f || !f->hits)
		return PYSRC_WANT_LIKELY;
	if (!papi_offered(user->p, f->hits))
		return PYSRC_WANT_NONE;
	return !user->lane || user->files * 4 >= user->lane->files * 3 ? PYSRC_WANT_LIKELY
	                                                               : PYSRC_WANT_SPARE;
}

/* Makes a union of the recurring queries when it is time (see PAPI_UNION_AFTER): of all of
 * them while much Python is still to come after file index at, else of those no union holds
 * yet (PAPI_UNION_WHOLE_BYTES). Called and returns with the lock held; compiles with it
 * released, so that the other plugins go on meanwhile (their queries walk alone or in the
 * older unions until it is ready). */
static void unite_new_queries(papi_run *run, long at)
{
	size_t fresh = run->nrecurring - run->nunited;
	if (run->uniting || fresh < 2 || run->wanted_after[0] < PAPI_UNION_MIN_BYTES ||
	    (run->nunions > 0 && run->misses < PAPI_UNION_AFTER))
		return;
	size_t ahead = run->wanted_after[at >= 0 ? at : 0];
	int whole = ahead / PAPI_UNION_WHOLE_BYTES >= run->nrecurring * (run->nwhole + 1);
	size_t all = whole ? run->nrecurring : fresh;
	const pysrc_query **qs = xcalloc(all, sizeof *qs);
	size_t *part = xcalloc(all, sizeof *part), n = 0;
	for (size_t i = 0; i < run->nqueries && n < all; i++)
		if (run->queries[i].recurring && (whole || run->queries[i].in_union < 0)) {
			part[n] = i;
			qs[n++] = run->queries[i].q;
		}
	run->uniting = 1;
	run_unlock(run);
	pysrc_combo *c = NULL;
	if (pysrc_combo_new(&c, qs, n) != 0)
		err_clear(); /* never expected (each part compiled alone): the queries walk alone */
	free(qs);
	run_lock(run);
	run->uniting = 0;
	run->misses = 0;
	if (!c) {
		free(part);
		return;
	}
	for (size_t i = 0; i < n; i++)
		run->queries[part[i]].in_union = (long)run->nunions;
	run->nunited = whole ? n : run->nunited + n;
	run->nwhole += whole;
	run->unions = xrealloc(run->unions, (run->nunions + 1) * sizeof *run->unions);
	run->unions[run->nunions++] = (papi_union){.combo = c, .part = part, .nparts = n};
}

/* Before q runs over src for plugin sb: when the tree does not hold q's matches yet and a
 * union holds q, one walk of that union remembers those of its queries that plugins offered
 * this file are likely to run on it too, so that they replay them instead of walking the
 * tree again. */
static void walk_shared(papi_sandbox *sb, const pysrc *src, const char *path, const pysrc_query *q)
{
	papi_run *run = sb->run;
	papi_file *f = py_file(run, path);
	run_lock(run);
	size_t at = note_query(run, sb, f, q);
	if (pysrc_query_cached(src, q)) {
		run_unlock(run);
		return;
	}
	run->misses++;
	unite_new_queries(run, f ? (long)(f - run->py) : -1);
	const papi_union *u = NULL;
	unsigned char *want = NULL;
	if (run->queries[at].in_union >= 0) {
		u = &run->unions[run->queries[at].in_union];
		want = xcalloc(u->nparts, 1);
		for (size_t i = 0; i < u->nparts; i++) {
			const papi_shared_query *sq = &run->queries[u->part[i]];
			want[i] = u->part[i] == at ? PYSRC_WANT_LIKELY : PYSRC_WANT_NONE;
			for (size_t k = 0; k < sq->nusers && want[i] != PYSRC_WANT_LIKELY; k++) {
				int w = likely_user(&sq->users[k], f);
				if (w > want[i])
					want[i] = (unsigned char)w;
			}
		}
	}
	pysrc_combo *c = u ? u->combo : NULL; /* u itself moves when a union is added */
	run_unlock(run);
	if (want)
		pysrc_combo_run(src, c, want);
	free(want);
}

static int ctx_query(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	const char *path = luaL_checkstring(L, 1);
	const char *source = luaL_optstring(L, 2, NULL);
	if (!sb->plugin)
		return luaL_error(L, "query: only available while the plugin runs");
	const pysrc_query *q = plugin_query(L, sb->plugin, source);
	pysrc *src = parsed(L, sb, path);
	if (!src) {
		lua_pushnil(L);
		lua_insert(L, -2);
		return 2;
	}
	box *b = box_new(L, cap_list_release);
	cap_list *l = xcalloc(1, sizeof *l);
	b->p = l;
	/* the matches may take half of what the plugin has left; a file with more is skipped
	 * by this check (reported when it finishes) rather than ending it */
	l->limit = sb->mem_used < sb->mem_cap ? (sb->mem_cap - sb->mem_used) / 2 : 0;
	walk_shared(sb, src, path, q);
	pysrc_query_run(src, q, collect_match, l);
	if (l->overflow) {
		char *why = xasprintf("too many matches to analyse within the plugin's %zu MiB", sb->mem_cap >> 20);
		note_skipped(sb, path, why);
		box_drop(b);
		lua_pushnil(L);
		lua_pushfstring(L, "%s: %s", path, why);
		free(why);
		return 2;
	}
	int fields = push_node_fields(L);
	lua_createtable(L, (int)(l->matches < 1000000 ? l->matches : 1000000), 0);
	size_t i = 0;
	for (size_t m = 0; m < l->matches; m++) {
		size_t ncap = 0; /* sized once: growing a table rehashes it */
		while (i + ncap < l->n && l->v[i + ncap].match == m)
			ncap++;
		lua_createtable(L, 0, (int)(ncap < 64 ? ncap : 64));
		for (; i < l->n && l->v[i].match == m; i++) {
			const pysrc_capture *c = &l->v[i].cap;
			if (lua_getfield(L, -1, c->name) != LUA_TNIL) {
				lua_pop(L, 1);
				continue; /* a repeated capture keeps its first node */
			}
			lua_pop(L, 1);
			push_node(L, c, fields);
			lua_setfield(L, -2, c->name);
		}
		lua_rawseti(L, -2, (lua_Integer)m + 1);
	}
	box_drop(b);
	return 1;
}

/* ---- data and artifacts ------------------------------------------------------------ */

static void push_json(lua_State *L, const cJSON *j)
{
	luaL_checkstack(L, 4, "data: nested too deeply");
	if (cJSON_IsObject(j)) {
		lua_newtable(L);
		for (const cJSON *c = j->child; c; c = c->next) {
			if (!c->string || cJSON_IsNull(c))
				continue;
			push_json(L, c);
			lua_setfield(L, -2, c->string);
		}
	} else if (cJSON_IsArray(j)) {
		lua_newtable(L);
		lua_Integer k = 0;
		for (const cJSON *c = j->child; c; c = c->next) {
			push_json(L, c);
			lua_rawseti(L, -2, ++k);
		}
	} else if (cJSON_IsString(j)) {
		lua_pushstring(L, j->valuestring);
	} else if (cJSON_IsNumber(j)) {
		double d = j->valuedouble;
		if (d >= -9007199254740992.0 && d <= 9007199254740992.0 && d == (double)(long long)d)
			lua_pushinteger(L, (lua_Integer)d);
		else
			lua_pushnumber(L, d);
	} else if (cJSON_IsBool(j)) {
		lua_pushboolean(L, cJSON_IsTrue(j));
	} else {
		lua_pushnil(L);
	}
}

int papi_data_fn(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *name = luaL_checkstring(L, 1);
	if (!valid_name(name, 1))
		return luaL_error(L, "data: '%s' is not a fact table name", name);
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_data);
	if (lua_getfield(L, -1, name) != LUA_TNIL)
		return 1;
	lua_pop(L, 1);
	const cJSON *json = NULL;
	int missing = 0, invalid = 0;
	run_lock(run); /* decoded once per run, shared by the plugins (read-only once added) */
	for (size_t i = 0; i < run->ndata; i++)
		if (strcmp(run->data[i].name, name) == 0)
			json = run->data[i].json;
	if (!json) {
		char *rel = xasprintf("data/%s.json", name), *text = NULL;
		size_t len;
		missing = papi_bundled_read(&text, &len, run->opts, rel) != 0;
		free(rel);
		cJSON *parsed_json = missing ? NULL : cJSON_ParseWithLength(text, len);
		free(text);
		invalid = !missing && !parsed_json;
		if (parsed_json) {
			run->data = xrealloc(run->data, (run->ndata + 1) * sizeof *run->data);
			run->data[run->ndata].name = xstrdup(name);
			run->data[run->ndata].json = parsed_json;
			run->ndata++;
			json = parsed_json;
		}
	}
	run_unlock(run);
	if (missing)
		return luaL_error(L, "data: no fact table plugins/data/%s.json", name);
	if (invalid)
		return luaL_error(L, "data: plugins/data/%s.json is not valid JSON", name);
	push_json(L, json);
	lua_pushvalue(L, -1);
	lua_setfield(L, -3, name);
	return 1;
}

/* Pushes the decoded artifact list for kind (NULL = all) inside a box; returns the cJSON
 * array (borrowed from the box) or NULL when there is none. */
static cJSON *artifacts(lua_State *L, papi_run *run, const char *kind)
{
	box *b = box_new(L, cjson_release);
	if (!run->opts->artifacts_json)
		return NULL;
	run_lock(run); /* the host's callbacks read its database: one plugin at a time */
	char *text = run->opts->artifacts_json(kind, run->opts->payload);
	run_unlock(run);
	if (!text)
		return NULL;
	b->p = cJSON_Parse(text);
	free(text);
	if (!b->p || !cJSON_IsArray((cJSON *)b->p))
		return NULL;
	return b->p;
}

static int ctx_artifacts(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *kind = luaL_checkstring(L, 1);
	cJSON *list = artifacts(L, run, kind);
	if (!list)
		lua_newtable(L);
	else
		push_json(L, list);
	return 1;
}

/* A JSON object the host writes from the record (the comparisons, the assessment), as a
 * Lua table; an empty table when the host has none. */
enum host_object { HOST_COMPARISONS, HOST_ASSESSMENT };

static int push_host_object(lua_State *L, enum host_object which)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	box *b = box_new(L, cjson_release);
	char *(*get)(void *) = which == HOST_ASSESSMENT ? run->opts->assessment_json : run->opts->comparisons_json;
	run_lock(run);
	char *text = get ? get(run->opts->payload) : NULL;
	run_unlock(run);
	if (text)
		b->p = cJSON_Parse(text);
	free(text);
	if (!b->p || !cJSON_IsObject((cJSON *)b->p))
		lua_newtable(L);
	else
		push_json(L, b->p);
	return 1;
}

/* ctx.baseline_find(path, literal): whether the file as the engagement received it holds
 * literal (true or false), or nil when the project did not hold the file then. */
static int ctx_baseline_find(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *path = luaL_checkstring(L, 1);
	size_t nlit, len = 0;
	const char *lit = luaL_checklstring(L, 2, &nlit);
	run_lock(run);
	char *text = run->opts->baseline_read ? run->opts->baseline_read(path, &len, run->opts->payload) : NULL;
	run_unlock(run);
	if (!text)
		lua_pushnil(L);
	else
		lua_pushboolean(L, nlit == 0 || memmem(text, len, lit, nlit) != NULL);
	free(text);
	return 1;
}

static int ctx_comparisons(lua_State *L) { return push_host_object(L, HOST_COMPARISONS); }
static int ctx_assessment(lua_State *L) { return push_host_object(L, HOST_ASSESSMENT); }

/* The row of the artifact whose id is id (a decimal string) in list, or NULL. */
static const cJSON *artifact_row(const cJSON *list, const char *id)
{
	const cJSON *a;
	cJSON_ArrayForEach(a, list)
	{
		const cJSON *jid = cJSON_GetObjectItemCaseSensitive(a, "id");
		char idbuf[32];
		const char *s = NULL;
		if (cJSON_IsString(jid))
			s = jid->valuestring;
		else if (cJSON_IsNumber(jid)) {
			snprintf(idbuf, sizeof idbuf, "%lld", (long long)jid->valuedouble);
			s = idbuf;
		}
		if (s && strcmp(s, id) == 0)
			return a;
	}
	return NULL;
}

/* A string field of an artifact row, or NULL. */
static const char *artifact_field(const cJSON *row, const char *name)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(row, name);
	return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* The id of an artifact row (a string or a number in the list the host hands over), or 0. */
static long long row_id(const cJSON *row)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(row, "id");
	return cJSON_IsString(id) ? atoll(id->valuestring) : cJSON_IsNumber(id) ? (long long)id->valuedouble : 0;
}

/* The absolute path of the file of the artifact row (path: its "path" field), malloc'd,
 * once it is known to still have the bytes recorded at ingest (a hash computed earlier for
 * the unchanged copy is trusted, from the engagement's cache); otherwise raises the Lua
 * error of seal.h's one line. The line is kept on the sandbox: a pcall in the plugin
 * cannot swallow it (check_killed raises it again) and the plugin's run fails with it, so
 * an altered artifact never yields a verdict. */
static char *sealed_file(lua_State *L, papi_run *run, const cJSON *row, const char *path)
{
	box *ab = box_new(L, free); /* freed also when the seal raises */
	ab->p = path[0] == '/' ? xstrdup(path) : util_path_join(run->opts->root, path);
	const char *sha256 = artifact_field(row, "sha256"), *kind = artifact_field(row, "kind");
	seal_artifact a = { row_id(row), kind ? kind : "", artifact_field(row, "label"), ab->p, sha256 ? sha256 : "", path[0] == '/' };
	if (seal_check(&a, run->opts->cache_dir) != 0) {
		papi_sandbox *sb = sandbox_of(L);
		if (!sb->unsealed)
			sb->unsealed = xstrdup(err_message());
		err_clear();
		luaL_error(L, "%s", sb->unsealed);
	}
	char *abs = ab->p;
	ab->p = NULL;
	lua_pop(L, 1);
	return abs;
}

/* A file at abs (resolved) that is, or lies inside, the stored copy of an ingested
 * artifact (a dump's view folder, a stored log or .pt) is read by a plugin only while that
 * artifact still has the bytes recorded at ingest: otherwise raises sealed_file's error. */
static void seal_stored(lua_State *L, papi_run *run, const char *abs)
{
	int top = lua_gettop(L);
	const cJSON *list = artifacts(L, run, NULL), *row;
	cJSON_ArrayForEach(row, list) {
		const char *path = artifact_field(row, "path");
		char *stored = NULL;
		if (!path || path[0] == '/' || project_resolve(&stored, run->opts->root, path) != 0) {
			err_clear();
			continue;
		}
		size_t n = strlen(stored);
		int inside = strncmp(abs, stored, n) == 0 && (abs[n] == '\0' || abs[n] == '/');
		free(stored);
		if (inside)
			free(sealed_file(L, run, row, path));
	}
	lua_settop(L, top);
}

/* The absolute path of the artifact whose id is at stack index idx, malloc'd; NULL with
 * nil and a reason pushed when there is no such artifact. With source, *source is the
 * original file an ingested copy came from (NULL if unrecorded), with sha256 the hash
 * recorded at ingest (NULL if none); both borrowed from the artifacts list, whose box
 * stays on the stack. */
static char *artifact_file(lua_State *L, papi_run *run, int idx, const char **source, const char **sha256)
{
	const char *id = luaL_tolstring(L, idx, NULL);
	const cJSON *row = artifact_row(artifacts(L, run, NULL), id);
	const char *path = artifact_field(row, "path");
	if (source)
		*source = artifact_field(row, "source");
	if (sha256)
		*sha256 = artifact_field(row, "sha256");
	if (!path) {
		lua_pushnil(L);
		lua_pushfstring(L, "artifact %s: no such artifact", id);
		return NULL;
	}
	return sealed_file(L, run, row, path);
}

/* ---- readings of artifacts kept in the engagement's cache (acache.h) ---------------- */

/* Starts a reading of the artifact whose id is argument 1 by reader, with its arguments
 * (any bytes) the string at the top of the stack. Returns -1 with nil and a reason pushed
 * when there is no such artifact; n > 0 with the n values kept from an earlier reading
 * pushed; or 0 when the file must be read: *ab is a box on the stack holding its absolute
 * path (freed also when a Lua error cuts the call short) and *key is ready for
 * reading_keep (key->path empty: this reading cannot be kept). */
static int reading_open(lua_State *L, papi_run *run, const char *reader, acache_key *key, box **ab)
{
	size_t alen;
	const char *args = lua_tolstring(L, -1, &alen);
	const char *sha256 = NULL;
	char *abs = artifact_file(L, run, 1, NULL, &sha256);
	if (!abs)
		return -1;
	*ab = box_new(L, free);
	(*ab)->p = abs;
	key->path[0] = '\0';
	if (acache_key_make(key, run->opts->cache_dir, sha256, reader, args, alen, abs)) {
		key->path[0] = '\0';
		return 0;
	}
	size_t len = 0;
	int top = lua_gettop(L), n = 0;
	box *b = box_new(L, free); /* the bytes: freed also when loading them raises an error */
	b->p = acache_load(key, &len);
	if (b->p && luacopy_load(L, b->p, len) == 0 && lua_istable(L, -1)) {
		n = (int)lua_rawlen(L, -1);
		luaL_checkstack(L, n, "reading_open");
		for (int i = 1; i <= n; i++)
			lua_rawgeti(L, top + 2, i);
		lua_remove(L, top + 2); /* the table */
	} else {
		lua_settop(L, top + 1);
	}
	box_drop(b);
	lua_remove(L, top + 1); /* the box */
	run_lock(run);
	run->readings[n > 0]++;
	run_unlock(run);
	return n;
}

/* Keeps the top n values of the stack as the reading key names (best effort: a reading
 * that cannot be kept is read again next time). */
static void reading_keep(lua_State *L, int n, const acache_key *key)
{
	if (!key->path[0])
		return;
	int top = lua_gettop(L);
	lua_createtable(L, n, 0);
	for (int i = 1; i <= n; i++) {
		lua_pushvalue(L, top - n + i);
		lua_rawseti(L, -2, i);
	}
	char *bytes = NULL, *why = NULL;
	size_t len = 0;
	if (luacopy_dump(L, -1, &bytes, &len, &why, NULL, NULL) == 0)
		acache_store(key, bytes, len);
	free(bytes);
	free(why);
	lua_settop(L, top);
}

/* ctx.read_artifact(id): the artifact's text, its lines written in GB18030 as UTF-8. */
static int ctx_read_artifact(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *id = luaL_tolstring(L, 1, NULL);
	char *abs = artifact_file(L, run, 1, NULL, NULL);
	if (!abs)
		return 2;
	struct stat st;
	if (stat(abs, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size > sb->mem_cap) {
		free(abs);
		lua_pushnil(L);
		lua_pushfstring(L, "artifact %s: unreadable or too large", id);
		return 2;
	}
	box *b = box_new(L, free);
	size_t len;
	int rc = util_read_file((char **)&b->p, &len, abs);
	free(abs);
	if (rc != 0) {
		lua_pushnil(L);
		lua_pushfstring(L, "artifact %s: unreadable", id);
		return 2;
	}
	size_t ulen, converted;
	char *utf8 = gbtext_lines(b->p, len, &ulen, &converted); /* a log from a Chinese-locale host */
	if (utf8) {
		free(b->p);
		b->p = utf8, len = ulen;
	}
	lua_pushlstring(L, b->p, len);
	box_drop(b);
	return 1;
}

/* ---- benchmarks: ctx.bench and ctx.bench_choice (the reading and choosing is bench.c) */

/* The decoded document of the bench artifact row a (a new cJSON), or NULL. */
static cJSON *bench_of_row(lua_State *L, papi_sandbox *sb, papi_run *run, const cJSON *a)
{
	const char *path = artifact_field(a, "path");
	if (!path)
		return NULL;
	char *abs = sealed_file(L, run, a, path);
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	cJSON *doc = NULL;
	if (stat(abs, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size <= sb->mem_cap &&
	    util_read_file(&text, &len, abs) == 0)
		doc = bench_decode(text, len);
	else
		err_clear();
	free(text);
	free(abs);
	return doc;
}

/* ctx.bench(id): the bench artifact as a ferry-bench/1 document (ais_bench output read as
 * one), or nil, reason. */
static int ctx_bench(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *id = luaL_tolstring(L, 1, NULL);
	const cJSON *row = artifact_row(artifacts(L, run, NULL), id);
	box *b = box_new(L, cjson_release);
	b->p = row ? bench_of_row(L, sb, run, row) : NULL;
	if (!b->p) {
		lua_pushnil(L);
		lua_pushfstring(L, "artifact %s: no benchmark", id);
		return 2;
	}
	push_json(L, b->p);
	return 1;
}

/* ctx.bench_choice([metric [, workload]]): {baseline=, npu=, accuracy=, throughput=},
 * artifact ids of the benchmarks bench_choose picks among those of workload ("training",
 * "inference"; nil: all), and with metric measured=, the newest NPU benchmark measuring it
 * (a key is absent when none fits). */
static int ctx_bench_choice(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *metric = luaL_optstring(L, 1, NULL);
	const char *wname = luaL_optstring(L, 2, NULL);
	int w = wname ? bench_workload_parse(wname) : BENCH_ANY;
	if (w < 0)
		return luaL_argerror(L, 2, "\"training\" or \"inference\"");
	const cJSON *list = artifacts(L, run, "bench"), *a;
	size_t n = (size_t)cJSON_GetArraySize(list), i = 0;
	box *docs = box_new(L, cjson_release);
	docs->p = cJSON_CreateArray(); /* owns the decoded documents */
	box *eb = box_new(L, free); /* freed also when an altered benchmark raises */
	bench_entry *e = eb->p = xcalloc(n ? n : 1, sizeof *e);
	cJSON_ArrayForEach(a, list) {
		cJSON *doc = bench_of_row(L, sb, run, a);
		e[i].id = row_id(a);
		e[i].label = artifact_field(a, "label");
		e[i].doc = doc;
		if (doc)
			cJSON_AddItemToArray(docs->p, doc);
		i++;
	}
	bench_choice c;
	bench_choose(&c, e, i, (bench_workload)w);
	lua_createtable(L, 0, 5);
	const int pick[5] = { c.baseline, c.npu, c.accuracy, c.throughput,
		              metric ? bench_measuring(e, i, c.baseline, metric, (bench_workload)w) : -1 };
	static const char *const key[5] = { "baseline", "npu", "accuracy", "throughput", "measured" };
	for (int k = 0; k < 5; k++)
		if (pick[k] >= 0) {
			lua_pushinteger(L, (lua_Integer)e[pick[k]].id);
			lua_setfield(L, -2, key[k]);
		}
	box_drop(eb);
	return 1;
}

/* ---- ctx.scan_artifact: a text artifact of any size, line by line, in C ----------- */

#define SCAN_NEEDLES 128   /* needles per call */
#define SCAN_HITS 1000     /* most hits kept per needle */
#define SCAN_LINE 4096     /* a line is matched on its first bytes */
#define SCAN_QUOTE 240     /* bytes of a hit's line handed to the plugin */

static void file_release(void *p) { fclose(p); }
static void gbtext_release(void *p) { gbtext_free(p); }

/* Length of the first n bytes of s cut back to a whole UTF-8 character. */
static size_t utf8_cut(const char *s, size_t n)
{
	while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
		n--;
	return n;
}

#define SCAN_WAIT 64        /* hits waiting for the line that follows them */
#define SCAN_PREFIX 64      /* bytes of a hit's line before its needle that a follower repeats */

/* A hit of a needle asked to be followed, waiting for its follower: the first later line
 * that starts with the text before the needle in the hit's line (none, or a log's prefix
 * such as "[rank0]: ") and then a character other than a blank (a Python traceback's
 * exception line after its indented frames). */
typedef struct {
	lua_Integer hit; /* index in the hits table */
	size_t plen;
	char prefix[SCAN_PREFIX];
} scan_wait;

/* What a scan keeps between lines: the needles and their counts, the hits so far, the
 * hits waiting for their follower or for the next line, the last line holding more than
 * blanks, and the decoder and room for lines written in GB18030. */
typedef struct {
	const char *const *needles;
	const size_t *nlen;
	const char *want; /* per needle: SCAN_FOLLOW and SCAN_NEXT, what its hits get */
	size_t nn, max;
	size_t *count;
	lua_Integer nhits;
	scan_wait wait[SCAN_WAIT];
	size_t nwait;
	lua_Integer next[SCAN_WAIT]; /* hits waiting for the line right after theirs */
	size_t nnext;
	long long lastno; /* the last line holding more than blanks (0: none yet) */
	size_t lastlen;
	int lastcut;
	char last[SCAN_QUOTE];
	gbtext *gb;
	char *room; /* GBTEXT_ROOM(SCAN_LINE) bytes */
} line_scan;

#define SCAN_FOLLOW 1 /* hits get follow={line=, text=, cut=}: the exception after a traceback's frames */
#define SCAN_NEXT 2   /* hits get next={line=, text=, cut=}: the line right after theirs */

/* The line quoted into the table at the top of the stack: text= (at most SCAN_QUOTE
 * bytes, cut at a character boundary) and cut=. */
static void scan_quote(lua_State *L, const char *line, size_t len, int cut)
{
	size_t q = len > SCAN_QUOTE ? utf8_cut(line, SCAN_QUOTE) : len;
	lua_pushlstring(L, line, q);
	lua_setfield(L, -2, "text");
	lua_pushboolean(L, q < len || cut);
	lua_setfield(L, -2, "cut");
}

/* Hit number hit of the hits table at the top of the stack gets field={line=, text=, cut=}. */
static void scan_attach(lua_State *L, lua_Integer hit, const char *field, const char *line, size_t len, int cut,
                        long long lineno)
{
	lua_rawgeti(L, -1, hit);
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, (lua_Integer)lineno);
	lua_setfield(L, -2, "line");
	scan_quote(L, line, len, cut);
	lua_setfield(L, -2, field);
	lua_pop(L, 1);
}

/* The line is the follower of every waiting hit whose prefix it starts with, followed by
 * a character other than a blank: each gets follow={line=, text=, cut=} (the hits table is
 * at the top of the stack) and stops waiting. */
static void scan_follow(lua_State *L, line_scan *sc, const char *line, size_t len, int cut, long long lineno)
{
	size_t kept = 0;
	for (size_t w = 0; w < sc->nwait; w++) {
		scan_wait *sw = &sc->wait[w];
		if (len <= sw->plen || memcmp(line, sw->prefix, sw->plen) != 0 || line[sw->plen] == ' ' ||
		    line[sw->plen] == '\t') {
			sc->wait[kept++] = *sw;
			continue;
		}
		scan_attach(L, sw->hit, "follow", line, len, cut, lineno);
	}
	sc->nwait = kept;
}

/* The line is the next one of the hits waiting for it, and the last one so far if it
 * holds more than blanks. */
static void scan_next(lua_State *L, line_scan *sc, const char *line, size_t len, int cut, long long lineno)
{
	for (size_t w = 0; w < sc->nnext; w++)
		scan_attach(L, sc->next[w], "next", line, len, cut, lineno);
	sc->nnext = 0;
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\f' || line[i] == '\v'))
		i++;
	if (i == len)
		return;
	size_t q = len > SCAN_QUOTE ? utf8_cut(line, SCAN_QUOTE) : len;
	memcpy(sc->last, line, q);
	sc->lastlen = q;
	sc->lastcut = q < len || cut;
	sc->lastno = lineno;
}

/* Hit number hit, found at offset at of its line, waits for its follower; the oldest
 * waiting hit gives way when SCAN_WAIT wait. */
static void scan_await(line_scan *sc, lua_Integer hit, const char *line, size_t at)
{
	if (at >= SCAN_PREFIX)
		return; /* no follower could be recognised */
	if (sc->nwait == SCAN_WAIT)
		memmove(sc->wait, sc->wait + 1, --sc->nwait * sizeof *sc->wait);
	scan_wait *sw = &sc->wait[sc->nwait++];
	sw->hit = hit;
	sw->plen = at;
	memcpy(sw->prefix, line, at);
}

/* One finished line (cut: it was longer than len): each needle it holds is a hit
 * {line=, needle=, text=, cut=, encoding=} appended to the table at the top of the stack,
 * up to max hits per needle. A line in GB18030 is matched and quoted as UTF-8. */
static void scan_line(lua_State *L, line_scan *sc, const char *line, size_t len, int cut, long long lineno)
{
	if (!cut && len && line[len - 1] == '\r')
		len--;
	size_t utf8 = gbtext_line(sc->gb, sc->room, line, len, cut);
	if (utf8)
		line = sc->room, len = utf8;
	if (sc->nwait)
		scan_follow(L, sc, line, len, cut, lineno);
	scan_next(L, sc, line, len, cut, lineno);
	const char *const *needles = sc->needles;
	const size_t *nlen = sc->nlen;
	size_t nn = sc->nn, max = sc->max, *count = sc->count;
	lua_Integer *nhits = &sc->nhits;
	for (size_t i = 0; i < nn; i++) {
		const char *at;
		if (!nlen[i] || !(at = memmem(line, len, needles[i], nlen[i])) || ++count[i] > max)
			continue;
		lua_createtable(L, 0, 4);
		lua_pushinteger(L, (lua_Integer)lineno);
		lua_setfield(L, -2, "line");
		lua_pushinteger(L, (lua_Integer)i + 1);
		lua_setfield(L, -2, "needle");
		scan_quote(L, line, len, cut);
		if (utf8) {
			lua_pushliteral(L, "GB18030");
			lua_setfield(L, -2, "encoding");
		}
		lua_rawseti(L, -2, ++*nhits);
		if (sc->want[i] & SCAN_FOLLOW)
			scan_await(sc, *nhits, line, (size_t)(at - line));
		if ((sc->want[i] & SCAN_NEXT) && sc->nnext < SCAN_WAIT)
			sc->next[sc->nnext++] = *nhits;
	}
}

/* The needles of opts (at index 4) listed in its field name get the flag in want. */
static void scan_wants(lua_State *L, const char *name, char flag, const char *const *needles, const size_t *nlen,
                       size_t nn, char *want)
{
	lua_getfield(L, 4, name);
	for (lua_Integer k = 1; lua_istable(L, -1) && k <= (lua_Integer)lua_rawlen(L, -1); k++) {
		lua_rawgeti(L, -1, k);
		size_t fl;
		const char *fs = luaL_checklstring(L, -1, &fl);
		for (size_t i = 0; i < nn; i++)
			if (nlen[i] == fl && memcmp(needles[i], fs, fl) == 0)
				want[i] |= flag;
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
}

/* ctx.scan_artifact(id, needles [, max [, opts]]): the lines of a text artifact holding
 * any of the plain strings in needles, streamed from its file whatever its size; the hits
 * of the needles listed in opts.follow also carry the line that follows them (the
 * exception after a traceback's frames), those of opts.next the line right after theirs;
 * the second value names the last line holding more than blanks. */
static int ctx_scan_artifact(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	luaL_checktype(L, 2, LUA_TTABLE);
	lua_Integer maxarg = luaL_optinteger(L, 3, 20);
	size_t max = maxarg < 1 ? 1 : maxarg > SCAN_HITS ? SCAN_HITS : (size_t)maxarg;
	size_t nn = (size_t)lua_rawlen(L, 2);
	if (nn > SCAN_NEEDLES)
		return luaL_error(L, "ctx.scan_artifact: at most %d needles", SCAN_NEEDLES);
	const char *needles[SCAN_NEEDLES];
	size_t nlen[SCAN_NEEDLES], count[SCAN_NEEDLES] = { 0 };
	char want[SCAN_NEEDLES] = { 0 };
	for (size_t i = 0; i < nn; i++) {
		lua_rawgeti(L, 2, (lua_Integer)i + 1);
		needles[i] = luaL_checklstring(L, -1, &nlen[i]);
		lua_pop(L, 1); /* the string stays alive in the needles table */
	}
	if (!lua_isnoneornil(L, 4)) {
		luaL_checktype(L, 4, LUA_TTABLE);
		scan_wants(L, "follow", SCAN_FOLLOW, needles, nlen, nn, want);
		scan_wants(L, "next", SCAN_NEXT, needles, nlen, nn, want);
	}
	const char *id = luaL_tolstring(L, 1, NULL);
	/* the same needles and max on the same copy give the same lines: kept */
	luaL_Buffer args;
	luaL_buffinit(L, &args);
	luaL_addlstring(&args, (const char *)&max, sizeof max);
	for (size_t i = 0; i < nn; i++) {
		luaL_addlstring(&args, (const char *)&nlen[i], sizeof nlen[i]);
		luaL_addlstring(&args, needles[i], nlen[i]);
		luaL_addchar(&args, (char)('0' + want[i]));
	}
	luaL_pushresult(&args);
	acache_key key;
	box *ab;
	int kept = reading_open(L, run, "scan", &key, &ab);
	if (kept)
		return kept < 0 ? 2 : kept;
	struct stat st;
	const char *abs = ab->p;
	FILE *f = stat(abs, &st) == 0 && S_ISREG(st.st_mode) ? fopen(abs, "rb") : NULL;
	box_drop(ab);
	if (!f) {
		lua_pushnil(L);
		lua_pushfstring(L, "artifact %s: unreadable", id);
		return 2;
	}
	box *fb = box_new(L, file_release);
	fb->p = f;
	box *bb = box_new(L, free);
	char *buf = xmalloc(65536 + SCAN_LINE + GBTEXT_ROOM(SCAN_LINE));
	bb->p = buf;
	char *line = buf + 65536;
	box *gb = box_new(L, gbtext_release);
	gb->p = gbtext_new();
	line_scan sc = { .needles = needles, .nlen = nlen, .want = want, .nn = nn, .max = max, .count = count, .gb = gb->p,
	                 .room = line + SCAN_LINE };
	lua_newtable(L); /* the hits */
	size_t len = 0, n;
	int over = 0; /* the line being gathered is longer than SCAN_LINE */
	long long lineno = 1, bytes = 0;
	while ((n = fread(buf, 1, 65536, f)) > 0) {
		bytes += (long long)n;
		for (const char *p = buf, *end = buf + n; p < end;) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			const char *stop = nl ? nl : end;
			size_t take = (size_t)(stop - p);
			if (!len && !over && nl) { /* a whole line inside the buffer: match it in place */
				scan_line(L, &sc, p, take < SCAN_LINE ? take : SCAN_LINE, take > SCAN_LINE, lineno);
				lineno++;
				p = nl + 1;
				continue;
			}
			size_t room = SCAN_LINE - len;
			memcpy(line + len, p, take < room ? take : room);
			len += take < room ? take : room;
			over |= take > room;
			p = stop;
			if (nl) {
				scan_line(L, &sc, line, len, over, lineno);
				lineno++;
				len = 0;
				over = 0;
				p++;
			}
		}
	}
	int failed = ferror(f);
	if (len)
		scan_line(L, &sc, line, len, over, lineno);
	else
		lineno--;
	box_drop(fb); /* the file is closed now, not when Lua collects the box */
	box_drop(bb);
	box_drop(gb);
	if (failed) {
		lua_pushnil(L);
		lua_pushfstring(L, "artifact %s: read error after %I bytes", id, (lua_Integer)bytes);
		return 2;
	}
	lua_createtable(L, 0, 3);
	lua_pushinteger(L, (lua_Integer)lineno);
	lua_setfield(L, -2, "lines");
	lua_pushinteger(L, (lua_Integer)bytes);
	lua_setfield(L, -2, "bytes");
	lua_createtable(L, (int)nn, 0);
	for (size_t i = 0; i < nn; i++) {
		lua_pushinteger(L, (lua_Integer)count[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "counts");
	if (sc.lastno) {
		lua_createtable(L, 0, 3);
		lua_pushinteger(L, (lua_Integer)sc.lastno);
		lua_setfield(L, -2, "line");
		scan_quote(L, sc.last, sc.lastlen, sc.lastcut);
		lua_setfield(L, -2, "last");
	}
	reading_keep(L, 2, &key);
	return 2;
}

/* ---- ONNX models: ctx.onnx (the reader is onnx.c) ----------------------------------- */

#define PAPI_ONNX_NODES 1000 /* nodes handed to a plugin; all are counted */

static void set_int(lua_State *L, const char *k, long long v)
{
	lua_pushinteger(L, (lua_Integer)v);
	lua_setfield(L, -2, k);
}

static void set_str(lua_State *L, const char *k, const char *v)
{
	if (!v)
		return;
	lua_pushstring(L, v);
	lua_setfield(L, -2, k);
}

static void push_strings(lua_State *L, const char *k, char **v, size_t n)
{
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_pushstring(L, v[i]);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, k);
}

/* {name=, elem_type=, dims={1, "batch", -1 …}} per value (dims absent: rank unknown). */
static void push_values(lua_State *L, const char *k, const onnx_value *v, size_t n)
{
	lua_createtable(L, (int)n, 0);
	for (size_t i = 0; i < n; i++) {
		lua_createtable(L, 0, 3);
		set_str(L, "name", v[i].name);
		set_int(L, "elem_type", v[i].elem_type);
		if (v[i].has_shape) {
			lua_createtable(L, (int)v[i].ndims, 0);
			for (size_t d = 0; d < v[i].ndims; d++) {
				if (v[i].dims[d].param)
					lua_pushstring(L, v[i].dims[d].param);
				else
					lua_pushinteger(L, (lua_Integer)v[i].dims[d].value);
				lua_rawseti(L, -2, (lua_Integer)d + 1);
			}
			lua_setfield(L, -2, "dims");
		}
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, k);
}

static void onnx_release(void *p) { onnx_model_free(p); }

/* ctx.onnx(id): the structure of an ingested ONNX model (see plugins/README.md), or nil
 * and a reason. External data is looked for next to the model's original file. */
static int ctx_onnx(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *source = NULL;
	char *abs = artifact_file(L, run, 1, &source, NULL);
	if (!abs)
		return 2;
	box *b = box_new(L, onnx_release);
	onnx_model *m = NULL;
	int rc = onnx_read_path(&m, abs);
	b->p = m;
	const char *origin = source && source[0] == '/' ? source : abs;
	const char *slash = strrchr(origin, '/');
	char *dir = slash ? xstrndup(origin, (size_t)(slash - origin + (slash == origin))) : xstrdup(".");
	free(abs);
	if (rc) {
		free(dir);
		lua_pushnil(L);
		lua_pushstring(L, err_message());
		return 2;
	}
	onnx_check_external(m, dir);
	free(dir);
	lua_createtable(L, 0, 20);
	set_str(L, "file", source ? (strrchr(source, '/') ? strrchr(source, '/') + 1 : source) : NULL);
	set_int(L, "ir_version", m->ir_version);
	set_str(L, "producer", m->producer_name);
	set_str(L, "producer_version", m->producer_version);
	lua_createtable(L, 0, (int)m->nopsets);
	for (size_t i = 0; i < m->nopsets; i++)
		set_int(L, m->opsets[i].domain, m->opsets[i].version);
	lua_setfield(L, -2, "opsets");
	push_values(L, "inputs", m->inputs, m->ninputs);
	push_values(L, "outputs", m->outputs, m->noutputs);
	lua_createtable(L, (int)m->nops, 0);
	for (size_t i = 0; i < m->nops; i++) {
		lua_createtable(L, 0, 3);
		set_str(L, "domain", m->ops[i].domain);
		set_str(L, "op_type", m->ops[i].op_type);
		set_int(L, "count", m->ops[i].count);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "ops");
	set_int(L, "nodes_total", m->nodes_total);
	size_t nn = m->nnodes < PAPI_ONNX_NODES ? m->nnodes : PAPI_ONNX_NODES;
	lua_createtable(L, (int)nn, 0);
	for (size_t i = 0; i < nn; i++) {
		const onnx_node *n = &m->nodes[i];
		lua_createtable(L, 0, 7);
		set_str(L, "name", n->name ? n->name : "");
		set_str(L, "op_type", n->op_type);
		set_str(L, "domain", n->domain);
		push_strings(L, "inputs", n->inputs, n->ninputs);
		push_strings(L, "outputs", n->outputs, n->noutputs);
		set_int(L, "depth", n->depth);
		set_int(L, "subgraphs", n->subgraphs);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "nodes");
	lua_createtable(L, 0, 3);
	set_int(L, "count", m->initializers);
	set_int(L, "bytes", m->initializer_bytes);
	set_int(L, "external", (long long)m->nexternal);
	lua_setfield(L, -2, "initializers");
	lua_createtable(L, (int)m->nfiles, 0);
	for (size_t i = 0; i < m->nfiles; i++) {
		const onnx_data_file *f = &m->files[i];
		lua_createtable(L, 0, 7);
		set_str(L, "location", f->location);
		set_int(L, "tensors", f->tensors);
		set_int(L, "bytes", f->bytes);
		set_int(L, "needed", f->needed);
		lua_pushboolean(L, f->present);
		lua_setfield(L, -2, "present");
		if (f->present)
			set_int(L, "size", f->size);
		set_str(L, "problem", f->problem);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "external");
	set_int(L, "subgraphs", m->subgraphs);
	set_int(L, "max_depth", m->max_depth);
	set_int(L, "functions", m->functions);
	box_drop(b);
	return 1;
}

/* ctx.decode_json(text): the JSON document as Lua values (objects and arrays as tables,
 * null as nil), or nil and a reason. Decoded by the host's cJSON; a document whose
 * nodes could not fit the plugin's memory cap is refused before it is parsed, since
 * cJSON's nodes live outside the capped Lua allocator. */
static int ctx_decode_json(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	size_t len;
	const char *text = luaL_checklstring(L, 1, &len);
	size_t nodes = 1;
	int in_string = 0;
	for (size_t i = 0; i < len; i++) {
		char c = text[i];
		if (in_string) {
			if (c == '\\')
				i++; /* the escaped character */
			else if (c == '"')
				in_string = 0;
		} else if (c == '"')
			in_string = 1;
		else
			nodes += c == ',' || c == '[' || c == '{';
	}
	if (nodes > (sb->mem_cap - (len < sb->mem_cap ? len : sb->mem_cap)) / sizeof(cJSON)) {
		lua_pushnil(L);
		lua_pushfstring(L, "JSON document too large for a plugin (%d KiB, about %d values)", (int)(len >> 10),
		                (int)(nodes < INT_MAX ? nodes : INT_MAX));
		return 2;
	}
	box *b = box_new(L, cjson_release);
	const char *end = NULL;
	b->p = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	if (!b->p) {
		lua_pushnil(L);
		lua_pushfstring(L, "not valid JSON (near byte %d)", (int)(end && end >= text ? end - text : 0));
		return 2;
	}
	push_json(L, b->p);
	box_drop(b);
	return 1;
}

/* The running plugin's declared setting called name, or NULL. */
static const plugin_setting *own_setting(const papi_sandbox *sb, const char *name)
{
	for (size_t i = 0; sb->plugin && i < sb->plugin->info.nsettings; i++)
		if (strcmp(sb->plugin->info.settings[i].name, name) == 0)
			return &sb->plugin->info.settings[i];
	return NULL;
}

/* A declared setting's text as its type: a boolean, a number or a string. */
static void push_setting(lua_State *L, const plugin_setting *s, const char *text)
{
	if (!text)
		lua_pushnil(L);
	else if (strcmp(s->type, "bool") == 0)
		lua_pushboolean(L, strcmp(text, "true") == 0);
	else if (strcmp(s->type, "count") == 0)
		lua_pushinteger(L, (lua_Integer)strtoll(text, NULL, 10));
	else if (strcmp(s->type, "number") == 0)
		lua_pushnumber(L, strtod(text, NULL));
	else
		lua_pushstring(L, text);
}

/* ctx.config(name): the plugin's own declared setting (typed, its default when unset),
 * else an engagement setting by its full key (a string, or nil when unset). */
static int ctx_config(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	const char *key = luaL_checkstring(L, 1);
	const plugin_setting *own = own_setting(sb, key);
	if (!run->opts->config_get) {
		if (own)
			push_setting(L, own, own->def);
		else
			lua_pushnil(L);
		return 1;
	}
	box *b = box_new(L, free);
	run_lock(run);
	b->p = run->opts->config_get(own ? own->key : key, run->opts->payload);
	run_unlock(run);
	if (own)
		push_setting(L, own, b->p ? b->p : own->def);
	else if (!b->p)
		lua_pushnil(L);
	else
		lua_pushstring(L, b->p);
	return 1;
}

/* Counts bytes a plugin hands over to the host; past MAX_HANDOVER its run is an error. */
static void handover(lua_State *L, papi_sandbox *sb, size_t bytes)
{
	sb->handed += bytes;
	if (sb->handed > MAX_HANDOVER)
		luaL_error(L, "the plugin handed over more than %d MiB of findings and metrics in one run",
		           (int)(MAX_HANDOVER >> 20));
}

/* A string field's length checked against limit (the field is named in the error). */
static void check_len(lua_State *L, const char *field, const char *s, size_t limit)
{
	size_t n = s ? strlen(s) : 0;
	if (n > limit)
		luaL_error(L, "report: %s is %d bytes; the limit is %d", field, (int)(n > INT_MAX ? INT_MAX : n),
		           (int)limit);
}

static int ctx_metric(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	size_t lname = 0, lunit = 0;
	const char *name = luaL_checklstring(L, 1, &lname);
	lua_Number v = luaL_checknumber(L, 2);
	const char *unit = luaL_optlstring(L, 3, NULL, &lunit);
	if (!isfinite(v))
		return luaL_error(L, "metric %s: the value must be a finite number, not %f", name, (double)v);
	if (lname == 0 || lname > MAX_NAME || lunit > MAX_NAME)
		return luaL_error(L, "metric: the name must be 1 to %d bytes and the unit at most %d", MAX_NAME, MAX_NAME);
	if (++sb->nmetrics > MAX_METRICS)
		return luaL_error(L, "metric: more than %d metrics in one run", MAX_METRICS);
	handover(L, sb, lname + lunit + sizeof(double));
	(void)run;
	/* handed to the host when the plugin ends, in the order recorded, even if it fails */
	sb->metrics = xrealloc(sb->metrics, (sb->nmetric + 1) * sizeof *sb->metrics);
	papi_metric *m = &sb->metrics[sb->nmetric++];
	m->name = safetext_clean(name, lname);
	m->unit = unit ? safetext_clean(unit, lunit) : NULL;
	m->value = (double)v;
	return 0;
}

static int ctx_log(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	const char *msg = luaL_tolstring(L, 1, NULL);
	if (getenv("FERRY_DEBUG")) {
		const char *who = sb->plugin ? sb->plugin->info.id : sb->origin;
		if (sb->run) /* when, as in the "done at" times of the plugins' summary */
			fprintf(stderr, "ferry: %s at %.2f s: %s\n", who, (double)(now_ms() - sb->run->started_ms) / 1000.0, msg);
		else
			fprintf(stderr, "ferry: %s: %s\n", who, msg);
	}
	return 0;
}

/* ---- report ------------------------------------------------------------------------ */

typedef struct edit_rec {
	lua_Integer start, end; /* byte range */
	const char *text;       /* borrowed from the edit table, which stays on the stack */
	size_t idx;             /* position in the list, for a stable order */
} edit_rec;

static int edit_cmp(const void *a, const void *b)
{
	const edit_rec *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Optional integer field of the table at idx; *set tells whether it was there. */
static lua_Integer opt_int(lua_State *L, int idx, const char *field, int *set)
{
	int t = lua_getfield(L, idx, field);
	lua_Integer v = 0;
	*set = 0;
	if (t != LUA_TNIL) {
		int isnum = 0;
		v = lua_tointegerx(L, -1, &isnum);
		if (!isnum)
			luaL_error(L, "report: %s must be an integer", field);
		if (v > INT_MAX || v < INT_MIN)
			luaL_error(L, "report: %s is out of range", field);
		*set = 1;
	}
	lua_pop(L, 1);
	return v;
}

/* Optional string field of the table at idx; the string stays referenced by the table. */
static const char *opt_str(lua_State *L, int idx, const char *field)
{
	int t = lua_getfield(L, idx, field);
	const char *s = NULL;
	if (t != LUA_TNIL) {
		if (t != LUA_TSTRING)
			luaL_error(L, "report: %s must be a string", field);
		s = lua_tostring(L, -1);
	}
	/* Keep the value on the stack so the pointer stays valid for the whole call. */
	return s;
}

/* Reads the edit list at idx into a userdata array pushed on the stack. */
static edit_rec *read_edits(lua_State *L, int idx, size_t *n, size_t file_len, int have_len)
{
	lua_Integer cnt = luaL_len(L, idx);
	if (cnt < 0 || cnt > MAX_EDITS)
		luaL_error(L, "report: too many edits");
	edit_rec *v = lua_newuserdatauv(L, (size_t)(cnt ? cnt : 1) * sizeof *v, 0);
	for (lua_Integer i = 1; i <= cnt; i++) {
		if (lua_geti(L, idx, i) != LUA_TTABLE)
			luaL_error(L, "report: edit %d is not a table", (int)i);
		int e = lua_gettop(L), set1, set2;
		edit_rec *r = &v[i - 1];
		r->start = opt_int(L, e, "start_byte", &set1);
		r->end = opt_int(L, e, "end_byte", &set2);
		if (!set1 || !set2)
			luaL_error(L, "report: edit %d needs start_byte and end_byte", (int)i);
		if (lua_getfield(L, e, "text") != LUA_TSTRING)
			luaL_error(L, "report: edit %d needs a text string", (int)i);
		r->text = lua_tostring(L, -1);
		lua_pop(L, 1); /* the edit table keeps its text alive */
		r->idx = (size_t)i;
		if (r->start < 0 || r->end < r->start || (have_len && (size_t)r->end > file_len))
			luaL_error(L, "report: edit %d has a bad byte range %d..%d", (int)i, (int)r->start,
			           (int)r->end);
		/* the edit table stays referenced by the list at idx */
		lua_pop(L, 1);
	}
	qsort(v, (size_t)cnt, sizeof *v, edit_cmp);
	for (lua_Integer i = 1; i < cnt; i++) {
		const edit_rec *a = &v[i - 1], *b = &v[i];
		if (b->start < a->end || (b->start == a->start && a->start == a->end && b->end == b->start))
			luaL_error(L, "report: edits overlap at byte %d", (int)b->start);
	}
	*n = (size_t)cnt;
	return v;
}

static int valid_severity(const char *s)
{
	return strcmp(s, "error") == 0 || strcmp(s, "warning") == 0 || strcmp(s, "info") == 0;
}

/* Makes fp distinct within the run: the second identical fingerprint gets ".2" etc. */
static char *unique_fingerprint(papi_run *run, char *fp)
{
	if (run->fp_used * 2 >= run->fp_cap) {
		size_t ncap = run->fp_cap ? run->fp_cap * 2 : 256;
		char **keys = xcalloc(ncap, sizeof *keys);
		unsigned *counts = xcalloc(ncap, sizeof *counts);
		for (size_t i = 0; i < run->fp_cap; i++) {
			if (!run->fp_keys[i])
				continue;
			size_t h = strtoull(run->fp_keys[i] + strlen(run->fp_keys[i]) - 12, NULL, 16) % ncap;
			while (keys[h])
				h = (h + 1) % ncap;
			keys[h] = run->fp_keys[i];
			counts[h] = run->fp_counts[i];
		}
		free(run->fp_keys);
		free(run->fp_counts);
		run->fp_keys = keys;
		run->fp_counts = counts;
		run->fp_cap = ncap;
	}
	size_t h = strtoull(fp + strlen(fp) - 12, NULL, 16) % run->fp_cap;
	while (run->fp_keys[h] && strcmp(run->fp_keys[h], fp) != 0)
		h = (h + 1) % run->fp_cap;
	if (!run->fp_keys[h]) {
		run->fp_keys[h] = xstrdup(fp);
		run->fp_counts[h] = 1;
		run->fp_used++;
		return fp;
	}
	unsigned n = ++run->fp_counts[h];
	char *out = xasprintf("%s.%u", fp, n);
	free(fp);
	return out;
}

/* The finding's i18n record (see intl.h) from the ids _() remembered for its message
 * and suggestion; NULL when neither came through _(). Caller frees. */
static char *i18n_json(const papi_plugin *p, const char *message, const char *suggestion)
{
	if (!message && !suggestion)
		return NULL;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "domain", p->info.textdomain ? p->info.textdomain : INTL_PLUGIN_DOMAIN);
	if (p->info.localedir)
		cJSON_AddStringToObject(o, "dir", p->info.localedir);
	if (message)
		cJSON_AddItemToObject(o, "message", cJSON_Parse(message));
	if (suggestion)
		cJSON_AddItemToObject(o, "suggestion", cJSON_Parse(suggestion));
	char *text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

/* A finding's identity, taken from its file's text (finding_fingerprint and friends). */
struct identity {
	char *fingerprint, *construct, *anchor;
};

static void identity_release(void *p)
{
	struct identity *id = p;
	free(id->fingerprint);
	free(id->construct);
	free(id->anchor);
	free(id);
}

/* Positions are bytes of the file; a byte-order mark is not part of line 1's columns:
 * takes it out of *col and *end_col where their line is 1. */
static void drop_bom_columns(const char *text, size_t len, int line, int *col, int end_line, int *end_col)
{
	size_t bom = util_utf8_bom(text, len);
	if (bom && line == 1 && *col > 0)
		*col = *col > (int)bom ? *col - (int)bom : 1;
	if (bom && end_line == 1 && *end_col > 0)
		*end_col = *end_col > (int)bom ? *end_col - (int)bom : 1;
}

/* Pushes ctx.report's `follows` (the table at 1) as a box holding the JSON array
 * [[file, line, col, end_line, end_col], ...] of the sites listed, as their nodes give
 * them; the box is empty without the field. Raises on a malformed list. No file is read:
 * reading another file here would let go of the text of the finding's own file (one
 * file read or tree held at a time), which the report still uses. */
static box *read_follows(lua_State *L, papi_run *run)
{
	int t = lua_getfield(L, 1, "follows");
	int list = lua_gettop(L);
	box *b = box_new(L, cjson_release);
	if (t == LUA_TNIL)
		return b;
	if (t != LUA_TTABLE)
		luaL_error(L, "report: follows must be a list of {file=, node=}");
	lua_Integer n = luaL_len(L, list);
	if (n < 1 || n > MAX_FOLLOWS)
		luaL_error(L, "report: follows must list 1 to %d sites", MAX_FOLLOWS);
	b->p = cJSON_CreateArray();
	const char *checked = NULL; /* the last file found to be a project path */
	for (lua_Integer i = 1; i <= n; i++) {
		if (lua_geti(L, list, i) != LUA_TTABLE)
			luaL_error(L, "report: follows[%d] must be a table {file=, node=}", (int)i);
		int site = lua_gettop(L);
		const char *file = opt_str(L, site, "file");
		if (!file || !*file || file[0] == '/')
			luaL_error(L, "report: follows[%d].file must be a project path", (int)i);
		if (!checked || strcmp(checked, file) != 0) {
			char *abs = NULL;
			if (project_resolve(&abs, run->opts->root, file) == FERRY_EREFUSED)
				luaL_error(L, "report: follows[%d]: %s", (int)i, err_message());
			free(abs);
			checked = file; /* stays referenced by the list while the loop runs */
		}
		if (lua_getfield(L, site, "node") != LUA_TTABLE)
			luaL_error(L, "report: follows[%d].node must be a table from ctx.query", (int)i);
		int node = lua_gettop(L), set[4];
		int pos[4] = { (int)opt_int(L, node, "line", &set[0]), (int)opt_int(L, node, "col", &set[1]),
		               (int)opt_int(L, node, "end_line", &set[2]), (int)opt_int(L, node, "end_col", &set[3]) };
		if (!set[0] || !set[1] || !set[2] || !set[3] || pos[0] < 1 || pos[2] < pos[0] || pos[1] < 0 || pos[3] < 0)
			luaL_error(L, "report: follows[%d].node has no position", (int)i);
		cJSON *site_json = cJSON_CreateArray();
		cJSON_AddItemToArray(site_json, cJSON_CreateString(file));
		for (int k = 0; k < 4; k++)
			cJSON_AddItemToArray(site_json, cJSON_CreateNumber(pos[k]));
		cJSON_AddItemToArray(b->p, site_json);
		lua_settop(L, site - 1);
	}
	return b;
}

static int ctx_report(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	papi_plugin *p = sb->plugin;
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_settop(L, 1);
	luaL_checkstack(L, 40, "report");
	if (sb->nfound >= MAX_FINDINGS)
		return luaL_error(L, "report: more than %d findings", MAX_FINDINGS);

	const char *message = opt_str(L, 1, "message");
	if (!message || !*message)
		return luaL_error(L, "report: message is required");
	const char *file = opt_str(L, 1, "file");
	const char *suggestion = opt_str(L, 1, "suggestion");
	const char *severity = opt_str(L, 1, "severity");
	const char *category = opt_str(L, 1, "category");
	const char *key = opt_str(L, 1, "key");
	const char *unit = opt_str(L, 1, "unit");
	lua_getfield(L, 1, "automatic");
	int automatic = lua_toboolean(L, -1);
	lua_pop(L, 1);
	if (severity && !valid_severity(severity))
		return luaL_error(L, "report: severity must be error, warning or info, not '%s'", severity);
	check_len(L, "message", message, MAX_MESSAGE);
	check_len(L, "suggestion", suggestion, MAX_MESSAGE);
	check_len(L, "category", category, MAX_NAME);
	check_len(L, "key", key, MAX_MESSAGE);
	check_len(L, "unit", unit, MAX_MESSAGE);
	check_len(L, "file", file, 4096);
	if (file && (file[0] == '/' || !*file))
		return luaL_error(L, "report: file '%s' is not a project path", file);
	if (file) {
		char *abs = NULL;
		if (project_resolve(&abs, run->opts->root, file) == FERRY_EREFUSED)
			return luaL_error(L, "report: %s", err_message());
		free(abs);
	}

	int line = 0, col = 0, end_line = 0, end_col = 0, set;
	lua_Integer start = 0, end = 0;
	int have_range = 0;
	if (lua_getfield(L, 1, "node") == LUA_TTABLE) {
		int n = lua_gettop(L), s1, s2;
		start = opt_int(L, n, "start_byte", &s1);
		end = opt_int(L, n, "end_byte", &s2);
		have_range = s1 && s2 && start >= 0 && end >= start;
		line = (int)opt_int(L, n, "line", &set);
		col = (int)opt_int(L, n, "col", &set);
		end_line = (int)opt_int(L, n, "end_line", &set);
		end_col = (int)opt_int(L, n, "end_col", &set);
	} else if (!lua_isnil(L, -1)) {
		return luaL_error(L, "report: node must be a table from ctx.query");
	}
	lua_Integer v = opt_int(L, 1, "line", &set);
	if (set)
		line = (int)v;
	v = opt_int(L, 1, "col", &set);
	if (set)
		col = (int)v;
	v = opt_int(L, 1, "end_line", &set);
	if (set)
		end_line = (int)v;
	v = opt_int(L, 1, "end_col", &set);
	if (set)
		end_col = (int)v;
	if (line < 0 || col < 0 || end_line < 0 || end_col < 0)
		return luaL_error(L, "report: negative position");
	if (!file && (have_range || line))
		return luaL_error(L, "report: a position needs a file");

	size_t text_len = 0;
	const char *text = file ? file_text(L, sb, file, &text_len) : NULL;
	int file_read = text != NULL;
	if (file && !text) {
		lua_pop(L, 1);
		lua_pushnil(L); /* keep the stack shape: one value per file_text */
	}
	if (!have_range && text && line > 0) {
		/* the explicit line's bytes stand in for a node */
		size_t at = 0;
		int l = 1;
		while (l < line && at < text_len) {
			const char *nl = memchr(text + at, '\n', text_len - at);
			if (!nl) {
				at = text_len;
				break;
			}
			at = (size_t)(nl - text) + 1;
			l++;
		}
		const char *nl = at < text_len ? memchr(text + at, '\n', text_len - at) : NULL;
		start = (lua_Integer)at;
		end = nl ? (lua_Integer)(nl - text) : (lua_Integer)text_len;
		have_range = l == line;
	}

	drop_bom_columns(text, text_len, line, &col, end_line ? end_line : line, &end_col);

	/* the identity now: the fix function below may read another file, which lets go of
	 * this one's text (one file read or tree held at a time) */
	box *idb = box_new(L, identity_release);
	struct identity *id = idb->p = xcalloc(1, sizeof *id);
	if (have_range && text) {
		id->fingerprint = finding_fingerprint(p->info.id, file, text, text_len, (size_t)start, (size_t)end, key);
		id->construct = finding_construct(file, text, text_len, (size_t)start, (size_t)end);
		id->anchor = finding_anchor(p->info.id, file, text, text_len, (size_t)start, (size_t)end, key);
	} else {
		id->fingerprint = finding_fingerprint(p->info.id, file, NULL, 0, 0, 0, key ? key : message);
	}
	text = NULL; /* not to be read past this point */

	/* the fix: explicit edits, else the plugin's fix function */
	edit_rec *edits = NULL;
	size_t nedits = 0;
	int et = lua_getfield(L, 1, "edits");
	if (et == LUA_TNIL && p->info.fixable) {
		lua_pop(L, 1);
		lua_rawgetp(L, LUA_REGISTRYINDEX, &key_fix);
		lua_rawgetp(L, LUA_REGISTRYINDEX, &key_ctx);
		lua_pushvalue(L, 1);
		lua_call(L, 2, 1);
		et = lua_type(L, -1);
	}
	if (et != LUA_TNIL) {
		if (et != LUA_TTABLE)
			return luaL_error(L, "report: edits must be a list of {start_byte, end_byte, text}");
		if (!file)
			return luaL_error(L, "report: edits need a file");
		edits = read_edits(L, lua_gettop(L), &nedits, text_len, file_read);
	}

	box *fb = read_follows(L, run);
	char *follows = fb->p ? cJSON_PrintUnformatted(fb->p) : NULL;
	cJSON_Delete(fb->p);
	fb->p = follows;
	fb->release = free_release;

	box *ib = box_new(L, free_release);
	ib->p = i18n_json(p, i18n_of(L, message), i18n_of(L, suggestion));

	size_t bytes = strlen(message) + (suggestion ? strlen(suggestion) : 0) + (file ? strlen(file) : 0) +
	               (follows ? strlen(follows) : 0) +
	               (category ? strlen(category) : 0) + 256;
	for (size_t i = 0; i < nedits; i++)
		bytes += strlen(edits[i].text) + sizeof *edits;
	handover(L, sb, bytes);

	/* Nothing below raises a Lua error: the C finding cannot leak. */
	finding f;
	memset(&f, 0, sizeof f);
	f.plugin = xstrdup(p->info.id);
	f.phase = phase_index(p->info.phase);
	f.severity = (finding_severity)severity_parse(severity ? severity : p->info.severity);
	f.category = category ? safetext_clean(category, strlen(category)) : p->info.category ? xstrdup(p->info.category) : NULL;
	f.file = file ? xstrdup(file) : NULL;
	f.line = line;
	f.col = col;
	f.end_line = end_line ? end_line : line;
	f.end_col = end_col;
	f.message = safetext_clean(message, strlen(message));
	f.suggestion = suggestion ? safetext_clean(suggestion, strlen(suggestion)) : NULL;
	f.i18n = ib->p;
	ib->p = NULL;
	f.status = STATUS_OPEN;
	f.automatic = automatic;
	f.unit = unit && *unit ? xstrdup(unit) : NULL;
	f.follows = fb->p;
	fb->p = NULL;
	char *fp = id->fingerprint;
	f.construct = id->construct;
	f.anchor = id->anchor;
	free(id);
	idb->p = NULL;
	run_lock(run);
	f.fingerprint = unique_fingerprint(run, fp);
	run_unlock(run);
	if (nedits) {
		f.edits = xcalloc(nedits, sizeof *f.edits);
		f.nedits = nedits;
		for (size_t i = 0; i < nedits; i++) {
			f.edits[i].start_byte = (unsigned)edits[i].start;
			f.edits[i].end_byte = (unsigned)edits[i].end;
			f.edits[i].text = xstrdup(edits[i].text);
		}
	}
	if (sb->nfound == sb->capfound) {
		sb->capfound = sb->capfound ? sb->capfound * 2 : 16;
		sb->found = xrealloc(sb->found, sb->capfound * sizeof *sb->found);
	}
	sb->found[sb->nfound++] = f;
	return 0;
}

/* ---- exec -------------------------------------------------------------------------- */

typedef struct exec_result {
	sbuf out, err;   /* captured output, each capped at EXEC_OUT_CAP */
	int status;      /* exit status, or -signal */
	int timed_out;
	int exec_errno;  /* why the program could not start, or 0 */
} exec_result;

static void drain(int *fd, sbuf *b)
{
	char buf[8192];
	ssize_t r = read(*fd, buf, sizeof buf);
	if (r > 0) {
		if (b->len < EXEC_OUT_CAP)
			sbuf_add(b, buf, (size_t)r > EXEC_OUT_CAP - b->len ? EXEC_OUT_CAP - b->len : (size_t)r);
	} else if (r == 0 || (errno != EINTR && errno != EAGAIN)) {
		close(*fd);
		*fd = -1;
	}
}

/* Runs argv without a shell; stdin is /dev/null. The child gets its own process group
 * so a timeout kills everything it started. Returns 0, or -1 when fork/pipe failed. */
static int run_program(exec_result *res, char *const *argv, long long timeout_ms)
{
	int out[2] = {-1, -1}, errp[2] = {-1, -1}, ex[2] = {-1, -1};
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(errp, O_CLOEXEC) != 0 || pipe2(ex, O_CLOEXEC) != 0)
		goto fail;
	pid_t pid = fork();
	if (pid < 0)
		goto fail;
	if (pid == 0) {
		setpgid(0, 0);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		execvp(argv[0], argv);
		int e = errno;
		if (write(ex[1], &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	setpgid(pid, pid);
	close(out[1]);
	close(errp[1]);
	close(ex[1]);
	out[1] = errp[1] = ex[1] = -1;
	int e = 0;
	if (read(ex[0], &e, sizeof e) == (ssize_t)sizeof e)
		res->exec_errno = e;
	close(ex[0]);
	ex[0] = -1;
	long long deadline = now_ms() + timeout_ms;
	while (out[0] >= 0 || errp[0] >= 0) {
		long long left = deadline - now_ms();
		if (left <= 0 && !res->timed_out) {
			res->timed_out = 1;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
		}
		struct pollfd pf[2] = {{.fd = out[0], .events = POLLIN}, {.fd = errp[0], .events = POLLIN}};
		int r = poll(pf, 2, res->timed_out ? 1000 : (int)(left > 1000 ? 1000 : left));
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0) {
			if (res->timed_out)
				break; /* a grandchild escaped the group and holds the pipe: stop waiting */
			continue;
		}
		if (out[0] >= 0 && (pf[0].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(&out[0], &res->out);
		if (errp[0] >= 0 && (pf[1].revents & (POLLIN | POLLHUP | POLLERR)))
			drain(&errp[0], &res->err);
	}
	if (out[0] >= 0)
		close(out[0]);
	if (errp[0] >= 0)
		close(errp[0]);
	int st = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, res->timed_out ? 0 : WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			break;
		if (w == 0) {
			/* the program closed its output but has not exited: give it the rest of the time */
			if (now_ms() >= deadline) {
				res->timed_out = 1;
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
			} else {
				struct timespec ts = {0, 10 * 1000 * 1000};
				nanosleep(&ts, NULL);
			}
		}
	}
	res->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? -WTERMSIG(st) : -1;
	return 0;
fail:
	for (int i = 0; i < 2; i++) {
		if (out[i] >= 0)
			close(out[i]);
		if (errp[i] >= 0)
			close(errp[i]);
		if (ex[i] >= 0)
			close(ex[i]);
	}
	return -1;
}

static int ctx_exec(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	run_of(L, sb);
	papi_plugin *p = sb->plugin;
	if (!p->needs_exec || strcmp(p->info.phase, "environment") != 0)
		return luaL_error(L, "exec: only environment plugins declaring needs = {\"exec\"} may run programs");
	if (!p->info.may_exec)
		return luaL_error(L, "exec: this engagement does not allow plugin %s to run programs "
		                     "(allow it with: ferry config plugins.allow_exec %s)", p->info.id, p->info.id);
	luaL_checktype(L, 1, LUA_TTABLE);
	lua_Integer timeout = luaL_checkinteger(L, 2);
	if (timeout < 1)
		timeout = 1;
	if (timeout > 600000)
		timeout = 600000;
	long long left = sb->deadline_ms - now_ms(); /* a program cannot outlive the plugin's time */
	if (timeout > left)
		timeout = left > 1 ? left : 1;
	lua_Integer argc = luaL_len(L, 1);
	if (argc < 1 || argc > MAX_ARGV)
		return luaL_error(L, "exec: argv must hold 1 to %d strings", MAX_ARGV);
	const char **argv = lua_newuserdatauv(L, (size_t)(argc + 1) * sizeof *argv, 0);
	for (lua_Integer i = 1; i <= argc; i++) {
		if (lua_geti(L, 1, i) != LUA_TSTRING)
			return luaL_error(L, "exec: argv[%d] is not a string", (int)i);
		argv[i - 1] = lua_tostring(L, -1); /* kept alive by the argv table */
		lua_pop(L, 1);
	}
	argv[argc] = NULL;
	box *bo = box_new(L, free), *be = box_new(L, free);
	exec_result res;
	memset(&res, 0, sizeof res);
	sbuf_init(&res.out);
	sbuf_init(&res.err);
	int rc = run_program(&res, (char *const *)argv, timeout);
	bo->p = res.out.buf;
	be->p = res.err.buf;
	if (rc != 0) {
		lua_pushnil(L);
		lua_pushfstring(L, "%s: cannot start (%s)", argv[0], strerror(errno));
		return 2;
	}
	if (res.exec_errno) {
		lua_pushnil(L);
		lua_pushfstring(L, "%s: %s", argv[0], strerror(res.exec_errno));
		return 2;
	}
	lua_createtable(L, 0, 4);
	lua_pushinteger(L, res.status);
	lua_setfield(L, -2, "status");
	lua_pushlstring(L, res.out.buf, res.out.len);
	lua_setfield(L, -2, "stdout");
	lua_pushlstring(L, res.err.buf, res.err.len);
	lua_setfield(L, -2, "stderr");
	lua_pushboolean(L, res.timed_out);
	lua_setfield(L, -2, "timed_out");
	box_drop(bo);
	box_drop(be);
	return 1;
}

/* ---- states ------------------------------------------------------------------------ */

static int open_k(lua_State *L)
{
	papi_sandbox *sb = lua_touserdata(L, 1);
	lua_pushlightuserdata(L, sb);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &key_sandbox);
	luaL_requiref(L, LUA_GNAME, luaopen_base, 1);
	luaL_requiref(L, LUA_STRLIBNAME, luaopen_string, 1);
	luaL_requiref(L, LUA_TABLIBNAME, luaopen_table, 1);
	luaL_requiref(L, LUA_MATHLIBNAME, luaopen_math, 1);
	luaL_requiref(L, LUA_UTF8LIBNAME, luaopen_utf8, 1);
	lua_pop(L, 5);
	charge_libraries(L);
	/* string.dump goes from the library itself: strings' metatable reaches it too */
	lua_getglobal(L, LUA_STRLIBNAME);
	lua_getfield(L, -1, "find");
	lua_rawsetp(L, LUA_REGISTRYINDEX, &key_find);
	lua_pushnil(L);
	lua_setfield(L, -2, "dump");
	lua_pop(L, 1);
	/* nothing else in the global table is reachable from a plugin; drop the dangerous
	 * entries anyway so a future mistake in push_env cannot expose them */
	static const char *const drop[] = {"load", "loadstring", "dofile", "loadfile",
	                                   "collectgarbage", "require", NULL};
	for (int i = 0; drop[i]; i++) {
		lua_pushnil(L);
		lua_setglobal(L, drop[i]);
	}
	luaL_newmetatable(L, BOX_META);
	lua_pushcfunction(L, box_gc);
	lua_setfield(L, -2, "__gc");
	lua_pushcfunction(L, box_gc);
	lua_setfield(L, -2, "__close");
	lua_pushliteral(L, "ferry.box");
	lua_setfield(L, -2, "__metatable");
	lua_pop(L, 1);
	lua_newtable(L);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &key_loaded);
	lua_newtable(L);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &key_data);
	make_node_fields(L);
	return 0;
}

lua_State *papi_open(papi_sandbox *sb)
{
	if (!sb->mem_cap)
		sb->mem_cap = PAPI_DEFAULT_MEM_CAP;
	if (!sb->budget)
		sb->budget = PAPI_DEFAULT_BUDGET;
	if (!sb->time_limit_ms)
		sb->time_limit_ms = PAPI_DEFAULT_TIME_LIMIT_MS;
	sb->deadline_ms = now_ms() + (long long)sb->time_limit_ms;
	sb->clock_at = sb->used;
	lua_State *L = lua_newstate(capped_alloc, sb);
	if (!L)
		return NULL;
	lua_pushcfunction(L, open_k);
	lua_pushlightuserdata(L, sb);
	if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
		lua_close(L);
		return NULL;
	}
	if (sb->prof) /* calls and returns too, so a host call's time lands on its caller's line */
		lua_sethook(L, count_hook, LUA_MASKCOUNT | LUA_MASKCALL | LUA_MASKRET, LPROF_STEP);
	else
		lua_sethook(L, count_hook, LUA_MASKCOUNT, HOOK_STEP);
	return L;
}

/* Plugins cannot declare finalizers (see l_setmetatable); should Lua code run while
 * the state closes anyway, the hook cuts it short. */
void papi_close(lua_State *L)
{
	if (!L)
		return;
	papi_sandbox *sb = sandbox_of(L);
	sb->closing = 1;
	last_read_drop(sb);
	lua_sethook(L, count_hook, LUA_MASKCOUNT, KILL_STEP);
	lua_close(L);
}

/* One line from an error: budget and memory kills first, else the message without its
 * traceback. The full message goes to stderr when FERRY_DEBUG is set. Caller frees. */
static char *error_reason(lua_State *L, papi_sandbox *sb, int status)
{
	const char *msg = lua_tostring(L, -1);
	if (getenv("FERRY_DEBUG") && msg)
		fprintf(stderr, "ferry: %s: %s\n", sb->origin, msg);
	if (sb->unsealed)
		return xstrdup(sb->unsealed);
	if (sb->killed == PAPI_KILL_BUDGET)
		return xasprintf("instruction budget exceeded (%llu instructions)", sb->budget);
	if (sb->killed == PAPI_KILL_MEMORY || sb->mem_exceeded || status == LUA_ERRMEM)
		return xasprintf("memory limit exceeded (%zu MiB)", sb->mem_cap >> 20);
	if (sb->killed == PAPI_KILL_TIME)
		return xasprintf("time limit exceeded (%llu s)", (sb->time_limit_ms + 999) / 1000);
	if (status == LUA_ERRERR)
		return xstrdup("error while handling an error (stack overflow?)");
	if (!msg)
		return xstrdup("unknown error");
	const char *nl = strchr(msg, '\n');
	return nl ? xstrndup(msg, (size_t)(nl - msg)) : xstrdup(msg);
}

static int load_k(lua_State *L)
{
	const char *chunk = lua_touserdata(L, 1);
	size_t len = (size_t)lua_tointeger(L, 2);
	const char *name = lua_tostring(L, 3);
	lua_settop(L, 3);
	load_in_env(L, chunk, len, name, 1);
	return 1;
}

int papi_load(lua_State *L, const char *chunk, size_t len, const char *chunkname, char **err)
{
	papi_sandbox *sb = sandbox_of(L);
	*err = NULL;
	int base = lua_gettop(L);
	lua_pushcfunction(L, papi_traceback);
	lua_pushcfunction(L, load_k);
	lua_pushlightuserdata(L, (void *)chunk);
	lua_pushinteger(L, (lua_Integer)len);
	char *name = xasprintf("@%s", chunkname);
	lua_pushstring(L, name);
	free(name);
	int st = lua_pcall(L, 3, 1, base + 1);
	int ok = st == LUA_OK && !sb->killed && !sb->mem_exceeded;
	if (!ok) {
		*err = error_reason(L, sb, st);
		lua_settop(L, base);
		return -1;
	}
	lua_remove(L, base + 1);
	return 0;
}

/* ---- ctx.profile: profiler output aggregated in C (app/profile.c) ------------------- */

static void profile_release(void *p)
{
	profile_free(p);
}

static void set_num(lua_State *L, const char *k, double v)
{
	lua_pushnumber(L, v);
	lua_setfield(L, -2, k);
}

/* Pushes up to n operators of v as a list of {name, type, core, count, total_us, max_us, avg_us};
 * with aicpu, only those on the AI CPU. */
static void push_ops(lua_State *L, const profile_op *v, size_t nv, size_t n, int aicpu)
{
	lua_createtable(L, 0, 0);
	lua_Integer k = 0;
	for (size_t i = 0; i < nv && (size_t)k < n; i++) {
		if (aicpu && !profile_is_aicpu(v[i].core))
			continue;
		lua_createtable(L, 0, 7);
		lua_pushstring(L, v[i].name);
		lua_setfield(L, -2, "name");
		lua_pushstring(L, v[i].type);
		lua_setfield(L, -2, "type");
		lua_pushstring(L, v[i].core);
		lua_setfield(L, -2, "core");
		set_num(L, "count", (double)v[i].count);
		set_num(L, "total_us", v[i].total_us);
		set_num(L, "max_us", v[i].max_us);
		set_num(L, "avg_us", v[i].count ? v[i].total_us / (double)v[i].count : 0);
		lua_rawseti(L, -2, ++k);
	}
}

/* The first top steps of order (p's steps, sorted) as a list of {id=, dur_us=, busy_us=,
 * free_us=, index=}, index the step's position in the profile from 1. */
static void push_steps(lua_State *L, const profile *p, const profile_step *const *order, size_t top)
{
	lua_createtable(L, 0, 0);
	for (size_t i = 0; i < p->nsteps && i < top; i++) {
		lua_createtable(L, 0, 5);
		lua_pushstring(L, order[i]->id);
		lua_setfield(L, -2, "id");
		set_num(L, "dur_us", order[i]->dur_us);
		set_num(L, "busy_us", order[i]->busy_us);
		set_num(L, "free_us", order[i]->free_us);
		set_num(L, "index", (double)(order[i] - p->steps) + 1);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
}

static int by_duration(const void *x, const void *y)
{
	double a = (*(const profile_step *const *)x)->dur_us, b = (*(const profile_step *const *)y)->dur_us;
	return a > b ? -1 : a < b;
}

static int by_free_share(const void *x, const void *y)
{
	const profile_step *a = *(const profile_step *const *)x, *b = *(const profile_step *const *)y;
	double fa = a->dur_us > 0 ? a->free_us / a->dur_us : 0, fb = b->dur_us > 0 ? b->free_us / b->dur_us : 0;
	return fa > fb ? -1 : fa < fb;
}

/* ctx.profile(id, opts?): the aggregates of an ingested profile, read by streaming over
 * the file whatever its size; opts.top (default 10) bounds the operator lists and the
 * worst steps, opts.free_share (default 0.1) is the host-wait share a step is counted
 * from. nil and a reason when the artifact is not a profile at all. */
static int ctx_profile(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	papi_run *run = run_of(L, sb);
	lua_Integer top = 10;
	double share = 0.1;
	if (lua_istable(L, 2)) {
		lua_getfield(L, 2, "top");
		top = luaL_optinteger(L, -1, 10);
		lua_getfield(L, 2, "free_share");
		share = luaL_optnumber(L, -1, 0.1);
		lua_pop(L, 2);
	}
	if (top < 1 || top > 1000)
		return luaL_error(L, "profile: top must be 1 to 1000");
	/* the arguments and the language: where reading stopped is said in words */
	luaL_Buffer args;
	luaL_buffinit(L, &args);
	luaL_addlstring(&args, (const char *)&top, sizeof top);
	luaL_addlstring(&args, (const char *)&share, sizeof share);
	luaL_addstring(&args, intl_lang());
	luaL_pushresult(&args);
	acache_key key;
	box *ab;
	int kept = reading_open(L, run, "profile", &key, &ab);
	if (kept)
		return kept < 0 ? 2 : kept;
	box *b = box_new(L, profile_release);
	int rc = profile_read_file((profile **)&b->p, ab->p);
	box_drop(ab);
	if (rc) {
		lua_pushnil(L);
		lua_pushstring(L, err_message());
		return 2;
	}
	const profile *p = b->p;
	if (p->read_failed)
		key.path[0] = '\0'; /* the disk failed, not the file: read it again next time */
	box *ob = box_new(L, free); /* the steps ordered by their wait share */
	ob->p = xmalloc((p->nsteps ? p->nsteps : 1) * sizeof(const profile_step *));
	lua_createtable(L, 0, 24);
	lua_pushstring(L, profile_form_name(p->form));
	lua_setfield(L, -2, "form");
	lua_pushboolean(L, p->device);
	lua_setfield(L, -2, "device");
	set_num(L, "total_us", p->total_us);
	set_num(L, "comm_us", p->comm_us);
	set_num(L, "aicpu_us", p->aicpu_us);
	set_num(L, "idle_us", p->idle_us);
	set_num(L, "busy_us", p->busy_us);
	set_num(L, "rows", (double)p->rows);
	set_num(L, "bad_rows", (double)p->bad_rows);
	set_num(L, "bytes", (double)p->bytes);
	set_num(L, "dynamic_rows", (double)p->dynamic_rows);
	set_num(L, "static_rows", (double)p->static_rows);
	set_num(L, "nops", (double)p->nops);
	set_num(L, "ntypes", (double)p->ntypes);
	if (p->stopped) {
		lua_pushstring(L, p->stopped);
		lua_setfield(L, -2, "stopped");
	}
	push_ops(L, p->ops, p->nops, (size_t)top, 0);
	lua_setfield(L, -2, "ops");
	push_ops(L, p->types, p->ntypes, (size_t)top, 0);
	lua_setfield(L, -2, "types");
	push_ops(L, p->types, p->ntypes, p->ntypes, 1);
	lua_setfield(L, -2, "aicpu");
	if (p->has_breakdown) {
		lua_createtable(L, 0, 3);
		set_num(L, "compute_us", p->compute_us);
		set_num(L, "comm_us", p->comm_exposed_us);
		set_num(L, "free_us", p->free_us);
		lua_setfield(L, -2, "breakdown");
	}
	lua_createtable(L, (int)(p->nranks < 4096 ? p->nranks : 4096), 0);
	for (size_t i = 0; i < p->nranks; i++) {
		lua_createtable(L, 0, 5);
		lua_pushstring(L, p->ranks[i].id);
		lua_setfield(L, -2, "id");
		set_num(L, "busy_us", p->ranks[i].busy_us);
		set_num(L, "step_us", p->ranks[i].step_us);
		set_num(L, "idle_us", p->ranks[i].idle_us);
		set_num(L, "steps", (double)p->ranks[i].steps);
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	lua_setfield(L, -2, "ranks");
	if (p->nsteps) {
		double dur = 0, fr = 0;
		size_t over = 0;
		const profile_step **order = ob->p;
		for (size_t i = 0; i < p->nsteps; i++) {
			const profile_step *s = &p->steps[i];
			order[i] = s;
			dur += s->dur_us;
			fr += s->free_us;
			over += s->dur_us > 0 && s->free_us / s->dur_us >= share;
		}
		qsort(order, p->nsteps, sizeof *order, by_free_share);
		lua_createtable(L, 0, 5);
		set_num(L, "count", (double)p->nsteps);
		set_num(L, "dur_us", dur);
		set_num(L, "free_us", fr);
		set_num(L, "over", (double)over);
		push_steps(L, p, order, (size_t)top);
		lua_setfield(L, -2, "worst");
		/* the slowest steps against the median: a step far above it is work outside the
		 * steady loop (a collection of Python's garbage, a checkpoint, a stalled loader) */
		qsort(order, p->nsteps, sizeof *order, by_duration);
		set_num(L, "median_us", p->nsteps % 2 ? order[p->nsteps / 2]->dur_us
		                                      : (order[p->nsteps / 2 - 1]->dur_us + order[p->nsteps / 2]->dur_us) / 2);
		push_steps(L, p, order, (size_t)top);
		lua_setfield(L, -2, "slowest");
		lua_setfield(L, -2, "steps");
	}
	box_drop(ob);
	box_drop(b);
	reading_keep(L, 1, &key);
	return 1;
}

/* ctx.prefetch(paths): the Python files the plugin will query next, in order; the host
 * parses them ahead while a core is free (see PAPI_AHEAD_TREES). Replaces the last list. */
static int ctx_prefetch(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	luaL_checktype(L, 1, LUA_TTABLE);
	if (!sb->plugin)
		return luaL_error(L, "prefetch: only available while the plugin runs");
	papi_run *run = sb->run;
	if (!run || !run->sched || !sb->lane)
		return 0; /* one thread: nothing runs beside the plugin */
	lua_Integer n = luaL_len(L, 1);
	long *ahead = xcalloc(n > 0 ? (size_t)n : 1, sizeof *ahead);
	size_t k = 0;
	for (lua_Integer i = 1; i <= n; i++) {
		lua_rawgeti(L, 1, i);
		const char *path = lua_tostring(L, -1);
		papi_file *f = path ? py_file(run, path) : NULL;
		lua_pop(L, 1);
		if (f)
			ahead[k++] = f - run->py;
	}
	run_lock(run);
	forget_ahead(run, sb->lane);
	sb->lane->ahead_lists++;
	sb->lane->ahead = ahead;
	sb->lane->nahead = k;
	pthread_cond_broadcast(&run->sched->done_cv); /* the host's thread does the work */
	run_unlock(run);
	return 0;
}

/* ---- shared analyses ---------------------------------------------------------------- */

static papi_shared *shared_find(papi_file *f, const char *name)
{
	for (papi_shared *v = f->shared; v; v = v->next)
		if (strcmp(v->name, name) == 0)
			return v;
	return NULL;
}

/* Removes the analysis being worked out (it failed) and wakes those waiting for it. */
static void shared_abandon(papi_run *run, papi_file *f, const char *name)
{
	run_lock(run);
	for (papi_shared **at = &f->shared; *at; at = &(*at)->next)
		if ((*at)->busy && strcmp((*at)->name, name) == 0) {
			papi_shared *v = *at;
			*at = v->next;
			shared_free(v);
			break;
		}
	if (run->sched)
		pthread_cond_broadcast(&run->sched->parsed_cv);
	run_unlock(run);
}

typedef struct text_list {
	const char **s;
	size_t *n;
	size_t len, cap;
} text_list;

static void note_text(const char *text, size_t len, void *payload)
{
	text_list *t = payload;
	if (t->len == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->s = xrealloc(t->s, t->cap * sizeof *t->s);
		t->n = xrealloc(t->n, t->cap * sizeof *t->n);
	}
	t->s[t->len] = text;
	t->n[t->len++] = len;
}

/* Pushes a table text -> the id and arguments _() remembered for it, for the texts of t
 * that came from _(): a copy of the value reads in every language too. */
static void push_translations(lua_State *L, const text_list *t)
{
	lua_newtable(L);
	lua_rawgetp(L, LUA_REGISTRYINDEX, &key_i18n);
	if (lua_istable(L, -1))
		for (size_t i = 0; i < t->len; i++) {
			lua_pushlstring(L, t->s[i], t->n[i]);
			lua_rawget(L, -2);
			if (lua_type(L, -1) == LUA_TSTRING) {
				lua_pushlstring(L, t->s[i], t->n[i]);
				lua_insert(L, -2);
				lua_rawset(L, -4);
			} else {
				lua_pop(L, 1);
			}
		}
	lua_pop(L, 1);
}

/* Adds the table of translations at the top of the stack (popped) to the state's own. */
static void merge_translations(lua_State *L)
{
	push_remembered_texts(L);
	lua_pushnil(L);
	while (lua_next(L, -3)) {
		lua_pushvalue(L, -2);
		lua_insert(L, -2);
		lua_rawset(L, -4);
	}
	lua_pop(L, 2);
}

/* What working out a shared analysis leaves for its caller to store and to free, also
 * when it fails halfway: C memory, so that no Lua error between fn and the store can
 * leak it or leave the analysis marked as being worked out. */
typedef struct shared_out {
	char *value, *texts;
	size_t nvalue, ntexts;
	text_list seen; /* the value's strings, for their translations */
} shared_out;

static void shared_out_free(shared_out *o)
{
	free(o->value);
	free(o->texts);
	free(o->seen.s);
	free(o->seen.n);
}

/* Protected: calls fn (argument 1) and dumps its value and the translations of its texts
 * into the shared_out (argument 2). Returns the value. */
static int shared_compute(lua_State *L)
{
	shared_out *o = lua_touserdata(L, 2);
	lua_pushvalue(L, 1);
	lua_call(L, 0, 1); /* index 3 */
	char *why = NULL;
	if (luacopy_dump(L, 3, &o->value, &o->nvalue, &why, note_text, &o->seen)) {
		lua_pushfstring(L, "the value holds %s; only nil, booleans, numbers, strings and tables of them can be shared",
		                why);
		free(why);
		return lua_error(L);
	}
	push_translations(L, &o->seen);
	if (luacopy_dump(L, -1, &o->texts, &o->ntexts, &why, NULL, NULL)) /* strings only */
		free(why); /* none stored: the copy reads in English */
	lua_settop(L, 3);
	return 1;
}

/* Works the analysis out with fn (at index 3), which this plugin has marked as being
 * worked out, and stores it for the other plugins; a failure unmarks it and is raised.
 * Leaves the value at the top. */
static int shared_work_out(lua_State *L, papi_sandbox *sb, papi_run *run, papi_file *f, const char *name)
{
	shared_out o = {0};
	lua_pushcfunction(L, shared_compute);
	lua_pushvalue(L, 3);
	lua_pushlightuserdata(L, &o);
	sb->sharing++;
	int rc = lua_pcall(L, 2, 1, 0);
	sb->sharing--;
	if (rc != LUA_OK) {
		shared_out_free(&o);
		shared_abandon(run, f, name);
		if (lua_type(L, -1) == LUA_TSTRING && !sb->killed)
			return luaL_error(L, "shared %s: %s", name, lua_tostring(L, -1));
		return lua_error(L);
	}
	run_lock(run);
	papi_shared *v = shared_find(f, name); /* ours: one being worked out stays */
	if (v && v->busy) {
		v->value = o.value;
		v->nvalue = o.nvalue;
		v->texts = o.texts;
		v->ntexts = o.ntexts;
		v->busy = 0;
		o.value = o.texts = NULL;
	}
	if (run->sched)
		pthread_cond_broadcast(&run->sched->parsed_cv);
	run_unlock(run);
	shared_out_free(&o);
	return 1;
}

/* ctx.shared(name, path, fn): fn() worked out once per run for the analysis name of the
 * Python file path and copied to the other plugins asking for the same (see
 * plugins/README.md). */
static int ctx_shared(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	const char *name = luaL_checkstring(L, 1);
	const char *path = luaL_checkstring(L, 2);
	luaL_checktype(L, 3, LUA_TFUNCTION);
	lua_settop(L, 3);
	papi_run *run = run_of(L, sb);
	papi_file *f = py_file(run, path);
	if (!f) { /* not a Python file of the project: nothing to share it with */
		lua_call(L, 0, 1);
		return 1;
	}
	/* a copy's bytes, owned by boxes made before the lock is taken (making one can
	 * raise, and a raise must not leave the lock held) */
	box *bv = box_new(L, free_release); /* index 4 */
	box *bt = box_new(L, free_release); /* index 5 */
	run_lock(run);
	if (sb->lane)
		lane_advance(sb, f - run->py); /* the plugin is at this file, as a query would say */
	papi_shared *v = shared_find(f, name);
	if (v && v->busy && run->sched && !sb->sharing) {
		/* another plugin is working it out: wait, giving the slot away (a plugin working
		 * out an analysis itself never waits, so two cannot wait for each other) */
		long long t0 = wait_begin(sb);
		while ((v = shared_find(f, name)) && v->busy)
			pthread_cond_wait(&run->sched->parsed_cv, &run->sched->mu);
		wait_done(sb, t0);
	}
	if (v && !v->busy) {
		size_t nvalue = v->nvalue, ntexts = v->ntexts;
		bv->p = xmalloc(nvalue ? nvalue : 1);
		memcpy(bv->p, v->value, nvalue);
		if (v->texts) {
			bt->p = xmalloc(ntexts ? ntexts : 1);
			memcpy(bt->p, v->texts, ntexts);
		}
		run_unlock(run);
		if (account(sb, (nvalue + ntexts) / BYTES_PER_INSTR + 1))
			return luaL_error(L, "%s", kill_reason(sb));
		if (bt->p && luacopy_load(L, bt->p, ntexts) == 0)
			merge_translations(L);
		if (luacopy_load(L, bv->p, nvalue))
			return luaL_error(L, "shared %s: the stored value of %s is damaged", name, path);
		box_drop(bv);
		box_drop(bt);
		return 1;
	}
	if (v) { /* being worked out while this plugin works out another: do it here too */
		run_unlock(run);
		lua_pushvalue(L, 3);
		lua_call(L, 0, 1);
		return 1;
	}
	v = xcalloc(1, sizeof *v); /* nobody has it: this plugin works it out */
	v->name = xstrdup(name);
	v->busy = 1;
	v->next = f->shared;
	f->shared = v;
	run_unlock(run);
	return shared_work_out(L, sb, run, f, name);
}

/* ctx.attributes(path): the outermost dotted attribute chains of a Python file, each
 * {node = <node>, text = "torch.cuda.synchronize"} in source order (pysrc_chains: worked out
 * once per tree in C and shared by every check, where each check used to take every
 * attribute node into Lua and normalise its text); nil and a reason when the file cannot
 * be parsed. */
static int ctx_attributes(lua_State *L)
{
	papi_sandbox *sb = sandbox_of(L);
	const char *path = luaL_checkstring(L, 1);
	if (!sb->plugin)
		return luaL_error(L, "attributes: only available while the plugin runs");
	pysrc *src = parsed(L, sb, path);
	if (!src) {
		lua_pushnil(L);
		lua_insert(L, -2);
		return 2;
	}
	size_t n, len;
	const pysrc_chain *c = pysrc_chains(src, &n);
	const char *text = pysrc_text(src, &len);
	int fields = push_node_fields(L);
	lua_createtable(L, (int)(n < INT_MAX ? n : INT_MAX), 0);
	for (size_t i = 0; i < n; i++) {
		pysrc_capture cap = {"attr", "attribute", text + c[i].start_byte, c[i].start_byte, c[i].end_byte,
		                     c[i].line, c[i].col, c[i].end_line, c[i].end_col};
		lua_createtable(L, 0, 2);
		push_node(L, &cap, fields);
		lua_setfield(L, -2, "node");
		lua_pushstring(L, c[i].dotted);
		lua_setfield(L, -2, "text");
		lua_rawseti(L, -2, (lua_Integer)i + 1);
	}
	return 1;
}

static int run_k(lua_State *L)
{
	static const luaL_Reg api[] = {
		{"files", ctx_files},
		{"python_files", ctx_python_files},
		{"read", ctx_read},
		{"lines", ctx_lines},
		{"query", ctx_query},
		{"node_text", ctx_node_text},
		{"find", ctx_find},
		{"data", papi_data_fn},
		{"loc", ctx_loc},
		{"find_names", ctx_find_names},
		{"attributes", ctx_attributes},
		{"prefetch", ctx_prefetch},
		{"artifacts", ctx_artifacts},
		{"read_artifact", ctx_read_artifact},
		{"scan_artifact", ctx_scan_artifact},
		{"bench", ctx_bench},
		{"bench_choice", ctx_bench_choice},
		{"onnx", ctx_onnx},
		{"decode_json", ctx_decode_json},
		{"comparisons", ctx_comparisons},
		{"baseline_find", ctx_baseline_find},
		{"assessment", ctx_assessment},
		{"profile", ctx_profile},
		{"config", ctx_config},
		{"report", ctx_report},
		{"metric", ctx_metric},
		{"exec", ctx_exec},
		{"log", ctx_log},
		{"shared", ctx_shared},
		{NULL, NULL},
	};
	luaL_checktype(L, 1, LUA_TTABLE);
	luaL_newlib(L, api);
	lua_pushvalue(L, -1);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &key_ctx);
	lua_pushliteral(L, "fix");
	lua_rawget(L, 1);
	lua_rawsetp(L, LUA_REGISTRYINDEX, &key_fix);
	lua_pushliteral(L, "run");
	lua_rawget(L, 1);
	if (!lua_isfunction(L, -1))
		return luaL_error(L, "run is not a function");
	lua_insert(L, -2);
	lua_call(L, 1, 0);
	return 0;
}

int papi_call_run(lua_State *L, char **err)
{
	papi_sandbox *sb = sandbox_of(L);
	*err = NULL;
	int decl = lua_gettop(L);
	lua_pushcfunction(L, papi_traceback);
	lua_pushcfunction(L, run_k);
	lua_pushvalue(L, decl);
	int st = lua_pcall(L, 1, 0, decl + 1);
	int ok = st == LUA_OK && !sb->killed && !sb->mem_exceeded && !sb->unsealed;
	if (!ok)
		*err = error_reason(L, sb, st);
	lua_settop(L, decl - 1);
	return ok ? 0 : -1;
}
