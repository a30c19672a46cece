/*
 * plugin_api — the sandbox and the ctx API behind plugin_host; private to the host.
 *
 * Owns the per-plugin Lua state: the capped allocator, the instruction-budget hook, the
 * allow-listed environment, the restricted require, and every ctx.* function a plugin
 * calls. plugin_host.c owns discovery, declarations and the run loop; both files include
 * Lua headers, nothing else does.
 *
 * Ownership: a papi_sandbox is the caller's (usually on its stack) and must outlive the
 * lua_State made for it. Findings a plugin reports accumulate in sandbox->found (malloc'd,
 * freed by the caller with papi_sandbox_done). The one file text a plugin keeps
 * (sandbox->last_read) is freed by papi_close or papi_sandbox_done. The C memory and files
 * a host call uses for its work (query matches, artifact texts and models, messages,
 * module sources, program output) are released before it returns, not left to Lua's
 * collector, which does not count them; only on an error does the collector free them. A
 * papi_run and its contents belong to the host's run and are released by papi_run_done.
 */
#ifndef FERRY_PLUGIN_API_H
#define FERRY_PLUGIN_API_H

#include "finding.h"
#include "plugin_host.h"
#include "project.h"
#include "pysrc.h"

#include <lua.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define PAPI_DEFAULT_BUDGET 200000000ULL       /* Lua VM instructions per plugin run */
#define PAPI_BUDGET_PER_BYTE 20ULL            /* more instructions per byte of source a plugin is offered */
#define PAPI_DEFAULT_MEM_CAP (64u * 1024 * 1024) /* bytes per plugin state */
#define PAPI_MAX_SOURCE (8u * 1024 * 1024)     /* larger files are not read: too large to analyse */

/* One loaded plugin, as the host keeps it between runs. */
typedef struct papi_plugin {
	plugin_info info;         /* public description (strings owned here) */
	char *chunk;              /* the Lua source text */
	size_t len;               /* its length */
	char **triggers;          /* literal triggers, NULL when none */
	unsigned *groups;         /* group of each trigger: a file is offered when it holds every
	                           * trigger of at least one group (a plain string is a group alone) */
	size_t ntriggers;
	size_t *run_trig;         /* during a run: index of each trigger in papi_run.triggers */
	pysrc_query *query;       /* the declared query, compiled at load; may be NULL */
	int needs_exec;           /* declared needs = {"exec"} */
	int bundled;              /* came with ferry (embedded or the source tree's plugins/) */
	char **qc_src;            /* explicit queries ctx.query was given so far ... */
	pysrc_query **qc;         /* ... their compiled forms (most from the process's shared
	                             table, which owns them) ... */
	unsigned char *qc_owned;  /* ... and 1 where the plugin owns the compiled form */
	size_t nqc;
} papi_plugin;

/* 1 when a file with these run-trigger hits is offered to p (p->run_trig set): it holds
 * every trigger of one of p's groups, or p has no triggers. */
int papi_offered(const papi_plugin *p, const unsigned char *hits);

/* Frees the strings, triggers and queries inside p (not p itself). */
void papi_plugin_done(papi_plugin *p);

/* Where a file's tree is. A tree is parsed by the first plugin that queries the file and
 * released once every plugin still running has moved past the file; a plugin that comes
 * back to it later parses it again. */
enum { PAPI_UNPARSED, PAPI_PARSING, PAPI_PARSED, PAPI_FAILED, PAPI_RELEASED };

/* A project Python file in one run. */
typedef struct papi_file {
	char *path;               /* relative path */
	pysrc *src;               /* parsed tree (state PAPI_PARSED), or NULL */
	char *problem;            /* why it cannot be read or parsed (one line), or NULL */
	unsigned char *hits;      /* per run trigger: 1 when the file contains it */
	int tried;                /* a parse was attempted */
	int state;                /* PAPI_UNPARSED ... */
	int wanted;               /* offered to a plugin of the run: its syntax is checked */
	unsigned phases;          /* bit per phase (phase_index) whose checks of the run were
	                           * offered or queried it: the phases its problems are filed in */
	unsigned users;           /* plugins holding the tree (each holds the file it last used) */
	int syntax_error;         /* the first parse found an ERROR or MISSING node ... */
	uint32_t err_line, err_col; /* ... here (1-based) */
	size_t size;              /* bytes, for the instruction budget */
	const struct papi_lane *ahead_for; /* the lane a tree parsed ahead is held for, or NULL */
	struct papi_shared *shared; /* analyses of the file worked out for ctx.shared (owned;
	                           * the ready ones go with the tree) */
} papi_file;

