/* model — see model.h. */
#include "model.h"
#include "phase.h"
#include "assessment.h"
#include "category.h"
#include "json.h"
#include "audit.h"
#include "check.h"
#include "compare.h"
#include "config.h"
#include "store.h"
#include "err.h"
#include "intl.h"
#include "status.h"
#include "text.h"
#include "plugin_host.h"
#include "util.h"
#include "workspace.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static char *jdup(const cJSON *o, const char *key)
{
	return xstrdup(json_str(o, key));
}

/* A copy of the string o holds under key, or NULL when there is none. */
static char *jdup_opt(const cJSON *o, const char *key)
{
	return *json_str(o, key) ? jdup(o, key) : NULL;
}

void model_init(model *m, struct workspace *ws)
{
	memset(m, 0, sizeof *m);
	m->ws = ws;
	for (int i = 0; i < (int)phase_count(); i++) {
		m->phases[i].name = phase_name(i);
		strcpy(m->phases[i].status, "not started");
	}
}

static void status_free(model *m)
{
	free(m->engagement);
	free(m->client);
	free(m->target);
	free(m->actor);
	m->engagement = m->client = m->target = m->actor = NULL;
	for (int i = 0; i < (int)phase_count(); i++) {
		free(m->phases[i].signed_by);
		m->phases[i].signed_by = NULL;
	}
	tui_readiness *r = &m->ready;
	free(r->klass);
	free(r->formula);
	free(r->strategy);
	free(r->chosen);
	free(r->reason);
	free(r->currency);
	for (int i = 0; i < r->nrisks; i++) {
		free(r->risks[i].severity);
		free(r->risks[i].file);
		free(r->risks[i].message);
	}
	memset(r, 0, sizeof *r);
	for (size_t i = 0; m->config && m->config[i]; i++)
		free(m->config[i]);
	free(m->config);
	m->config = NULL;
}

static void load_readiness(tui_readiness *r, const cJSON *a)
{
	r->ran = cJSON_IsTrue(cJSON_GetObjectItem(a, "ran"));
	if (!r->ran)
		return;
	r->score = (int)json_int(a, "score");
	r->klass = jdup(a, "class");
	const cJSON *d = cJSON_GetObjectItem(a, "effort_days");
	r->effort_days = cJSON_IsNumber(d) ? d->valuedouble : 0;
	r->formula = assessment_formula(a, 0);
	const cJSON *st = cJSON_GetObjectItem(a, "strategy");
	r->strategy = jdup(st, "recommended");
	r->chosen = *json_str(st, "chosen") ? jdup(st, "chosen") : NULL;
	r->reason = jdup(st, "reason");
	const cJSON *x, *q = cJSON_GetObjectItem(a, "quote");
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(q, "services")) {
		const service_info *svc = service_find(json_str(x, "name"));
		if (!svc || !(json_num(x, "days") > 0) || r->nquote >= (int)(sizeof r->quote / sizeof r->quote[0]))
			continue;
		r->quote[r->nquote++] = (struct tui_quote_line){ svc->name, json_num(x, "days"), json_num(x, "amount"),
			                                             cJSON_IsNumber(cJSON_GetObjectItem(x, "agreed_days")) };
	}
	r->quote_days = json_num(q, "days");
	r->quote_amount = json_num(q, "amount");
	r->priced = cJSON_IsNumber(cJSON_GetObjectItem(q, "rate"));
	r->currency = *json_str(q, "currency") ? jdup(q, "currency") : NULL;
	cJSON_ArrayForEach(x, cJSON_GetObjectItem(a, "top_risks")) {
		if (r->nrisks >= 5)
			break;
		tui_risk *k = &r->risks[r->nrisks++];
		k->id = json_int(x, "id");
		k->severity = jdup(x, "severity");
		k->file = jdup(x, "file");
		k->message = jdup(x, "message");
		k->line = (int)json_int(x, "line");
	}
}

void model_findings_free(finding *f, size_t n)
{
	finding_list_free(f, n);
}

void model_clear_findings(model *m)
{
	for (size_t i = 0; i < m->nf; i++)
		finding_clear(&m->f[i]);
	m->nf = 0;
	m->gen++;
}

void model_done(model *m)
{
	status_free(m);
	model_clear_findings(m);
	free(m->f);
	m->f = NULL;
	m->capf = 0;
}

