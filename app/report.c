/* report — see report.h. */
#include "report.h"
#include "json.h"
#include "assessment.h"
#include "review.h"
#include "audit.h"
#include "changes.h"
#include "check.h"
#include "err.h"
#include "i18n_report.h"
#include "output.h"
#include "plugin_host.h"
#include "sign.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const report_formats[] = { "md", "html", "json", "sarif", "csv", NULL };
static const char *const sections[] = { "all", "assessment", "changes", "unsupported", NULL };

static int in_list(const char *name, const char *const *list)
{
	for (size_t i = 0; name && list[i]; i++)
		if (strcmp(name, list[i]) == 0)
			return 1;
	return 0;
}

int report_format_valid(const char *name) { return in_list(name, report_formats); }
int report_section_valid(const char *name) { return in_list(name, sections); }

/* ---------- building the document ---------- */

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

/* {artifact, label, sha256} of an artifact row. */
static cJSON *artifact_ref(const cJSON *art)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "artifact", json_num(art, "id"));
	cJSON_AddStringToObject(o, "label", json_str(art, "label"));
	cJSON_AddStringToObject(o, "sha256", json_str(art, "sha256"));
	return o;
}

/* A bench artifact's metrics object (decoded), or NULL. */
static cJSON *bench_metrics(workspace *ws, const cJSON *art, int *npu)
{
	char *text = NULL;
	cJSON *p = NULL;
	if (artifact_text(&text, ws, art) || !(p = cJSON_Parse(text))) {
		err_clear();
		free(text);
		return NULL;
	}
	free(text);
	const char *side[] = { json_str(art, "label"), json_str(p, "label"), json_str(p, "hardware") };
	*npu = 0;
	for (size_t i = 0; i < 3; i++)
		*npu |= strcasestr(side[i], "npu") || strcasestr(side[i], "ascend") || strcasestr(side[i], "atlas");
	cJSON *m = cJSON_DetachItemFromObject(p, "metrics");
	cJSON_Delete(p);
	if (!cJSON_IsObject(m)) {
		cJSON_Delete(m);
		return NULL;
	}
	return m;
}

/* The newest NPU benchmark against the GPU baseline and the acceptance criteria. */
static cJSON *bench_verdict(workspace *ws, const cJSON *arts, const cJSON *config)
{
	const cJSON *gpu = newest_artifact(arts, "bench", "gpu"), *a, *npu = NULL;
	cJSON *gm = NULL, *nm = NULL;
	int is_npu = 0;
	if (gpu)
		gm = bench_metrics(ws, gpu, &is_npu);
	cJSON_ArrayForEach(a, arts) {
		if (strcmp(json_str(a, "kind"), "bench") != 0 || a == gpu || (npu && json_int(a, "id") < json_int(npu, "id")))
			continue;
		cJSON *m = bench_metrics(ws, a, &is_npu);
		if (m && is_npu) {
			cJSON_Delete(nm);
			nm = m;
			npu = a;
		} else {
			cJSON_Delete(m);
		}
	}
	if (!gm || !nm) {
		cJSON_Delete(gm);
		cJSON_Delete(nm);
		return NULL;
	}
	cJSON *v = cJSON_CreateObject();
	cJSON_AddItemToObject(v, "a", artifact_ref(gpu));
	cJSON_AddItemToObject(v, "b", artifact_ref(npu));
	int fail = 0, judged = 0;
	const char *tol = json_str(config, "tolerance.accuracy"), *pct = json_str(config, "throughput.target_pct");
	if (cJSON_IsNumber(cJSON_GetObjectItem(gm, "accuracy")) && cJSON_IsNumber(cJSON_GetObjectItem(nm, "accuracy"))) {
		double drop = json_num(gm, "accuracy") - json_num(nm, "accuracy");
		cJSON_AddNumberToObject(v, "accuracy_drop", drop);
		if (*tol) {
			cJSON_AddNumberToObject(v, "tolerance_accuracy", atof(tol));
			fail |= drop > atof(tol) + 1e-12;
			judged = 1;
		}
	}
	if (json_num(gm, "throughput") > 0 && cJSON_IsNumber(cJSON_GetObjectItem(nm, "throughput"))) {
		double got = json_num(nm, "throughput") / json_num(gm, "throughput") * 100;
		cJSON_AddNumberToObject(v, "throughput_pct", got);
		if (*pct) {
			cJSON_AddNumberToObject(v, "throughput_target_pct", atof(pct));
			fail |= got < atof(pct);
			judged = 1;
		}
	}
	cJSON_AddStringToObject(v, "verdict", fail ? "fail" : judged ? "pass" : "no criteria set");
	cJSON_Delete(gm);
	cJSON_Delete(nm);
	return v;
}

/* The newest profile and what tune.profile says about it now. */
static cJSON *profile_verdict(const cJSON *arts, const cJSON *findings)
{
	const cJSON *art = newest_artifact(arts, "profile", NULL), *f;
	if (!art)
		return NULL;
	cJSON *v = cJSON_CreateObject(), *ids = cJSON_CreateArray();
	cJSON_AddItemToObject(v, "b", artifact_ref(art));
	int errors = 0, warnings = 0;
	cJSON_ArrayForEach(f, findings) {
		if (strcmp(json_str(f, "plugin"), "tune.profile") != 0 || strcmp(json_str(f, "status"), "open") != 0)
			continue;
		errors += strcmp(json_str(f, "severity"), "error") == 0;
		warnings += strcmp(json_str(f, "severity"), "warning") == 0;
		cJSON_AddItemToArray(ids, cJSON_CreateNumber(json_num(f, "id")));
	}
	cJSON_AddStringToObject(v, "verdict", errors ? "fail" : warnings ? "warnings" : "pass");
	cJSON_AddItemToObject(v, "findings", ids);
	return v;
}

/* The latest loss, dump, profile and benchmark verdicts, each with its inputs' hashes. */
static int verdicts(cJSON **out, workspace *ws, const cJSON *arts, const cJSON *config, const cJSON *findings)
{
	cJSON *c = NULL;
	int rc = review_comparisons(&c, ws->db);
	if (rc)
		return rc;
	cJSON *kind;
	cJSON_ArrayForEach(kind, c) /* the local paths of the inputs stay out of a client document */
		for (int i = 0; i < 2; i++)
			cJSON_DeleteItemFromObject(cJSON_GetObjectItem(kind, i ? "b" : "a"), "path");
	cJSON *p = profile_verdict(arts, findings), *b = bench_verdict(ws, arts, config);
	if (p)
		cJSON_AddItemToObject(c, "profile", p);
	if (b)
		cJSON_AddItemToObject(c, "bench", b);
	*out = c;
	return 0;
}

static const char *const finding_keys[] = { "id", "plugin", "phase", "severity", "category", "file", "line", "col",
	                                         "end_line", "end_col", "message", "suggestion", "fixable", "status", "waiver", NULL };

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
	review_phase_states(tmp);
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
	if ((rc = verdicts(&tmp, ws, arts, cJSON_GetObjectItem(doc, "config"), findings)))
		goto out;
	cJSON_AddItemToObject(doc, "verdicts", tmp);
	tmp = NULL;
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
	/* the anchor a client keeps: verify --head detects truncation or a rewrite after it */
	char *anchor = xasprintf("%s:%lld", chain, seq);
	char *verify = xasprintf("ferry verify --head %s", anchor);
	cJSON_AddStringToObject(au, "anchor", anchor);
	cJSON_AddStringToObject(au, "verify", verify);
	free(anchor);
	free(verify);
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

/* The report's fixed text in its language. A macro rather than a function so that both
 * literals reach the compiler and format strings are checked in each language. */
#define TX(zh, en, cn) ((zh) ? (cn) : (en))

/* A word or sentence another module produced in English (a class, a status, a severity, an
 * operation, a strategy reason), in the report's language. */
static const char *word(int zh, const char *en) { return i18n_report_tr(zh, en); }

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
static void add_location(sbuf *b, int zh, const char *file, long long start, long long end)
{
	if (!*file) {
		sbuf_adds(b, TX(zh, "(project)", "（整个项目）"));
		return;
	}
	sbuf_adds(b, file);
	if (start > 0 && end > start)
		sbuf_addf(b, ":%lld-%lld", start, end);
	else if (start > 0)
		sbuf_addf(b, ":%lld", start);
}

