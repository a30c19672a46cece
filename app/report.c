/* report — see report.h. */
#include "report.h"
#include "json.h"
#include "assessment.h"
#include "audit.h"
#include "changes.h"
#include "check.h"
#include "err.h"
#include "output.h"
#include "plugin_host.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const formats[] = { "md", "html", "json", "sarif", "csv", NULL };
static const char *const sections[] = { "all", "assessment", "changes", "unsupported", NULL };

static int in_list(const char *name, const char *const *list)
{
	for (size_t i = 0; name && list[i]; i++)
		if (strcmp(name, list[i]) == 0)
			return 1;
	return 0;
}

int report_format_valid(const char *name) { return in_list(name, formats); }
int report_section_valid(const char *name) { return in_list(name, sections); }

/* ---------- building the document ---------- */

/* not started, in progress, blocked (open errors) or signed off — as `ferry status` */
static const char *phase_status(const cJSON *p)
{
	if (cJSON_IsString(cJSON_GetObjectItem(p, "signed_off_at")))
		return "signed off";
	if (json_int(p, "open_errors") > 0)
		return "blocked";
	if (json_int(p, "runs") > 0 || json_int(p, "open_warnings") + json_int(p, "open_info") + json_int(p, "fixed") + json_int(p, "waived") > 0)
		return "in progress";
	return "not started";
}

/* Reads an artifact's bytes: a copy under .ferry/artifacts/, or a "ref:" to the original. */
static int artifact_text(char **out, workspace *ws, const cJSON *art)
{
	const char *path = json_str(art, "path");
	size_t len = 0;
	if (util_starts_with(path, "ref:"))
		return util_read_file(out, &len, path + 4);
	char *abs = xasprintf("%s/artifacts/%s", ws->dir, path);
	int rc = util_read_file(out, &len, abs);
	free(abs);
	return rc;
}

/* The newest artifact of a kind (preferring one whose label contains prefer), or NULL. */
static const cJSON *newest_artifact(const cJSON *arts, const char *kind, const char *prefer)
{
	const cJSON *a, *best = NULL, *preferred = NULL;
	cJSON_ArrayForEach(a, arts) {
		if (strcmp(json_str(a, "kind"), kind) != 0)
			continue;
		if (!best || json_int(a, "id") > json_int(best, "id"))
			best = a;
		if (prefer && strcasestr(json_str(a, "label"), prefer) && (!preferred || json_int(a, "id") > json_int(preferred, "id")))
			preferred = a;
	}
	return preferred ? preferred : best;
}

static void copy_item(cJSON *dst, const char *name, const cJSON *src)
{
	cJSON_AddItemToObject(dst, name, src ? cJSON_Duplicate(src, 1) : cJSON_CreateNull());
}

static const cJSON *path_get(const cJSON *o, const char *a, const char *b, const char *c)
{
	const cJSON *v = cJSON_GetObjectItem(o, a);
	if (v && b)
		v = cJSON_GetObjectItem(v, b);
	if (v && c)
		v = cJSON_GetObjectItem(v, c);
	return v;
}

/* A summary of the newest environment probe, or JSON null when none was ingested. */
static cJSON *environment_summary(workspace *ws, const cJSON *arts)
{
	const cJSON *art = newest_artifact(arts, "env-probe", NULL);
	if (!art)
		return cJSON_CreateNull();
	cJSON *env = cJSON_CreateObject();
	cJSON_AddNumberToObject(env, "artifact", json_num(art, "id"));
	cJSON_AddStringToObject(env, "label", json_str(art, "label"));
	cJSON_AddStringToObject(env, "sha256", json_str(art, "sha256"));
	char *text = NULL;
	cJSON *p = NULL;
	if (artifact_text(&text, ws, art) || !(p = cJSON_Parse(text))) {
		cJSON_AddStringToObject(env, "error", "the probe artifact cannot be read or parsed");
		err_clear();
		free(text);
		return env;
	}
	free(text);
	copy_item(env, "collected_at", cJSON_GetObjectItem(p, "collected_at"));
	copy_item(env, "hostname", path_get(p, "host", "hostname", NULL));
	copy_item(env, "os", path_get(p, "host", "os", "pretty_name"));
	copy_item(env, "arch", path_get(p, "host", "arch", NULL));
	copy_item(env, "python", path_get(p, "python", "version", NULL));
	copy_item(env, "torch", path_get(p, "python", "packages", "torch"));
	copy_item(env, "torch_npu", path_get(p, "python", "packages", "torch_npu"));
	copy_item(env, "cann", path_get(p, "cann", "toolkit", "version"));
	copy_item(env, "driver", path_get(p, "driver", "version", NULL));
	cJSON *chips = cJSON_AddArrayToObject(env, "chips");
	const cJSON *c;
	cJSON_ArrayForEach(c, path_get(p, "npu", "chips", NULL)) {
		cJSON *o = cJSON_CreateObject();
		copy_item(o, "id", cJSON_GetObjectItem(c, "id"));
		copy_item(o, "name", cJSON_GetObjectItem(c, "name"));
		copy_item(o, "health", cJSON_GetObjectItem(c, "health"));
		double mem = json_num(c, "hbm_total_mb") > 0 ? json_num(c, "hbm_total_mb") : json_num(c, "memory_total_mb");
		cJSON_AddNumberToObject(o, "memory_mb", mem);
		cJSON_AddItemToArray(chips, o);
	}
	copy_item(env, "missing", cJSON_GetObjectItem(p, "missing"));
	cJSON_Delete(p);
	return env;
}

/* The GPU baseline: the newest bench artifact (labelled "gpu…" preferred), decoded. */
static cJSON *gpu_baseline(workspace *ws, const cJSON *arts)
{
	const cJSON *art = newest_artifact(arts, "bench", "gpu");
	if (!art)
		return cJSON_CreateNull();
	cJSON *b = cJSON_CreateObject();
	cJSON_AddNumberToObject(b, "artifact", json_num(art, "id"));
	char *text = NULL;
	cJSON *p = NULL;
	if (artifact_text(&text, ws, art) || !(p = cJSON_Parse(text))) {
		cJSON_AddStringToObject(b, "error", "the benchmark artifact cannot be read or parsed");
		err_clear();
		free(text);
		return b;
	}
	free(text);
	cJSON_AddStringToObject(b, "label", *json_str(p, "label") ? json_str(p, "label") : json_str(art, "label"));
	cJSON_AddStringToObject(b, "hardware", json_str(p, "hardware"));
	cJSON_AddStringToObject(b, "precision", json_str(p, "precision"));
	copy_item(b, "metrics", cJSON_GetObjectItem(p, "metrics"));
	cJSON_Delete(p);
	return b;
}

static const char *const finding_keys[] = { "id", "plugin", "phase", "severity", "category", "file", "line", "col",
	                                         "end_line", "end_col", "message", "suggestion", "fixable", "status", NULL };

/* The findings that drove the strategy, with where they are. */
static void add_driver_details(cJSON *assessment, const cJSON *findings)
{
	cJSON *st = cJSON_GetObjectItem(assessment, "strategy");
	if (!st)
		return;
	cJSON *detail = cJSON_AddArrayToObject(st, "driver_findings");
	const cJSON *id, *f;
	cJSON_ArrayForEach(id, cJSON_GetObjectItem(st, "drivers"))
		cJSON_ArrayForEach(f, findings)
			if (json_int(f, "id") == (long long)id->valuedouble) {
				cJSON *o = cJSON_CreateObject();
				static const char *const keys[] = { "id", "plugin", "severity", "file", "line", "message", NULL };
				for (size_t k = 0; keys[k]; k++)
					copy_item(o, keys[k], cJSON_GetObjectItem(f, keys[k]));
				cJSON_AddItemToArray(detail, o);
			}
}