int model_load_status(model *m)
{
	cJSON *st = NULL;
	int rc = status_json(&st, m->ws);
	if (rc)
		return rc;
	status_free(m);
	const cJSON *eng = cJSON_GetObjectItem(st, "engagement");
	m->engagement = jdup(eng, "engagement_id");
	m->client = jdup(eng, "client");
	m->target = jdup(eng, "target_soc");
	m->actor = xstrdup(json_str(st, "actor"));
	const cJSON *head = cJSON_GetObjectItem(st, "head");
	snprintf(m->head, sizeof m->head, "%s", json_str(head, "commit"));
	snprintf(m->head_kind, sizeof m->head_kind, "%s", json_str(head, "kind"));
	m->head_cp = json_int(head, "checkpoint");
	m->ncheckpoints = (int)json_int(st, "checkpoints");
	const cJSON *c = cJSON_GetObjectItem(st, "findings");
	m->open = (int)json_int(c, "open");
	m->errors = (int)json_int(c, "errors");
	m->warnings = (int)json_int(c, "warnings");
	m->info = (int)json_int(c, "info");
	m->fixed = (int)json_int(c, "fixed");
	m->waived = (int)json_int(c, "waived");
	const cJSON *p;
	int i = 0;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(st, "phases")) {
		if (i >= (int)phase_count())
			break;
		tui_phase *ph = &m->phases[i++];
		snprintf(ph->status, sizeof ph->status, "%s", json_str(p, "status"));
		ph->errors = (int)json_int(p, "open_errors");
		ph->warnings = (int)json_int(p, "open_warnings");
		ph->info = (int)json_int(p, "open_info");
		ph->fixed = (int)json_int(p, "fixed");
		ph->waived = (int)json_int(p, "waived");
		ph->runs = (int)json_int(p, "runs");
		ph->signed_by = *json_str(p, "signed_off_by") ? jdup(p, "signed_off_by") : NULL;
	}
	load_readiness(&m->ready, cJSON_GetObjectItem(st, "assessment"));
	const cJSON *cfg = cJSON_GetObjectItem(st, "config"), *kv;
	size_t nk = 0;
	m->config = xcalloc((size_t)cJSON_GetArraySize(cfg) + 1, sizeof *m->config);
	cJSON_ArrayForEach(kv, cfg)
		if (kv->string)
			m->config[nk++] = xstrdup(kv->string);
	cJSON_Delete(st);
	return 0;
}

static int load_rows(finding **out, size_t *n, model *m, const char *phase)
{
	store_finding_filter fl = { phase, NULL, NULL, NULL, 0, 0 };
	return store_finding_list(out, n, m->ws->db, &fl);
}

int model_load_findings(model *m)
{
	finding *f = NULL;
	size_t n = 0;
	int rc = load_rows(&f, &n, m, phase_name(m->phase));
	if (rc)
		return rc;
	model_clear_findings(m);
	free(m->f);
	m->f = f;
	m->nf = n;
	m->capf = f ? n : 0; /* the store returns no array for no findings */
	return 0;
}

int model_all_findings(finding **out, size_t *n, model *m)
{
	return load_rows(out, n, m, NULL);
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

void model_add_finding(model *m, const finding *src)
{
	if (m->nf == m->capf) {
		m->capf = m->capf ? m->capf * 2 : 64;
		m->f = xrealloc(m->f, m->capf * sizeof *m->f);
	}
	finding *f = &m->f[m->nf++];
	*f = *src;
	f->plugin = xstrdup(src->plugin ? src->plugin : "");
	f->category = xstrdup(src->category ? src->category : "");
	f->file = xstrdup(src->file ? src->file : "");
	f->message = xstrdup(src->message ? src->message : "");
	f->suggestion = xstrdup(src->suggestion ? src->suggestion : "");
	f->i18n = dup_or_null(src->i18n);
	f->fingerprint = dup_or_null(src->fingerprint);
	f->construct = dup_or_null(src->construct);
	f->anchor = dup_or_null(src->anchor);
	f->unit = dup_or_null(src->unit);
	f->waiver = NULL;
	/* in the reader's language, as the store shows a recorded finding */
	intl_localize_texts(&f->message, &f->suggestion, f->i18n);
	f->fixable = src->nedits > 0;
	f->edits = src->nedits ? xcalloc(src->nedits, sizeof *f->edits) : NULL;
	for (size_t i = 0; i < src->nedits; i++) {
		f->edits[i] = src->edits[i];
		f->edits[i].text = xstrdup(src->edits[i].text ? src->edits[i].text : "");
	}
	m->gen++;
}

int model_checkpoints(tui_checkpoint **out, size_t *n, model *m)
{
	cJSON *rows = NULL;
	int rc = store_checkpoints(&rows, m->ws->db);
	if (rc)
		return rc;
	size_t count = (size_t)cJSON_GetArraySize(rows), i = 0;
	tui_checkpoint *c = xcalloc(count ? count : 1, sizeof *c);
	const cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		tui_checkpoint *d = &c[i++];
		d->id = json_int(row, "id");
		snprintf(d->commit, sizeof d->commit, "%s", json_str(row, "commit"));
		d->kind = jdup(row, "kind");
		d->message = jdup(row, "message");
		d->actor = jdup(row, "actor");
		d->time = jdup(row, "time");
		d->phase = jdup(row, "phase");
		d->plugin = jdup(row, "plugin");
		const cJSON *fl = cJSON_GetObjectItem(row, "findings");
		if (cJSON_IsArray(fl) && cJSON_GetArraySize(fl) > 0)
			d->findings = cJSON_PrintUnformatted(fl);
		else if (cJSON_IsString(fl))
			d->findings = xstrdup(fl->valuestring);
		else
			d->findings = xstrdup("");
	}
	cJSON_Delete(rows);
	*out = c;
	*n = count;
	return 0;
}

