/*
 * check — runs checks over the engagement and records what they found: the one
 * place where the plugin host meets the store. The CLI's `ferry check` and the
 * workbench both call check_run.
 *
 * A run is one database transaction: findings are upserted by identity, findings
 * of plugins that ran cleanly but were not seen again are marked fixed (a plugin that
 * failed, was killed or did not load keeps its findings as they were), plugin
 * errors are stored, and a "check" audit event closes it. Callbacks receive
 * borrowed findings (with their store id and status) valid during the call only.
 */
#ifndef FERRY_CHECK_H
#define FERRY_CHECK_H

#include "finding.h"
#include "workspace.h"

typedef struct check_opts {
	const char *const *phases; /* none = all phases */
	size_t nphases;
	const char *const *plugins; /* none = all plugins */
	size_t nplugins;
	/* each stored finding as it arrives */
	void (*on_finding)(const finding *f, void *payload);
	/* a plugin has finished: done of total finished before it */
	void (*on_progress)(const char *plugin, size_t done, size_t total, void *payload);
	/* polled while the plugins run; non-zero cancels (the run is then rolled back) */
	int (*cancelled)(void *payload);
	void *payload;
	/* Python files parsed of those offered to the checks, while they run (may be NULL) */
	void (*on_files)(size_t parsed, size_t offered, void *payload);
	/* EVIDENCE_* bits (plugin_host.h): only the plugins declaring one of them run (0: no
	 * such filter); when none declares any, nothing runs and out->run is 0 */
	unsigned evidence;
} check_opts;

typedef struct check_result {
	long long run;     /* run id */
	int nfindings;     /* findings reported by this run */
	int nclosed;       /* findings marked fixed because no longer seen */
	int nerrors;       /* plugins that failed */
	char **errors;     /* "plugin <id> …: reason" lines (owned; check_result_done) */
	char **error_plugins; /* the plugin id of each error ("load" for a plugin that did not load) */
} check_result;

/* Runs the checks with a plugin host built for this engagement (check_host_new). */
int check_run(check_result *out, workspace *ws, const check_opts *opts);
/* The same with a host the caller built and keeps (to describe the plugins afterwards,
 * as the SARIF rules do, without loading them twice). */
struct plugin_host;
int check_run_with(check_result *out, workspace *ws, struct plugin_host *h, const check_opts *opts);
void check_result_done(check_result *r);

/* Builds the plugin host for this engagement: bundled plugins (read from the folder
 * FERRY_PLUGIN_SOURCE names, else from an installed <bindir>/../share/ferry/plugins,
 * else the copy compiled into the binary), FERRY_PLUGIN_PATH, and
 * .ferry/plugins/. Caller frees with plugin_host_free. */
struct plugin_host;
int check_host_new(struct plugin_host **out, workspace *ws);

/* Loads this engagement's plugins so that their declared settings join config's registry
 * (what `ferry config` and `:config` check keys and values against). */
int check_declare_settings(workspace *ws);

#endif
