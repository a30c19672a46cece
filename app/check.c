/* check — see check.h. */
#include "intl.h"
#include "assessment.h"
#include "phase.h"
#include "check.h"
#include "config.h"
#include "audit.h"
#include "replay.h"
#include "err.h"
#include "plugin_host.h"
#include "review.h"
#include "util.h"

#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <sys/stat.h>

struct run_state {
	workspace *ws;
	const check_opts *opts;
	long long run;
	int nfindings;
	int failed;          /* a store write failed: abort the run */
	cJSON *errored;      /* object: plugin id → true */
	cJSON *carried;      /* [{finding, from}]: waivers carried from an earlier phase */
	check_result *res;
};

static char *host_config_get(const char *key, void *payload)
{
	workspace *ws = payload;
	return store_config_get(ws->db, key);
}

static char *host_artifacts_json(const char *kind, void *payload)
{
	workspace *ws = payload;
	cJSON *rows = NULL;
	if (store_artifacts(&rows, ws->db, kind))
		return xstrdup("[]");
	/* plugins read artifacts by path relative to the project, or absolute for a reference */
	cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		cJSON *p = cJSON_GetObjectItem(row, "path");
		if (cJSON_IsString(p)) {
			/* an artifact too large to copy was recorded by reference: "ref:" + absolute path */
			int ref = strncmp(p->valuestring, "ref:", 4) == 0;
			char *rel = ref ? xstrdup(p->valuestring + 4) : xasprintf(".ferry/artifacts/%s", p->valuestring);
			cJSON_ReplaceItemInObject(row, "path", cJSON_CreateString(rel));
			free(rel);
		}
	}
	char *text = cJSON_PrintUnformatted(rows);
	cJSON_Delete(rows);
	return text;
}

static char *host_comparisons_json(void *payload)
{
	workspace *ws = payload;
	cJSON *c = NULL;
	if (review_comparisons_judged(&c, ws)) {
		cJSON_Delete(c);
		return NULL;
	}
	char *text = cJSON_PrintUnformatted(c);
	cJSON_Delete(c);
	return text;
}

static char *host_assessment_json(void *payload)
{
	workspace *ws = payload;
	cJSON *a = NULL;
	if (assessment_compute(&a, ws->db)) {
		err_clear();
		return NULL;
	}
	char *text = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return text;
}

static int host_is_ignored(const char *relpath, void *payload)
{
	workspace *ws = payload;
	int ignored = 0;
	if (history_is_ignored(&ignored, ws->hist, relpath))
		return 0;
	return ignored;
}