static char *location(int zh, const char *file, long long start, long long end)
{
	sbuf b;
	sbuf_init(&b);
	add_location(&b, zh, file, start, end);
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

static const char *strategy_name(int zh, const char *s)
{
	if (strcmp(s, "auto") == 0)
		return TX(zh, "auto (transfer_to_npu)", "自动迁移（auto，transfer_to_npu）");
	if (strcmp(s, "tool") == 0)
		return TX(zh, "tool (explicit rewrites with ferry fix)", "工具改写（tool，用 ferry fix 显式改写）");
	if (strcmp(s, "manual") == 0)
		return TX(zh, "manual porting", "人工移植（manual）");
	return s;
}

/* The strategy's one word for the summary card: the identifier in English, a short name
 * in Chinese. */
static const char *strategy_short(int zh, const char *s)
{
	if (!zh)
		return s;
	if (strcmp(s, "auto") == 0)
		return "自动迁移";
	if (strcmp(s, "tool") == 0)
		return "工具改写";
	if (strcmp(s, "manual") == 0)
		return "人工移植";
	return s;
}

/* The effort formula as assessment.c wrote it ("effort = base B + W × N category … = D
 * person-days"), with its words in the report's language; the numbers are untouched. */
static char *formula_text(int zh, const char *formula)
{
	static const char head[] = "effort = base ", tail[] = " person-days";
	size_t n = strlen(formula);
	if (!zh || !util_starts_with(formula, head) || !util_ends_with(formula, tail) || n < sizeof head + sizeof tail - 2)
		return xstrdup(formula);
	return xasprintf("工作量 = 基础 %.*s 人天", (int)(n - (sizeof head - 1) - (sizeof tail - 1)), formula + sizeof head - 1);
}

/* The report's title: the document's (English) one, or the same built in Chinese. */
static char *title_text(int zh, const cJSON *doc)
{
	if (!zh)
		return xstrdup(json_str(doc, "title"));
	const cJSON *eng = cJSON_GetObjectItem(doc, "engagement");
	const char *project = *json_str(eng, "project") ? json_str(eng, "project") : json_str(eng, "engagement_id");
	return xasprintf("迁移评估报告：%s", project);
}

/* The label of one line of the environment summary. */
static const char *env_label(int zh, const char *key)
{
	static const char *const labels[][3] = {
		{ "hostname", "hostname", "主机名" }, { "os", "os", "操作系统" },         { "arch", "arch", "架构" },
		{ "python", "python", "Python 版本" }, { "torch", "torch", "torch 版本" }, { "torch_npu", "torch_npu", "torch_npu 版本" },
		{ "cann", "cann", "CANN 版本" },       { "driver", "driver", "驱动版本" },
	};
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (strcmp(labels[i][0], key) == 0)
			return labels[i][zh ? 2 : 1];
	return key;
}

/* Distinct phases, in the order the findings are (phase order), then categories. */
static int finding_in(const cJSON *f, const char *phase, const char *category)
{
	const char *cat = *json_str(f, "category") ? json_str(f, "category") : "other";
	return strcmp(json_str(f, "phase"), phase) == 0 && (!category || strcmp(cat, category) == 0);
}

/* Calls cb(phase, category, findings-in-group) for each group, in phase order and then
 * category order of first appearance. */
typedef void (*group_cb)(sbuf *b, int zh, const char *phase, const char *category, const cJSON *findings, int first);

static void each_group(sbuf *b, int zh, const cJSON *findings, group_cb cb)
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
			cb(b, zh, phase, cat, findings, first_of_phase);
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

/* "Waived by ACTOR at TIME: REASON (carried from #N)" for a finding's waiver in force, or NULL. */
static char *waiver_text(int zh, const cJSON *w)
{
	if (!cJSON_IsObject(w))
		return NULL;
	char *carried = json_int(w, "carried_from") > 0
	                    ? xasprintf(TX(zh, " (carried from #%lld)", "（沿用自 #%lld）"), json_int(w, "carried_from"))
	                    : xstrdup("");
	char *t = xasprintf(TX(zh, "Waived by %s at %s: %s%s", "豁免人 %s，时间 %s，理由：%s%s"), json_str(w, "actor"),
	                    json_str(w, "at"), json_str(w, "reason"), carried);
	free(carried);
	return t;
}

/* The "When" cell of a waiver row: its time, and its withdrawal when it was withdrawn. */
static char *waiver_when(int zh, const cJSON *w)
{
	if (!*json_str(w, "withdrawn_at"))
		return xstrdup(json_str(w, "created_at"));
	return xasprintf(TX(zh, "%s; withdrawn %s by %s: %s", "%s；已于 %s 由 %s 撤销：%s"), json_str(w, "created_at"),
	                 json_str(w, "withdrawn_at"), json_str(w, "withdrawn_by"), json_str(w, "withdrawn_reason"));
}

static void md_group(sbuf *b, int zh, const char *phase, const char *category, const cJSON *findings, int first)
{
	if (first)
		sbuf_addf(b, TX(zh, "\n### Phase %s\n", "\n### 阶段 %s\n"), phase);
	sbuf_addf(b, "\n#### %s\n\n", category);
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		if (!finding_in(f, phase, category))
			continue;
		char *loc = location(zh, json_str(f, "file"), json_int(f, "line"), 0);
		sbuf_addf(b, "- **%s** `%s` — ", word(zh, json_str(f, "severity")), loc);
		md_text(b, json_str(f, "message"));
		sbuf_addf(b, TX(zh, " *(#%lld, %s, %s%s)*\n", " *（#%lld，%s，%s%s）*\n"), json_int(f, "id"), json_str(f, "plugin"),
		          word(zh, json_str(f, "status")),
		          cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")) ? TX(zh, ", fixable", "，可自动修复") : "");
		if (*json_str(f, "suggestion")) {
			sbuf_adds(b, TX(zh, "  - Advice: ", "  - 建议："));
			md_text(b, json_str(f, "suggestion"));
			sbuf_addc(b, '\n');
		}
		char *wv = waiver_text(zh, cJSON_GetObjectItem(f, "waiver"));
		if (wv) {
			sbuf_adds(b, "  - ");
			md_text(b, wv);
			sbuf_addc(b, '\n');
			free(wv);
		}
		free(loc);
	}
}

static void md_rows(sbuf *b, int zh, const cJSON *rows, int unsupported)
{
	if (!cJSON_GetArraySize(rows)) {
		sbuf_adds(b, unsupported ? TX(zh, "Nothing: every open finding in the code has an automatic fix.\n",
		                              "无：代码中每个未处理的问题都有自动修复。\n")
		                         : TX(zh, "No change made by ferry is in effect.\n", "目前没有生效中的 ferry 改动。\n"));
		return;
	}
	if (unsupported)
		sbuf_adds(b, TX(zh, "| Location | Severity | Construct | Advice | Check | Finding |\n",
		                "| 位置 | 严重级别 | 写法 | 建议 | 检查 | 问题 |\n"));
	else
		sbuf_adds(b, TX(zh, "| File | Lines | Operation | Change | Check | Findings | Checkpoint |\n",
		                "| 文件 | 行 | 操作 | 改动 | 检查 | 问题 | 检查点 |\n"));
	sbuf_adds(b, unsupported ? "|---|---|---|---|---|---|\n" : "|---|---|---|---|---|---|---|\n");
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		char *ids = ids_text(cJSON_GetObjectItem(r, "findings"));
		sbuf_adds(b, "|");
		if (unsupported) {
			char *loc = location(zh, json_str(r, "file"), json_int(r, "start_line"), json_int(r, "end_line"));
			md_cell(b, loc);
			md_cell(b, word(zh, json_str(r, "severity")));
			md_cell(b, json_str(r, "message"));
			md_cell(b, json_str(r, "advice"));
			md_cell(b, json_str(r, "plugin"));
			md_cell(b, ids);
			free(loc);
		} else {
			char *lines = xasprintf("%lld-%lld", json_int(r, "start_line"), json_int(r, "end_line"));
			md_cell(b, json_str(r, "file"));
			md_cell(b, lines);
			md_cell(b, word(zh, json_str(r, "operation")));
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

static void md_header(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *eng = cJSON_GetObjectItem(doc, "engagement");
	char *title = title_text(zh, doc);
	const char *version = json_str(doc, "ferry_version");
	char *tool = *version ? xasprintf("ferry %s", version) : xstrdup("");
	sbuf_adds(b, "# ");
	md_text(b, title);
	sbuf_adds(b, "\n\n| | |\n|---|---|\n");
	const struct {
		const char *label, *value;
	} meta[] = {
		{ TX(zh, "Client", "客户"), json_str(eng, "client") },
		{ TX(zh, "Project", "项目"), json_str(eng, "project") },
		{ TX(zh, "Engagement", "委托编号"), json_str(eng, "engagement_id") },
		{ TX(zh, "Target", "目标硬件"), json_str(eng, "target_soc") },
		{ TX(zh, "Date", "日期"), json_str(doc, "generated_at") },
		{ TX(zh, "Prepared by", "编制人"), json_str(doc, "generated_by") },
		{ TX(zh, "Tool", "工具"), tool },
	};
	for (size_t i = 0; i < sizeof meta / sizeof meta[0]; i++) {
		sbuf_addf(b, "| %s |", meta[i].label);
		md_cell(b, *meta[i].value ? meta[i].value : "-");
		sbuf_addc(b, '\n');
	}
	free(tool);
	free(title);
}

static void md_summary(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *as = cJSON_GetObjectItem(doc, "assessment");
	sbuf_adds(b, TX(zh, "\n## Executive summary\n\n", "\n## 执行摘要\n\n"));
	if (!cJSON_IsTrue(cJSON_GetObjectItem(as, "ran"))) {
		sbuf_adds(b, TX(zh,
		                "The assess phase has not run yet: `ferry check --phase assess` produces the readiness "
		                "score, the effort estimate and the strategy recommendation.\n",
		                "评估阶段尚未运行：`ferry check --phase assess` 会给出就绪度评分、工作量估算和策略建议。\n"));
		return;
	}
	char *formula = formula_text(zh, json_str(as, "formula"));
	sbuf_addf(b, TX(zh, "- **Readiness: %lld/100 (%s).**\n", "- **就绪度：%lld/100（%s）。**\n"), json_int(as, "score"),
	          word(zh, json_str(as, "class")));
	sbuf_addf(b, TX(zh, "- **Effort: %.1f person-days.** `%s`\n", "- **工作量：%.1f 人天。** `%s`\n"),
	          json_num(as, "effort_days"), formula);
	free(formula);
	sbuf_adds(b, TX(zh, "\n| Category | Days per open finding | Open findings |\n|---|---|---|\n",
	                "\n| 类别 | 每个未处理问题的人天 | 未处理问题数 |\n|---|---|---|\n"));
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(as, "weights")) {
		sbuf_adds(b, "|");
		md_cell(b, w->string);
		sbuf_addf(b, " %.3g | %lld |\n", w->valuedouble, json_int(cJSON_GetObjectItem(as, "counts"), w->string));
	}
	sbuf_addf(b,
	          TX(zh,
	             "\nThe weights are the engagement's (`ferry config effort.weight.<category> DAYS`, "
	             "`ferry config effort.base_days DAYS`); base %.3g days.\n",
	             "\n权重为本项目的设置（`ferry config effort.weight.<category> DAYS`、"
	             "`ferry config effort.base_days DAYS`）；基础 %.3g 人天。\n"),
	          json_num(as, "base_days"));
	sbuf_adds(b, TX(zh, "\n### Top risks\n\n", "\n### 主要风险\n\n"));
	const cJSON *r;
	int n = 0;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(as, "top_risks")) {
		char *loc = location(zh, json_str(r, "file"), json_int(r, "line"), 0);
		sbuf_addf(b, "%d. **%s** `%s` — ", ++n, word(zh, json_str(r, "severity")), loc);
		md_text(b, json_str(r, "message"));
		sbuf_addf(b, TX(zh, " *(#%lld, %s)*\n", " *（#%lld，%s）*\n"), json_int(r, "id"), json_str(r, "category"));
		free(loc);
	}
	if (!n)
		sbuf_adds(b, TX(zh, "No open risks without an automatic fix.\n", "没有缺少自动修复的未处理风险。\n"));
	const cJSON *st = cJSON_GetObjectItem(as, "strategy");
	sbuf_adds(b, TX(zh, "\n### Strategy\n\n", "\n### 策略\n\n"));
	sbuf_addf(b, TX(zh, "- Recommended: **%s**. ", "- 推荐：**%s**。"), strategy_name(zh, json_str(st, "recommended")));
	md_text(b, word(zh, json_str(st, "reason")));
	sbuf_addc(b, '\n');
	if (*json_str(st, "chosen"))
		sbuf_addf(b, TX(zh, "- Chosen: **%s**.\n", "- 已选：**%s**。\n"), strategy_name(zh, json_str(st, "chosen")));
	else
		sbuf_adds(b, TX(zh, "- Chosen: not recorded yet (`ferry config strategy auto|tool|manual`).\n",
		                "- 已选：尚未记录（`ferry config strategy auto|tool|manual`）。\n"));
	const cJSON *d;
	int first = 1;
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(st, "driver_findings")) {
		if (first)
			sbuf_adds(b, TX(zh, "- Findings that drove the recommendation:\n", "- 决定该推荐的问题：\n"));
		first = 0;
		char *loc = location(zh, json_str(d, "file"), json_int(d, "line"), 0);
		sbuf_addf(b, "  - #%lld `%s` — ", json_int(d, "id"), loc);
		md_text(b, json_str(d, "message"));
		sbuf_addc(b, '\n');
		free(loc);
	}
}