/* One plugin of a run on its own thread. The plugins advance through the Python files
 * together: the CPU slots go to the plugin furthest behind, so the trees in memory at
 * any time are those between the slowest and the fastest plugin. */
typedef struct papi_lane {
	long pos;                 /* highest index in papi_run.py the plugin queried, -1 before */
	long pinned;              /* index of the file whose tree it holds, -1 none */
	size_t files;             /* Python files it queried so far */
	size_t order;             /* the plugin's place in the run: breaks ties of pos */
	int waiting, granted;     /* waiting for a CPU slot; one was handed to it */
	int finished;
	pthread_cond_t cv;        /* signalled when a slot is handed to this lane */
	long *ahead;              /* files (indices in papi_run.py) the plugin will query next, */
	size_t nahead, ahead_next; /* in order (ctx.prefetch), and the next to parse ahead */
	size_t ahead_held;        /* trees parsed ahead for it that it has not used yet */
	size_t ahead_lists;       /* lists it gave so far */
} papi_lane;

/* While a CPU slot is free, the host's own thread parses ahead the files a plugin said it
 * will query next (ctx.prefetch), holding at most this many trees per plugin until it
 * uses them. A check that follows calls into files no other check reached (the CUDA
 * helpers' index) otherwise parses them one by one, alone, at the end of the run. */
#define PAPI_AHEAD_TREES 4
/* A plugin that reaches a file of its list before it was parsed ahead skips the host past
 * it (looked for this far along the list): the files before it are behind the plugin. */
#define PAPI_AHEAD_SCAN 64

/* The shared part of a run whose plugins run on threads. Guards everything in papi_run
 * the plugins share (files' trees, fact tables, fingerprints, extra files). */
typedef struct papi_sched {
	pthread_mutex_t mu;
	pthread_cond_t parsed_cv; /* broadcast when a file leaves PAPI_PARSING */
	pthread_cond_t done_cv;   /* broadcast when a lane finishes */
	unsigned slots;           /* CPU slots free */
	papi_lane *lanes;
	size_t nlanes;
	long low;                 /* files below this index are behind every unfinished lane */
	atomic_int cancel;        /* set by the host: plugins stop at their next check */
} papi_sched;

typedef struct papi_data {
	char *name;               /* fact table name ("api_map") */
	void *json;               /* its decoded cJSON tree */
} papi_data;

/* Recurring queries are walked together in unions. A union is made once two recurring
 * queries are in none yet and trees were asked for this many queries they did not hold
 * since the last union was made: new queries come in bursts. */
#define PAPI_UNION_AFTER 32
/* A new union holds every recurring query, so that each file is walked once for all of
 * them, while the Python still to come is at least this many bytes per query, times the
 * number of such whole unions made so far (each is compiled again in full: about 3 ms per
 * query, against about 0.05 µs per byte for a walk of a further union). Otherwise it
 * holds only the new ones. On diffusers' assessment whole unions walked each file 1.5
 * times instead of 5 (9,400 walks to 2,700, a fifth less CPU); remade at every burst, they
 * cost pytorch-image-models more to compile than they saved. */
#define PAPI_UNION_WHOLE_BYTES (60u * 1024)
/* A query joins a union once it ran on this many files: one-off queries stay out. */
#define PAPI_UNION_FILES 3
/* No unions when the Python files offered to the run's plugins are smaller than this in
 * all: compiling a union costs about what compiling its parts did (a few milliseconds
 * each), more than walking a small project's trees once per query (nanoGPT, 50 KB: the
 * unions were a third of the CPU time of its assessment). */
#define PAPI_UNION_MIN_BYTES (256u * 1024)