static char *host_baseline_read(const char *relpath, size_t *len, void *payload)
{
	workspace *ws = payload;
	char base[41], *text = NULL;
	if (history_baseline(base, ws->hist) || history_read_at(&text, len, ws->hist, base, relpath)) {
		err_clear();
		free(text);
		return NULL;
	}
	return text;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The bundled plugins as installed beside the binary (<bindir>/../share/ferry/plugins,
 * `make install`), or NULL: a binary run from its build tree uses the copy compiled in. */
static char *installed_plugins(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = '\0';
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = '\0';
	char *dir = util_path_join(exe, "../share/ferry/plugins");
	if (is_dir(dir))
		return dir;
	free(dir);
	return NULL;
}

int check_host_new(plugin_host **out, workspace *ws)
{
	const char *dirs[64];
	size_t ndirs = 0;
	char *path_copy = NULL;
	const char *env = getenv("FERRY_PLUGIN_PATH");
	if (env && *env) {
		path_copy = xstrdup(env);
		for (char *save = NULL, *tok = strtok_r(path_copy, ":", &save); tok && ndirs < 62;
		     tok = strtok_r(NULL, ":", &save))
			dirs[ndirs++] = tok;
	}
	char *local = util_path_join(ws->dir, "plugins");
	char *cache = ws_cache_dir(ws);
	if (is_dir(local))
		dirs[ndirs++] = local;
	const char *src = getenv("FERRY_PLUGIN_SOURCE");
	char *installed = src && *src ? NULL : installed_plugins();
	if (installed)
		src = installed;
	char *allow = store_config_get(ws->db, "plugins.allow_exec");
	char *limit = store_config_get(ws->db, "plugins.time_limit");
	double secs = limit ? strtod(limit, NULL) : config_builtin_default("plugins.time_limit");
	plugin_host_opts o = {
		.root = ws->root,
		.dirs = dirs,
		.ndirs = ndirs,
		.source_dir = src && *src ? src : NULL,
		.config_get = host_config_get,
		.artifacts_json = host_artifacts_json,
		.comparisons_json = host_comparisons_json,
		.assessment_json = host_assessment_json,
		.is_ignored = host_is_ignored,
		.baseline_read = host_baseline_read,
		.payload = ws,
		.cache_dir = cache,
		.allow_exec = allow,
		.time_limit_ms = secs > 0 && secs < 1e7 ? (unsigned long long)(secs * 1000) : 0,
	};
	int rc = plugin_host_new(out, &o);
	if (!rc)
		config_declare_plugins(*out); /* `ferry config` and `:config` know the plugins' settings */
	free(allow);
	free(limit);
	free(installed);
	free(local);
	free(cache);
	free(path_copy);
	return rc;
}

int check_declare_settings(workspace *ws)
{
	plugin_host *h = NULL;
	int rc = check_host_new(&h, ws);
	plugin_host_free(h);
	return rc;
}

static void on_finding(const finding *f, void *payload)
{
	struct run_state *st = payload;
	if (st->failed)
		return;
	finding copy = *f; /* shallow: the store only writes back id and status */
	if (store_finding_upsert(st->ws->db, st->run, &copy)) {
		st->failed = 1;
		return;
	}
	long long from = 0;
	if (copy.status == STATUS_OPEN) {
		/* the same construct was waived in an earlier phase: the decision stands */
		if (store_waiver_carry(&from, st->ws->db, copy.id)) {
			st->failed = 1;
			return;
		}
		if (from) {
			copy.status = STATUS_WAIVED;
			cJSON *c = cJSON_CreateObject();
			cJSON_AddNumberToObject(c, "finding", (double)copy.id);
			cJSON_AddNumberToObject(c, "from", (double)from);
			cJSON_AddItemToArray(st->carried, c);
		}
	}
	st->nfindings++;
	if (st->opts->on_finding)
		st->opts->on_finding(&copy, st->opts->payload);
}

static void on_plugin_error(const char *plugin, const char *message, void *payload)
{
	struct run_state *st = payload;
	if (!cJSON_GetObjectItem(st->errored, plugin))
		cJSON_AddTrueToObject(st->errored, plugin);
	st->res->errors = xrealloc(st->res->errors, sizeof(char *) * (size_t)(st->res->nerrors + 1));
	st->res->error_plugins = xrealloc(st->res->error_plugins, sizeof(char *) * (size_t)(st->res->nerrors + 1));
	st->res->error_plugins[st->res->nerrors] = xstrdup(plugin);
	st->res->errors[st->res->nerrors++] = xstrdup(message);
	if (!st->failed && store_plugin_error(st->ws->db, st->run, plugin, message))
		st->failed = 1;
}

static void on_metric(const char *plugin, const char *name, double value, const char *unit, void *payload)
{
	struct run_state *st = payload;
	if (!st->failed && store_metric_add(st->ws->db, st->run, plugin, name, value, unit))
		st->failed = 1;
}

static void on_progress(const char *plugin, size_t done, size_t total, void *payload)
{
	struct run_state *st = payload;
	if (st->opts->on_progress)
		st->opts->on_progress(plugin, done, total, st->opts->payload);
}

static void on_files(size_t parsed, size_t offered, void *payload)
{
	struct run_state *st = payload;
	if (st->opts->on_files)
		st->opts->on_files(parsed, offered, st->opts->payload);
}

static int on_cancelled(void *payload)
{
	struct run_state *st = payload;
	return st->failed || (st->opts->cancelled && st->opts->cancelled(st->opts->payload));
}

static cJSON *string_array(const char *const *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

/* The phases a run covers: those asked for, else the phases of the plugins asked for
 * (a run of one plugin does not start every phase), else all. */
/* The checks loaded from outside ferry (FERRY_PLUGIN_PATH, .ferry/plugins/), each with its
 * file, hash and whether it replaced a bundled check: [{id, origin, sha256, replaces}], or
 * NULL when every check is ferry's own. The check event records what judged. */
static cJSON *local_plugins(plugin_host *h)
{
	size_t n = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	cJSON *a = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!pi[i].sha256)
			continue;
		if (!a)
			a = cJSON_CreateArray();
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "id", pi[i].id);
		cJSON_AddStringToObject(o, "origin", pi[i].origin);
		cJSON_AddStringToObject(o, "sha256", pi[i].sha256);
		cJSON_AddBoolToObject(o, "replaces", pi[i].replaces);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *scope_phases(plugin_host *h, const check_opts *o)
{
	if (o->nphases)
		return string_array(o->phases, o->nphases);
	if (!o->nplugins) {
		cJSON *all = cJSON_CreateArray();
		for (size_t p = 0; p < phase_count(); p++)
			cJSON_AddItemToArray(all, cJSON_CreateString(phase_name(p)));
		return all;
	}
	size_t n = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	cJSON *a = cJSON_CreateArray();
	for (size_t p = 0; p < phase_count(); p++)
		for (size_t i = 0; i < n; i++) {
			int wanted = 0;
			for (size_t k = 0; k < o->nplugins; k++)
				wanted |= strcmp(o->plugins[k], pi[i].id) == 0;
			if (wanted && strcmp(pi[i].phase, phase_name(p)) == 0) {
				cJSON_AddItemToArray(a, cJSON_CreateString(phase_name(p)));
				break;
			}
		}
	return a;
}

/* The plugins this run covered that finished without error, as a JSON array text. */
static char *clean_plugins(plugin_host *h, const check_opts *o, const cJSON *errored)
{
	size_t n = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++) {
		int in_phase = o->nphases == 0, in_ids = o->nplugins == 0;
		for (size_t k = 0; k < o->nphases; k++)
			in_phase |= strcmp(o->phases[k], pi[i].phase) == 0;
		for (size_t k = 0; k < o->nplugins; k++)
			in_ids |= strcmp(o->plugins[k], pi[i].id) == 0;
		if (in_phase && in_ids && !cJSON_GetObjectItem(errored, pi[i].id))
			cJSON_AddItemToArray(a, cJSON_CreateString(pi[i].id));
	}
	char *text = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return text;
}