int report_build(cJSON **out, workspace *ws, const char *version)
{
	cJSON *doc = cJSON_CreateObject(), *rows = NULL, *tmp = NULL, *reverted = NULL, *arts = NULL;
	int rc;
	*out = NULL;
	char now[32];
	util_now_iso(now);
	cJSON_AddStringToObject(doc, "schema", "ferry-report/1");
	if ((rc = store_engagement_get(&tmp, ws->db)))
		goto out;
	const char *project = *json_str(tmp, "project") ? json_str(tmp, "project") : json_str(tmp, "engagement_id");
	char *title = xasprintf("Migration assessment: %s", project);
	cJSON_AddStringToObject(doc, "title", title);
	free(title);
	cJSON_AddStringToObject(doc, "generated_at", now);
	cJSON_AddStringToObject(doc, "generated_by", ws->actor);
	cJSON_AddStringToObject(doc, "ferry_version", version ? version : "");
	cJSON *eng = tmp;
	cJSON_AddItemToObject(doc, "engagement", tmp);
	tmp = NULL;
	if ((rc = store_config_all(&tmp, ws->db)))
		goto out;
	if (!*json_str(eng, "target_soc") && *json_str(tmp, "target.soc")) { /* set later with ferry config */
		cJSON_DeleteItemFromObject(eng, "target_soc");
		cJSON_AddStringToObject(eng, "target_soc", json_str(tmp, "target.soc"));
	}
	cJSON_AddItemToObject(doc, "config", tmp);
	tmp = NULL;

	/* findings first: the assessment's drivers are looked up in them */
	if ((rc = store_findings(&rows, ws->db, NULL)))
		goto out;
	cJSON *findings = cJSON_CreateArray();
	const cJSON *f;
	cJSON_ArrayForEach(f, rows) {
		cJSON *o = cJSON_CreateObject();
		for (size_t k = 0; finding_keys[k]; k++)
			copy_item(o, finding_keys[k], cJSON_GetObjectItem(f, finding_keys[k]));
		cJSON_AddItemToArray(findings, o);
	}
	cJSON_Delete(rows);
	rows = NULL;

	if ((rc = assessment_compute(&tmp, ws->db)))
		goto out;
	add_driver_details(tmp, findings);
	cJSON_AddItemToObject(doc, "assessment", tmp);
	tmp = NULL;

	if ((rc = store_phases(&tmp, ws->db)))
		goto out;
	cJSON *p;
	cJSON_ArrayForEach(p, tmp)
		cJSON_AddStringToObject(p, "status", phase_status(p));
	cJSON_AddItemToObject(doc, "phases", tmp);
	tmp = NULL;
	cJSON_AddItemToObject(doc, "findings", findings);

	if ((rc = store_waivers(&tmp, ws->db)))
		goto out;
	cJSON_AddItemToObject(doc, "waivers", tmp);
	tmp = NULL;

	if ((rc = changes_list(&tmp, &reverted, ws->db, ws->hist)))
		goto out;
	cJSON_AddItemToObject(doc, "changes", tmp);
	cJSON_AddItemToObject(doc, "reverted_checkpoints", reverted);
	tmp = reverted = NULL;
	if ((rc = changes_unsupported(&tmp, ws->db)))
		goto out;
	cJSON_AddItemToObject(doc, "unsupported", tmp);
	tmp = NULL;

	if ((rc = store_artifacts(&arts, ws->db, NULL)))
		goto out;
	cJSON_AddItemToObject(doc, "environment", environment_summary(ws, arts));
	cJSON_AddItemToObject(doc, "gpu_baseline", gpu_baseline(ws, arts));
	cJSON *al = cJSON_AddArrayToObject(doc, "artifacts");
	const cJSON *a;
	cJSON_ArrayForEach(a, arts) {
		cJSON *o = cJSON_CreateObject();
		static const char *const keys[] = { "id", "kind", "label", "sha256", "size", "ingested_at", "actor", NULL };
		for (size_t k = 0; keys[k]; k++)
			copy_item(o, keys[k], cJSON_GetObjectItem(a, keys[k]));
		cJSON_AddItemToArray(al, o);
	}

	char base[41] = "", head[41] = "";
	if ((rc = history_baseline(base, ws->hist)) || (rc = history_head(head, ws->hist)))
		goto out;
	if ((rc = store_checkpoints(&tmp, ws->db)))
		goto out;
	cJSON *hist = cJSON_AddObjectToObject(doc, "history");
	cJSON_AddStringToObject(hist, "baseline", base);
	cJSON_AddStringToObject(hist, "head", head);
	cJSON_AddNumberToObject(hist, "checkpoints", cJSON_GetArraySize(tmp));
	cJSON_Delete(tmp);
	tmp = NULL;

	long long seq = 0;
	char chain[65];
	if ((rc = store_audit_last(&seq, chain, ws->db)))
		goto out;
	cJSON *au = cJSON_AddObjectToObject(doc, "audit");
	cJSON_AddStringToObject(au, "head", chain);
	cJSON_AddNumberToObject(au, "events", (double)seq);
	cJSON_AddStringToObject(au, "verify", "ferry verify");
	*out = doc;
	doc = NULL;
out:
	cJSON_Delete(doc);
	cJSON_Delete(rows);
	cJSON_Delete(tmp);
	cJSON_Delete(reverted);
	cJSON_Delete(arts);
	return rc;
}

/* ---------- shared rendering helpers ---------- */

/* Which parts a section shows. */
enum { PART_SUMMARY = 1, PART_CHANGES = 2, PART_UNSUPPORTED = 4 };

static int section_parts(const char *section)
{
	if (!section || strcmp(section, "all") == 0)
		return PART_SUMMARY | PART_CHANGES | PART_UNSUPPORTED;
	if (strcmp(section, "assessment") == 0)
		return PART_SUMMARY;
	if (strcmp(section, "changes") == 0)
		return PART_CHANGES;
	return PART_UNSUPPORTED;
}

/* "file:line" or "file:start-end" or "(project)". */
static void add_location(sbuf *b, const char *file, long long start, long long end)
{
	if (!*file) {
		sbuf_adds(b, "(project)");
		return;
	}
	sbuf_adds(b, file);
	if (start > 0 && end > start)
		sbuf_addf(b, ":%lld-%lld", start, end);
	else if (start > 0)
		sbuf_addf(b, ":%lld", start);
}

static char *location(const char *file, long long start, long long end)
{
	sbuf b;
	sbuf_init(&b);
	add_location(&b, file, start, end);
	return sbuf_detach(&b);
}

static char *ids_text(const cJSON *ids)
{
	sbuf b;
	sbuf_init(&b);
	const cJSON *id;
	cJSON_ArrayForEach(id, ids)
		sbuf_addf(&b, "%s#%lld", b.len ? " " : "", (long long)id->valuedouble);
	return sbuf_detach(&b);
}

static const char *strategy_name(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return "auto (transfer_to_npu)";
	if (strcmp(s, "tool") == 0)
		return "tool (explicit rewrites with ferry fix)";
	if (strcmp(s, "manual") == 0)
		return "manual porting";
	return s;
}

/* Distinct phases, in the order the findings are (phase order), then categories. */
static int finding_in(const cJSON *f, const char *phase, const char *category)
{
	const char *cat = *json_str(f, "category") ? json_str(f, "category") : "other";
	return strcmp(json_str(f, "phase"), phase) == 0 && (!category || strcmp(cat, category) == 0);
}

/* Calls cb(phase, category, findings-in-group) for each group, in phase order and then
 * category order of first appearance. */
typedef void (*group_cb)(sbuf *b, const char *phase, const char *category, const cJSON *findings, int first);

