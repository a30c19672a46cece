/*
 * plugin_host — discovers, loads and runs the Lua checks, sandboxed.
 *
 * The only module (with plugin_api.c) that includes Lua headers. Each plugin gets its
 * own lua_State with a capped allocator, an instruction budget and an environment
 * built from an allow-list; a failing or runaway plugin becomes an error for that
 * plugin and the run goes on. Python files are prefiltered by the plugins' triggers.
 * The selected plugins run each on its own thread, sharing one CPU slot per core; the slot
 * goes to the plugin furthest behind in the file list, so the plugins meet each file at
 * about the same time: its tree is parsed once (by the first plugin that queries it) and
 * released once every running plugin has moved past it. Everything a plugin produces is
 * kept and handed to the callbacks on the calling thread, in the plugins' order, when all
 * have finished; the findings and their order do not depend on the threads.
 *
 * The host owns its plugin_info array (valid until plugin_host_free). Findings are
 * handed to the run callback as borrowed pointers valid during the call only.
 */
#ifndef FERRY_PLUGIN_HOST_H
#define FERRY_PLUGIN_HOST_H

#include "finding.h"

#include <stddef.h>

typedef struct plugin_host plugin_host;

/* A setting a plugin declares (settings = { name = {type=…, default=…, help=…} }): stored
 * and checked by config.c under the key "<plugin id>.<name>", read by the plugin with
 * ctx.config("name"). */
typedef struct plugin_setting {
	char *name;  /* "allowed_graphs" */
	char *key;   /* "infer-convert.atc.allowed_graphs" */
	char *type;  /* bool, number, count, text or word */
	char *words; /* word: the allowed values, space-separated; bool: "true false"; else NULL */
	char *def;   /* the default as text ("false", "0.5"); NULL when it has none */
	char *help;
} plugin_setting;

typedef struct plugin_info {
	char *id;          /* "assess.device_calls" */
	char *phase;       /* one of the seven phases */
	char *title;
	char *severity;    /* default severity of its findings */
	char *category;    /* may be NULL */
	char *description; /* for the guide; may be NULL */
	char *origin;      /* file it was loaded from, or "embedded:plugins/..." */
	char *textdomain;  /* its own gettext domain (declared); NULL: the bundled plugins' */
	char *localedir;   /* where its catalogs are: locale/ beside its file; NULL if bundled */
	int fixable;       /* declares fix */
	int needs_exec;    /* declares needs = {"exec"} */
	int may_exec;      /* may run programs: bundled with ferry, or named in opts->allow_exec */
	char *warning;     /* a problem that did not stop it loading (an unknown category); may be NULL */
	char *sha256;      /* the file's SHA-256 when not bundled with ferry (the audit records what
	                    * ran); NULL when bundled */
	int replaces;      /* not bundled, and loaded in place of the bundled check of its id */
	plugin_setting *settings; /* its declared settings, in name order */
	size_t nsettings;
	unsigned evidence; /* what it judges besides the code (declared `evidence`): EVIDENCE_* bits */
} plugin_info;

/* What a check may declare it judges besides the code, so that it runs again when that
 * changes: an ingested artifact of a kind (bit i for artifact_kinds[i]: "profile",
 * "bench" …), the comparisons on record ("comparisons"), the engagement's settings
 * ("settings"). */
#define EVIDENCE_COMPARISONS (1u << 16)
#define EVIDENCE_SETTINGS (1u << 17)
/* The bit of an evidence word, or 0 for a word that is none. */
unsigned plugin_evidence_bit(const char *word);