/* The phases this run covered whole (every check of them, none failed), as a JSON array
 * text: the phases whose source problems it closes when it no longer meets them (a run of
 * some checks of a phase parses fewer files than the phase's checks do). */
static char *whole_phases(plugin_host *h, const check_opts *o, const cJSON *errored)
{
	cJSON *a = cJSON_CreateArray();
	size_t n = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	for (size_t p = 0; p < phase_count() && o->nplugins == 0; p++) {
		int in_run = o->nphases == 0, failed = 0;
		for (size_t k = 0; k < o->nphases; k++)
			in_run |= strcmp(o->phases[k], phase_name(p)) == 0;
		for (size_t i = 0; i < n; i++)
			failed |= strcmp(pi[i].phase, phase_name(p)) == 0 && cJSON_GetObjectItem(errored, pi[i].id);
		if (in_run && !failed)
			cJSON_AddItemToArray(a, cJSON_CreateString(phase_name(p)));
	}
	char *text = cJSON_PrintUnformatted(a);
	cJSON_Delete(a);
	return text;
}

int check_run(check_result *out, workspace *ws, const check_opts *o)
{
	plugin_host *h = NULL;
	memset(out, 0, sizeof *out);
	int rc = check_host_new(&h, ws);
	if (!rc)
		rc = check_run_with(out, ws, h, o);
	plugin_host_free(h);
	return rc;
}

/* The ids of the plugins declaring one of the evidence bits (borrowed from the host). */
static const char **judging_plugins(plugin_host *h, unsigned evidence, size_t *n)
{
	size_t all = 0;
	const plugin_info *pi = plugin_host_plugins(h, &all);
	const char **ids = xcalloc(all + 1, sizeof *ids);
	*n = 0;
	for (size_t i = 0; i < all; i++)
		if (pi[i].evidence & evidence)
			ids[(*n)++] = pi[i].id;
	return ids;
}