static void each_group(sbuf *b, const cJSON *findings, group_cb cb)
{
	cJSON *done = cJSON_CreateObject();
	const cJSON *f, *g;
	cJSON_ArrayForEach(f, findings) {
		const char *phase = json_str(f, "phase");
		const char *cat = *json_str(f, "category") ? json_str(f, "category") : "other";
		char *key = xasprintf("%s/%s", phase, cat);
		int first_of_phase = 1;
		cJSON_ArrayForEach(g, done)
			if (util_starts_with(g->string, phase) && g->string[strlen(phase)] == '/')
				first_of_phase = 0;
		if (!cJSON_GetObjectItem(done, key)) {
			cJSON_AddTrueToObject(done, key);
			cb(b, phase, cat, findings, first_of_phase);
		}
		free(key);
	}
	cJSON_Delete(done);
}

/* ---------- Markdown ---------- */

/* Text for a Markdown paragraph: '<' and '&' as entities so nothing becomes HTML. */
static void md_text(sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			sbuf_adds(b, "&lt;");
		else if (*s == '&')
			sbuf_adds(b, "&amp;");
		else
			sbuf_addc(b, *s);
	}
}

/* Text for a Markdown table cell: also '|' escaped and line breaks as spaces. */
static void md_cell(sbuf *b, const char *s)
{
	sbuf_adds(b, " ");
	for (; *s; s++) {
		if (*s == '|')
			sbuf_adds(b, "\\|");
		else if (*s == '\n' || *s == '\r')
			sbuf_addc(b, ' ');
		else if (*s == '<')
			sbuf_adds(b, "&lt;");
		else if (*s == '&')
			sbuf_adds(b, "&amp;");
		else
			sbuf_addc(b, *s);
	}
	sbuf_adds(b, " |");
}

static void md_group(sbuf *b, const char *phase, const char *category, const cJSON *findings, int first)
{
	if (first)
		sbuf_addf(b, "\n### Phase %s\n", phase);
	sbuf_addf(b, "\n#### %s\n\n", category);
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		if (!finding_in(f, phase, category))
			continue;
		char *loc = location(json_str(f, "file"), json_int(f, "line"), 0);
		sbuf_addf(b, "- **%s** `%s` — ", json_str(f, "severity"), loc);
		md_text(b, json_str(f, "message"));
		sbuf_addf(b, " *(#%lld, %s, %s%s)*\n", json_int(f, "id"), json_str(f, "plugin"), json_str(f, "status"),
		          cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")) ? ", fixable" : "");
		if (*json_str(f, "suggestion")) {
			sbuf_adds(b, "  - Advice: ");
			md_text(b, json_str(f, "suggestion"));
			sbuf_addc(b, '\n');
		}
		free(loc);
	}
}

static void md_rows(sbuf *b, const cJSON *rows, int unsupported)
{
	if (!cJSON_GetArraySize(rows)) {
		sbuf_adds(b, unsupported ? "Nothing: every open finding in the code has an automatic fix.\n"
		                         : "No change made by ferry is in effect.\n");
		return;
	}
	if (unsupported)
		sbuf_adds(b, "| Location | Severity | Construct | Advice | Check | Finding |\n|---|---|---|---|---|---|\n");
	else
		sbuf_adds(b, "| File | Lines | Operation | Change | Check | Findings | Checkpoint |\n|---|---|---|---|---|---|---|\n");
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		char *ids = ids_text(cJSON_GetObjectItem(r, "findings"));
		sbuf_adds(b, "|");
		if (unsupported) {
			char *loc = location(json_str(r, "file"), json_int(r, "start_line"), json_int(r, "end_line"));
			md_cell(b, loc);
			md_cell(b, json_str(r, "severity"));
			md_cell(b, json_str(r, "message"));
			md_cell(b, json_str(r, "advice"));
			md_cell(b, json_str(r, "plugin"));
			md_cell(b, ids);
			free(loc);
		} else {
			char *lines = xasprintf("%lld-%lld", json_int(r, "start_line"), json_int(r, "end_line"));
			md_cell(b, json_str(r, "file"));
			md_cell(b, lines);
			md_cell(b, json_str(r, "operation"));
			md_cell(b, json_str(r, "message"));
			md_cell(b, json_str(r, "plugin"));
			md_cell(b, ids);
			char *cp = xasprintf("%lld (%.12s)", json_int(r, "checkpoint"), json_str(r, "commit"));
			md_cell(b, cp);
			free(cp);
			free(lines);
		}
		sbuf_addc(b, '\n');
		free(ids);
	}
}

static void md_header(sbuf *b, const cJSON *doc)
{
	const cJSON *eng = cJSON_GetObjectItem(doc, "engagement");
	sbuf_adds(b, "# ");
	md_text(b, json_str(doc, "title"));
	sbuf_adds(b, "\n\n| | |\n|---|---|\n");
	const struct {
		const char *label, *value;
	} meta[] = {
		{ "Client", json_str(eng, "client") },          { "Project", json_str(eng, "project") },
		{ "Engagement", json_str(eng, "engagement_id") }, { "Target", json_str(eng, "target_soc") },
		{ "Date", json_str(doc, "generated_at") },      { "Prepared by", json_str(doc, "generated_by") },
		{ "Tool", json_str(doc, "ferry_version") },
	};
	for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
		sbuf_addf(b, "| %s |", meta[i].label);
		const char *v = meta[i].value;
		char *t = strcmp(meta[i].label, "Tool") == 0 && *v ? xasprintf("ferry %s", v) : xstrdup(*v ? v : "-");
		md_cell(b, t);
		free(t);
		sbuf_addc(b, '\n');
	}
}

static void md_summary(sbuf *b, const cJSON *doc)
{
	const cJSON *as = cJSON_GetObjectItem(doc, "assessment");
	sbuf_adds(b, "\n## Executive summary\n\n");
	if (!cJSON_IsTrue(cJSON_GetObjectItem(as, "ran"))) {
		sbuf_adds(b, "The assess phase has not run yet: `ferry check --phase assess` produces the readiness "
		             "score, the effort estimate and the strategy recommendation.\n");
		return;
	}
	sbuf_addf(b, "- **Readiness: %lld/100 (%s).**\n", json_int(as, "score"), json_str(as, "class"));
	sbuf_addf(b, "- **Effort: %.1f person-days.** `%s`\n", json_num(as, "effort_days"), json_str(as, "formula"));
	sbuf_adds(b, "\n| Category | Days per open finding | Open findings |\n|---|---|---|\n");
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(as, "weights")) {
		sbuf_adds(b, "|");
		md_cell(b, w->string);
		sbuf_addf(b, " %.3g | %lld |\n", w->valuedouble, json_int(cJSON_GetObjectItem(as, "counts"), w->string));
	}
	sbuf_addf(b, "\nThe weights are the engagement's (`ferry config effort.weight.<category> DAYS`, "
	             "`ferry config effort.base_days DAYS`); base %.3g days.\n",
	          json_num(as, "base_days"));
	sbuf_adds(b, "\n### Top risks\n\n");
	const cJSON *r;
	int n = 0;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(as, "top_risks")) {
		char *loc = location(json_str(r, "file"), json_int(r, "line"), 0);
		sbuf_addf(b, "%d. **%s** `%s` — ", ++n, json_str(r, "severity"), loc);
		md_text(b, json_str(r, "message"));
		sbuf_addf(b, " *(#%lld, %s)*\n", json_int(r, "id"), json_str(r, "category"));
		free(loc);
	}
	if (!n)
		sbuf_adds(b, "No open risks without an automatic fix.\n");
	const cJSON *st = cJSON_GetObjectItem(as, "strategy");
	sbuf_adds(b, "\n### Strategy\n\n");
	sbuf_addf(b, "- Recommended: **%s**. ", strategy_name(json_str(st, "recommended")));
	md_text(b, json_str(st, "reason"));
	sbuf_addc(b, '\n');
	if (*json_str(st, "chosen"))
		sbuf_addf(b, "- Chosen: **%s**.\n", strategy_name(json_str(st, "chosen")));
	else
		sbuf_adds(b, "- Chosen: not recorded yet (`ferry config strategy auto|tool|manual`).\n");
	const cJSON *d;
	int first = 1;
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(st, "driver_findings")) {
		if (first)
			sbuf_adds(b, "- Findings that drove the recommendation:\n");
		first = 0;
		char *loc = location(json_str(d, "file"), json_int(d, "line"), 0);
		sbuf_addf(b, "  - #%lld `%s` — ", json_int(d, "id"), loc);
		md_text(b, json_str(d, "message"));
		sbuf_addc(b, '\n');
		free(loc);
	}
}