/* A query text some plugins of the run ran, and which (borrowed from the host). */
typedef struct papi_query_user {
	const papi_plugin *p;
	const struct papi_lane *lane; /* its lane, or NULL */
	long last;                /* the Python file it last ran the query on, -1 none */
	size_t files;             /* on how many of them */
} papi_query_user;

typedef struct papi_shared_query {
	const pysrc_query *q;     /* the first plugin's compiled form */
	size_t files;             /* files it was run on (by each plugin, summed) */
	int recurring;            /* ran on PAPI_UNION_FILES files or more */
	long in_union;            /* the union that holds it (index into the run's), or -1 */
	papi_query_user *users;
	size_t nusers;
} papi_shared_query;

/* Recurring queries walked together: the compiled union and the query that is each part. */
typedef struct papi_union {
	pysrc_combo *combo;
	size_t *part;             /* index into the run's queries, per part */
	size_t nparts;
} papi_union;

/* State shared by the plugins of one plugin_host_run. */
typedef struct papi_run {
	const plugin_host_opts *opts;
	const plugin_run_cb *cb;
	long long started_ms;     /* CLOCK_MONOTONIC when the plugins began (ctx.log's times) */
	project_list files;       /* the project inventory */
	papi_file *py;            /* .py files, sorted by path */
	size_t npy;
	size_t *wanted_after;     /* the size of the Python files offered to some plugin from
	                           * each index of py on (npy + 1; [0]: all of them) */
	papi_file **extra;        /* other files parsed on demand by ctx.query */
	size_t nextra;
	papi_sched *sched;        /* NULL when a single thread runs the plugins */
	char **triggers;          /* distinct triggers of the selected plugins (borrowed) */
	size_t ntriggers;
	size_t parsed;            /* files parsed in this run */
	size_t reparsed;          /* trees parsed again after their release (a plugin came back) */
	size_t parsed_ahead;      /* trees parsed by the host's thread for ctx.prefetch */
	size_t reads;             /* project files read whole without a tree (FERRY_DEBUG) ... */
	unsigned long long read_bytes; /* ... and their bytes; both under the run's lock */
	size_t readings[2];       /* artifact readings done [0] and taken from the cache [1] */
	size_t released;          /* trees released so far */
	papi_data *data;          /* fact tables decoded so far */
	size_t ndata;
	struct papi_shared_query *queries; /* distinct query texts the plugins ran so far */
	size_t nqueries;
	struct papi_union *unions; /* the unions of recurring queries made so far; each lives
	                           * until the run ends (a thread may be walking it) */
	size_t nunions;
	size_t nrecurring;        /* queries run on PAPI_UNION_FILES files or more */
	size_t nunited;           /* ... of which a union holds this many */
	size_t nwhole;            /* unions made of every recurring query */
	size_t misses;            /* trees asked for a query they did not hold, since the last
	                           * union was made */
	int uniting;              /* a thread is compiling a union, outside the lock */
	char **fp_keys;           /* fingerprints seen in this run (open addressing) */
	unsigned *fp_counts;
	size_t fp_cap, fp_used;
} papi_run;

void papi_run_done(papi_run *run);

#define PAPI_DEFAULT_TIME_LIMIT_MS 120000ULL /* wall-clock milliseconds per plugin run */

enum { PAPI_KILL_NONE, PAPI_KILL_BUDGET, PAPI_KILL_MEMORY, PAPI_KILL_TIME };