/* One verdict of the report as four cells: the check, the verdict, what was measured, and
 * the inputs with their hashes. Returns 0 when kind has no verdict. Cells are malloc'd. */
static int verdict_cells(char *cells[4], int zh, const cJSON *doc, const char *kind)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "verdicts"), kind);
	if (!cJSON_IsObject(v))
		return 0;
	static const struct {
		const char *kind, *en, *zh;
	} names[] = { { "loss", "Loss curve", "损失曲线" }, { "dump", "Tensor dump", "张量比对" },
		          { "profile", "Profile", "性能分析" }, { "bench", "Benchmark", "基准测试" } };
	const char *name = kind;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i].kind, kind) == 0)
			name = TX(zh, names[i].en, names[i].zh);
	cells[0] = xstrdup(name);
	char up[32];
	snprintf(up, sizeof up, "%s", json_str(v, "verdict"));
	for (char *c = up; *c; c++)
		*c = (char)toupper((unsigned char)*c);
	cells[1] = xstrdup(up);
	if (strcmp(kind, "loss") == 0)
		cells[2] = xasprintf(TX(zh, "mean relative error %.3g %% over %lld steps, tolerance %.3g %%",
		                        "平均相对误差 %.3g %%，%lld 步，容差 %.3g %%"),
		                     json_num(v, "mean_rel_err") * 100, json_int(v, "aligned_steps"), json_num(v, "tolerance") * 100);
	else if (strcmp(kind, "dump") == 0)
		cells[2] = xasprintf(TX(zh, "%lld of %lld tensor pairs fail%s%s", "%lld / %lld 对张量不通过%s%s"),
		                     json_int(v, "failed"), json_int(v, "pairs"),
		                     *json_str(v, "first_diverging_layer") ? TX(zh, "; first diverging layer ", "；首个偏离层 ") : "",
		                     json_str(v, "first_diverging_layer"));
	else if (strcmp(kind, "profile") == 0)
		cells[2] = xasprintf(TX(zh, "%d open tune.profile findings", "tune.profile 未处理问题 %d 个"),
		                     cJSON_GetArraySize(cJSON_GetObjectItem(v, "findings")));
	else
		cells[2] = xasprintf(TX(zh, "accuracy drop %.4g (accepted %s), throughput %.0f %% of the GPU (target %s)",
		                        "精度下降 %.4g（允许 %s），吞吐为 GPU 的 %.0f %%（目标 %s）"),
		                     json_num(v, "accuracy_drop"), *json_str(cJSON_GetObjectItem(doc, "config"), "tolerance.accuracy")
		                         ? json_str(cJSON_GetObjectItem(doc, "config"), "tolerance.accuracy") : "-",
		                     json_num(v, "throughput_pct"), *json_str(cJSON_GetObjectItem(doc, "config"), "throughput.target_pct")
		                         ? json_str(cJSON_GetObjectItem(doc, "config"), "throughput.target_pct") : "-");
	sbuf in;
	sbuf_init(&in);
	for (int i = 0; i < 2; i++) {
		const cJSON *side = cJSON_GetObjectItem(v, i ? "b" : "a");
		if (!cJSON_IsObject(side))
			continue;
		const char *label = *json_str(side, "label") ? json_str(side, "label") : json_str(side, "arg");
		if (in.len)
			sbuf_adds(&in, " / ");
		if (json_int(side, "artifact") > 0)
			sbuf_addf(&in, TX(zh, "%s (artifact %lld, sha256 %.12s)", "%s（工件 %lld，sha256 %.12s）"), label,
			          json_int(side, "artifact"), json_str(side, "sha256"));
		else
			sbuf_addf(&in, "%s (sha256 %.12s)", label, json_str(side, "sha256"));
	}
	cells[3] = sbuf_detach(&in);
	sbuf_done(&in);
	return 1;
}

static const char *const verdict_kinds[] = { "loss", "dump", "profile", "bench", NULL };