void model_checkpoints_free(tui_checkpoint *c, size_t n)
{
	for (size_t i = 0; c && i < n; i++) {
		free(c[i].kind);
		free(c[i].message);
		free(c[i].actor);
		free(c[i].time);
		free(c[i].phase);
		free(c[i].plugin);
		free(c[i].findings);
	}
	free(c);
}

int model_artifacts(tui_artifact **out, size_t *n, model *m)
{
	cJSON *rows = NULL;
	int rc = store_artifacts(&rows, m->ws->db, NULL);
	if (rc)
		return rc;
	size_t count = (size_t)cJSON_GetArraySize(rows), i = 0;
	tui_artifact *a = xcalloc(count ? count : 1, sizeof *a);
	const cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		tui_artifact *d = &a[i++];
		d->id = json_int(row, "id");
		d->kind = jdup(row, "kind");
		d->label = jdup(row, "label");
		d->path = jdup(row, "path");
		d->time = jdup(row, "ingested_at");
		d->actor = jdup(row, "actor");
		d->sha256 = jdup(row, "sha256");
		d->size = json_int(row, "size");
	}
	cJSON_Delete(rows);
	*out = a;
	*n = count;
	return 0;
}

void model_artifacts_free(tui_artifact *a, size_t n)
{
	for (size_t i = 0; a && i < n; i++) {
		free(a[i].kind);
		free(a[i].label);
		free(a[i].path);
		free(a[i].time);
		free(a[i].actor);
		free(a[i].sha256);
		free(a[i].a);
		free(a[i].b);
		free(a[i].shown_a);
		free(a[i].shown_b);
		free(a[i].column);
		free(a[i].dtype_a);
		free(a[i].dtype_b);
	}
	free(a);
}

int model_plugin_ids(char ***out, model *m)
{
	*out = NULL;
	struct plugin_host *h = NULL;
	int rc = check_host_new(&h, m->ws);
	if (rc)
		return rc;
	size_t n = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	char **v = xcalloc(n + 1, sizeof *v);
	for (size_t i = 0; i < n; i++)
		v[i] = xstrdup(pi[i].id);
	plugin_host_free(h);
	*out = v;
	return 0;
}

void model_strings_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}


/* A report event as an artifact row. */
static void report_row(tui_artifact *r, const cJSON *d, model *m)
{
	r->kind = xstrdup("report");
	r->label = xasprintf("%s · %s", json_str(d, "format"), *json_str(d, "section") ? json_str(d, "section") : "all");
	const char *path = json_str(d, "path");
	size_t rl = strlen(m->ws->root);
	if (strncmp(path, m->ws->root, rl) == 0 && path[rl] == '/') /* shown relative to the project */
		path += rl + 1;
	r->path = xstrdup(path);
	r->size = json_int(d, "bytes");
}

/* The name a recorded comparison's input is shown by (compare_input_shown: recorded with
 * it, or for an older record its label, the file or "#id"). Caller frees. */
static char *input_shown(const cJSON *side, model *m)
{
	cJSON *copy = cJSON_IsObject(side) ? cJSON_Duplicate(side, 1) : cJSON_CreateObject();
	compare_input_shown(copy, m->ws->root);
	char *name = jdup(copy, "shown");
	cJSON_Delete(copy);
	return name;
}