/* Everything one Lua state needs; the allocator's and the registry's pointer. */
typedef struct papi_sandbox {
	const plugin_host_opts *opts;
	papi_run *run;            /* NULL while only the declaration is loaded */
	papi_plugin *plugin;      /* NULL while only the declaration is loaded */
	const char *origin;       /* where the plugin came from, for messages */
	unsigned long long budget, used; /* instruction budget and instructions counted (library
	                                  * calls are charged by the size of their work) */
	unsigned long long time_limit_ms; /* wall-clock limit of the run; 0 = default */
	long long deadline_ms;    /* monotonic time the run must end by (set by papi_open) */
	unsigned long long clock_at; /* the count of used at which the clock is read next */
	int killed;               /* PAPI_KILL_*: sticky once set */
	char *unsealed;           /* seal.h's line for an altered artifact the plugin tried to
	                           * read, or NULL: sticky once set, the plugin's error */
	int sharing;              /* ctx.shared analyses this plugin is working out now */
	int closing;              /* the state is being closed: any Lua code is cut short */
	size_t mem_used, mem_cap; /* bytes held by the state and its cap */
	size_t mem_peak;          /* the most mem_used has been */
	size_t refused;           /* size of the request just refused, or 0 */
	int mem_exceeded;         /* an allocation was refused (and not retried successfully) */
	size_t handed;            /* bytes of findings and metrics handed over so far */
	char **skipped;           /* "path\treason" of files this plugin had to skip */
	size_t nskipped;
	size_t nmetrics;          /* metrics recorded so far */
	finding *found;           /* findings reported so far */
	size_t nfound, capfound;
	papi_lane *lane;          /* the plugin's lane when the run has a scheduler, else NULL */
	struct papi_metric *metrics; /* metrics recorded so far, handed over by the host */
	size_t nmetric;
	struct lprof *prof;       /* where the CPU time goes, when profiling (owned by the
	                           * caller that set it; papi_open samples into it) */
	size_t reads;             /* project files it read whole without a tree (FERRY_DEBUG) */
	struct papi_text *last_read; /* the project file this plugin last read without a tree
	                              * (one at a time: a check that reports a thousand findings
	                              * in a file reads it once, and holds one file, not a
	                              * thousand copies waiting for the garbage collector) */
} papi_sandbox;

/* A metric recorded by ctx.metric (strings cleaned, owned by the sandbox). */
typedef struct papi_metric {
	char *name, *unit;        /* unit may be NULL */
	double value;
} papi_metric;

/* The scheduler of a run with lanes[0..n) (orders set by the caller) sharing slots CPU
 * slots; papi_sched_done releases it. */
void papi_sched_init(papi_sched *s, papi_lane *lanes, size_t n, unsigned slots);
void papi_sched_done(papi_sched *s);
/* A lane's thread waits for a CPU slot before its plugin starts ... */
void papi_lane_enter(papi_run *run, papi_lane *l);
/* ... and gives it back when the plugin is done, releasing the trees nobody needs now. */
void papi_lane_leave(papi_run *run, papi_lane *l);

/* One step of parsing ahead (ctx.prefetch), for the host's thread while it waits for the
 * plugins: when a CPU slot is free, parses the next file a lane said it will query. Lock
 * held (released during the parse). Returns 1 when it parsed one, 0 when there was
 * nothing to do now. */
int papi_parse_ahead(papi_run *run);

/* Frees the findings collected in sb. */
void papi_sandbox_done(papi_sandbox *sb);

/* A new state for sb (allocator capped at sb->mem_cap, budget sb->budget) with base,
 * string, table, math and utf8 opened; NULL when it cannot be made. */
lua_State *papi_open(papi_sandbox *sb);
/* Closes L. NULL is harmless. */
void papi_close(lua_State *L);

/* Loads chunk (text only) as chunkname in a fresh allow-listed environment and runs it,
 * leaving its first result on the stack. Returns 0, or -1 with *err a malloc'd reason. */
int papi_load(lua_State *L, const char *chunk, size_t len, const char *chunkname, char **err);
/* Calls run(ctx) of the declaration on top of the stack (popped). Returns 0, or -1 with
 * *err a malloc'd one-line reason (budget, memory, or the error message). */
int papi_call_run(lua_State *L, char **err);

/* ctx.data(name): the fact table decoded into Lua tables (cached in the sandbox's run).
 * Also given to a declaration's `triggers` function. */
int papi_data_fn(lua_State *L);

/* The message handler for lua_pcall: the error message followed by a traceback. */
int papi_traceback(lua_State *L);

/* Reads a bundled file ("lib/py.lua", "data/x.json") from opts->source_dir or, without
 * one, from the embedded table. Returns 0 with *out malloc'd, or FERRY_ENOTFOUND. */
int papi_bundled_read(char **out, size_t *len, const plugin_host_opts *opts, const char *rel);

#endif