static void md_verdicts(sbuf *b, int zh, const cJSON *doc)
{
	sbuf_adds(b, TX(zh, "\n### Verdicts\n\n", "\n### 结论\n\n"));
	int n = 0;
	for (size_t k = 0; verdict_kinds[k]; k++) {
		char *cells[4];
		if (!verdict_cells(cells, zh, doc, verdict_kinds[k]))
			continue;
		if (!n++)
			sbuf_adds(b, TX(zh, "| Check | Verdict | Measured | Inputs |\n|---|---|---|---|\n",
			                "| 检查 | 结论 | 测量 | 输入 |\n|---|---|---|---|\n"));
		sbuf_adds(b, "|");
		for (int i = 0; i < 4; i++) {
			md_cell(b, cells[i]);
			free(cells[i]);
		}
		sbuf_addc(b, '\n');
	}
	if (!n)
		sbuf_adds(b, TX(zh, "No comparison, profile or benchmark has been recorded.\n", "尚未记录任何比对、性能分析或基准测试。\n"));
}

static void md_phases(sbuf *b, int zh, const cJSON *doc)
{
	sbuf_adds(b, TX(zh, "\n## Phases\n\n| # | Phase | Status | Errors | Warnings | Info | Fixed | Waived | Signed off |\n",
	                "\n## 阶段\n\n| # | 阶段 | 状态 | 错误 | 警告 | 提示 | 已修复 | 已豁免 | 签署 |\n"));
	sbuf_adds(b, "|---|---|---|---|---|---|---|---|---|\n");
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "phases")) {
		sbuf_addf(b, "| %lld | %s | %s | %lld | %lld | %lld | %lld | %lld |", json_int(p, "ord"), json_str(p, "name"),
		          word(zh, json_str(p, "status")), json_int(p, "open_errors"), json_int(p, "open_warnings"),
		          json_int(p, "open_info"), json_int(p, "fixed"), json_int(p, "waived"));
		const char *note = json_str(p, "note");
		char *so = *json_str(p, "signed_off_at")
		               ? xasprintf(TX(zh, "%s by %s%s%s", "%s，签署人 %s%s%s"), json_str(p, "signed_off_at"),
		                           json_str(p, "signed_off_by"), *note ? TX(zh, ": ", "：") : "", note)
		               : xstrdup("-");
		if (*json_str(p, "flagged")) {
			char *t = xasprintf(TX(zh, "%s (flagged: %s)", "%s（需复核：%s）"), so, json_str(p, "flagged"));
			free(so);
			so = t;
		}
		md_cell(b, so);
		free(so);
		sbuf_addc(b, '\n');
	}
}

static void md_rest(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *findings = cJSON_GetObjectItem(doc, "findings");
	sbuf_adds(b, TX(zh, "\n## Findings\n\nGrouped by phase, then category; `file:line`, the message, and the advice.\n",
	                "\n## 问题\n\n按阶段、再按类别分组；列出 `文件:行`、问题说明和建议。\n"));
	if (!cJSON_GetArraySize(findings))
		sbuf_adds(b, TX(zh, "\nNo findings recorded.\n", "\n没有记录任何问题。\n"));
	each_group(b, zh, findings, md_group);

	sbuf_adds(b, TX(zh, "\n## Waivers\n\n", "\n## 豁免\n\n"));
	const cJSON *w, *waivers = cJSON_GetObjectItem(doc, "waivers");
	if (!cJSON_GetArraySize(waivers))
		sbuf_adds(b, TX(zh, "No finding has been waived.\n", "没有被豁免的问题。\n"));
	else
		sbuf_adds(b, TX(zh, "| Finding | Location | Message | Reason | By | When |\n|---|---|---|---|---|---|\n",
		                "| 问题 | 位置 | 说明 | 理由 | 豁免人 | 时间 |\n|---|---|---|---|---|---|\n"));
	cJSON_ArrayForEach(w, waivers) {
		char *loc = location(zh, json_str(w, "file"), json_int(w, "line"), 0);
		sbuf_addf(b, "| #%lld |", json_int(w, "finding_id"));
		md_cell(b, loc);
		md_cell(b, json_str(w, "message"));
		md_cell(b, json_str(w, "reason"));
		md_cell(b, json_str(w, "actor"));
		char *when = waiver_when(zh, w);
		md_cell(b, when);
		free(when);
		sbuf_addc(b, '\n');
		free(loc);
	}
}

static void md_environment(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *env = cJSON_GetObjectItem(doc, "environment"), *base = cJSON_GetObjectItem(doc, "gpu_baseline");
	sbuf_adds(b, TX(zh, "\n## Environment\n\n", "\n## 环境\n\n"));
	if (!cJSON_IsObject(env)) {
		sbuf_adds(b, TX(zh,
		                "No environment probe has been ingested (`ferry probe-script` on the NPU host, then "
		                "`ferry ingest env-probe FILE`).\n",
		                "尚未导入环境探测结果（在 NPU 主机上运行 `ferry probe-script` 输出的脚本，再执行 "
		                "`ferry ingest env-probe FILE`）。\n"));
	} else if (*json_str(env, "error")) {
		if (zh)
			sbuf_addf(b, "探测工件 %lld 无法读取或解析。\n", json_int(env, "artifact"));
		else
			sbuf_addf(b, "Probe artifact %lld: %s.\n", json_int(env, "artifact"), json_str(env, "error"));
	} else {
		sbuf_addf(b, TX(zh, "From the probe artifact %lld (collected %s):\n\n| | |\n|---|---|\n",
		                "来自探测工件 %lld（采集于 %s）：\n\n| | |\n|---|---|\n"),
		          json_int(env, "artifact"), json_str(env, "collected_at"));
		static const char *const keys[] = { "hostname", "os", "arch", "python", "torch", "torch_npu", "cann", "driver", NULL };
		for (size_t k = 0; keys[k]; k++) {
			sbuf_addf(b, "| %s |", env_label(zh, keys[k]));
			md_cell(b, *json_str(env, keys[k]) ? json_str(env, keys[k]) : "-");
			sbuf_addc(b, '\n');
		}
		const cJSON *c;
		sbuf_addf(b, TX(zh, "| NPUs | %d |\n", "| NPU 数量 | %d |\n"), cJSON_GetArraySize(cJSON_GetObjectItem(env, "chips")));
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(env, "chips")) {
			char *t = xasprintf(TX(zh, "%s, %s, %.0f MB", "%s，%s，%.0f MB"), json_str(c, "name"), json_str(c, "health"),
			                    json_num(c, "memory_mb"));
			sbuf_addf(b, TX(zh, "| chip %lld |", "| 芯片 %lld |"), json_int(c, "id"));
			md_cell(b, t);
			sbuf_addc(b, '\n');
			free(t);
		}
	}
	sbuf_adds(b, TX(zh, "\n### GPU baseline\n\n", "\n### GPU 基线\n\n"));
	if (!cJSON_IsObject(base)) {
		sbuf_adds(b, TX(zh, "Not recorded: ingest a `ferry-bench/1` document with `ferry ingest bench FILE --label gpu`.\n",
		                "未记录：请用 `ferry ingest bench FILE --label gpu` 导入一份 `ferry-bench/1` 文档。\n"));
	} else if (*json_str(base, "error")) {
		if (zh)
			sbuf_addf(b, "基准工件 %lld 无法读取或解析。\n", json_int(base, "artifact"));
		else
			sbuf_addf(b, "Benchmark artifact %lld: %s.\n", json_int(base, "artifact"), json_str(base, "error"));
	} else {
		sbuf_addf(b, TX(zh, "Artifact %lld: ", "工件 %lld："), json_int(base, "artifact"));
		md_text(b, json_str(base, "label"));
		sbuf_adds(b, TX(zh, " on ", "，硬件 "));
		md_text(b, json_str(base, "hardware"));
		sbuf_adds(b, TX(zh, ", ", "，精度 "));
		md_text(b, json_str(base, "precision"));
		const cJSON *m;
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(base, "metrics"))
			sbuf_addf(b, TX(zh, "; %s %g", "；%s %g"), m->string, m->valuedouble);
		sbuf_adds(b, TX(zh, ".\n", "。\n"));
	}
	md_verdicts(b, zh, doc);
	sbuf_adds(b, TX(zh, "\n### Artifacts\n\n", "\n### 工件\n\n"));
	const cJSON *a, *arts = cJSON_GetObjectItem(doc, "artifacts");
	if (!cJSON_GetArraySize(arts))
		sbuf_adds(b, TX(zh, "None ingested.\n", "尚未导入任何工件。\n"));
	else
		sbuf_adds(b, TX(zh, "| # | Kind | Label | SHA-256 | Ingested |\n|---|---|---|---|---|\n",
		                "| # | 类型 | 标签 | SHA-256 | 导入时间 |\n|---|---|---|---|---|\n"));
	cJSON_ArrayForEach(a, arts) {
		sbuf_addf(b, "| %lld | %s |", json_int(a, "id"), json_str(a, "kind"));
		md_cell(b, json_str(a, "label"));
		sbuf_addf(b, " `%.16s…` | %s |\n", json_str(a, "sha256"), json_str(a, "ingested_at"));
	}
}