static void md_phases(sbuf *b, const cJSON *doc)
{
	sbuf_adds(b, "\n## Phases\n\n| # | Phase | Status | Errors | Warnings | Info | Fixed | Waived | Signed off |\n"
	             "|---|---|---|---|---|---|---|---|---|\n");
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "phases")) {
		sbuf_addf(b, "| %lld | %s | %s | %lld | %lld | %lld | %lld | %lld |", json_int(p, "ord"), json_str(p, "name"),
		          json_str(p, "status"), json_int(p, "open_errors"), json_int(p, "open_warnings"), json_int(p, "open_info"),
		          json_int(p, "fixed"), json_int(p, "waived"));
		char *so = *json_str(p, "signed_off_at")
		               ? xasprintf("%s by %s%s%s", json_str(p, "signed_off_at"), json_str(p, "signed_off_by"),
		                           *json_str(p, "note") ? ": " : "", json_str(p, "note"))
		               : xstrdup("-");
		md_cell(b, so);
		free(so);
		sbuf_addc(b, '\n');
	}
}

static void md_rest(sbuf *b, const cJSON *doc)
{
	const cJSON *findings = cJSON_GetObjectItem(doc, "findings");
	sbuf_adds(b, "\n## Findings\n\nGrouped by phase, then category; `file:line`, the message, and the advice.\n");
	if (!cJSON_GetArraySize(findings))
		sbuf_adds(b, "\nNo findings recorded.\n");
	each_group(b, findings, md_group);

	sbuf_adds(b, "\n## Waivers\n\n");
	const cJSON *w, *waivers = cJSON_GetObjectItem(doc, "waivers");
	if (!cJSON_GetArraySize(waivers))
		sbuf_adds(b, "No finding has been waived.\n");
	else
		sbuf_adds(b, "| Finding | Location | Message | Reason | By | When |\n|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(w, waivers) {
		char *loc = location(json_str(w, "file"), json_int(w, "line"), 0);
		sbuf_addf(b, "| #%lld |", json_int(w, "finding_id"));
		md_cell(b, loc);
		md_cell(b, json_str(w, "message"));
		md_cell(b, json_str(w, "reason"));
		md_cell(b, json_str(w, "actor"));
		md_cell(b, json_str(w, "created_at"));
		sbuf_addc(b, '\n');
		free(loc);
	}
}

static void md_environment(sbuf *b, const cJSON *doc)
{
	const cJSON *env = cJSON_GetObjectItem(doc, "environment"), *base = cJSON_GetObjectItem(doc, "gpu_baseline");
	sbuf_adds(b, "\n## Environment\n\n");
	if (!cJSON_IsObject(env)) {
		sbuf_adds(b, "No environment probe has been ingested (`ferry probe-script` on the NPU host, then "
		             "`ferry ingest env-probe FILE`).\n");
	} else if (*json_str(env, "error")) {
		sbuf_addf(b, "Probe artifact %lld: %s.\n", json_int(env, "artifact"), json_str(env, "error"));
	} else {
		sbuf_addf(b, "From the probe artifact %lld (collected %s):\n\n| | |\n|---|---|\n", json_int(env, "artifact"),
		          json_str(env, "collected_at"));
		static const char *const keys[] = { "hostname", "os", "arch", "python", "torch", "torch_npu", "cann", "driver", NULL };
		for (size_t k = 0; keys[k]; k++) {
			sbuf_addf(b, "| %s |", keys[k]);
			md_cell(b, *json_str(env, keys[k]) ? json_str(env, keys[k]) : "-");
			sbuf_addc(b, '\n');
		}
		const cJSON *c;
		sbuf_addf(b, "| NPUs | %d |\n", cJSON_GetArraySize(cJSON_GetObjectItem(env, "chips")));
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(env, "chips")) {
			char *t = xasprintf("%s, %s, %.0f MB", json_str(c, "name"), json_str(c, "health"), json_num(c, "memory_mb"));
			sbuf_addf(b, "| chip %lld |", json_int(c, "id"));
			md_cell(b, t);
			sbuf_addc(b, '\n');
			free(t);
		}
	}
	sbuf_adds(b, "\n### GPU baseline\n\n");
	if (!cJSON_IsObject(base)) {
		sbuf_adds(b, "Not recorded: ingest a `ferry-bench/1` document with `ferry ingest bench FILE --label gpu`.\n");
	} else {
		sbuf_addf(b, "Artifact %lld: ", json_int(base, "artifact"));
		md_text(b, json_str(base, "label"));
		sbuf_adds(b, " on ");
		md_text(b, json_str(base, "hardware"));
		sbuf_adds(b, ", ");
		md_text(b, json_str(base, "precision"));
		const cJSON *m;
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(base, "metrics"))
			sbuf_addf(b, "; %s %g", m->string, m->valuedouble);
		sbuf_adds(b, ".\n");
	}
	sbuf_adds(b, "\n### Artifacts\n\n");
	const cJSON *a, *arts = cJSON_GetObjectItem(doc, "artifacts");
	if (!cJSON_GetArraySize(arts))
		sbuf_adds(b, "None ingested.\n");
	else
		sbuf_adds(b, "| # | Kind | Label | SHA-256 | Ingested |\n|---|---|---|---|---|\n");
	cJSON_ArrayForEach(a, arts) {
		sbuf_addf(b, "| %lld | %s |", json_int(a, "id"), json_str(a, "kind"));
		md_cell(b, json_str(a, "label"));
		sbuf_addf(b, " `%.16s…` | %s |\n", json_str(a, "sha256"), json_str(a, "ingested_at"));
	}
}

static void md_audit(sbuf *b, const cJSON *doc)
{
	const cJSON *au = cJSON_GetObjectItem(doc, "audit"), *h = cJSON_GetObjectItem(doc, "history");
	sbuf_adds(b, "\n## Audit record\n\n");
	sbuf_addf(b, "- Audit chain head: `%s` after %lld events.\n", json_str(au, "head"), json_int(au, "events"));
	sbuf_addf(b, "- History: baseline `%.12s`, head `%.12s`, %lld checkpoints.\n", json_str(h, "baseline"), json_str(h, "head"),
	          json_int(h, "checkpoints"));
	sbuf_addf(b, "- To check that the record was not altered, run `%s` in the project directory: it recomputes "
	             "the chain and checks every checkpoint commit.\n",
	          json_str(au, "verify"));
}