typedef struct plugin_host_opts {
	const char *root;             /* project root; plugins read only inside it */
	const char *const *dirs;      /* extra plugin folders, in order (FERRY_PLUGIN_PATH, .ferry/plugins) */
	size_t ndirs;
	const char *source_dir;       /* a source tree's plugins/ folder overriding the embedded copy; may be NULL */
	/* engagement settings for plugins (ferry.config); returns malloc'd value or NULL */
	char *(*config_get)(const char *key, void *payload);
	/* ingested artifacts of a kind (NULL = every kind) as a JSON array text
	 * [{id,kind,label,path,sha256}], path absolute or relative to root; malloc'd or NULL */
	char *(*artifacts_json)(const char *kind, void *payload);
	/* the latest recorded comparison of each kind as a JSON object text
	 * {"loss": {...}, "dump": {...}} (a kind absent when none); malloc'd or NULL */
	char *(*comparisons_json)(void *payload);
	/* the assess phase's readiness verdict as assessment.h computes it now, as a JSON
	 * object text; malloc'd or NULL */
	char *(*assessment_json)(void *payload);
	void *payload;
	/* where readings of ingested artifacts are kept between runs (acache.h); NULL = not kept */
	const char *cache_dir;
	unsigned threads;             /* parse threads; 0 = all cores */
	unsigned long long instr_budget; /* per plugin, Lua VM instructions; 0 = default */
	size_t mem_cap;               /* per plugin, bytes; 0 = default */
	unsigned long long time_limit_ms; /* per plugin, wall-clock milliseconds; 0 = default (2 min) */
	/* ids of plugins not bundled with ferry that may run programs (needs = {"exec"}),
	 * separated by spaces or commas; NULL = none. Bundled plugins may always. */
	const char *allow_exec;
	/* non-zero when a project path is ignored (directories offered as "dir/"); may be NULL */
	int (*is_ignored)(const char *relpath, void *payload);
	/* a project file as the engagement received it (the baseline), malloc'd with its
	 * length in *len; NULL when the project did not hold it then. May be NULL. Called
	 * under the run's lock. */
	char *(*baseline_read)(const char *relpath, size_t *len, void *payload);
} plugin_host_opts;

typedef struct plugin_run_cb {
	/* a finding (status "open", no id yet) */
	void (*finding)(const finding *f, void *payload);
	/* a plugin failed while running: "plugin <id> (<origin>): <reason>" (load errors are
	 * not repeated here: read them with plugin_host_load_errors) */
	void (*plugin_error)(const char *plugin_id, const char *message, void *payload);
	/* a metric recorded by a plugin */
	void (*metric)(const char *plugin_id, const char *name, double value, const char *unit, void *payload);
	/* a plugin has finished (done of total finished before it); called on the calling thread */
	void (*progress)(const char *plugin_id, size_t done, size_t total, void *payload);
	/* non-zero to cancel the run; polled on the calling thread while the plugins run */
	int (*cancelled)(void *payload);
	void *payload;
	/* files parsed so far of those offered to the plugins; called on the calling thread
	 * while the plugins run, when the count has changed (may be NULL) */
	void (*files)(size_t parsed, size_t offered, void *payload);
} plugin_run_cb;

/* Discovers and loads every plugin (declaration checked); plugins that fail to load
 * are kept as errors reported by plugin_host_load_errors. The strings of opts are
 * copied; its callbacks and payload must stay valid until plugin_host_free. *out is
 * freed with plugin_host_free (NULL is harmless). Fails only without a root (FERRY_EUSAGE). */
int plugin_host_new(plugin_host **out, const plugin_host_opts *opts);
void plugin_host_free(plugin_host *h);

const plugin_info *plugin_host_plugins(const plugin_host *h, size_t *n);
/* Load errors: "path: reason" lines, borrowed. */
const char *const *plugin_host_load_errors(const plugin_host *h, size_t *n);

/* Runs the plugins whose phase is in phases (none = all) and whose id is in ids
 * (none = all). Returns 0 even when plugins failed (reported via plugin_error);
 * fails only when nothing could run (FERRY_EUSAGE for an unknown phase or id,
 * FERRY_EIO when the root cannot be listed) or when cb->cancelled said so
 * (FERRY_ECANCEL; nothing is delivered then).
 * Problems with the project's sources (unreadable, binary, non-UTF-8, huge files, syntax
 * errors, symlink loops) arrive first, once per run and phase, as warnings of the
 * pseudo-plugin "ferry.source" (category "source") in the phases of the checks they kept
 * from the file (a syntax error: those offered or querying the file; the rest: every phase
 * whose checks read Python in the run); then each plugin in turn hands over
 * its metrics, then its findings, or its error (a plugin that fails delivers no findings). */
int plugin_host_run(plugin_host *h, const char *const *phases, size_t nphases,
                    const char *const *ids, size_t nids, const plugin_run_cb *cb);

/* How many Python files the last plugin_host_run parsed (prefilter survivors plus files
 * parsed on demand by ctx.query); 0 before the first run. */
size_t plugin_host_parsed_files(const plugin_host *h);

#endif