static void md_audit(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *au = cJSON_GetObjectItem(doc, "audit"), *h = cJSON_GetObjectItem(doc, "history");
	sbuf_adds(b, TX(zh, "\n## Audit record\n\n", "\n## 审计记录\n\n"));
	sbuf_addf(b, TX(zh, "- Audit chain head: `%s` after %lld events.\n", "- 审计链头：`%s`，共 %lld 个事件。\n"),
	          json_str(au, "head"), json_int(au, "events"));
	sbuf_addf(b,
	          TX(zh, "- History: baseline `%.12s`, head `%.12s`, %lld checkpoints.\n",
	             "- 历史：基线 `%.12s`，当前 `%.12s`，共 %lld 个检查点。\n"),
	          json_str(h, "baseline"), json_str(h, "head"), json_int(h, "checkpoints"));
	sbuf_addf(b,
	          TX(zh,
	             "- To check that the record was not altered, run `%s` in the project directory: it recomputes "
	             "the chain and checks every checkpoint commit.\n",
	             "- 如需确认记录未被篡改，请在项目目录中运行 `%s`：它会重新计算哈希链，并检查每个检查点的提交。\n"),
	          json_str(au, "verify"));
}

static void md_render(sbuf *b, int zh, const cJSON *doc, int parts)
{
	md_header(b, zh, doc);
	if (parts & PART_SUMMARY) {
		md_summary(b, zh, doc);
		md_phases(b, zh, doc);
		md_rest(b, zh, doc);
	}
	if (parts & PART_CHANGES) {
		sbuf_adds(b, TX(zh,
		                "\n## Change list\n\nEvery change ferry made that is still in effect, one row per hunk "
		                "(lines as the checkpoint left the file; `ferry diff N` shows checkpoint N).\n\n",
		                "\n## 改动清单\n\nferry 所做且仍然生效的每处改动，每个改动块一行（行号为该检查点写入后的文件行号；"
		                "`ferry diff N` 显示检查点 N 的改动）。\n\n"));
		md_rows(b, zh, cJSON_GetObjectItem(doc, "changes"), 0);
		const cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "reverted_checkpoints"))
			sbuf_addf(b,
			          TX(zh, "\nCheckpoint %lld (%s) was reverted by checkpoint %lld and is not listed.\n",
			             "\n检查点 %lld（%s）已被检查点 %lld 回退，未列出。\n"),
			          json_int(r, "id"), json_str(r, "plugin"), json_int(r, "reverted_by"));
	}
	if (parts & PART_UNSUPPORTED) {
		sbuf_adds(b, TX(zh, "\n## Unsupported list\n\nOpen findings without an automatic fix: constructs a person must port.\n\n",
		                "\n## 不支持清单\n\n没有自动修复的未处理问题：需要人工移植的写法。\n\n"));
		md_rows(b, zh, cJSON_GetObjectItem(doc, "unsupported"), 1);
	}
	if (parts & PART_SUMMARY) {
		md_environment(b, zh, doc);
		md_audit(b, zh, doc);
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

/* A badge for an English value (a severity, a status, an operation): its class comes from
 * the value, its text is the value in the report's language, and a translated badge keeps
 * the value as its title. */
static void h_badge(sbuf *b, int zh, const char *kind, const char *value)
{
	char cls[32];
	size_t k = 0;
	for (const char *p = value; *p && k + 1 < sizeof cls; p++)
		cls[k++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
	cls[k] = '\0';
	const char *shown = word(zh, value);
	sbuf_addf(b, "<span class=\"badge %s-%s\"", kind, cls);
	if (shown != value) {
		sbuf_adds(b, " title=\"");
		h(b, value);
		sbuf_adds(b, "\"");
	}
	sbuf_adds(b, ">");
	h(b, shown);
	sbuf_adds(b, "</span>");
}

static const char html_css[] =
	":root{--fg:#1c2230;--muted:#5d6675;--line:#dde2ea;--soft:#f4f6fa;--accent:#1d5bb8}"
	"*{box-sizing:border-box}"
	/* Latin faces first, then the common Simplified Chinese faces of macOS, Windows and Linux
	 * (the browser falls back per character); all local, nothing is fetched */
	"body{margin:0;background:#fff;color:var(--fg);font:15px/1.55 system-ui,-apple-system,'Segoe UI',Roboto,"
	"'Noto Sans','PingFang SC','Hiragino Sans GB','Microsoft YaHei','Noto Sans CJK SC','Noto Sans SC',"
	"'Source Han Sans SC','WenQuanYi Micro Hei','WenQuanYi Zen Hei',sans-serif}"
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
	"code,.loc{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,'Liberation Mono','Noto Sans Mono CJK SC',"
	"'Microsoft YaHei',monospace;font-size:.86em}"
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
	".ph-signed-off{background:#dcf2e3;color:#17653a}.ph-blocked,.ph-reopened{background:#fde3e1;color:#9f1111}"
	".ph-in-progress{background:#fff0c7;color:#6f4a00}.ph-not-started{background:#eef0f4;color:#394150}"
	"ul.findings{list-style:none;padding:0;margin:0}"
	"ul.findings li{padding:.45rem 0;border-bottom:1px solid var(--line)}"
	".advice{color:var(--muted);margin-top:.15rem}"
	".ref{color:var(--muted);font-size:.82rem}"
	".muted{color:var(--muted)}"
	"footer{margin-top:3rem;color:var(--muted);font-size:.8rem}"
	":lang(zh) body{line-height:1.7}:lang(zh) h4,:lang(zh) .badge,:lang(zh) .card .label{letter-spacing:0}"
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

static void html_header(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *eng = cJSON_GetObjectItem(doc, "engagement");
	char *title = title_text(zh, doc);
	sbuf_addf(b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", TX(zh, "en", "zh-CN"));
	sbuf_adds(b, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>");
	h(b, title);
	sbuf_addf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<h1>", html_css);
	h(b, title);
	sbuf_adds(b, "</h1>\n<table class=\"meta\">\n");
	const char *labels[] = { TX(zh, "Client", "客户"), TX(zh, "Project", "项目"), TX(zh, "Engagement", "委托编号"),
		                     TX(zh, "Target", "目标硬件"), TX(zh, "Date", "日期"),   TX(zh, "Prepared by", "编制人") };
	const char *values[] = { json_str(eng, "client"), json_str(eng, "project"), json_str(eng, "engagement_id"),
		                     json_str(eng, "target_soc"), json_str(doc, "generated_at"), json_str(doc, "generated_by") };
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++) {
		const char *cells[2] = { labels[i], *values[i] ? values[i] : "-" };
		h_row_cells(b, cells, 2);
	}
	sbuf_adds(b, "</table>\n");
	free(title);
}

static void html_summary(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *as = cJSON_GetObjectItem(doc, "assessment");
	sbuf_adds(b, TX(zh, "<h2>Executive summary</h2>\n", "<h2>执行摘要</h2>\n"));
	if (!cJSON_IsTrue(cJSON_GetObjectItem(as, "ran"))) {
		sbuf_adds(b, TX(zh,
		                "<p>The assess phase has not run yet: <code>ferry check --phase assess</code> produces the "
		                "readiness score, the effort estimate and the strategy recommendation.</p>\n",
		                "<p>评估阶段尚未运行：<code>ferry check --phase assess</code> 会给出就绪度评分、工作量估算和策略建议。</p>\n"));
		return;
	}
	const cJSON *st = cJSON_GetObjectItem(as, "strategy");
	sbuf_addf(b,
	          TX(zh,
	             "<div class=\"cards\">\n<div class=\"card\"><div class=\"label\">Readiness</div>"
	             "<div class=\"big\">%lld/100</div><div>",
	             "<div class=\"cards\">\n<div class=\"card\"><div class=\"label\">就绪度</div>"
	             "<div class=\"big\">%lld/100</div><div>"),
	          json_int(as, "score"));
	h(b, word(zh, json_str(as, "class")));
	sbuf_addf(b,
	          TX(zh,
	             "</div></div>\n<div class=\"card\"><div class=\"label\">Effort</div><div class=\"big\">%.1f "
	             "person-days</div><div class=\"muted\">estimate from the open assess findings</div></div>\n",
	             "</div></div>\n<div class=\"card\"><div class=\"label\">工作量</div><div class=\"big\">%.1f "
	             "人天</div><div class=\"muted\">根据评估阶段未处理的问题估算</div></div>\n"),
	          json_num(as, "effort_days"));
	sbuf_adds(b, TX(zh, "<div class=\"card\"><div class=\"label\">Strategy</div><div class=\"big\">",
	                "<div class=\"card\"><div class=\"label\">策略</div><div class=\"big\">"));
	h(b, strategy_short(zh, *json_str(st, "chosen") ? json_str(st, "chosen") : json_str(st, "recommended")));
	sbuf_adds(b, "</div><div>");
	if (*json_str(st, "chosen")) {
		sbuf_adds(b, TX(zh, "chosen; recommended: ", "已选；推荐："));
		h(b, strategy_short(zh, json_str(st, "recommended")));
	} else {
		sbuf_adds(b, TX(zh, "recommended; not chosen yet", "推荐；尚未选定"));
	}
	char *formula = formula_text(zh, json_str(as, "formula"));
	sbuf_adds(b, "</div></div>\n</div>\n<p class=\"formula\"><code>");
	h(b, formula);
	free(formula);
	sbuf_adds(b, TX(zh, "</code></p>\n<table>\n<tr><th>Category</th><th>Days per open finding</th><th>Open findings</th></tr>\n",
	                "</code></p>\n<table>\n<tr><th>类别</th><th>每个未处理问题的人天</th><th>未处理问题数</th></tr>\n"));
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(as, "weights")) {
		sbuf_adds(b, "<tr><td>");
		h(b, w->string);
		sbuf_addf(b, "</td><td class=\"num\">%.3g</td><td class=\"num\">%lld</td></tr>\n", w->valuedouble,
		          json_int(cJSON_GetObjectItem(as, "counts"), w->string));
	}
	sbuf_addf(b,
	          TX(zh,
	             "</table>\n<p class=\"muted\">Base %.3g days. The weights are the engagement's: "
	             "<code>ferry config effort.weight.&lt;category&gt; DAYS</code>.</p>\n",
	             "</table>\n<p class=\"muted\">基础 %.3g 人天。权重为本项目的设置："
	             "<code>ferry config effort.weight.&lt;category&gt; DAYS</code>。</p>\n"),
	          json_num(as, "base_days"));
	sbuf_adds(b, TX(zh, "<h3>Top risks</h3>\n<ul class=\"findings\">\n", "<h3>主要风险</h3>\n<ul class=\"findings\">\n"));
	const cJSON *r;
	int n = 0;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(as, "top_risks")) {
		char *loc = location(zh, json_str(r, "file"), json_int(r, "line"), 0);
		sbuf_adds(b, "<li>");
		h_badge(b, zh, "sev", json_str(r, "severity"));
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
		sbuf_adds(b, TX(zh, "<li>No open risks without an automatic fix.</li>\n", "<li>没有缺少自动修复的未处理风险。</li>\n"));
	sbuf_adds(b, TX(zh, "</ul>\n<h3>Strategy</h3>\n<p>Recommended: <strong>", "</ul>\n<h3>策略</h3>\n<p>推荐：<strong>"));
	h(b, strategy_name(zh, json_str(st, "recommended")));
	sbuf_adds(b, TX(zh, "</strong>. ", "</strong>。"));
	h_rich(b, word(zh, json_str(st, "reason")));
	sbuf_adds(b, TX(zh, "</p>\n<p>Chosen: ", "</p>\n<p>已选："));
	if (*json_str(st, "chosen")) {
		sbuf_adds(b, "<strong>");
		h(b, strategy_name(zh, json_str(st, "chosen")));
		sbuf_adds(b, TX(zh, "</strong>.</p>\n", "</strong>。</p>\n"));
	} else {
		sbuf_adds(b, TX(zh, "not recorded yet (<code>ferry config strategy auto|tool|manual</code>).</p>\n",
		                "尚未记录（<code>ferry config strategy auto|tool|manual</code>）。</p>\n"));
	}
	const cJSON *d, *drivers = cJSON_GetObjectItem(st, "driver_findings");
	if (cJSON_GetArraySize(drivers))
		sbuf_adds(b, TX(zh, "<p>Findings that drove the recommendation:</p>\n<ul class=\"findings\">\n",
		                "<p>决定该推荐的问题：</p>\n<ul class=\"findings\">\n"));
	cJSON_ArrayForEach(d, drivers) {
		char *loc = location(zh, json_str(d, "file"), json_int(d, "line"), 0);
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

static void html_phases(sbuf *b, int zh, const cJSON *doc)
{
	sbuf_adds(b, TX(zh,
	                "<h2>Phases</h2>\n<table>\n<tr><th>#</th><th>Phase</th><th>Status</th><th>Errors</th><th>Warnings</th>"
	                "<th>Info</th><th>Fixed</th><th>Waived</th><th>Sign-off</th></tr>\n",
	                "<h2>阶段</h2>\n<table>\n<tr><th>#</th><th>阶段</th><th>状态</th><th>错误</th><th>警告</th>"
	                "<th>提示</th><th>已修复</th><th>已豁免</th><th>签署</th></tr>\n"));
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "phases")) {
		sbuf_addf(b, "<tr><td class=\"num\">%lld</td><td>", json_int(p, "ord"));
		h(b, json_str(p, "name"));
		sbuf_adds(b, "</td><td>");
		h_badge(b, zh, "ph", json_str(p, "status"));
		sbuf_addf(b, "</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td><td class=\"num\">%lld</td>"
		             "<td class=\"num\">%lld</td><td class=\"num\">%lld</td><td>",
		          json_int(p, "open_errors"), json_int(p, "open_warnings"), json_int(p, "open_info"), json_int(p, "fixed"),
		          json_int(p, "waived"));
		if (*json_str(p, "signed_off_at")) {
			h(b, json_str(p, "signed_off_by"));
			sbuf_adds(b, TX(zh, ", ", "，"));
			h(b, json_str(p, "signed_off_at"));
			if (*json_str(p, "note")) {
				sbuf_adds(b, TX(zh, ": ", "："));
				h(b, json_str(p, "note"));
			}
			if (*json_str(p, "flagged")) {
				sbuf_adds(b, TX(zh, " <strong>flagged: ", " <strong>需复核："));
				h(b, json_str(p, "flagged"));
				sbuf_adds(b, "</strong>");
			}
		} else {
			sbuf_adds(b, "-");
		}
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
}

static void html_group(sbuf *b, int zh, const char *phase, const char *category, const cJSON *findings, int first)
{
	if (first) {
		sbuf_adds(b, TX(zh, "<h3>Phase ", "<h3>阶段 "));
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
		char *loc = location(zh, json_str(f, "file"), json_int(f, "line"), 0);
		sbuf_adds(b, "<li>");
		h_badge(b, zh, "sev", json_str(f, "severity"));
		sbuf_adds(b, " ");
		h_badge(b, zh, "st", json_str(f, "status"));
		sbuf_adds(b, " <span class=\"loc\">");
		h(b, loc);
		sbuf_adds(b, "</span> ");
		h_rich(b, json_str(f, "message"));
		sbuf_addf(b, " <span class=\"ref\">#%lld · ", json_int(f, "id"));
		h(b, json_str(f, "plugin"));
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")))
			sbuf_adds(b, TX(zh, " · fixable", " · 可自动修复"));
		sbuf_adds(b, "</span>");
		if (*json_str(f, "suggestion")) {
			sbuf_adds(b, TX(zh, "<div class=\"advice\">Advice: ", "<div class=\"advice\">建议："));
			h_rich(b, json_str(f, "suggestion"));
			sbuf_adds(b, "</div>");
		}
		char *wv = waiver_text(zh, cJSON_GetObjectItem(f, "waiver"));
		if (wv) {
			sbuf_adds(b, "<div class=\"advice\">");
			h(b, wv);
			sbuf_adds(b, "</div>");
			free(wv);
		}
		sbuf_adds(b, "</li>\n");
		free(loc);
	}
	sbuf_adds(b, "</ul>\n");
}

static void html_findings(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *findings = cJSON_GetObjectItem(doc, "findings");
	sbuf_adds(b, TX(zh, "<h2>Findings</h2>\n<p class=\"muted\">Grouped by phase, then category.</p>\n",
	                "<h2>问题</h2>\n<p class=\"muted\">按阶段、再按类别分组。</p>\n"));
	if (!cJSON_GetArraySize(findings))
		sbuf_adds(b, TX(zh, "<p>No findings recorded.</p>\n", "<p>没有记录任何问题。</p>\n"));
	each_group(b, zh, findings, html_group);
	sbuf_adds(b, TX(zh, "<h2>Waivers</h2>\n", "<h2>豁免</h2>\n"));
	const cJSON *w, *waivers = cJSON_GetObjectItem(doc, "waivers");
	if (!cJSON_GetArraySize(waivers)) {
		sbuf_adds(b, TX(zh, "<p>No finding has been waived.</p>\n", "<p>没有被豁免的问题。</p>\n"));
		return;
	}
	sbuf_adds(b, TX(zh,
	                "<table>\n<tr><th>Finding</th><th>Location</th><th>Message</th><th>Reason</th><th>By</th><th>When</th></tr>\n",
	                "<table>\n<tr><th>问题</th><th>位置</th><th>说明</th><th>理由</th><th>豁免人</th><th>时间</th></tr>\n"));
	cJSON_ArrayForEach(w, waivers) {
		char *loc = location(zh, json_str(w, "file"), json_int(w, "line"), 0);
		char *id = xasprintf("#%lld", json_int(w, "finding_id"));
		char *when = waiver_when(zh, w);
		const char *cells[] = { id, loc, json_str(w, "message"), json_str(w, "reason"), json_str(w, "actor"), when };
		h_row_cells(b, cells, 6);
		free(when);
		free(loc);
		free(id);
	}
	sbuf_adds(b, "</table>\n");
}

static void html_rows(sbuf *b, int zh, const cJSON *rows, int unsupported)
{
	if (!cJSON_GetArraySize(rows)) {
		sbuf_adds(b, unsupported ? TX(zh, "<p>Nothing: every open finding in the code has an automatic fix.</p>\n",
		                              "<p>无：代码中每个未处理的问题都有自动修复。</p>\n")
		                         : TX(zh, "<p>No change made by ferry is in effect.</p>\n", "<p>目前没有生效中的 ferry 改动。</p>\n"));
		return;
	}
	if (unsupported)
		sbuf_adds(b, TX(zh, "<table>\n<tr><th>Location</th><th>Severity</th><th>Construct</th><th>Advice</th><th>Check</th></tr>\n",
		                "<table>\n<tr><th>位置</th><th>严重级别</th><th>写法</th><th>建议</th><th>检查</th></tr>\n"));
	else
		sbuf_adds(b, TX(zh, "<table>\n<tr><th>Location</th><th>Operation</th><th>Change</th><th>Check</th><th>Checkpoint</th></tr>\n",
		                "<table>\n<tr><th>位置</th><th>操作</th><th>改动</th><th>检查</th><th>检查点</th></tr>\n"));
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		char *loc = location(zh, json_str(r, "file"), json_int(r, "start_line"), json_int(r, "end_line"));
		char *ids = ids_text(cJSON_GetObjectItem(r, "findings"));
		sbuf_adds(b, "<tr><td class=\"loc\">");
		h(b, loc);
		sbuf_adds(b, "</td><td>");
		if (unsupported)
			h_badge(b, zh, "sev", json_str(r, "severity"));
		else
			h_badge(b, zh, "op", json_str(r, "operation"));
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

static void html_environment(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *env = cJSON_GetObjectItem(doc, "environment"), *base = cJSON_GetObjectItem(doc, "gpu_baseline");
	sbuf_adds(b, TX(zh, "<h2>Environment</h2>\n", "<h2>环境</h2>\n"));
	if (!cJSON_IsObject(env)) {
		sbuf_adds(b, TX(zh,
		                "<p>No environment probe has been ingested (<code>ferry probe-script</code> on the NPU host, "
		                "then <code>ferry ingest env-probe FILE</code>).</p>\n",
		                "<p>尚未导入环境探测结果（在 NPU 主机上运行 <code>ferry probe-script</code> 输出的脚本，"
		                "再执行 <code>ferry ingest env-probe FILE</code>）。</p>\n"));
	} else if (*json_str(env, "error")) {
		if (zh) {
			sbuf_addf(b, "<p>探测工件 %lld 无法读取或解析。</p>\n", json_int(env, "artifact"));
		} else {
			sbuf_addf(b, "<p>Probe artifact %lld: ", json_int(env, "artifact"));
			h(b, json_str(env, "error"));
			sbuf_adds(b, ".</p>\n");
		}
	} else {
		sbuf_addf(b, TX(zh, "<p>From the probe artifact %lld, collected ", "<p>来自探测工件 %lld，采集于 "),
		          json_int(env, "artifact"));
		h(b, json_str(env, "collected_at"));
		sbuf_adds(b, TX(zh, ".</p>\n<table class=\"meta\">\n", "。</p>\n<table class=\"meta\">\n"));
		static const char *const keys[] = { "hostname", "os", "arch", "python", "torch", "torch_npu", "cann", "driver", NULL };
		for (size_t k = 0; keys[k]; k++) {
			const char *cells[2] = { env_label(zh, keys[k]), *json_str(env, keys[k]) ? json_str(env, keys[k]) : "-" };
			h_row_cells(b, cells, 2);
		}
		const cJSON *c;
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(env, "chips")) {
			char *label = xasprintf("NPU %lld", json_int(c, "id"));
			char *t = xasprintf(TX(zh, "%s, %s, %.0f MB", "%s，%s，%.0f MB"), json_str(c, "name"), json_str(c, "health"),
			                    json_num(c, "memory_mb"));
			const char *cells[2] = { label, t };
			h_row_cells(b, cells, 2);
			free(label);
			free(t);
		}
		sbuf_adds(b, "</table>\n");
	}
	sbuf_adds(b, TX(zh, "<h3>GPU baseline</h3>\n", "<h3>GPU 基线</h3>\n"));
	if (!cJSON_IsObject(base)) {
		sbuf_adds(b, TX(zh,
		                "<p>Not recorded: ingest a <code>ferry-bench/1</code> document with "
		                "<code>ferry ingest bench FILE --label gpu</code>.</p>\n",
		                "<p>未记录：请用 <code>ferry ingest bench FILE --label gpu</code> 导入一份 "
		                "<code>ferry-bench/1</code> 文档。</p>\n"));
	} else if (*json_str(base, "error")) {
		if (zh) {
			sbuf_addf(b, "<p>基准工件 %lld 无法读取或解析。</p>\n", json_int(base, "artifact"));
		} else {
			sbuf_addf(b, "<p>Benchmark artifact %lld: ", json_int(base, "artifact"));
			h(b, json_str(base, "error"));
			sbuf_adds(b, ".</p>\n");
		}
	} else {
		sbuf_addf(b, TX(zh, "<p>Artifact %lld: ", "<p>工件 %lld："), json_int(base, "artifact"));
		h(b, json_str(base, "label"));
		sbuf_adds(b, TX(zh, " on ", "，硬件 "));
		h(b, json_str(base, "hardware"));
		sbuf_adds(b, TX(zh, ", ", "，精度 "));
		h(b, json_str(base, "precision"));
		const cJSON *m;
		cJSON_ArrayForEach(m, cJSON_GetObjectItem(base, "metrics")) {
			sbuf_adds(b, TX(zh, "; ", "；"));
			h(b, m->string);
			sbuf_addf(b, " %g", m->valuedouble);
		}
		sbuf_adds(b, TX(zh, ".</p>\n", "。</p>\n"));
	}
	const cJSON *a, *arts = cJSON_GetObjectItem(doc, "artifacts");
	sbuf_adds(b, TX(zh, "<h3>Verdicts</h3>\n", "<h3>结论</h3>\n"));
	int nv = 0;
	for (size_t k = 0; verdict_kinds[k]; k++) {
		char *cells[4];
		if (!verdict_cells(cells, zh, doc, verdict_kinds[k]))
			continue;
		if (!nv++)
			sbuf_adds(b, TX(zh, "<table>\n<tr><th>Check</th><th>Verdict</th><th>Measured</th><th>Inputs</th></tr>\n",
			                "<table>\n<tr><th>检查</th><th>结论</th><th>测量</th><th>输入</th></tr>\n"));
		h_row_cells(b, (const char *const *)cells, 4);
		for (int i = 0; i < 4; i++)
			free(cells[i]);
	}
	sbuf_adds(b, nv ? "</table>\n"
	                : TX(zh, "<p>No comparison, profile or benchmark has been recorded.</p>\n",
	                     "<p>尚未记录任何比对、性能分析或基准测试。</p>\n"));
	sbuf_adds(b, TX(zh, "<h3>Artifacts</h3>\n", "<h3>工件</h3>\n"));
	if (!cJSON_GetArraySize(arts)) {
		sbuf_adds(b, TX(zh, "<p>None ingested.</p>\n", "<p>尚未导入任何工件。</p>\n"));
		return;
	}
	sbuf_adds(b, TX(zh, "<table>\n<tr><th>#</th><th>Kind</th><th>Label</th><th>SHA-256</th><th>Ingested</th></tr>\n",
	                "<table>\n<tr><th>#</th><th>类型</th><th>标签</th><th>SHA-256</th><th>导入时间</th></tr>\n"));
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

static void html_audit(sbuf *b, int zh, const cJSON *doc)
{
	const cJSON *au = cJSON_GetObjectItem(doc, "audit"), *hi = cJSON_GetObjectItem(doc, "history");
	sbuf_adds(b, TX(zh, "<h2>Audit record</h2>\n<table class=\"meta\">\n", "<h2>审计记录</h2>\n<table class=\"meta\">\n"));
	char *events = xasprintf("%lld", json_int(au, "events"));
	char *cps = xasprintf("%lld", json_int(hi, "checkpoints"));
	const char *rows[][2] = { { TX(zh, "Audit chain head", "审计链头"), json_str(au, "head") },
		                      { TX(zh, "Events", "事件数"), events },
		                      { TX(zh, "Baseline commit", "基线提交"), json_str(hi, "baseline") },
		                      { TX(zh, "Head commit", "当前提交"), json_str(hi, "head") },
		                      { TX(zh, "Checkpoints", "检查点数"), cps } };
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		h_row_cells(b, rows[i], 2);
	free(events);
	free(cps);
	sbuf_adds(b, TX(zh, "</table>\n<p>To check that the record was not altered, run <code>",
	                "</table>\n<p>如需确认记录未被篡改，请在项目目录中运行 <code>"));
	h(b, json_str(au, "verify"));
	sbuf_adds(b, TX(zh,
	                "</code> in the project directory: it recomputes the hash chain and checks every checkpoint commit.</p>\n",
	                "</code>：它会重新计算哈希链，并检查每个检查点的提交。</p>\n"));
}

static void html_render(sbuf *b, int zh, const cJSON *doc, int parts)
{
	html_header(b, zh, doc);
	if (parts & PART_SUMMARY) {
		html_summary(b, zh, doc);
		html_phases(b, zh, doc);
		html_findings(b, zh, doc);
	}
	if (parts & PART_CHANGES) {
		sbuf_adds(b, TX(zh,
		                "<h2>Change list</h2>\n<p class=\"muted\">Every change ferry made that is still in effect, one row "
		                "per hunk (lines as the checkpoint left the file; <code>ferry diff N</code> shows checkpoint N).</p>\n",
		                "<h2>改动清单</h2>\n<p class=\"muted\">ferry 所做且仍然生效的每处改动，每个改动块一行（行号为该检查点"
		                "写入后的文件行号；<code>ferry diff N</code> 显示检查点 N 的改动）。</p>\n"));
		html_rows(b, zh, cJSON_GetObjectItem(doc, "changes"), 0);
		const cJSON *r;
		cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "reverted_checkpoints")) {
			sbuf_addf(b, TX(zh, "<p class=\"muted\">Checkpoint %lld (", "<p class=\"muted\">检查点 %lld（"), json_int(r, "id"));
			h(b, json_str(r, "plugin"));
			sbuf_addf(b, TX(zh, ") was reverted by checkpoint %lld and is not listed.</p>\n", "）已被检查点 %lld 回退，未列出。</p>\n"),
			          json_int(r, "reverted_by"));
		}
	}
	if (parts & PART_UNSUPPORTED) {
		sbuf_adds(b, TX(zh,
		                "<h2>Unsupported list</h2>\n<p class=\"muted\">Open findings without an automatic fix: "
		                "constructs a person must port.</p>\n",
		                "<h2>不支持清单</h2>\n<p class=\"muted\">没有自动修复的未处理问题：需要人工移植的写法。</p>\n"));
		html_rows(b, zh, cJSON_GetObjectItem(doc, "unsupported"), 1);
	}
	if (parts & PART_SUMMARY) {
		html_environment(b, zh, doc);
		html_audit(b, zh, doc);
	}
	sbuf_adds(b, TX(zh, "<footer>Generated by ferry", "<footer>由 ferry"));
	if (*json_str(doc, "ferry_version")) {
		sbuf_adds(b, " ");
		h(b, json_str(doc, "ferry_version"));
	}
	sbuf_adds(b, TX(zh, " on ", " 生成于 "));
	h(b, json_str(doc, "generated_at"));
	sbuf_adds(b, TX(zh, ".</footer>\n</main>\n</body>\n</html>\n", "。</footer>\n</main>\n</body>\n</html>\n"));
}

/* ---------- JSON and CSV ---------- */

static void json_render(sbuf *b, const cJSON *doc, int parts)
{
	static const char *const always[] = { "schema", "title", "generated_at", "generated_by", "ferry_version",
		                                  "engagement", NULL };
	static const char *const summary[] = { "config", "assessment", "phases", "findings", "waivers", "environment",
		                                   "gpu_baseline", "verdicts", "artifacts", "history", "audit", NULL };
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

/* The language of the text formats: lang when given, else the engagement's "language"
 * setting as the document recorded it (English when unset). */
static int report_lang(int *zh, const cJSON *doc, const char *lang)
{
	if (!lang) {
		*zh = i18n_report_is_zh(json_str(cJSON_GetObjectItem(doc, "config"), "language"));
		return 0;
	}
	if (!i18n_report_lang_valid(lang))
		return err_set(FERRY_EUSAGE, "--lang %s: not one of en, zh", lang);
	*zh = strcmp(lang, "zh") == 0;
	return 0;
}

int report_render(sbuf *b, const cJSON *doc, const char *format, const char *section, const char *lang)
{
	int zh = 0, rc;
	if (section && !report_section_valid(section))
		return err_set(FERRY_EUSAGE, "--section %s: not one of all, assessment, changes, unsupported", section);
	if ((rc = report_lang(&zh, doc, lang)))
		return rc;
	int parts = section_parts(section);
	if (strcmp(format, "md") == 0)
		md_render(b, zh, doc, parts);
	else if (strcmp(format, "html") == 0)
		html_render(b, zh, doc, parts);
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
	output_sarif_locate(sel, ws->root);
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
	if (o->lang && !i18n_report_lang_valid(o->lang))
		return err_set(FERRY_EUSAGE, "--lang %s: not one of en, zh", o->lang);
	int csv = strcmp(o->format, "csv") == 0;
	int msft = o->layout && strcmp(o->layout, "msft") == 0;
	if (o->layout && !msft && strcmp(o->layout, "ferry") != 0)
		return err_set(FERRY_EUSAGE, "--layout %s: not one of ferry, msft", o->layout);
	if (msft && (!csv || (strcmp(section, "changes") != 0 && strcmp(section, "unsupported") != 0)))
		return err_set(FERRY_EUSAGE, "--layout msft: only for --format csv with --section changes or unsupported");
	if (o->excel && !csv)
		return err_set(FERRY_EUSAGE, "--excel: only for --format csv");
	sbuf_init(&b);
	int zh = 0;
	if ((rc = report_build(&doc, ws, o->version)) || (rc = report_lang(&zh, doc, o->lang)))
		goto out;
	const char *bom = json_str(cJSON_GetObjectItem(doc, "config"), "csv.bom");
	if (csv && (o->excel || strcmp(bom, "true") == 0))
		sbuf_adds(&b, CSV_UTF8_BOM);
	if (strcmp(o->format, "sarif") == 0)
		rc = sarif_render(&b, ws, doc, section, o->version);
	else if (msft)
		changes_csv_msft(&b, cJSON_GetObjectItem(doc, section), strcmp(section, "unsupported") == 0);
	else
		rc = report_render(&b, doc, o->format, section, zh ? "zh" : "en");
	if (rc || (rc = output_emit(&b, o->output)))
		goto out;
	char sha[65];
	util_sha256_hex(sha, b.buf, b.len);
	if (sha256)
		memcpy(sha256, sha, 65);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "format", o->format);
	cJSON_AddStringToObject(d, "section", section);
	cJSON_AddStringToObject(d, "lang", zh ? "zh" : "en");
	cJSON_AddStringToObject(d, "path", o->output && strcmp(o->output, "-") != 0 ? o->output : "-");
	cJSON_AddStringToObject(d, "sha256", sha);
	cJSON_AddNumberToObject(d, "bytes", (double)b.len);
	/* an archived (read-only) engagement is reported, not recorded: ws_event says so */
	rc = ws->readonly ? ws_event(ws, "report", d) : sign_event(ws->db, "report", ws->actor, d);
out:
	sbuf_done(&b);
	cJSON_Delete(doc);
	return rc;
}