static void md_render(sbuf *b, const cJSON *doc, int parts)
{
	md_header(b, doc);
	if (parts & PART_SUMMARY) {
		md_summary(b, doc);
		md_phases(b, doc);
		md_rest(b, doc);
	}
	if (parts & PART_CHANGES) {
		sbuf_adds(b, "\n## Change list\n\nEvery change ferry made that is still in effect, one row per hunk "
		             "(lines as the checkpoint left the file; `ferry diff N` shows checkpoint N).\n\n");
		md_rows(b, cJSON_GetObjectItem(doc, "changes"), 0);
		const cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "reverted_checkpoints"))
			sbuf_addf(b, "\nCheckpoint %lld (%s) was reverted by checkpoint %lld and is not listed.\n", json_int(r, "id"),
			          json_str(r, "plugin"), json_int(r, "reverted_by"));
	}
	if (parts & PART_UNSUPPORTED) {
		sbuf_adds(b, "\n## Unsupported list\n\nOpen findings without an automatic fix: constructs a person must port.\n\n");
		md_rows(b, cJSON_GetObjectItem(doc, "unsupported"), 1);
	}
	if (parts & PART_SUMMARY) {
		md_environment(b, doc);
		md_audit(b, doc);
	}
}

/* ---------- HTML ---------- */

static void html_esc(sbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': sbuf_adds(b, "&amp;"); break;
		case '<': sbuf_adds(b, "&lt;"); break;
		case '>': sbuf_adds(b, "&gt;"); break;
		case '"': sbuf_adds(b, "&quot;"); break;
		case '\'': sbuf_adds(b, "&#39;"); break;
		default: sbuf_addc(b, s[i]);
		}
	}
}

static void h(sbuf *b, const char *s) { html_esc(b, s, strlen(s)); }

/* Escaped text where `code spans` become <code> elements. */
static void h_rich(sbuf *b, const char *s)
{
	while (*s) {
		const char *open = strchr(s, '`'), *close = open ? strchr(open + 1, '`') : NULL;
		if (!close) {
			h(b, s);
			return;
		}
		html_esc(b, s, (size_t)(open - s));
		sbuf_adds(b, "<code>");
		html_esc(b, open + 1, (size_t)(close - open - 1));
		sbuf_adds(b, "</code>");
		s = close + 1;
	}
}

static void h_badge(sbuf *b, const char *kind, const char *value)
{
	char cls[32];
	size_t k = 0;
	for (const char *p = value; *p && k + 1 < sizeof cls; p++)
		cls[k++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
	cls[k] = '\0';
	sbuf_addf(b, "<span class=\"badge %s-%s\">", kind, cls);
	h(b, value);
	sbuf_adds(b, "</span>");
}

static const char html_css[] =
	":root{--fg:#1c2230;--muted:#5d6675;--line:#dde2ea;--soft:#f4f6fa;--accent:#1d5bb8}"
	"*{box-sizing:border-box}"
	"body{margin:0;background:#fff;color:var(--fg);font:15px/1.55 system-ui,-apple-system,'Segoe UI',Roboto,"
	"'Noto Sans','PingFang SC','Microsoft YaHei',sans-serif}"
	"main{max-width:62rem;margin:0 auto;padding:2rem 1.5rem 4rem}"
	"h1{font-size:1.75rem;line-height:1.25;margin:0 0 1rem}"
	"h2{font-size:1.3rem;margin:2.5rem 0 .75rem;padding-bottom:.3rem;border-bottom:2px solid var(--line)}"
	"h3{font-size:1.08rem;margin:1.75rem 0 .5rem}"
	"h4{font-size:.95rem;margin:1.1rem 0 .4rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}"
	"p{margin:.5rem 0}"
	"table{width:100%;border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}"
	"th,td{padding:.4rem .55rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}"
	"th{background:var(--soft);font-weight:600}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"table.meta td:first-child{width:11rem;color:var(--muted)}"
	"code,.loc{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono',monospace;font-size:.86em}"
	"code{background:var(--soft);padding:.05rem .3rem;border-radius:3px}"
	".loc{white-space:nowrap}"
	".cards{display:flex;flex-wrap:wrap;gap:1rem;margin:1rem 0}"
	".card{flex:1 1 13rem;border:1px solid var(--line);border-radius:10px;padding:.8rem 1rem}"
	".card .label{color:var(--muted);font-size:.8rem;text-transform:uppercase;letter-spacing:.05em}"
	".card .big{font-size:1.6rem;font-weight:700;line-height:1.3}"
	".formula{color:var(--muted);font-size:.88rem}"
	".badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.72rem;font-weight:700;"
	"text-transform:uppercase;letter-spacing:.04em;white-space:nowrap}"
	".sev-error{background:#fde3e1;color:#9f1111}.sev-warning{background:#fff0c7;color:#6f4a00}"
	".sev-info{background:#e2ecfb;color:#1c4d96}"
	".st-open{background:#eef0f4;color:#394150}.st-waived{background:#efe6fb;color:#5b2a99}"
	".st-fixed{background:#dcf2e3;color:#17653a}"
	".op-insert{background:#dcf2e3;color:#17653a}.op-modify{background:#e2ecfb;color:#1c4d96}"
	".op-delete{background:#fde3e1;color:#9f1111}.op-unsupported{background:#fff0c7;color:#6f4a00}"
	".ph-signed-off{background:#dcf2e3;color:#17653a}.ph-blocked{background:#fde3e1;color:#9f1111}"
	".ph-in-progress{background:#fff0c7;color:#6f4a00}.ph-not-started{background:#eef0f4;color:#394150}"
	"ul.findings{list-style:none;padding:0;margin:0}"
	"ul.findings li{padding:.45rem 0;border-bottom:1px solid var(--line)}"
	".advice{color:var(--muted);margin-top:.15rem}"
	".ref{color:var(--muted);font-size:.82rem}"
	".muted{color:var(--muted)}"
	"footer{margin-top:3rem;color:var(--muted);font-size:.8rem}"
	"@page{margin:16mm 14mm}"
	"@media print{body{font-size:10.5pt}main{max-width:none;padding:0}h2{break-after:avoid}"
	"tr,li,.card{break-inside:avoid}.badge{border:1px solid currentColor}"
	"th{background:none;border-bottom:2px solid #999}}";

static void h_row_cells(sbuf *b, const char *const *cells, size_t n)
{
	sbuf_adds(b, "<tr>");
	for (size_t i = 0; i < n; i++) {
		sbuf_adds(b, "<td>");
		h_rich(b, cells[i]);
		sbuf_adds(b, "</td>");
	}
	sbuf_adds(b, "</tr>\n");
}

static void html_header(sbuf *b, const cJSON *doc)
{
	const cJSON *eng = cJSON_GetObjectItem(doc, "engagement");
	sbuf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	             "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>");
	h(b, json_str(doc, "title"));
	sbuf_addf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>", html_css);
	h(b, json_str(doc, "title"));
	sbuf_adds(b, "</h1>\n<table class=\"meta\">\n");
	const char *labels[] = { "Client", "Project", "Engagement", "Target", "Date", "Prepared by" };
	const char *values[] = { json_str(eng, "client"), json_str(eng, "project"), json_str(eng, "engagement_id"),
		                     json_str(eng, "target_soc"), json_str(doc, "generated_at"), json_str(doc, "generated_by") };
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		const char *cells[2] = { labels[i], *values[i] ? values[i] : "-" };
		h_row_cells(b, cells, 2);
	}
	sbuf_adds(b, "</table>\n");
}