/* A compare event as an artifact row. */
static void compare_row(tui_artifact *r, const cJSON *d, model *m)
{
	const cJSON *ia = cJSON_GetObjectItem(d, "a"), *ib = cJSON_GetObjectItem(d, "b");
	r->kind = xstrdup("compare");
	r->loss = strcmp(json_str(d, "what"), "loss") == 0;
	r->same = cJSON_IsTrue(cJSON_GetObjectItem(d, "same_input"));
	const char *verdict = json_str(d, "verdict");
	/* a pass of the same data on both sides proved nothing: not listed as a pass */
	r->label = xasprintf("%s · %s", json_str(d, "what"),
	                     strcmp(verdict, "pass") == 0 ? (r->same ? _("proves nothing") : _("pass"))
	                     : strcmp(verdict, "fail") == 0 ? _("fail")
	                                                    : verdict);
	r->shown_a = input_shown(ia, m);
	r->shown_b = input_shown(ib, m);
	r->path = xasprintf("%s ↔ %s", r->shown_a, r->shown_b);
	r->a = jdup(ia, "path");
	r->b = jdup(ib, "path");
	r->column = jdup_opt(d, "column");
	r->dtype_a = jdup_opt(d, "dtype_a");
	compare_event_threshold(&r->th, d);
	r->tolerance = json_num(d, "tolerance");
	r->dtype_b = jdup_opt(d, "dtype_b");
}

/* The audit events of one kind, newest first, as artifact rows filled by row. */
static int event_rows(tui_artifact **out, size_t *n, model *m, const char *kind,
                      void (*row)(tui_artifact *, const cJSON *, model *))
{
	*out = NULL;
	*n = 0;
	cJSON *events = NULL;
	int rc = audit_events(&events, m->ws->db);
	if (rc) {
		cJSON_Delete(events);
		return rc;
	}
	size_t count = 0, i = 0;
	const cJSON *ev;
	cJSON_ArrayForEach(ev, events)
		count += strcmp(json_str(ev, "kind"), kind) == 0;
	tui_artifact *a = xcalloc(count ? count : 1, sizeof *a);
	cJSON_ArrayForEach(ev, events) {
		if (strcmp(json_str(ev, "kind"), kind) != 0)
			continue;
		tui_artifact *r = &a[i++];
		r->id = json_int(ev, "seq");
		r->time = jdup(ev, "time");
		r->actor = jdup(ev, "actor");
		row(r, cJSON_GetObjectItem(ev, "data"), m);
	}
	cJSON_Delete(events);
	*out = a;
	*n = count;
	return 0;
}

int model_reports(tui_artifact **out, size_t *n, model *m)
{
	return event_rows(out, n, m, "report", report_row);
}

int model_comparisons(tui_artifact **out, size_t *n, model *m)
{
	return event_rows(out, n, m, "compare", compare_row);
}

int model_events(tui_event **out, size_t *n, model *m)
{
	*out = NULL;
	*n = 0;
	cJSON *events = NULL;
	int rc = audit_events(&events, m->ws->db);
	if (rc) {
		cJSON_Delete(events);
		return rc;
	}
	size_t count = (size_t)cJSON_GetArraySize(events), i = 0;
	tui_event *e = xcalloc(count ? count : 1, sizeof *e);
	const cJSON *ev;
	cJSON_ArrayForEach(ev, events) {
		tui_event *d = &e[i++];
		d->seq = json_int(ev, "seq");
		d->time = jdup(ev, "time");
		d->actor = jdup(ev, "actor");
		d->kind = jdup(ev, "kind");
		d->payload = audit_canonical(cJSON_GetObjectItem(ev, "data"));
		snprintf(d->hash, sizeof d->hash, "%s", json_str(ev, "hash"));
	}
	cJSON_Delete(events);
	*out = e;
	*n = count;
	return 0;
}

void model_events_free(tui_event *e, size_t n)
{
	for (size_t i = 0; e && i < n; i++) {
		free(e[i].time);
		free(e[i].actor);
		free(e[i].kind);
		free(e[i].payload);
	}
	free(e);
}