int check_run_with(check_result *out, workspace *ws, plugin_host *h, const check_opts *o)
{
	if (o->evidence && o->nplugins == 0) {
		size_t n = 0;
		const char **ids = judging_plugins(h, o->evidence, &n);
		check_opts narrowed = *o;
		narrowed.plugins = ids;
		narrowed.nplugins = n;
		narrowed.evidence = 0;
		int rc = 0;
		memset(out, 0, sizeof *out);
		if (n)
			rc = check_run_with(out, ws, h, &narrowed);
		free(ids);
		return rc;
	}
	memset(out, 0, sizeof *out);
	struct run_state st = { .ws = ws, .opts = o, .errored = cJSON_CreateObject(), .carried = cJSON_CreateArray(),
		                .res = out };
	char *plugins = NULL;
	cJSON *before = NULL;
	int rc = 0;
	size_t nload = 0;
	const char *const *load_errors = plugin_host_load_errors(h, &nload);
	cJSON *scope = cJSON_CreateObject();
	cJSON_AddItemToObject(scope, "phases", scope_phases(h, o));
	cJSON_AddItemToObject(scope, "plugins", string_array(o->plugins, o->nplugins));
	cJSON *local = local_plugins(h);
	if (local)
		cJSON_AddItemToObject(scope, "local_plugins", local);
	char *scope_text = cJSON_PrintUnformatted(scope);
	if ((rc = store_begin(ws->db))) {
		cJSON_Delete(scope);
		free(scope_text);
		goto out;
	}
	rc = store_state_rows(&before, ws->db, STORE_STATE_FINDINGS);
	char head[41] = "";
	if (!rc && history_head(head, ws->hist))
		err_clear(), head[0] = '\0'; /* no commit yet: the run checks no recorded version */
	if (!rc)
		rc = store_run_begin(&st.run, ws->db, ws->actor, scope_text, head);
	free(scope_text);
	for (size_t i = 0; !rc && i < nload; i++)
		on_plugin_error("load", load_errors[i], &st);
	plugin_run_cb cb = { on_finding, on_plugin_error, on_metric, on_progress, on_cancelled, &st, on_files };
	if (!rc)
		rc = plugin_host_run(h, o->phases, o->nphases, o->plugins, o->nplugins, &cb);
	if (!rc && st.failed)
		rc = err_code() ? err_code() : FERRY_EDB;
	if (!rc && o->cancelled && o->cancelled(o->payload))
		rc = err_set(FERRY_ECANCEL, _("check: cancelled; nothing was recorded"));
	if (!rc) {
		plugins = clean_plugins(h, o, st.errored);
		rc = store_findings_reanchor(NULL, ws->db, st.run, plugins);
		if (!rc)
			rc = store_findings_close_unseen(&out->nclosed, ws->db, st.run, plugins);
		char *whole = rc ? NULL : whole_phases(h, o, st.errored);
		if (whole)
			rc = store_findings_close_unseen_in(&out->nclosed, ws->db, st.run, "ferry.source", whole);
		free(whole);
	}
	if (!rc)
		rc = store_run_finish(ws->db, st.run, st.nfindings, out->nerrors);
	if (!rc) {
		cJSON_AddNumberToObject(scope, "run", (double)st.run);
		cJSON_AddNumberToObject(scope, "findings", st.nfindings);
		cJSON_AddNumberToObject(scope, "closed", out->nclosed);
		cJSON_AddNumberToObject(scope, "plugin_errors", out->nerrors);
		/* every finding this run created or moved, so verify can replay the statuses */
		cJSON *after = NULL;
		rc = store_state_rows(&after, ws->db, STORE_STATE_FINDINGS);
		if (!rc)
			cJSON_AddItemToObject(scope, "changes", replay_finding_changes(before, after));
		cJSON_Delete(after);
		if (cJSON_GetArraySize(st.carried)) {
			cJSON_AddItemToObject(scope, "carried_waivers", st.carried);
			st.carried = NULL;
		}
	}
	if (!rc) {
		rc = audit_append(NULL, ws->db, "check", ws->actor, scope);
		scope = NULL;
	}
	cJSON_Delete(scope);
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	out->run = st.run;
	out->nfindings = st.nfindings;
out:
	cJSON_Delete(before);
	free(plugins);
	cJSON_Delete(st.errored);
	cJSON_Delete(st.carried);
	return rc;
}

void check_result_done(check_result *r)
{
	for (int i = 0; i < r->nerrors; i++) {
		free(r->errors[i]);
		free(r->error_plugins[i]);
	}
	free(r->errors);
	free(r->error_plugins);
	memset(r, 0, sizeof *r);
}