static void html_summary(sbuf *b, const cJSON *doc)
{
	const cJSON *as = cJSON_GetObjectItem(doc, "assessment");
	sbuf_adds(b, "<h2>Executive summary</h2>\n");
	if (!cJSON_IsTrue(cJSON_GetObjectItem(as, "ran"))) {
		sbuf_adds(b, "<p>The assess phase has not run yet: <code>ferry check --phase assess</code> produces the "
		             "readiness score, the effort estimate and the strategy recommendation.</p>\n");
		return;
	}
	const cJSON *st = cJSON_GetObjectItem(as, "strategy");
	sbuf_addf(b, "<div class=\"cards\">\n<div class=\"card\"><div class=\"label\">Readiness</div>"
	             "<div class=\"big\">%lld/100</div><div>",
	          json_int(as, "score"));
	h(b, json_str(as, "class"));
	sbuf_addf(b, "</div></div>\n<div class=\"card\"><div class=\"label\">Effort</div><div class=\"big\">%.1f "
	             "person-days</div><div class=\"muted\">estimate from the open assess findings</div></div>\n",
	          json_num(as, "effort_days"));
	sbuf_adds(b, "<div class=\"card\"><div class=\"label\">Strategy</div><div class=\"big\">");
	h(b, *json_str(st, "chosen") ? json_str(st, "chosen") : json_str(st, "recommended"));
	sbuf_adds(b, "</div><div>");
	if (*json_str(st, "chosen")) {
		sbuf_adds(b, "chosen; recommended: ");
		h(b, json_str(st, "recommended"));
	} else {
		sbuf_adds(b, "recommended; not chosen yet");
	}
	sbuf_adds(b, "</div></div>\n</div>\n<p class=\"formula\"><code>");
	h(b, json_str(as, "formula"));
	sbuf_addf(b, "</code></p>\n<table>\n<tr><th>Category</th><th>Days per open finding</th><th>Open findings</th></tr>\n");
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(as, "weights")) {
		sbuf_adds(b, "<tr><td>");
		h(b, w->string);
		sbuf_addf(b, "</td><td class=\"num\">%.3g</td><td class=\"num\">%lld</td></tr>\n", w->valuedouble,
		          json_int(cJSON_GetObjectItem(as, "counts"), w->string));
	}
	sbuf_addf(b, "</table>\n<p class=\"muted\">Base %.3g days. The weights are the engagement's: "
	             "<code>ferry config effort.weight.&lt;category&gt; DAYS</code>.</p>\n",
	          json_num(as, "base_days"));
	sbuf_adds(b, "<h3>Top risks</h3>\n<ul class=\"findings\">\n");
	const cJSON *r;
	int n = 0;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(as, "top_risks")) {
		char *loc = location(json_str(r, "file"), json_int(r, "line"), 0);
		sbuf_adds(b, "<li>");
		h_badge(b, "sev", json_str(r, "severity"));
		sbuf_adds(b, " <span class=\"loc\">");
		h(b, loc);
		sbuf_adds(b, "</span> ");
		h_rich(b, json_str(r, "message"));
		sbuf_addf(b, " <span class=\"ref\">#%lld · ", json_int(r, "id"));
		h(b, json_str(r, "category"));
		sbuf_adds(b, "</span></li>\n");
		free(loc);
		n++;
	}
	if (!n)
		sbuf_adds(b, "<li>No open risks without an automatic fix.</li>\n");
	sbuf_adds(b, "</ul>\n<h3>Strategy</h3>\n<p>Recommended: <strong>");
	h(b, strategy_name(json_str(st, "recommended")));
	sbuf_adds(b, "</strong>. ");
	h_rich(b, json_str(st, "reason"));
	sbuf_adds(b, "</p>\n<p>Chosen: ");
	if (*json_str(st, "chosen")) {
		sbuf_adds(b, "<strong>");
		h(b, strategy_name(json_str(st, "chosen")));
		sbuf_adds(b, "</strong>.</p>\n");
	} else {
		sbuf_adds(b, "not recorded yet (<code>ferry config strategy auto|tool|manual</code>).</p>\n");
	}
	const cJSON *d, *drivers = cJSON_GetObjectItem(st, "driver_findings");
	if (cJSON_GetArraySize(drivers))
		sbuf_adds(b, "<p>Findings that drove the recommendation:</p>\n<ul class=\"findings\">\n");
	cJSON_ArrayForEach(d, drivers) {
		char *loc = location(json_str(d, "file"), json_int(d, "line"), 0);
		sbuf_addf(b, "<li>#%lld <span class=\"loc\">", json_int(d, "id"));
		h(b, loc);
		sbuf_adds(b, "</span> ");
		h_rich(b, json_str(d, "message"));
		sbuf_adds(b, "</li>\n");
		free(loc);
	}
	if (cJSON_GetArraySize(drivers))
		sbuf_adds(b, "</ul>\n");
}

static void html_phases(sbuf *b, const cJSON *doc)
{
	sbuf_adds(b, "<h2>Phases</h2>\n<table>\n<tr><th>#</th><th>Phase</th><th>Status</th><th>Errors</th><th>Warnings</th>"
	             "<th>Info</th><th>Fixed</th><th>Waived</th><th>Sign-off</th></tr>\n");
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "phases")) {
		sbuf_addf(b, "<tr><td class=\"num\">%lld</td><td>", json_int(p, "ord"));
		h(b, json_str(p, "name"));
		sbuf_adds(b, "</td><td>");
		h_badge(b, "ph", json_str(p, "status"));
		sbuf_addf(b, "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
		             "<td class=\"num\">%lld</td><td class=\"num\">%lld</td><td>",
		          json_int(p, "open_errors"), json_int(p, "open_warnings"), json_int(p, "open_info"), json_int(p, "fixed"),
		          json_int(p, "waived"));
		if (*json_str(p, "signed_off_at")) {
			h(b, json_str(p, "signed_off_by"));
			sbuf_adds(b, ", ");
			h(b, json_str(p, "signed_off_at"));
			if (*json_str(p, "note")) {
				sbuf_adds(b, ": ");
				h(b, json_str(p, "note"));
			}
		} else {
			sbuf_adds(b, "-");
		}
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
}

static void html_group(sbuf *b, const char *phase, const char *category, const cJSON *findings, int first)
{
	if (first) {
		sbuf_adds(b, "<h3>Phase ");
		h(b, phase);
		sbuf_adds(b, "</h3>\n");
	}
	sbuf_adds(b, "<h4>");
	h(b, category);
	sbuf_adds(b, "</h4>\n<ul class=\"findings\">\n");
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		if (!finding_in(f, phase, category))
			continue;
		char *loc = location(json_str(f, "file"), json_int(f, "line"), 0);
		sbuf_adds(b, "<li>");
		h_badge(b, "sev", json_str(f, "severity"));
		sbuf_adds(b, " ");
		h_badge(b, "st", json_str(f, "status"));
		sbuf_adds(b, " <span class=\"loc\">");
		h(b, loc);
		sbuf_adds(b, "</span> ");
		h_rich(b, json_str(f, "message"));
		sbuf_addf(b, " <span class=\"ref\">#%lld · ", json_int(f, "id"));
		h(b, json_str(f, "plugin"));
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")))
			sbuf_adds(b, " · fixable");
		sbuf_adds(b, "</span>");
		if (*json_str(f, "suggestion")) {
			sbuf_adds(b, "<div class=\"advice\">Advice: ");
			h_rich(b, json_str(f, "suggestion"));
			sbuf_adds(b, "</div>");
		}
		sbuf_adds(b, "</li>\n");
		free(loc);
	}
	sbuf_adds(b, "</ul>\n");
}