/* FNV-1a over the bytes, continuing from h. */
static unsigned long long fnv(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

/* Walks dir (depth and entry count bounded) into the stamp. */
static unsigned long long stamp_dir(unsigned long long h, const char *dir, int depth, int *budget)
{
	DIR *d = opendir(dir);
	if (!d)
		return h;
	struct dirent *e;
	while ((e = readdir(d)) && *budget > 0) {
		const char *nm = e->d_name;
		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0 || strcmp(nm, ".git") == 0 || strcmp(nm, ".ferry") == 0)
			continue;
		(*budget)--;
		char *path = util_path_join(dir, nm);
		struct stat st;
		if (lstat(path, &st) == 0) {
			long long v[3] = { (long long)st.st_size, (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec };
			h = fnv(fnv(h, nm, strlen(nm)), v, sizeof v);
			if (S_ISDIR(st.st_mode) && depth < 100)
				h = stamp_dir(h, path, depth + 1, budget);
		}
		free(path);
	}
	closedir(d);
	return h;
}

unsigned long long model_tree_stamp(model *m)
{
	int budget = 200000;
	return stamp_dir(1469598103934665603ULL, m->ws->root, 0, &budget);
}

long long model_db_version(model *m)
{
	long long v = 0;
	if (store_data_version(&v, m->ws->db) != 0)
		return -1;
	return v;
}

char *model_artifact_file(model *m, const tui_artifact *a)
{
	if (util_starts_with(a->path, "ref:"))
		return xstrdup(a->path + 4);
	if (a->path[0] == '/')
		return xstrdup(a->path);
	char *dir = util_path_join(m->ws->dir, "artifacts"), *p = util_path_join(dir, a->path);
	free(dir);
	return p;
}

char *model_cache_dir(const model *m)
{
	return ws_cache_dir(m->ws);
}


static void add_setting(tui_setting **out, size_t *n, const struct config_key *k, const char *key, const cJSON *values)
{
	const cJSON *v = cJSON_GetObjectItem(values, key);
	*out = xrealloc(*out, (*n + 1) * sizeof **out);
	tui_setting *t = &(*out)[(*n)++];
	t->key = xstrdup(key);
	t->value = cJSON_IsString(v) ? xstrdup(v->valuestring) : NULL;
	t->def = k->def ? xstrdup(k->def) : NULL;
	t->accepts = xstrdup(config_accepts(k));
	if (k->kind == CFG_WORD) { /* "auto tool manual" as "auto | tool | manual" */
		sbuf b;
		sbuf_init(&b);
		for (const char *w = t->accepts; *w;) {
			size_t len = strcspn(w, " ");
			sbuf_addf(&b, "%s%.*s", b.len ? " | " : "", (int)len, w);
			w += len + strspn(w + len, " ");
		}
		free(t->accepts);
		t->accepts = sbuf_detach(&b);
		sbuf_done(&b);
	}
	t->help = xstrdup(config_help(k));
	t->owner = k->owner ? xstrdup(k->owner) : NULL;
	t->group = xstrdup(k->group ? k->group : "");
}

/* The groups in the order the form shows them; a check's phase comes after them. */
static int group_rank(const char *g)
{
	static const char *const order[] = { "design", "assess", "report", "plugins" };
	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
		if (strcmp(g, order[i]) == 0)
			return (int)i;
	return 10;
}

static int setting_cmp(const void *a, const void *b)
{
	const tui_setting *x = a, *y = b;
	int d = group_rank(x->group) - group_rank(y->group);
	return d ? d : strcmp(x->group, y->group);
}

int model_settings(tui_setting **out, size_t *n, model *m)
{
	*out = NULL;
	*n = 0;
	cJSON *values = NULL;
	int rc = check_declare_settings(m->ws);
	if (rc || (rc = store_config_all(&values, m->ws->db)))
		return rc;
	for (const struct config_key *k = config_keys; k->key; k++) {
		if (!util_ends_with(k->key, ".")) {
			add_setting(out, n, k, k->key, values);
			continue;
		}
		const cJSON *v; /* a prefix: the keys set under it */
		cJSON_ArrayForEach(v, values)
			if (util_starts_with(v->string, k->key))
				add_setting(out, n, k, v->string, values);
	}
	size_t nd = 0;
	const struct config_key *d = config_declared(&nd);
	for (size_t i = 0; i < nd; i++)
		add_setting(out, n, &d[i], d[i].key, values);
	cJSON_Delete(values);
	/* stable within a group: insertion sort keeps the table's order */
	for (size_t i = 1; i < *n; i++)
		for (size_t j = i; j > 0 && setting_cmp(&(*out)[j - 1], &(*out)[j]) > 0; j--) {
			tui_setting tmp = (*out)[j];
			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = tmp;
		}
	return 0;
}

void model_settings_free(tui_setting *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(s[i].key);
		free(s[i].value);
		free(s[i].def);
		free(s[i].accepts);
		free(s[i].help);
		free(s[i].owner);
		free(s[i].group);
	}
	free(s);
}