static void html_findings(sbuf *b, const cJSON *doc)
{
	const cJSON *findings = cJSON_GetObjectItem(doc, "findings");
	sbuf_adds(b, "<h2>Findings</h2>\n<p class=\"muted\">Grouped by phase, then category.</p>\n");
	if (!cJSON_GetArraySize(findings))
		sbuf_adds(b, "<p>No findings recorded.</p>\n");
	each_group(b, findings, html_group);
	sbuf_adds(b, "<h2>Waivers</h2>\n");
	const cJSON *w, *waivers = cJSON_GetObjectItem(doc, "waivers");
	if (!cJSON_GetArraySize(waivers)) {
		sbuf_adds(b, "<p>No finding has been waived.</p>\n");
		return;
	}
	sbuf_adds(b, "<table>\n<tr><th>Finding</th><th>Location</th><th>Message</th><th>Reason</th><th>By</th><th>When</th></tr>\n");
	cJSON_ArrayForEach(w, waivers) {
		char *loc = location(json_str(w, "file"), json_int(w, "line"), 0);
		char *id = xasprintf("#%lld", json_int(w, "finding_id"));
		const char *cells[] = { id, loc, json_str(w, "message"), json_str(w, "reason"), json_str(w, "actor"), json_str(w, "created_at") };
		h_row_cells(b, cells, 6);
		free(loc);
		free(id);
	}
	sbuf_adds(b, "</table>\n");
}

static void html_rows(sbuf *b, const cJSON *rows, int unsupported)
{
	if (!cJSON_GetArraySize(rows)) {
		sbuf_adds(b, unsupported ? "<p>Nothing: every open finding in the code has an automatic fix.</p>\n"
		                         : "<p>No change made by ferry is in effect.</p>\n");
		return;
	}
	if (unsupported)
		sbuf_adds(b, "<table>\n<tr><th>Location</th><th>Severity</th><th>Construct</th><th>Advice</th><th>Check</th></tr>\n");
	else
		sbuf_adds(b, "<table>\n<tr><th>Location</th><th>Operation</th><th>Change</th><th>Check</th><th>Checkpoint</th></tr>\n");
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		char *loc = location(json_str(r, "file"), json_int(r, "start_line"), json_int(r, "end_line"));
		char *ids = ids_text(cJSON_GetObjectItem(r, "findings"));
		sbuf_adds(b, "<tr><td class=\"loc\">");
		h(b, loc);
		sbuf_adds(b, "</td><td>");
		if (unsupported)
			h_badge(b, "sev", json_str(r, "severity"));
		else
			h_badge(b, "op", json_str(r, "operation"));
		sbuf_adds(b, "</td><td>");
		h_rich(b, json_str(r, "message"));
		sbuf_adds(b, "</td><td>");
		if (unsupported) {
			h_rich(b, json_str(r, "advice"));
			sbuf_adds(b, "</td><td>");
		}
		h(b, json_str(r, "plugin"));
		sbuf_adds(b, " <span class=\"ref\">");
		h(b, ids);
		sbuf_adds(b, "</span></td>");
		if (!unsupported)
			sbuf_addf(b, "<td>%lld <span class=\"ref\">%.12s</span></td>", json_int(r, "checkpoint"), json_str(r, "commit"));
		sbuf_adds(b, "</tr>\n");
		free(loc);
		free(ids);
	}
	sbuf_adds(b, "</table>\n");
}

static void html_environment(sbuf *b, const cJSON *doc)
{
	const cJSON *env = cJSON_GetObjectItem(doc, "environment"), *base = cJSON_GetObjectItem(doc, "gpu_baseline");
	sbuf_adds(b, "<h2>Environment</h2>\n");
	if (!cJSON_IsObject(env)) {
		sbuf_adds(b, "<p>No environment probe has been ingested (<code>ferry probe-script</code> on the NPU host, "
		             "then <code>ferry ingest env-probe FILE</code>).</p>\n");
	} else if (*json_str(env, "error")) {
		sbuf_addf(b, "<p>Probe artifact %lld: ", json_int(env, "artifact"));
		h(b, json_str(env, "error"));
		sbuf_adds(b, ".</p>\n");
	} else {
		sbuf_addf(b, "<p>From the probe artifact %lld, collected ", json_int(env, "artifact"));
		h(b, json_str(env, "collected_at"));
		sbuf_adds(b, ".</p>\n<table class=\"meta\">\n");
		static const char *const keys[] = { "hostname", "os", "arch", "python", "torch", "torch_npu", "cann", "driver", NULL };
		for (size_t k = 0; keys[k]; k++) {
			const char *cells[2] = { keys[k], *json_str(env, keys[k]) ? json_str(env, keys[k]) : "-" };
			h_row_cells(b, cells, 2);
		}
		const cJSON *c;
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(env, "chips")) {
			char *label = xasprintf("NPU %lld", json_int(c, "id"));
			char *t = xasprintf("%s, %s, %.0f MB", json_str(c, "name"), json_str(c, "health"), json_num(c, "memory_mb"));
			const char *cells[2] = { label, t };
			h_row_cells(b, cells, 2);
			free(label);
			free(t);
		}
		sbuf_adds(b, "</table>\n");
	}
	sbuf_adds(b, "<h3>GPU baseline</h3>\n");
	if (!cJSON_IsObject(base)) {
		sbuf_adds(b, "<p>Not recorded: ingest a <code>ferry-bench/1</code> document with "
		             "<code>ferry ingest bench FILE --label gpu</code>.</p>\n");
	} else {
		sbuf_addf(b, "<p>Artifact %lld: ", json_int(base, "artifact"));
		h(b, json_str(base, "label"));
		sbuf_adds(b, " on ");
		h(b, json_str(base, "hardware"));
		sbuf_adds(b, ", ");
		h(b, json_str(base, "precision"));
		const cJSON *m;
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(base, "metrics")) {
			sbuf_adds(b, "; ");
			h(b, m->string);
			sbuf_addf(b, " %g", m->valuedouble);
		}
		sbuf_adds(b, ".</p>\n");
	}
	const cJSON *a, *arts = cJSON_GetObjectItem(doc, "artifacts");
	sbuf_adds(b, "<h3>Artifacts</h3>\n");
	if (!cJSON_GetArraySize(arts)) {
		sbuf_adds(b, "<p>None ingested.</p>\n");
		return;
	}
	sbuf_adds(b, "<table>\n<tr><th>#</th><th>Kind</th><th>Label</th><th>SHA-256</th><th>Ingested</th></tr>\n");
	cJSON_ArrayForEach(a, arts) {
		char *id = xasprintf("%lld", json_int(a, "id"));
		char *sha = xasprintf("%.16s…", json_str(a, "sha256"));
		const char *cells[] = { id, json_str(a, "kind"), json_str(a, "label"), sha, json_str(a, "ingested_at") };
		h_row_cells(b, cells, 5);
		free(id);
		free(sha);
	}
	sbuf_adds(b, "</table>\n");
}

static void html_audit(sbuf *b, const cJSON *doc)
{
	const cJSON *au = cJSON_GetObjectItem(doc, "audit"), *hi = cJSON_GetObjectItem(doc, "history");
	sbuf_adds(b, "<h2>Audit record</h2>\n<table class=\"meta\">\n");
	char *events = xasprintf("%lld", json_int(au, "events"));
	char *cps = xasprintf("%lld", json_int(hi, "checkpoints"));
	const char *rows[][2] = { { "Audit chain head", json_str(au, "head") }, { "Events", events },
		                      { "Baseline commit", json_str(hi, "baseline") }, { "Head commit", json_str(hi, "head") },
		                      { "Checkpoints", cps } };
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		h_row_cells(b, rows[i], 2);
	free(events);
	free(cps);
	sbuf_adds(b, "</table>\n<p>To check that the record was not altered, run <code>");
	h(b, json_str(au, "verify"));
	sbuf_adds(b, "</code> in the project directory: it recomputes the hash chain and checks every checkpoint commit.</p>\n");
}

static void html_render(sbuf *b, const cJSON *doc, int parts)
{
	html_header(b, doc);
	if (parts & PART_SUMMARY) {
		html_summary(b, doc);
		html_phases(b, doc);
		html_findings(b, doc);
	}
	if (parts & PART_CHANGES) {
		sbuf_adds(b, "<h2>Change list</h2>\n<p class=\"muted\">Every change ferry made that is still in effect, one row "
		             "per hunk (lines as the checkpoint left the file; <code>ferry diff N</code> shows checkpoint N).</p>\n");
		html_rows(b, cJSON_GetObjectItem(doc, "changes"), 0);
		const cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "reverted_checkpoints")) {
			sbuf_addf(b, "<p class=\"muted\">Checkpoint %lld (", json_int(r, "id"));
			h(b, json_str(r, "plugin"));
			sbuf_addf(b, ") was reverted by checkpoint %lld and is not listed.</p>\n", json_int(r, "reverted_by"));
		}
	}
	if (parts & PART_UNSUPPORTED) {
		sbuf_adds(b, "<h2>Unsupported list</h2>\n<p class=\"muted\">Open findings without an automatic fix: "
		             "constructs a person must port.</p>\n");
		html_rows(b, cJSON_GetObjectItem(doc, "unsupported"), 1);
	}
	if (parts & PART_SUMMARY) {
		html_environment(b, doc);
		html_audit(b, doc);
	}
	sbuf_adds(b, "<footer>Generated by ferry");
	if (*json_str(doc, "ferry_version")) {
		sbuf_adds(b, " ");
		h(b, json_str(doc, "ferry_version"));
	}
	sbuf_adds(b, " on ");
	h(b, json_str(doc, "generated_at"));
	sbuf_adds(b, ".</footer>\n</main>\n</body>\n</html>\n");
}

/* ---------- JSON and CSV ---------- */

static void json_render(sbuf *b, const cJSON *doc, int parts)
{
	static const char *const always[] = { "schema", "title", "generated_at", "generated_by", "ferry_version",
		                                  "engagement", NULL };
	static const char *const summary[] = { "config", "assessment", "phases", "findings", "waivers", "environment",
		                                   "gpu_baseline", "artifacts", "history", "audit", NULL };
	cJSON *out = cJSON_CreateObject();
	for (size_t i = 0; always[i]; i++)
		copy_item(out, always[i], cJSON_GetObjectItem(doc, always[i]));
	if (parts & PART_SUMMARY)
		for (size_t i = 0; summary[i]; i++)
			copy_item(out, summary[i], cJSON_GetObjectItem(doc, summary[i]));
	if (parts & PART_CHANGES) {
		copy_item(out, "changes", cJSON_GetObjectItem(doc, "changes"));
		copy_item(out, "reverted_checkpoints", cJSON_GetObjectItem(doc, "reverted_checkpoints"));
	}
	if (parts & PART_UNSUPPORTED)
		copy_item(out, "unsupported", cJSON_GetObjectItem(doc, "unsupported"));
	char *text = cJSON_Print(out);
	sbuf_adds(b, text);
	sbuf_addc(b, '\n');
	free(text);
	cJSON_Delete(out);
}

static void csv_findings(sbuf *b, const cJSON *findings)
{
	sbuf_adds(b, "id,phase,category,severity,status,plugin,file,line,col,end_line,end_col,message,suggestion,fixable\r\n");
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		sbuf_addf(b, "%lld,", json_int(f, "id"));
		sbuf_add_csv(b, json_str(f, "phase"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(f, "category"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(f, "severity"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(f, "status"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(f, "plugin"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(f, "file"));
		sbuf_addf(b, ",%lld,%lld,%lld,%lld,", json_int(f, "line"), json_int(f, "col"), json_int(f, "end_line"), json_int(f, "end_col"));
		sbuf_add_csv(b, json_str(f, "message"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(f, "suggestion"));
		sbuf_addf(b, ",%s\r\n", cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")) ? "true" : "false");
	}
}

int report_render(sbuf *b, const cJSON *doc, const char *format, const char *section)
{
	if (section && !report_section_valid(section))
		return err_set(FERRY_EUSAGE, "--section %s: not one of all, assessment, changes, unsupported", section);
	int parts = section_parts(section);
	if (strcmp(format, "md") == 0)
		md_render(b, doc, parts);
	else if (strcmp(format, "html") == 0)
		html_render(b, doc, parts);
	else if (strcmp(format, "json") == 0)
		json_render(b, doc, parts);
	else if (strcmp(format, "csv") == 0 && parts == PART_CHANGES)
		changes_csv(b, cJSON_GetObjectItem(doc, "changes"));
	else if (strcmp(format, "csv") == 0 && parts == PART_UNSUPPORTED)
		changes_csv(b, cJSON_GetObjectItem(doc, "unsupported"));
	else if (strcmp(format, "csv") == 0)
		csv_findings(b, cJSON_GetObjectItem(doc, "findings"));
	else
		return err_set(FERRY_EUSAGE, "--format %s: not one of md, html, json, csv", format);
	return 0;
}

/* SARIF: the recorded findings that are not fixed (or the unsupported ones). */
static int sarif_render(sbuf *b, workspace *ws, const cJSON *doc, const char *section, const char *version)
{
	plugin_host *host = NULL;
	cJSON *sel = cJSON_CreateArray(), *all = NULL;
	int unsupported = section && strcmp(section, "unsupported") == 0;
	int rc = store_findings(&all, ws->db, NULL);
	if (!rc)
		rc = check_host_new(&host, ws);
	if (rc)
		goto out;
	cJSON *f;
	cJSON_ArrayForEach(f, all) {
		int keep = strcmp(json_str(f, "status"), "fixed") != 0;
		if (unsupported) {
			keep = 0;
			const cJSON *r, *id;
			cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "unsupported"))
				cJSON_ArrayForEach(id, cJSON_GetObjectItem(r, "findings"))
					keep |= (long long)id->valuedouble == json_int(f, "id");
		}
		if (keep)
			cJSON_AddItemToArray(sel, cJSON_Duplicate(f, 1));
	}
	output_sarif(b, sel, host, version ? version : "");
out:
	plugin_host_free(host);
	cJSON_Delete(sel);
	cJSON_Delete(all);
	return rc;
}

int report_write(char sha256[65], workspace *ws, const report_opts *o)
{
	const char *section = o->section ? o->section : "all";
	cJSON *doc = NULL;
	sbuf b;
	int rc;
	if (!report_format_valid(o->format))
		return err_set(FERRY_EUSAGE, "--format %s: not one of md, html, json, sarif, csv", o->format ? o->format : "");
	if (!report_section_valid(section))
		return err_set(FERRY_EUSAGE, "--section %s: not one of all, assessment, changes, unsupported", section);
	if (strcmp(o->format, "sarif") == 0 && strcmp(section, "changes") == 0)
		return err_set(FERRY_EUSAGE, "--section changes: the change list has no SARIF form (use md, html, json or csv)");
	sbuf_init(&b);
	if ((rc = report_build(&doc, ws, o->version)))
		goto out;
	if (strcmp(o->format, "sarif") == 0)
		rc = sarif_render(&b, ws, doc, section, o->version);
	else
		rc = report_render(&b, doc, o->format, section);
	if (rc || (rc = output_emit(&b, o->output)))
		goto out;
	char sha[65];
	util_sha256_hex(sha, b.buf, b.len);
	if (sha256)
		memcpy(sha256, sha, 65);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "format", o->format);
	cJSON_AddStringToObject(d, "section", section);
	cJSON_AddStringToObject(d, "path", o->output && strcmp(o->output, "-") != 0 ? o->output : "-");
	cJSON_AddStringToObject(d, "sha256", sha);
	cJSON_AddNumberToObject(d, "bytes", (double)b.len);
	rc = ws_event(ws, "report", d);
out:
	sbuf_done(&b);
	cJSON_Delete(doc);
	return rc;
}
