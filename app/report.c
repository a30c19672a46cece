/* report — see report.h. */
#include "report.h"
#include "acache.h"
#include "json.h"
#include "assessment.h"
#include "review.h"
#include "audit.h"
#include "bench.h"
#include "category.h"
#include "changes.h"
#include "check.h"
#include "err.h"
#include "intl.h"
#include "profile.h"
#include "compare.h"
#include "rdoc.h"
#include "seal.h"
#include "svgchart.h"
#include "output.h"
#include "phase.h"
#include "pdfprint.h"
#include "plugin_host.h"
#include "sign.h"

#include <ctype.h>
#include <math.h>
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

/* The newest artifact of a kind, or NULL. */
static const cJSON *newest_artifact(const cJSON *arts, const char *kind)
{
	const cJSON *a, *best = NULL;
	cJSON_ArrayForEach(a, arts)
		if (strcmp(json_str(a, "kind"), kind) == 0 && (!best || json_int(a, "id") > json_int(best, "id")))
			best = a;
	return best;
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
	const cJSON *art = newest_artifact(arts, "env-probe");
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

/* The benchmarks on record, decoded (bench.h), and bench.h's choice among them for each
 * workload (c[BENCH_ANY]: among all). */
typedef struct bench_set {
	bench_entry *e;
	const cJSON **row; /* each entry's artifact row */
	size_t n;
	int stated;        /* 1 when a benchmark states or implies its workload */
	bench_choice c[3];
} bench_set;

static void bench_set_read(bench_set *b, workspace *ws, const cJSON *arts)
{
	size_t cap = (size_t)cJSON_GetArraySize(arts) + 1;
	b->e = xcalloc(cap, sizeof *b->e);
	b->row = xcalloc(cap, sizeof *b->row);
	b->n = 0;
	b->stated = 0;
	const cJSON *a;
	cJSON_ArrayForEach(a, arts) {
		if (strcmp(json_str(a, "kind"), "bench") != 0)
			continue;
		char *text = NULL;
		cJSON *doc = NULL;
		if (artifact_text(&text, ws, a) == 0)
			doc = bench_decode(text, strlen(text));
		err_clear();
		free(text);
		b->e[b->n] = (bench_entry){ json_int(a, "id"), json_str(a, "label"), doc };
		b->row[b->n++] = a;
		b->stated |= bench_workload_of(doc) != BENCH_ANY;
	}
	for (int w = BENCH_ANY; w <= BENCH_INFERENCE; w++)
		bench_choose(&b->c[w], b->e, b->n, (bench_workload)w);
}

static void bench_set_done(bench_set *b)
{
	for (size_t i = 0; i < b->n; i++)
		cJSON_Delete((cJSON *)b->e[i].doc);
	free(b->e);
	free(b->row);
}

/* The GPU baseline bench.h chooses, decoded, or JSON null. */
static cJSON *gpu_baseline(const bench_set *bs)
{
	if (bs->c[BENCH_ANY].baseline < 0)
		return cJSON_CreateNull();
	const bench_entry *e = &bs->e[bs->c[BENCH_ANY].baseline];
	cJSON *b = cJSON_CreateObject();
	cJSON_AddNumberToObject(b, "artifact", (double)e->id);
	if (!e->doc) {
		cJSON_AddStringToObject(b, "error", "the benchmark artifact cannot be read or parsed");
		return b;
	}
	const cJSON *p = e->doc;
	cJSON_AddStringToObject(b, "label", *json_str(p, "label") ? json_str(p, "label") : e->label);
	cJSON_AddStringToObject(b, "hardware", json_str(p, "hardware"));
	cJSON_AddStringToObject(b, "precision", json_str(p, "precision"));
	copy_item(b, "metrics", cJSON_GetObjectItem(p, "metrics"));
	return b;
}

/* The report presents figures read from the newest environment probe, every benchmark
 * and the newest profile: each must still have the bytes recorded at ingest (seal.h; a
 * hash of the unchanged copy kept in the cache is trusted). An altered one refuses the
 * whole report with seal's line, rather than present its figures or leave them out. */
static int inputs_sealed(workspace *ws, const cJSON *arts)
{
	const cJSON *env = newest_artifact(arts, "env-probe"), *prof = newest_artifact(arts, "profile"), *a;
	char *artdir = util_path_join(ws->dir, "artifacts"), *cache = ws_cache_dir(ws);
	int rc = 0;
	cJSON_ArrayForEach(a, arts)
		if (!rc && (a == env || a == prof || strcmp(json_str(a, "kind"), "bench") == 0))
			rc = seal_check_row(a, artdir, cache);
	free(artdir);
	free(cache);
	return rc ? err_prefix(_("report not written")) : 0;
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

/* Whether two accuracies are on different scales, a fraction (at most 1) and a percentage
 * (above 1, at most 100): 0.761 against 70.0 is no drop of -69 points. The acceptance
 * checks judge by the same rule (plan.accuracy_scales_differ). */
static int accuracy_scales_differ(double a, double b)
{
	return (a <= 1) != (b <= 1) && fmax(a, b) <= 100;
}

/* The benchmark criteria, in the order the report lists them. */
static const char *const bench_criteria[] = { "tolerance.accuracy", "throughput.target_pct" };
enum { CRITERION_ACCURACY, CRITERION_THROUGHPUT, CRITERIA };

/* Adds {key, value, verdict} to list for criterion k when it is set in config. */
static void add_criterion(cJSON *list, const cJSON *config, int k, const char *verdict)
{
	const char *value = json_str(config, bench_criteria[k]);
	if (!*value)
		return;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "key", bench_criteria[k]);
	cJSON_AddStringToObject(o, "value", value);
	cJSON_AddStringToObject(o, "verdict", verdict);
	cJSON_AddItemToArray(list, o);
}

/* The NPU's benchmarks of workload w against the GPU baseline and the acceptance
 * criteria, as the acceptance checks judge them (plan.bench_acceptance on the same bench.h
 * choice): each metric from the newest NPU benchmark that measured it, so an ais_bench
 * throughput and an accuracy document ingested beside it are judged together. Each
 * criterion set has its own verdict ("criteria"): pass or fail when its metric was
 * measured on both sides, else not performed; the benchmark's verdict is fail when one
 * failed, else not performed when one was not measured. NULL when no NPU benchmark
 * measured anything against a baseline. */
static cJSON *bench_verdict(const bench_set *bs, const cJSON *config, bench_workload w)
{
	const bench_choice *c = &bs->c[w];
	if (c->baseline < 0 || (c->accuracy < 0 && c->throughput < 0))
		return NULL;
	const cJSON *gm = cJSON_GetObjectItem(bs->e[c->baseline].doc, "metrics");
	const cJSON *am = c->accuracy >= 0 ? cJSON_GetObjectItem(bs->e[c->accuracy].doc, "metrics") : NULL;
	const cJSON *tm = c->throughput >= 0 ? cJSON_GetObjectItem(bs->e[c->throughput].doc, "metrics") : NULL;
	cJSON *v = cJSON_CreateObject();
	if (bench_workload_name(w))
		cJSON_AddStringToObject(v, "workload", bench_workload_name(w));
	cJSON_AddItemToObject(v, "a", artifact_ref(bs->row[c->baseline]));
	int b = c->accuracy >= 0 ? c->accuracy : c->throughput;
	cJSON_AddItemToObject(v, "b", artifact_ref(bs->row[b]));
	if (c->accuracy >= 0 && c->throughput >= 0 && c->accuracy != c->throughput)
		cJSON_AddItemToObject(v, "b_throughput", artifact_ref(bs->row[c->throughput]));
	/* each criterion's verdict: "" while its metric is not measured on both sides */
	const char *judged[CRITERIA] = { "", "" };
	const char *tol = json_str(config, bench_criteria[CRITERION_ACCURACY]);
	const char *pct = json_str(config, bench_criteria[CRITERION_THROUGHPUT]);
	if (cJSON_IsNumber(cJSON_GetObjectItem(gm, "accuracy")) && am &&
	    accuracy_scales_differ(json_num(gm, "accuracy"), json_num(am, "accuracy"))) {
		cJSON_AddBoolToObject(v, "accuracy_scales_differ", 1);
		judged[CRITERION_ACCURACY] = "fail";
	} else if (cJSON_IsNumber(cJSON_GetObjectItem(gm, "accuracy")) && am) {
		double drop = json_num(gm, "accuracy") - json_num(am, "accuracy");
		cJSON_AddNumberToObject(v, "accuracy_drop", drop);
		if (*tol) {
			cJSON_AddNumberToObject(v, "tolerance_accuracy", atof(tol));
			judged[CRITERION_ACCURACY] = drop > atof(tol) + 1e-12 ? "fail" : "pass";
		}
	}
	if (json_num(gm, "throughput") > 0 && tm) {
		double got = json_num(tm, "throughput") / json_num(gm, "throughput") * 100;
		cJSON_AddNumberToObject(v, "throughput_pct", got);
		if (*pct) {
			cJSON_AddNumberToObject(v, "throughput_target_pct", atof(pct));
			judged[CRITERION_THROUGHPUT] = got < atof(pct) ? "fail" : "pass";
		}
	}
	/* a criterion set with no measurement of its metric on both sides is not met: not
	 * performed, and a scale mismatch is a failure whether or not a tolerance is set */
	int fail = 0, unmeasured = 0, set = 0;
	cJSON *list = cJSON_CreateArray();
	for (int k = 0; k < CRITERIA; k++) {
		const char *verdict = *judged[k] ? judged[k] : "not performed";
		fail |= strcmp(judged[k], "fail") == 0;
		if (*json_str(config, bench_criteria[k])) {
			set = 1;
			unmeasured |= !*judged[k];
			add_criterion(list, config, k, verdict);
		}
	}
	cJSON_AddStringToObject(v, "verdict", fail ? "fail" : unmeasured ? "not performed" : set ? "pass" : "no criteria set");
	cJSON_AddItemToObject(v, "criteria", list);
	return v;
}

/* The verdict of the benchmark criteria set for workload w that no benchmark on record
 * measured: {"verdict": "not performed", "criteria": each set one not performed,
 * "missing": "baseline" and/or "npu"}, without inputs; NULL when none is set. */
static cJSON *bench_not_performed(const bench_set *bs, const cJSON *config, bench_workload w)
{
	cJSON *list = cJSON_CreateArray();
	for (int k = 0; k < CRITERIA; k++)
		add_criterion(list, config, k, "not performed");
	if (!cJSON_GetArraySize(list)) {
		cJSON_Delete(list);
		return NULL;
	}
	cJSON *v = cJSON_CreateObject();
	if (bench_workload_name(w))
		cJSON_AddStringToObject(v, "workload", bench_workload_name(w));
	cJSON_AddStringToObject(v, "verdict", "not performed");
	cJSON_AddItemToObject(v, "criteria", list);
	cJSON *missing = cJSON_AddArrayToObject(v, "missing");
	if (bs->c[w].baseline < 0)
		cJSON_AddItemToArray(missing, cJSON_CreateString("baseline"));
	if (bs->c[w].accuracy < 0 && bs->c[w].throughput < 0)
		cJSON_AddItemToArray(missing, cJSON_CreateString("npu"));
	return v;
}

/* Whether the acceptance check plugin holds the benchmark criteria: the metric
 * bench_criteria it records at each run (plan.hold_bench_criteria: how many criteria set
 * its phase holds), the latest of it on record; a record without it (one written before
 * the checks recorded it) counts as holding them, so no criterion goes unmentioned. */
static int holds_bench_criteria(const cJSON *metrics, const char *plugin)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, metrics)
		if (strcmp(json_str(m, "plugin"), plugin) == 0 && strcmp(json_str(m, "name"), "bench_criteria") == 0)
			return json_num(m, "value") > 0;
	return 1;
}

/* The benchmark verdict of workload w: measured (bench_verdict), else not performed when
 * a phase holding the criteria for it (held) has nothing measured, else NULL. */
static cJSON *bench_row(const bench_set *bs, const cJSON *config, bench_workload w, int held)
{
	cJSON *v = bench_verdict(bs, config, w);
	return v ? v : held ? bench_not_performed(bs, config, w) : NULL;
}

/* What tune.profile says now about the profiles on record: its findings cover every one
 * (one profile per rank, and older runs until their findings are fixed or waived), so
 * the verdict lists them all ("profiles", oldest first) besides the newest ("b"). */
static cJSON *profile_verdict(const cJSON *arts, const cJSON *findings)
{
	const cJSON *art = newest_artifact(arts, "profile"), *f;
	if (!art)
		return NULL;
	cJSON *v = cJSON_CreateObject(), *ids = cJSON_CreateArray();
	cJSON_AddItemToObject(v, "b", artifact_ref(art));
	cJSON *all = cJSON_AddArrayToObject(v, "profiles");
	cJSON_ArrayForEach(f, arts)
		if (strcmp(json_str(f, "kind"), "profile") == 0)
			cJSON_AddItemToArray(all, artifact_ref(f));
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

/* A compared input as compare_compute takes it again: the artifact ("#ID") or the path. */
static char *compared_input(const cJSON *side)
{
	if (json_int(side, "artifact") > 0)
		return xasprintf("#%lld", json_int(side, "artifact"));
	return xstrdup(*json_str(side, "path") ? json_str(side, "path") : json_str(side, "arg"));
}

/* The series of the latest comparison of kind c ("loss" or "dump"), computed again from
 * its inputs for the report's figures; NULL when they cannot be read any more. */
static cJSON *comparison_series(workspace *ws, const cJSON *c, int loss)
{
	char *a = compared_input(cJSON_GetObjectItem(c, "a")), *b = compared_input(cJSON_GetObjectItem(c, "b"));
	compare_req req = { loss, a, b, NULL, 0, NULL, NULL, 0, { 0, 0, 0 }, 0 };
	compare_req_options(&req, c);
	compare_outcome o;
	cJSON *out = NULL;
	if (compare_compute(&o, ws, &req)) {
		err_clear();
		goto done;
	}
	out = cJSON_CreateObject();
	if (loss) {
		/* at most 400 points of each curve: a figure, not the data */
		size_t n = o.lr.n, stride = n > 400 ? (n + 399) / 400 : 1;
		cJSON *st = cJSON_AddArrayToObject(out, "steps"), *va = cJSON_AddArrayToObject(out, "a"),
		      *vb = cJSON_AddArrayToObject(out, "b");
		for (size_t i = 0; i < n; i += stride) {
			const loss_row *r = &o.lr.rows[i];
			cJSON_AddItemToArray(st, cJSON_CreateNumber((double)r->step));
			cJSON_AddItemToArray(va, isfinite(r->a) ? cJSON_CreateNumber(r->a) : cJSON_CreateNull());
			cJSON_AddItemToArray(vb, isfinite(r->b) ? cJSON_CreateNumber(r->b) : cJSON_CreateNull());
		}
		cJSON_AddNumberToObject(out, "tolerance", o.tolerance);
	} else {
		/* the lowest cosine of each layer, layers in execution order */
		cJSON *cos = cJSON_AddArrayToObject(out, "cosine");
		const char *layer = NULL;
		double low = NAN;
		int finite = 0, idx = -1;
		for (size_t i = 0; i <= o.dr.n; i++) {
			const dump_pair *p = i < o.dr.n ? &o.dr.pairs[i] : NULL;
			if (layer && (!p || strcmp(p->layer, layer) != 0)) {
				cJSON_AddItemToArray(cos, isfinite(low) ? cJSON_CreateNumber(low) : cJSON_CreateNull());
				low = NAN;
			}
			if (!p)
				break;
			if (!layer || strcmp(p->layer, layer) != 0)
				idx++;
			layer = p->layer;
			if (p->mode == DUMP_REAL && isfinite(p->m.cosine)) {
				low = isfinite(low) && low < p->m.cosine ? low : p->m.cosine;
				finite = 1;
			}
			if ((long long)i == o.dr.first_fail) {
				cJSON_AddNumberToObject(out, "first_index", idx);
				cJSON_AddStringToObject(out, "first_layer", p->layer);
			}
		}
		if (!finite) {
			cJSON_Delete(out);
			out = NULL;
		}
	}
	compare_outcome_done(&o);
done:
	free(a);
	free(b);
	return out;
}

/* The operators of the newest profile taking the most time (at most ten), kept in the
 * engagement's cache (acache.h): a report is written again and again, and reading a 2 GB
 * profile takes most of a minute. */
static cJSON *profile_series(workspace *ws, const cJSON *arts)
{
	const cJSON *art = newest_artifact(arts, "profile");
	if (!art)
		return NULL;
	const char *path = json_str(art, "path");
	char *abs = util_starts_with(path, "ref:") ? xstrdup(path + 4) : xasprintf("%s/artifacts/%s", ws->dir, path);
	char *cache = ws_cache_dir(ws);
	acache_key key;
	int keep = acache_key_make(&key, cache, json_str(art, "sha256"), "report-ops", "", 0, abs) == 0;
	free(cache);
	size_t len = 0;
	char *kept = keep ? acache_load(&key, &len) : NULL;
	cJSON *out = kept ? cJSON_ParseWithLength(kept, len) : NULL;
	free(kept);
	if (cJSON_IsObject(out)) {
		free(abs);
		return out;
	}
	cJSON_Delete(out);
	out = NULL;
	profile *p = NULL;
	if (profile_read_file(&p, abs)) {
		err_clear();
	} else if (p->nops) {
		out = cJSON_CreateObject();
		cJSON *ops = cJSON_AddArrayToObject(out, "ops");
		for (size_t i = 0; i < p->nops && i < 10; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "name", p->ops[i].name);
			cJSON_AddNumberToObject(o, "total_ms", p->ops[i].total_us / 1000.0);
			cJSON_AddItemToArray(ops, o);
		}
		char *text = keep && !p->read_failed ? cJSON_PrintUnformatted(out) : NULL;
		if (text)
			acache_store(&key, text, strlen(text));
		free(text);
	}
	profile_free(p);
	free(abs);
	return out;
}

/* The series behind the report's figures ({loss, dump, profile}, each when there is one). */
static cJSON *chart_series(workspace *ws, const cJSON *comparisons, const cJSON *arts)
{
	cJSON *ch = cJSON_CreateObject(), *x;
	if (cJSON_GetObjectItem(comparisons, "loss") && (x = comparison_series(ws, cJSON_GetObjectItem(comparisons, "loss"), 1)))
		cJSON_AddItemToObject(ch, "loss", x);
	if (cJSON_GetObjectItem(comparisons, "dump") && (x = comparison_series(ws, cJSON_GetObjectItem(comparisons, "dump"), 0)))
		cJSON_AddItemToObject(ch, "dump", x);
	if ((x = profile_series(ws, arts)))
		cJSON_AddItemToObject(ch, "profile", x);
	return ch;
}

/* A loss comparison that passed against a looser tolerance than tolerance.loss as set
 * now fails now, as tune.acceptance judges it: verdict "fail", with the verdict recorded
 * then (recorded_verdict) and the tolerance now (tolerance_now). */
static void judge_loss_now(cJSON *v, const cJSON *config)
{
	const char *agreed = json_str(config, "tolerance.loss");
	double now = 0;
	if (!v || !*agreed || strcmp(json_str(v, "verdict"), "fail") == 0)
		return;
	if (compare_parse_loss_tolerance(&now, agreed)) {
		err_clear();
		return;
	}
	if (!(json_num(v, "mean_rel_err") > now))
		return;
	cJSON_AddStringToObject(v, "recorded_verdict", json_str(v, "verdict"));
	cJSON_ReplaceItemInObject(v, "verdict", cJSON_CreateString("fail"));
	cJSON_AddNumberToObject(v, "tolerance_now", now);
}

/* The tune comparisons nobody made, as verdicts of their own: {"verdict": "not
 * performed"}, without inputs. The loss curves and the tensor dumps are the tune phase's
 * evidence that the NPU run agrees with the GPU run (tune.acceptance holds the sign-off
 * while neither is on record), so every format says that one is missing, none leaves it
 * out. */
static void add_not_performed(cJSON *verdicts)
{
	static const char *const tune[] = { "loss", "dump" };
	for (size_t i = 0; i < sizeof tune / sizeof *tune; i++)
		if (!cJSON_GetObjectItem(verdicts, tune[i]))
			cJSON_AddStringToObject(cJSON_AddObjectToObject(verdicts, tune[i]), "verdict", "not performed");
}

/* The latest loss, dump, profile and benchmark verdicts, each with its inputs' hashes,
 * and the loss and dump comparisons and the benchmark criteria not performed. */
static int verdicts(cJSON **out, cJSON **charts, workspace *ws, const cJSON *arts, const bench_set *bs,
                    const cJSON *config, const cJSON *findings)
{
	cJSON *c = NULL, *metrics = NULL;
	int rc = store_metrics_latest(&metrics, ws->db);
	if (!rc)
		rc = review_comparisons(&c, ws->db);
	if (rc) {
		cJSON_Delete(metrics);
		return rc;
	}
	*charts = chart_series(ws, c, arts);
	cJSON *kind;
	cJSON_ArrayForEach(kind, c) /* the local paths of the inputs stay out of a client document: */
		for (int i = 0; i < 2; i++) { /* each is named by the name recorded with it */
			cJSON *side = cJSON_GetObjectItem(kind, i ? "b" : "a");
			cJSON_DeleteItemFromObject(side, "path");
			cJSON_DeleteItemFromObject(side, "arg");
		}
	judge_loss_now(cJSON_GetObjectItem(c, "loss"), config);
	add_not_performed(c);
	/* once a benchmark says which workload it measured, training (tune.acceptance) and
	 * inference (infer-optimize.acceptance) are judged apart, as their checks do; a
	 * criterion held by a phase and never measured there is not performed, and one its
	 * phase does not hold (inference the plan leaves out) asks for no row */
	int tune = holds_bench_criteria(metrics, "tune.acceptance");
	int infer = holds_bench_criteria(metrics, "infer-optimize.acceptance");
	cJSON_Delete(metrics);
	cJSON *p = profile_verdict(arts, findings);
	cJSON *b = bs->stated ? bench_row(bs, config, BENCH_TRAINING, tune) : bench_row(bs, config, BENCH_ANY, tune || infer);
	cJSON *bi = bs->stated ? bench_row(bs, config, BENCH_INFERENCE, infer) : NULL;
	if (p)
		cJSON_AddItemToObject(c, "profile", p);
	if (b)
		cJSON_AddItemToObject(c, "bench", b);
	if (bi)
		cJSON_AddItemToObject(c, "bench_inference", bi);
	*out = c;
	return 0;
}

static const char *const finding_keys[] = { "id", "plugin", "phase", "severity", "category", "file", "line", "col",
	                                         "end_line", "end_col", "message", "suggestion", "fixable", "status", "waiver", "settled_by", NULL };

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

	cJSON *by_hand = NULL;
	if ((rc = changes_list(&tmp, &reverted, &by_hand, ws->db, ws->hist)))
		goto out;
	cJSON_AddItemToObject(doc, "changes", tmp);
	cJSON_AddItemToObject(doc, "reverted_checkpoints", reverted);
	cJSON_AddItemToObject(doc, "undone_by_hand", by_hand);
	tmp = reverted = NULL;
	if ((rc = changes_unsupported(&tmp, ws->db)))
		goto out;
	cJSON_AddItemToObject(doc, "unsupported", tmp);
	tmp = NULL;

	if ((rc = store_artifacts(&arts, ws->db, NULL)) || (rc = inputs_sealed(ws, arts)))
		goto out;
	cJSON_AddItemToObject(doc, "environment", environment_summary(ws, arts));
	bench_set bs;
	bench_set_read(&bs, ws, arts);
	cJSON_AddItemToObject(doc, "gpu_baseline", gpu_baseline(&bs));
	cJSON *charts = NULL;
	rc = verdicts(&tmp, &charts, ws, arts, &bs, cJSON_GetObjectItem(doc, "config"), findings);
	bench_set_done(&bs);
	if (rc)
		goto out;
	cJSON_AddItemToObject(doc, "verdicts", tmp);
	cJSON_AddItemToObject(doc, "charts", charts); /* the figures' series: not part of the JSON report */
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

/* ---------- the document model (Markdown and HTML) ---------- */

/* The English words and sentences other modules put into their results (readiness
 * classes, strategy reasons, phase and finding statuses, severities, the change list's
 * operations): shown through the catalog, and only these, so that a plugin's text that
 * happens to equal one of them is never touched. */
static const char *const words[] = {
	N_("ready"), N_("ready with conditions"), N_("needs manual porting"), N_("blocked"),
	N_("not started"), N_("in progress"), N_("signed off"), N_("reopened"),
	N_("open"), N_("fixed"), N_("waived"), N_("settled"),
	N_("error"), N_("warning"), N_("info"),
	N_("INSERT"), N_("MODIFY"), N_("DELETE"), N_("UNSUPPORTED"),
	N_("pass"), N_("fail"), N_("warnings"), N_("no criteria set"), N_("not performed"),
};

static const char *word(const char *en)
{
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(words[i], en) == 0)
			return _(words[i]);
	for (size_t i = 0; i < REASON_COUNT; i++) /* the strategy reasons, marked where they are made */
		if (strcmp(assessment_reasons[i], en) == 0)
			return _(assessment_reasons[i]);
	return en;
}

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
static char *location(const char *file, long long start, long long end)
{
	if (!*file)
		return xstrdup(_("(project)"));
	if (start > 0 && end > start)
		return xasprintf("%s:%lld-%lld", file, start, end);
	if (start > 0)
		return xasprintf("%s:%lld", file, start);
	return xstrdup(file);
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
		return _("auto (transfer_to_npu)");
	if (strcmp(s, "tool") == 0)
		return _("tool (explicit rewrites with ferry fix)");
	if (strcmp(s, "manual") == 0)
		return _("manual porting");
	return s;
}

/* The strategy's one word for the summary card. */
static const char *strategy_short(const char *s)
{
	if (strcmp(s, "auto") == 0)
		return _("auto");
	if (strcmp(s, "tool") == 0)
		return _("tool");
	if (strcmp(s, "manual") == 0)
		return _("manual");
	return s;
}

/* The effort formula as assessment.c wrote it ("effort = base B + W × N category … = D
 * person-days") with its words in the report's language; the numbers are untouched. */
static const char *env_label(const char *key)
{
	static const char *const labels[][2] = {
		{ "hostname", N_("Host name") }, { "os", N_("Operating system") }, { "arch", N_("Architecture") },
		{ "python", N_("Python version") }, { "torch", N_("torch version") }, { "torch_npu", N_("torch_npu version") },
		{ "cann", N_("CANN version") },      { "driver", N_("Driver version") },
	};
	for (size_t i = 0; i < sizeof labels / sizeof labels[0]; i++)
		if (strcmp(labels[i][0], key) == 0)
			return _(labels[i][1]);
	return key;
}

/* " (carried from #N)" for a waiver carried over from finding N's, else "". */
static char *waiver_carried(const cJSON *w)
{
	return json_int(w, "carried_from") > 0 ? xasprintf(_(" (carried from #%lld)"), json_int(w, "carried_from"))
	                                        : xstrdup("");
}

/* "Waived by ACTOR at TIME: REASON (carried from #N)" for a finding's waiver in force, or NULL. */
static char *waiver_text(const cJSON *w)
{
	if (!cJSON_IsObject(w))
		return NULL;
	char *carried = waiver_carried(w);
	char *t = xasprintf(_("Waived by %s at %s: %s%s"), json_str(w, "actor"), json_str(w, "at"), json_str(w, "reason"), carried);
	free(carried);
	return t;
}

/* What became of an open survey finding's code in a later phase (finding_settlement), or
 * NULL when nothing settled it. */
static char *settled_text(const cJSON *s)
{
	if (!cJSON_IsObject(s))
		return NULL;
	const char *phase = phase_title(json_str(s, "phase"));
	long long id = json_int(s, "id"), cp = json_int(s, "checkpoint");
	if (strcmp(json_str(s, "status"), "waived") == 0)
		return xasprintf(_("Settled later: waived in phase %s as #%lld. The survey lists the code as received."),
		                 phase, id);
	if (cp > 0)
		return xasprintf(_("Settled later: fixed in phase %s as #%lld by checkpoint %lld. The survey lists the code as received."),
		                 phase, id, cp);
	return xasprintf(_("Settled later: fixed in phase %s as #%lld. The survey lists the code as received."), phase, id);
}

static char *waiver_when(const cJSON *w)
{
	if (!*json_str(w, "withdrawn_at"))
		return xstrdup(json_str(w, "created_at"));
	return xasprintf(_("%s; withdrawn %s by %s: %s"), json_str(w, "created_at"), json_str(w, "withdrawn_at"),
	                 json_str(w, "withdrawn_by"), json_str(w, "withdrawn_reason"));
}

/* ----- figures ----- */

/* A figure of a bar chart (bar) or of a line chart (line). */
static void add_figure(cJSON *sec, const char *id, const svg_bar_spec *bar, const svg_line_spec *line)
{
	sbuf b;
	sbuf_init(&b);
	if (bar)
		svg_bar_chart(&b, bar);
	else
		svg_line_chart(&b, line);
	rdoc_figure(sec, id, bar ? bar->title : line->title, b.buf);
	sbuf_done(&b);
}

static const char *const sev_names[] = { "error", "warning", "info" };
static const char *const sev_colors[] = { "#c0392b", "#e0a526", "#3b78c2" };

/* Open findings per phase, stacked by severity. */
static void fig_findings(cJSON *sec, const cJSON *doc)
{
	const cJSON *p, *f;
	size_t n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(doc, "phases")), i = 0;
	if (!n || !cJSON_GetArraySize(cJSON_GetObjectItem(doc, "findings")))
		return;
	const char **labels = xcalloc(n, sizeof *labels);
	double *vals = xcalloc(3 * n, sizeof *vals);
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "phases")) {
		labels[i] = phase_title(json_str(p, "name"));
		cJSON_ArrayForEach(f, cJSON_GetObjectItem(doc, "findings")) {
			if (strcmp(json_str(f, "phase"), json_str(p, "name")) != 0 || strcmp(json_str(f, "status"), "open") != 0)
				continue;
			for (size_t k = 0; k < 3; k++)
				if (strcmp(json_str(f, "severity"), sev_names[k]) == 0)
					vals[k * n + i]++;
		}
		i++;
	}
	svg_bar_series s[3];
	for (size_t k = 0; k < 3; k++)
		s[k] = (svg_bar_series){ word(sev_names[k]), sev_colors[k], vals + k * n };
	svg_bar_spec spec = { _("Open findings by phase and severity"), _("open findings"), labels, n, s, 3 };
	add_figure(sec, "fig-findings", &spec, NULL);
	free(labels);
	free(vals);
}

/* The effort estimate per category: the weight times the open findings. */
static void fig_effort(cJSON *sec, const cJSON *as)
{
	const cJSON *w;
	size_t n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(as, "weights")), i = 0;
	if (!n)
		return;
	const char **labels = xcalloc(n + 1, sizeof *labels);
	double *vals = xcalloc(n + 1, sizeof *vals);
	labels[i] = _("base");
	vals[i++] = json_num(as, "base_days");
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(as, "weights")) {
		labels[i] = category_title(w->string);
		vals[i++] = w->valuedouble * (double)json_int(cJSON_GetObjectItem(as, "counts"), w->string);
	}
	svg_bar_series s = { _("person-days"), "#1d5bb8", vals };
	svg_bar_spec spec = { _("Effort by category"), _("person-days"), labels, n + 1, &s, 1 };
	add_figure(sec, "fig-effort", &spec, NULL);
	free(labels);
	free(vals);
}

/* An array of numbers (NaN for null) as a malloc'd double array. */
static double *numbers(const cJSON *arr, size_t *n)
{
	*n = (size_t)cJSON_GetArraySize(arr);
	double *v = xcalloc(*n ? *n : 1, sizeof *v);
	size_t i = 0;
	const cJSON *x;
	cJSON_ArrayForEach(x, arr)
		v[i++] = cJSON_IsNumber(x) ? x->valuedouble : NAN;
	return v;
}

/* Both loss curves of the latest loss comparison, the baseline's tolerance band shaded. */
static void fig_loss(cJSON *sec, const cJSON *c)
{
	size_t n, nb, na;
	double *x = numbers(cJSON_GetObjectItem(c, "steps"), &n), *a = numbers(cJSON_GetObjectItem(c, "a"), &na),
	       *bb = numbers(cJSON_GetObjectItem(c, "b"), &nb);
	if (n && na == n && nb == n) {
		double tol = json_num(c, "tolerance"), *lo = xcalloc(n, sizeof *lo), *hi = xcalloc(n, sizeof *hi);
		for (size_t i = 0; i < n; i++) {
			lo[i] = a[i] - fabs(a[i]) * tol;
			hi[i] = a[i] + fabs(a[i]) * tol;
		}
		svg_line_series s[2] = { { _("A (baseline)"), "#1d5bb8", x, a, n, 0 }, { _("B (under test)"), "#c0392b", x, bb, n, 1 } };
		char *band = xasprintf(_("tolerance ±%.3g %%"), tol * 100);
		svg_line_spec spec = { _("Loss curves of the latest comparison"), _("step"), _("loss"), s, 2, x, lo, hi, n, band,
			                   0, 0, NULL, 0, 0, 0 };
		add_figure(sec, "fig-loss", NULL, &spec);
		free(band);
		free(lo);
		free(hi);
	}
	free(x);
	free(a);
	free(bb);
}

/* The lowest cosine similarity of each layer of the latest dump comparison, in execution
 * order, the first diverging layer marked. */
static void fig_dump(cJSON *sec, const cJSON *c)
{
	size_t n;
	double *y = numbers(cJSON_GetObjectItem(c, "cosine"), &n);
	if (n) {
		double *x = xcalloc(n, sizeof *x);
		for (size_t i = 0; i < n; i++)
			x[i] = (double)(i + 1);
		const cJSON *first = cJSON_GetObjectItem(c, "first_index");
		char *mark = cJSON_IsNumber(first) ? xasprintf(_("first diverging layer: %s"), json_str(c, "first_layer")) : NULL;
		svg_line_series s = { _("cosine similarity"), "#1d5bb8", x, y, n, 0 };
		double lo = 1;
		for (size_t i = 0; i < n; i++)
			if (isfinite(y[i]) && y[i] < lo)
				lo = y[i];
		svg_line_spec spec = { _("Cosine similarity per layer of the latest dump comparison"), _("layer (execution order)"),
			                   _("cosine similarity"), &s, 1, NULL, NULL, NULL, 0, NULL, mark != NULL,
			                   0, mark, 1, lo < 0.9 ? floor(lo * 10) / 10 : 0.9, 1.0 };
		spec.marker_x = cJSON_IsNumber(first) ? first->valuedouble + 1 : 0;
		add_figure(sec, "fig-dump", NULL, &spec);
		free(mark);
		free(x);
	}
	free(y);
}

/* The profile's operators taking the most device time. */
static void fig_profile(cJSON *sec, const cJSON *c)
{
	size_t n = (size_t)cJSON_GetArraySize(cJSON_GetObjectItem(c, "ops")), i = 0;
	if (!n)
		return;
	const char **labels = xcalloc(n, sizeof *labels);
	double *vals = xcalloc(n, sizeof *vals);
	const cJSON *o;
	cJSON_ArrayForEach(o, cJSON_GetObjectItem(c, "ops")) {
		labels[i] = json_str(o, "name");
		vals[i++] = json_num(o, "total_ms");
	}
	svg_bar_series s = { _("ms"), "#17653a", vals };
	svg_bar_spec spec = { _("Top operators of the latest profile"), _("total time (ms)"), labels, n, &s, 1 };
	add_figure(sec, "fig-profile", &spec, NULL);
	free(labels);
	free(vals);
}

/* ----- sections ----- */

/* The quote by service line (003 §2): each line's person-days, where they come from, and
 * their price once quote.rate is set. */
static void m_quote(cJSON *parent, const cJSON *q)
{
	const cJSON *lines = cJSON_GetObjectItem(q, "services"), *l;
	if (!cJSON_GetArraySize(lines))
		return;
	cJSON *sec = rdoc_section(parent, "quote", _("Quote by service line"));
	int priced = cJSON_IsNumber(cJSON_GetObjectItem(q, "rate"));
	const char *cur = json_str(q, "currency");
	char *amount_head = *cur ? xasprintf(_("#Amount (%s)"), cur) : xstrdup(_("#Amount"));
	const char *hd[] = { _("Service line"), _("#Person-days"), _("Basis"), priced ? amount_head : NULL, NULL };
	cJSON *t = rdoc_table(sec, hd);
	cJSON_ArrayForEach(l, lines) {
		cJSON *r = rdoc_row(t);
		rdoc_cell_text(r, service_title(json_str(l, "name")));
		rdoc_textf(rdoc_cell(r), "%.1f", json_num(l, "days"));
		if (cJSON_IsNumber(cJSON_GetObjectItem(l, "agreed_days")))
			rdoc_textf(rdoc_cell(r), _("agreed (estimate %.1f)"), json_num(l, "estimate_days"));
		else
			rdoc_cell_text(r, _("estimate"));
		if (priced)
			rdoc_textf(rdoc_cell(r), "%.2f", json_num(l, "amount"));
	}
	cJSON *r = rdoc_row(t);
	rdoc_cell_text(r, _("Total"));
	rdoc_textf(rdoc_cell(r), "%.1f", json_num(q, "days"));
	rdoc_cell_text(r, "");
	if (priced)
		rdoc_textf(rdoc_cell(r), "%.2f", json_num(q, "amount"));
	free(amount_head);
	if (priced)
		rdoc_textf(rdoc_para(sec, "muted"),
		           _("At %.2f %s per person-day (`ferry config quote.rate`). A line's days are the estimate from the "
		             "open assess findings of its categories until `ferry config quote.days.LINE DAYS` records the "
		             "days agreed."),
		           json_num(q, "rate"), *cur ? cur : "");
	else
		rdoc_para_text(sec, "muted",
		               _("Price it with `ferry config quote.rate PRICE` (per person-day) and `ferry config quote.currency "
		                 "CNY`. A line's days are the estimate from the open assess findings of its categories until "
		                 "`ferry config quote.days.LINE DAYS` records the days agreed."));
}

static void m_summary(cJSON *d, const cJSON *doc)
{
	const cJSON *as = cJSON_GetObjectItem(doc, "assessment");
	cJSON *sec = rdoc_section(d, "summary", _("Executive summary"));
	if (!cJSON_IsTrue(cJSON_GetObjectItem(as, "ran"))) {
		rdoc_para_text(sec, NULL,
		               _("The assess phase has not run yet: `ferry check --phase assess` produces the readiness score, "
		                 "the effort estimate and the strategy recommendation."));
		return;
	}
	const cJSON *st = cJSON_GetObjectItem(as, "strategy");
	cJSON *cards = rdoc_cards(sec);
	char *score = xasprintf("%lld/100", json_int(as, "score"));
	rdoc_card(cards, _("Readiness"), score, word(json_str(as, "class")));
	free(score);
	char *days = xasprintf(_("%.1f person-days"), json_num(as, "effort_days"));
	rdoc_card(cards, _("Effort"), days, _("estimate from the open assess findings"));
	free(days);
	const char *chosen = json_str(st, "chosen");
	char *sub = *chosen ? xasprintf(_("chosen; recommended: %s"), strategy_short(json_str(st, "recommended")))
	                    : xstrdup(_("recommended; not chosen yet"));
	rdoc_card(cards, _("Strategy"), strategy_short(*chosen ? chosen : json_str(st, "recommended")), sub);
	free(sub);
	char *formula = assessment_formula(as, 0);
	rdoc_code(rdoc_para(sec, "formula"), formula);
	free(formula);
	static const char *const head[] = { N_("Category"), N_("#Days per open finding"), N_("#Open findings"), NULL };
	const char *hd[] = { _(head[0]), _(head[1]), _(head[2]), NULL };
	cJSON *t = rdoc_table(sec, hd);
	const cJSON *w;
	cJSON_ArrayForEach(w, cJSON_GetObjectItem(as, "weights")) {
		cJSON *r = rdoc_row(t);
		rdoc_cell_text(r, category_title(w->string));
		rdoc_textf(rdoc_cell(r), "%.3g", w->valuedouble);
		rdoc_textf(rdoc_cell(r), "%lld", json_int(cJSON_GetObjectItem(as, "counts"), w->string));
	}
	rdoc_textf(rdoc_para(sec, "muted"),
	           _("Base %.3g days. The weights are the engagement's: `ferry config effort.weight.<category> DAYS`, "
	             "`ferry config effort.base_days DAYS`."),
	           json_num(as, "base_days"));
	fig_effort(sec, as);
	m_quote(sec, cJSON_GetObjectItem(as, "quote"));

	cJSON *risks = rdoc_section(sec, "risks", _("Top risks"));
	const cJSON *r;
	cJSON *list = NULL;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(as, "top_risks")) {
		if (!list)
			list = rdoc_list(risks, 1);
		cJSON *it = rdoc_item(list);
		char *loc = location(json_str(r, "file"), json_int(r, "line"), 0);
		rdoc_badge(it, "sev", json_str(r, "severity"), word(json_str(r, "severity")));
		rdoc_loc(it, loc);
		rdoc_dash(it);
		rdoc_text(it, json_str(r, "message"));
		char *ref = xasprintf(_("#%lld, %s"), json_int(r, "id"), category_title(json_str(r, "category")));
		rdoc_ref(it, ref);
		free(ref);
		free(loc);
	}
	if (!list)
		rdoc_para_text(risks, NULL, _("No open risks without an automatic fix."));

	cJSON *ss = rdoc_section(sec, "strategy", _("Strategy"));
	cJSON *p = rdoc_para(ss, NULL);
	rdoc_text(p, _("Recommended: "));
	rdoc_strong(p, strategy_name(json_str(st, "recommended")));
	rdoc_text(p, _(". "));
	rdoc_text(p, word(json_str(st, "reason")));
	p = rdoc_para(ss, NULL);
	rdoc_text(p, _("Chosen: "));
	if (*chosen) {
		rdoc_strong(p, strategy_name(chosen));
		rdoc_text(p, _("."));
	} else {
		rdoc_text(p, _("not recorded yet (`ferry config strategy auto|tool|manual`)."));
	}
	const cJSON *dr;
	list = NULL;
	cJSON_ArrayForEach(dr, cJSON_GetObjectItem(st, "driver_findings")) {
		if (!list) {
			rdoc_para_text(ss, NULL, _("Findings that drove the recommendation:"));
			list = rdoc_list(ss, 0);
		}
		cJSON *it = rdoc_item(list);
		char *loc = location(json_str(dr, "file"), json_int(dr, "line"), 0);
		rdoc_textf(it, "#%lld", json_int(dr, "id"));
		rdoc_loc(it, loc);
		rdoc_dash(it);
		rdoc_text(it, json_str(dr, "message"));
		free(loc);
	}
}

static void m_phases(cJSON *d, const cJSON *doc)
{
	cJSON *sec = rdoc_section(d, "phases", _("Phases"));
	const char *hd[] = { "#",         _("Phase"),     _("Status"),   _("#Errors"), _("#Warnings"), _("#Info"),
		                 _("#Fixed"), _("#Waived"), _("Signed off"), NULL };
	cJSON *t = rdoc_table(sec, hd);
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(doc, "phases")) {
		cJSON *r = rdoc_row(t);
		rdoc_textf(rdoc_cell(r), "%lld", json_int(p, "ord"));
		rdoc_cell_text(r, phase_title(json_str(p, "name")));
		rdoc_badge(rdoc_cell(r), "ph", json_str(p, "status"), word(json_str(p, "status")));
		static const char *const counts[] = { "open_errors", "open_warnings", "open_info", "fixed", "waived" };
		for (size_t k = 0; k < 5; k++)
			rdoc_textf(rdoc_cell(r), "%lld", json_int(p, counts[k]));
		cJSON *c = rdoc_cell(r);
		if (!*json_str(p, "signed_off_at")) {
			rdoc_text(c, "-");
			continue;
		}
		const char *note = json_str(p, "note");
		if (*note)
			rdoc_textf(c, _("%s by %s: %s"), json_str(p, "signed_off_at"), json_str(p, "signed_off_by"), note);
		else
			rdoc_textf(c, _("%s by %s"), json_str(p, "signed_off_at"), json_str(p, "signed_off_by"));
		char *flag = review_flag_text(p);
		if (flag) {
			char *fl = xasprintf(_("(flagged: %s)"), flag);
			rdoc_text(c, " ");
			rdoc_strong(c, fl);
			free(fl);
		}
		free(flag);
	}
	fig_findings(sec, doc);
}

static void m_findings(cJSON *d, const cJSON *doc)
{
	const cJSON *findings = cJSON_GetObjectItem(doc, "findings"), *f, *g;
	cJSON *sec = rdoc_section(d, "findings", _("Findings"));
	rdoc_para_text(sec, "muted", _("Grouped by phase, then category: `file:line`, the message and the advice."));
	if (!cJSON_GetArraySize(findings))
		rdoc_para_text(sec, NULL, _("No findings recorded."));
	/* groups in phase order, then category order of first appearance */
	cJSON *done = cJSON_CreateObject(), *phase_sec = NULL;
	const char *cur_phase = NULL;
	cJSON_ArrayForEach(f, findings) {
		const char *phase = json_str(f, "phase");
		const char *cat = *json_str(f, "category") ? json_str(f, "category") : "other";
		char *key = xasprintf("%s/%s", phase, cat);
		if (cJSON_GetObjectItem(done, key)) {
			free(key);
			continue;
		}
		cJSON_AddTrueToObject(done, key);
		free(key);
		if (!cur_phase || strcmp(cur_phase, phase) != 0) {
			char *id = xasprintf("findings-%s", phase), *title = xasprintf(_("Phase %s"), phase_title(phase));
			phase_sec = rdoc_section(sec, id, title);
			free(id);
			free(title);
			cur_phase = phase;
		}
		char *id = xasprintf("findings-%s-%s", phase, cat);
		cJSON *cs = rdoc_section(phase_sec, id, category_title(cat)), *list = rdoc_list(cs, 0);
		free(id);
		cJSON_ArrayForEach(g, findings) {
			const char *gc = *json_str(g, "category") ? json_str(g, "category") : "other";
			if (strcmp(json_str(g, "phase"), phase) != 0 || strcmp(gc, cat) != 0)
				continue;
			cJSON *it = rdoc_item(list);
			char *loc = location(json_str(g, "file"), json_int(g, "line"), 0);
			const cJSON *settled = cJSON_GetObjectItem(g, "settled_by");
			char *later = settled_text(settled);
			rdoc_badge(it, "sev", json_str(g, "severity"), word(json_str(g, "severity")));
			if (later) /* coloured as what settled it, named for what it is */
				rdoc_badge(it, "st", json_str(settled, "status"), word("settled"));
			else
				rdoc_badge(it, "st", json_str(g, "status"), word(json_str(g, "status")));
			rdoc_loc(it, loc);
			rdoc_dash(it);
			rdoc_text(it, json_str(g, "message"));
			char *ref = cJSON_IsTrue(cJSON_GetObjectItem(g, "fixable"))
			                ? xasprintf(_("#%lld, %s, fixable"), json_int(g, "id"), json_str(g, "plugin"))
			                : xasprintf(_("#%lld, %s"), json_int(g, "id"), json_str(g, "plugin"));
			rdoc_ref(it, ref);
			free(ref);
			if (*json_str(g, "suggestion"))
				rdoc_textf(rdoc_note(it), _("Advice: %s"), json_str(g, "suggestion"));
			char *wv = waiver_text(cJSON_GetObjectItem(g, "waiver"));
			if (wv)
				rdoc_text(rdoc_note(it), wv);
			if (later)
				rdoc_text(rdoc_note(it), later);
			free(wv);
			free(later);
			free(loc);
		}
	}
	cJSON_Delete(done);

	cJSON *ws = rdoc_section(d, "waivers", _("Waivers"));
	const cJSON *w, *waivers = cJSON_GetObjectItem(doc, "waivers");
	if (!cJSON_GetArraySize(waivers)) {
		rdoc_para_text(ws, NULL, _("No finding has been waived."));
		return;
	}
	const char *hd[] = { _("Finding"), _("Location"), _("Message"), _("Reason"), _("By"), _("When"), NULL };
	cJSON *t = rdoc_table(ws, hd);
	cJSON_ArrayForEach(w, waivers) {
		cJSON *r = rdoc_row(t);
		char *loc = location(json_str(w, "file"), json_int(w, "line"), 0), *when = waiver_when(w);
		char *carried = waiver_carried(w);
		rdoc_textf(rdoc_cell(r), "#%lld%s", json_int(w, "finding_id"), carried);
		free(carried);
		rdoc_loc(rdoc_cell(r), loc);
		rdoc_cell_text(r, json_str(w, "message"));
		rdoc_cell_text(r, json_str(w, "reason"));
		rdoc_cell_text(r, json_str(w, "actor"));
		rdoc_cell_text(r, when);
		free(when);
		free(loc);
	}
}

static void m_rows(cJSON *sec, const cJSON *rows, int unsupported)
{
	if (!cJSON_GetArraySize(rows)) {
		rdoc_para_text(sec, NULL,
		               unsupported ? _("Nothing in the source code: every open finding there has an automatic fix. Operators of an ingested ONNX model that the target does not support are with the infer-convert findings, not in this list.")
		                           : _("No change made by ferry is in effect."));
		return;
	}
	const char *hu[] = { _("Location"), _("Severity"), _("Construct"), _("Advice"), _("Check"), _("Findings"), NULL };
	const char *hc[] = { _("Location"), _("Operation"), _("Change"), _("Check"), _("Findings"), _("Checkpoint"), NULL };
	cJSON *t = rdoc_table(sec, unsupported ? hu : hc);
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		cJSON *row = rdoc_row(t);
		char *loc = location(json_str(r, "file"), json_int(r, "start_line"), json_int(r, "end_line"));
		char *ids = ids_text(cJSON_GetObjectItem(r, "findings"));
		rdoc_loc(rdoc_cell(row), loc);
		if (unsupported) {
			rdoc_badge(rdoc_cell(row), "sev", json_str(r, "severity"), word(json_str(r, "severity")));
			rdoc_cell_text(row, json_str(r, "message"));
			rdoc_cell_text(row, json_str(r, "advice"));
		} else {
			rdoc_badge(rdoc_cell(row), "op", json_str(r, "operation"), word(json_str(r, "operation")));
			char *text = changes_row_text(r);
			rdoc_cell_text(row, text);
			free(text);
		}
		rdoc_cell_text(row, json_str(r, "plugin"));
		rdoc_cell_text(row, ids);
		if (!unsupported)
			rdoc_textf(rdoc_cell(row), "%lld (%.12s)", json_int(r, "checkpoint"), json_str(r, "commit"));
		free(loc);
		free(ids);
	}
}

/* 1 when a change row comes from an adapt check: a rewrite of the client's code for the
 * NPU, not a file a later phase wrote beside it. */
static int has_adapt_change(const cJSON *rows)
{
	const cJSON *r;
	cJSON_ArrayForEach(r, rows)
		if (util_starts_with(json_str(r, "plugin"), "adapt."))
			return 1;
	return 0;
}

static void m_changes(cJSON *d, const cJSON *doc)
{
	cJSON *sec = rdoc_section(d, "changes", _("Change list"));
	rdoc_para_text(sec, "muted",
	               _("Every change ferry made that is still in effect, one row per hunk (lines as the checkpoint left "
	                 "the file; `ferry diff N` shows checkpoint N)."));
	if (has_adapt_change(cJSON_GetObjectItem(doc, "changes")))
		rdoc_para_text(sec, "muted",
		               _("The changes port the code to the NPU: it imports torch_npu, and where it tested for CUDA "
		                 "it now tests for the NPU, so on a GPU host the changed code no longer takes its CUDA "
		                 "paths. In a package others import, each NPU form falls back to the CUDA code where "
		                 "torch_npu is not installed."));
	m_rows(sec, cJSON_GetObjectItem(doc, "changes"), 0);
	const cJSON *r;
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "reverted_checkpoints"))
		rdoc_textf(rdoc_para(sec, "muted"), _("Checkpoint %lld (%s) was reverted by checkpoint %lld and is not listed."),
		           json_int(r, "id"), json_str(r, "plugin"), json_int(r, "reverted_by"));
	cJSON_ArrayForEach(r, cJSON_GetObjectItem(doc, "undone_by_hand")) {
		char *loc = location(json_str(r, "file"), json_int(r, "start_line"), json_int(r, "end_line"));
		rdoc_textf(rdoc_para(sec, "muted"),
		           _("The change of checkpoint %lld (%s) at %s was undone by a hand edit (checkpoint %lld) and is not "
		             "listed."),
		           json_int(r, "checkpoint"), json_str(r, "plugin"), loc, json_int(r, "undone_by"));
		free(loc);
	}
}

static void m_unsupported(cJSON *d, const cJSON *doc)
{
	cJSON *sec = rdoc_section(d, "unsupported", _("Unsupported list"));
	rdoc_para_text(sec, "muted", _("Open findings without an automatic fix: constructs a person must port."));
	m_rows(sec, cJSON_GetObjectItem(doc, "unsupported"), 1);
}

/* The verdict table's name of a verdict kind (or of a benchmark's workload), translated. */
static const char *verdict_title(const char *kind)
{
	static const char *const names[][2] = { { "loss", N_("Loss curve") },       { "dump", N_("Tensor dump") },
		                                    { "profile", N_("Profile") },        { "bench", N_("Benchmark") },
		                                    { "training", N_("Benchmark, training") },
		                                    { "inference", N_("Benchmark, inference") } };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strcmp(names[i][0], kind) == 0)
			return _(names[i][1]);
	return kind;
}

/* A recorded verdict word as the table shows it: translated, or in capitals where the
 * reader's language is English ("PASS", "NOT PERFORMED"). Malloc'd. */
static char *verdict_word(const char *en)
{
	char *up = xstrdup(word(en));
	if (strcmp(up, en) == 0)
		for (char *c = up; *c; c++)
			*c = (char)toupper((unsigned char)*c);
	return up;
}

/* The benchmark criteria a verdict lists ("criteria"), as "tolerance.accuracy 0.005,
 * throughput.target_pct 80". Malloc'd. */
static char *criteria_text(const cJSON *v)
{
	sbuf s;
	sbuf_init(&s);
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(v, "criteria")) {
		if (s.len)
			sbuf_adds(&s, _(", "));
		sbuf_addf(&s, "%s %s", json_str(c, "key"), json_str(c, "value"));
	}
	char *text = s.buf ? sbuf_detach(&s) : xstrdup("");
	sbuf_done(&s);
	return text;
}

/* Whether a verdict's "missing" list names what. */
static int misses(const cJSON *v, const char *what)
{
	const cJSON *m;
	cJSON_ArrayForEach(m, cJSON_GetObjectItem(v, "missing"))
		if (cJSON_IsString(m) && strcmp(m->valuestring, what) == 0)
			return 1;
	return 0;
}

/* The row of a comparison nobody made (add_not_performed), or of benchmark criteria no
 * benchmark measured (bench_not_performed): what to do instead of what was measured, and
 * no inputs. Cells are malloc'd. */
static void not_performed_cells(char *cells[4], const char *kind, const cJSON *v)
{
	const char *workload = json_str(v, "workload");
	cells[0] = xstrdup(verdict_title(*workload ? workload : kind));
	cells[1] = verdict_word("not performed");
	if (strcmp(kind, "loss") == 0 || strcmp(kind, "dump") == 0) {
		cells[2] = xstrdup(strcmp(kind, "loss") == 0
		                       ? _("no loss comparison on record: ingest the GPU and the NPU training logs and run "
		                           "`ferry compare loss gpu npu`")
		                       : _("no dump comparison on record: dump a layer of both runs (msprobe) and run "
		                           "`ferry compare dump GPU_DUMP NPU_DUMP`"));
	} else {
		char *crit = criteria_text(v);
		int base = misses(v, "baseline"), npu = misses(v, "npu");
		/* TRANSLATORS: %s is the criteria agreed, e.g. "tolerance.accuracy 0.005, throughput.target_pct 80" */
		cells[2] = xasprintf(base && npu ? _("%s agreed; no GPU baseline and no NPU benchmark on record to measure them: "
		                                     "`ferry ingest bench FILE --label gpu`, then the NPU's with `--label npu`")
		                     : base ? _("%s agreed; no GPU baseline on record to measure the NPU against: "
		                                "`ferry ingest bench FILE --label gpu`")
		                            : _("%s agreed; no NPU benchmark on record measured them: run it on the NPU and "
		                                "`ferry ingest bench FILE --label npu`"),
		                     crit);
		free(crit);
	}
	cells[3] = xstrdup("-");
}

/* One verdict as four cells: the check, the verdict, what was measured, and the inputs
 * with their hashes. Returns 0 when kind has no verdict. Cells are malloc'd. */
static int verdict_cells(char *cells[4], const cJSON *doc, const char *kind)
{
	const cJSON *v = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "verdicts"), kind);
	const cJSON *config = cJSON_GetObjectItem(doc, "config");
	if (!cJSON_IsObject(v))
		return 0;
	if (strcmp(json_str(v, "verdict"), "not performed") == 0 && !cJSON_GetObjectItem(v, "a")) {
		not_performed_cells(cells, kind, v);
		return 1;
	}
	const char *workload = json_str(v, "workload");
	cells[0] = xstrdup(verdict_title(*workload ? workload : kind));
	cells[1] = compare_event_proves_nothing(v) ? xstrdup(_("PROVES NOTHING")) : verdict_word(json_str(v, "verdict"));
	char why[240];
	const char *reason =
	    strcmp(kind, "loss") == 0 || strcmp(kind, "dump") == 0 ? compare_event_reason(why, sizeof why, v) : NULL;
	if (strcmp(kind, "loss") == 0 && reason)
		cells[2] = xasprintf(_("%s; mean relative error %.3g %% over %lld steps, tolerance %.3g %%"), reason,
		                     json_num(v, "mean_rel_err") * 100, json_int(v, "aligned_steps"), json_num(v, "tolerance") * 100);
	else if (strcmp(kind, "loss") == 0)
		cells[2] = xasprintf(_("mean relative error %.3g %% over %lld steps, tolerance %.3g %%"),
		                     json_num(v, "mean_rel_err") * 100, json_int(v, "aligned_steps"), json_num(v, "tolerance") * 100);
	else if (strcmp(kind, "dump") == 0 && reason)
		cells[2] = xasprintf(_("%lld of %lld tensor pairs fail; %s"), json_int(v, "failed"), json_int(v, "pairs"), reason);
	else if (strcmp(kind, "dump") == 0 && *json_str(v, "first_diverging_layer"))
		cells[2] = xasprintf(_("%lld of %lld tensor pairs fail; first diverging layer %s"), json_int(v, "failed"),
		                     json_int(v, "pairs"), json_str(v, "first_diverging_layer"));
	else if (strcmp(kind, "dump") == 0)
		cells[2] = xasprintf(_("%lld of %lld tensor pairs fail"), json_int(v, "failed"), json_int(v, "pairs"));
	else if (strcmp(kind, "profile") == 0 && cJSON_GetArraySize(cJSON_GetObjectItem(v, "profiles")) > 1)
		cells[2] = xasprintf(_("%d open tune.profile findings over %d profiles"),
		                     cJSON_GetArraySize(cJSON_GetObjectItem(v, "findings")),
		                     cJSON_GetArraySize(cJSON_GetObjectItem(v, "profiles")));
	else if (strcmp(kind, "profile") == 0)
		cells[2] = xasprintf(_("%d open tune.profile findings"), cJSON_GetArraySize(cJSON_GetObjectItem(v, "findings")));
	else {
		/* a figure nobody measured is said to be missing, not shown as 0 */
		const char *tol = *json_str(config, "tolerance.accuracy") ? json_str(config, "tolerance.accuracy") : "-";
		const char *pct = *json_str(config, "throughput.target_pct") ? json_str(config, "throughput.target_pct") : "-";
		char *acc = cJSON_IsTrue(cJSON_GetObjectItem(v, "accuracy_scales_differ"))
		                ? xasprintf(_("accuracy on different scales, a percentage against a fraction: no drop can be judged "
		                              "(accepted %s)"),
		                            tol)
		            : cJSON_IsNumber(cJSON_GetObjectItem(v, "accuracy_drop"))
		                ? xasprintf(_("accuracy drop %.4g (accepted %s)"), json_num(v, "accuracy_drop"), tol)
		                : xasprintf(_("accuracy not measured on both sides (accepted drop %s)"), tol);
		char *tp = cJSON_IsNumber(cJSON_GetObjectItem(v, "throughput_pct"))
		               ? xasprintf(_("throughput %.0f %% of the GPU (target %s)"), json_num(v, "throughput_pct"), pct)
		               : xasprintf(_("throughput not measured on both sides (target %s)"), pct);
		/* each criterion set with its own verdict, so one measured beside one that was not
		 * shows which is which */
		char **part[CRITERIA] = { &acc, &tp };
		const cJSON *c;
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(v, "criteria")) {
			for (int k = 0; k < CRITERIA; k++) {
				if (strcmp(json_str(c, "key"), bench_criteria[k]) != 0)
					continue;
				char *word = verdict_word(json_str(c, "verdict"));
				/* TRANSLATORS: what a criterion measured, then its verdict (PASS, FAIL, NOT PERFORMED) */
				char *with = xasprintf(_("%s: %s"), *part[k], word);
				free(word);
				free(*part[k]);
				*part[k] = with;
			}
		}
		cells[2] = xasprintf(_("%s, %s"), acc, tp);
		free(acc);
		free(tp);
	}
	/* what one side holds and the other lacks (tensors, or logged steps) was never compared */
	if ((strcmp(kind, "dump") == 0 || strcmp(kind, "loss") == 0) && (json_int(v, "only_a") || json_int(v, "only_b"))) {
		char *with = strcmp(kind, "dump") == 0
		                 ? xasprintf(_("%s; %lld only in A, %lld only in B"), cells[2], json_int(v, "only_a"), json_int(v, "only_b"))
		                 : xasprintf(_("%s; %lld steps only in A, %lld only in B"), cells[2], json_int(v, "only_a"),
		                             json_int(v, "only_b"));
		free(cells[2]);
		cells[2] = with;
	}
	if (strcmp(kind, "dump") == 0) { /* what the verdict was judged by, to audit it against */
		dump_threshold th;
		compare_event_threshold(&th, v);
		char rule[300];
		/* TRANSLATORS: a dump verdict; then what it was judged by */
		char *with = xasprintf(_("%s; %s"), cells[2], dump_threshold_text(rule, sizeof rule, &th, (size_t)json_num(v, "by_statistics"),
		                                                             (size_t)json_num(v, "pairs")));
		free(cells[2]);
		cells[2] = with;
	}
	if (*json_str(v, "column")) {
		char *with = xasprintf(_("%s; from column %s"), cells[2], json_str(v, "column"));
		free(cells[2]);
		cells[2] = with;
	}
	/* what the record says since: a tighter tolerance agreed after a pass (judge_loss_now),
	 * a newer comparison of other data that leaves this failure standing
	 * (review_comparisons); and a comparison of one run with itself, which proves nothing */
	if (cJSON_IsNumber(cJSON_GetObjectItem(v, "tolerance_now"))) {
		char *with = xasprintf(_("%s; passed when compared, but over tolerance.loss %.3g %%, agreed since: not met"),
		                       cells[2], json_num(v, "tolerance_now") * 100);
		free(cells[2]);
		cells[2] = with;
	}
	if (cJSON_IsTrue(cJSON_GetObjectItem(v, "same_input"))) {
		char *with = xasprintf(_("%s; A and B are the same data: this says nothing about the NPU"), cells[2]);
		free(cells[2]);
		cells[2] = with;
	}
	if (cJSON_GetObjectItem(v, "newer_event")) {
		char *with = xasprintf(_("%s; a newer comparison (audit event %lld) compared other data, so this one stands"),
		                       cells[2], json_int(v, "newer_event"));
		free(cells[2]);
		cells[2] = with;
	} else if (cJSON_GetObjectItem(v, "shorter_event")) {
		const char *by = json_str(v, "shorter_by");
		const char *fmt = strcmp(by, "last_step") == 0
		                      ? _("%s; a newer comparison of the same runs (audit event %lld) reached step %lld only, this one step %lld, so this one stands")
		                  : strcmp(by, "pairs") == 0
		                      ? _("%s; a newer comparison of the same runs (audit event %lld) compared %lld tensor pairs only, this one %lld, so this one stands")
		                      : _("%s; a newer comparison of the same runs (audit event %lld) compared %lld aligned steps only, this one %lld, so this one stands");
		char *with = xasprintf(fmt, cells[2], json_int(v, "shorter_event"), json_int(v, "shorter_reach"), json_int(v, "reach"));
		free(cells[2]);
		cells[2] = with;
	}
	sbuf in;
	sbuf_init(&in);
	/* a profile verdict's inputs are all the profiles; a comparison's its two sides */
	const cJSON *profiles = cJSON_GetObjectItem(v, "profiles");
	static const char *const sides[] = { "a", "b", "b_throughput" };
	size_t nin = cJSON_IsArray(profiles) ? (size_t)cJSON_GetArraySize(profiles) : sizeof sides / sizeof *sides;
	for (size_t i = 0; i < nin; i++) {
		const cJSON *side = cJSON_IsArray(profiles) ? cJSON_GetArrayItem(profiles, (int)i) : cJSON_GetObjectItem(v, sides[i]);
		if (!cJSON_IsObject(side))
			continue;
		const char *label = *json_str(side, "shown")   ? json_str(side, "shown") /* a comparison's input */
		                    : *json_str(side, "label") ? json_str(side, "label")
		                                               : json_str(side, "arg");
		if (in.len)
			sbuf_adds(&in, " / ");
		if (json_int(side, "artifact") > 0)
			sbuf_addf(&in, _("%s (artifact %lld, sha256 %s)"), label, json_int(side, "artifact"), json_str(side, "sha256"));
		else
			sbuf_addf(&in, "%s (sha256 %s)", label, json_str(side, "sha256"));
	}
	cells[3] = sbuf_detach(&in);
	sbuf_done(&in);
	return 1;
}

static const char *const verdict_kinds[] = { "loss", "dump", "profile", "bench", "bench_inference", NULL };

static void m_environment(cJSON *d, const cJSON *doc)
{
	const cJSON *env = cJSON_GetObjectItem(doc, "environment"), *base = cJSON_GetObjectItem(doc, "gpu_baseline");
	cJSON *sec = rdoc_section(d, "environment", _("Environment"));
	if (!cJSON_IsObject(env)) {
		rdoc_para_text(sec, NULL,
		               _("No environment probe has been ingested (run the script of `ferry probe-script` on the NPU "
		                 "host, then `ferry ingest env-probe FILE`)."));
	} else if (*json_str(env, "error")) {
		rdoc_textf(rdoc_para(sec, NULL), _("Probe artifact %lld cannot be read or parsed."), json_int(env, "artifact"));
	} else {
		rdoc_textf(rdoc_para(sec, NULL), _("From the probe artifact %lld (collected %s):"), json_int(env, "artifact"),
		           json_str(env, "collected_at"));
		cJSON *kv = rdoc_kv(sec);
		static const char *const keys[] = { "hostname", "os", "arch", "python", "torch", "torch_npu", "cann", "driver", NULL };
		for (size_t k = 0; keys[k]; k++)
			rdoc_kv_row(kv, env_label(keys[k]), json_str(env, keys[k]));
		char *count = xasprintf("%d", cJSON_GetArraySize(cJSON_GetObjectItem(env, "chips")));
		rdoc_kv_row(kv, _("NPUs"), count);
		free(count);
		const cJSON *c;
		cJSON_ArrayForEach(c, cJSON_GetObjectItem(env, "chips")) {
			char *label = xasprintf("NPU %lld", json_int(c, "id"));
			char *t = xasprintf(_("%s, %s, %.0f MB"), json_str(c, "name"), json_str(c, "health"), json_num(c, "memory_mb"));
			rdoc_kv_row(kv, label, t);
			free(label);
			free(t);
		}
	}
	cJSON *bs = rdoc_section(sec, "baseline", _("GPU baseline"));
	if (!cJSON_IsObject(base)) {
		rdoc_para_text(bs, NULL, _("Not recorded: ingest a `ferry-bench/1` document with `ferry ingest bench FILE --label gpu`."));
	} else if (*json_str(base, "error")) {
		rdoc_textf(rdoc_para(bs, NULL), _("Benchmark artifact %lld cannot be read or parsed."), json_int(base, "artifact"));
	} else {
		sbuf m;
		sbuf_init(&m);
		const cJSON *x;
		cJSON_ArrayForEach(x, cJSON_GetObjectItem(base, "metrics"))
			sbuf_addf(&m, _("; %s %g"), x->string, x->valuedouble);
		rdoc_textf(rdoc_para(bs, NULL), _("Artifact %lld: %s on %s, precision %s%s."), json_int(base, "artifact"),
		           json_str(base, "label"), json_str(base, "hardware"), json_str(base, "precision"), m.buf ? m.buf : "");
		sbuf_done(&m);
	}

	/* the tune and inference evidence: each verdict with its inputs' hashes, then the pictures */
	cJSON *vs = rdoc_section(sec, "verdicts", _("Verdicts"));
	const char *vhd[] = { _("Check"), _("Verdict"), _("Measured"), _("Inputs"), NULL };
	cJSON *t = rdoc_table(vs, vhd);
	for (size_t k = 0; verdict_kinds[k]; k++) {
		char *cells[4];
		if (!verdict_cells(cells, doc, verdict_kinds[k]))
			continue;
		cJSON *r = rdoc_row(t);
		for (int i = 0; i < 4; i++) {
			rdoc_cell_text(r, cells[i]);
			free(cells[i]);
		}
	}
	const cJSON *charts = cJSON_GetObjectItem(doc, "charts");
	if (cJSON_GetObjectItem(charts, "loss"))
		fig_loss(vs, cJSON_GetObjectItem(charts, "loss"));
	if (cJSON_GetObjectItem(charts, "dump"))
		fig_dump(vs, cJSON_GetObjectItem(charts, "dump"));
	if (cJSON_GetObjectItem(charts, "profile"))
		fig_profile(vs, cJSON_GetObjectItem(charts, "profile"));

	cJSON *as = rdoc_section(sec, "artifacts", _("Artifacts"));
	const cJSON *a, *arts = cJSON_GetObjectItem(doc, "artifacts");
	if (!cJSON_GetArraySize(arts)) {
		rdoc_para_text(as, NULL, _("None ingested."));
		return;
	}
	const char *hd[] = { "#", _("Kind"), _("Label"), "SHA-256", _("Ingested"), NULL };
	t = rdoc_table(as, hd);
	cJSON_ArrayForEach(a, arts) {
		cJSON *r = rdoc_row(t);
		rdoc_textf(rdoc_cell(r), "%lld", json_int(a, "id"));
		rdoc_cell_text(r, json_str(a, "kind"));
		rdoc_cell_text(r, json_str(a, "label"));
		rdoc_code(rdoc_cell(r), json_str(a, "sha256"));
		rdoc_cell_text(r, json_str(a, "ingested_at"));
	}
}

static void m_audit(cJSON *d, const cJSON *doc)
{
	const cJSON *au = cJSON_GetObjectItem(doc, "audit"), *hi = cJSON_GetObjectItem(doc, "history");
	cJSON *sec = rdoc_section(d, "audit", _("Audit record"));
	cJSON *kv = rdoc_kv(sec);
	char *events = xasprintf("%lld", json_int(au, "events")), *cps = xasprintf("%lld", json_int(hi, "checkpoints"));
	rdoc_kv_row(kv, _("Audit chain head"), json_str(au, "head"));
	rdoc_kv_row(kv, _("Events"), events);
	rdoc_kv_row(kv, _("Baseline commit"), json_str(hi, "baseline"));
	rdoc_kv_row(kv, _("Head commit"), json_str(hi, "head"));
	rdoc_kv_row(kv, _("Checkpoints"), cps);
	free(events);
	free(cps);
	rdoc_textf(rdoc_para(sec, NULL),
	           _("To check that the record was not altered, run `%s` in the project directory: it recomputes the hash "
	             "chain and checks every checkpoint commit."),
	           json_str(au, "verify"));
}

/* The report as a document, in the current language. */
static rdoc *model(const cJSON *doc, int parts)
{
	const cJSON *eng = cJSON_GetObjectItem(doc, "engagement");
	const char *project = *json_str(eng, "project") ? json_str(eng, "project") : json_str(eng, "engagement_id");
	char *title = xasprintf(_("Migration assessment: %s"), project);
	rdoc *d = rdoc_new(intl_zh() ? "zh-CN" : "en", title);
	free(title);
	const char *version = json_str(doc, "ferry_version");
	char *tool = *version ? xasprintf("ferry %s", version) : xstrdup("ferry");
	rdoc_cover_row(d, _("Client"), json_str(eng, "client"));
	rdoc_cover_row(d, _("Project"), json_str(eng, "project"));
	rdoc_cover_row(d, _("Engagement ID"), json_str(eng, "engagement_id"));
	rdoc_cover_row(d, _("Target"), json_str(eng, "target_soc"));
	rdoc_cover_row(d, _("Date"), json_str(doc, "generated_at"));
	rdoc_cover_row(d, _("Prepared by"), json_str(doc, "generated_by"));
	rdoc_cover_row(d, _("Tool"), tool);
	rdoc_cover_row(d, _("Audit chain head"), json_str(cJSON_GetObjectItem(doc, "audit"), "head"));
	if (parts & PART_SUMMARY) {
		m_summary(d, doc);
		m_phases(d, doc);
		m_findings(d, doc);
	}
	if (parts & PART_CHANGES)
		m_changes(d, doc);
	if (parts & PART_UNSUPPORTED)
		m_unsupported(d, doc);
	if (parts & PART_SUMMARY) {
		m_environment(d, doc);
		m_audit(d, doc);
	}
	char *footer = xasprintf(_("Generated by %s on %s."), tool, json_str(doc, "generated_at"));
	rdoc_footer(d, footer);
	free(footer);
	free(tool);
	return d;
}

/* The deliverable's stylesheet: screen, and A4 print with page numbers, a cover page and
 * headings kept with what follows. Fonts: Latin faces first, then the Simplified Chinese
 * faces of Linux (Noto / Source Han, as fonts-noto-cjk installs them), Windows and macOS;
 * all local, nothing is fetched. */
static const char html_css[] =
	":root{--fg:#1c2230;--muted:#5d6675;--line:#dde2ea;--soft:#f4f6fa;--accent:#1d5bb8}"
	"*{box-sizing:border-box}"
	"body{margin:0;background:#fff;color:var(--fg);font:15px/1.55 'Noto Sans','Noto Sans CJK SC','Source Han Sans SC',"
	"'Microsoft YaHei','PingFang SC','Hiragino Sans GB','WenQuanYi Micro Hei',sans-serif}"
	"main{max-width:62rem;margin:0 auto;padding:2rem 1.5rem 4rem}"
	"h1{font-family:'Noto Serif CJK SC','Noto Sans CJK SC','Source Han Sans SC','Microsoft YaHei','PingFang SC',serif;"
	"font-size:1.9rem;line-height:1.25;margin:0 0 1rem}"
	"h2{font-size:1.3rem;margin:2.5rem 0 .75rem;padding-bottom:.3rem;border-bottom:2px solid var(--line)}"
	"h3{font-size:1.08rem;margin:1.75rem 0 .5rem}"
	"h4{font-size:.95rem;margin:1.1rem 0 .4rem;color:var(--muted);letter-spacing:.04em}"
	"h1,h2,h3,h4{break-after:avoid;page-break-after:avoid}"
	"p{margin:.5rem 0}"
	"table{width:100%;border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}"
	"th,td{padding:.4rem .55rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top;"
	"overflow-wrap:anywhere}"
	"th{background:var(--soft);font-weight:600}"
	"td.num{text-align:right;font-variant-numeric:tabular-nums}"
	"table.meta td:first-child{width:11rem;color:var(--muted)}"
	"code,.loc{font-family:'Noto Sans Mono','Noto Sans Mono CJK SC',ui-monospace,Menlo,Consolas,'Liberation Mono',"
	"'Microsoft YaHei',monospace;font-size:.86em}"
	"code{background:var(--soft);padding:.05rem .3rem;border-radius:3px;overflow-wrap:anywhere}"
	".loc{white-space:nowrap}"
	".cover{border-bottom:3px solid var(--accent);padding-bottom:1rem;margin-bottom:1.5rem}"
	".subtitle{color:var(--muted)}"
	"nav.contents ol{padding-left:1.4rem}nav.contents a{color:var(--fg);text-decoration:none}"
	".cards{display:flex;flex-wrap:wrap;gap:1rem;margin:1rem 0}"
	".card{flex:1 1 13rem;border:1px solid var(--line);border-radius:10px;padding:.8rem 1rem}"
	".card .label{color:var(--muted);font-size:.8rem;letter-spacing:.05em}"
	".card .big{font-size:1.6rem;font-weight:700;line-height:1.3}"
	".formula{color:var(--muted);font-size:.88rem}"
	".badge{display:inline-block;padding:.05rem .5rem;border-radius:999px;font-size:.72rem;font-weight:700;"
	"letter-spacing:.04em;white-space:nowrap}"
	".sev-error{background:#fde3e1;color:#9f1111}.sev-warning{background:#fff0c7;color:#6f4a00}"
	".sev-info{background:#e2ecfb;color:#1c4d96}"
	".st-open{background:#eef0f4;color:#394150}.st-waived{background:#efe6fb;color:#5b2a99}"
	".st-fixed{background:#dcf2e3;color:#17653a}"
	".op-insert{background:#dcf2e3;color:#17653a}.op-modify{background:#e2ecfb;color:#1c4d96}"
	".op-delete{background:#fde3e1;color:#9f1111}.op-unsupported{background:#fff0c7;color:#6f4a00}"
	".ph-signed-off{background:#dcf2e3;color:#17653a}.ph-blocked,.ph-reopened{background:#fde3e1;color:#9f1111}"
	".ph-in-progress{background:#fff0c7;color:#6f4a00}.ph-not-started{background:#eef0f4;color:#394150}"
	"ul.findings,ol.findings{padding-left:1.2rem;margin:0}"
	"ul.findings{list-style:none;padding:0}"
	".findings li{padding:.45rem 0;border-bottom:1px solid var(--line)}"
	".advice{color:var(--muted);margin-top:.15rem}"
	".ref{color:var(--muted);font-size:.82rem}"
	".muted{color:var(--muted)}"
	"figure{margin:1rem 0}figure svg{width:100%;height:auto;display:block}"
	"figcaption{color:var(--muted);font-size:.85rem;text-align:center}"
	"footer{margin-top:3rem;color:var(--muted);font-size:.8rem}"
	":lang(zh) body{line-height:1.7}:lang(zh) h4,:lang(zh) .badge,:lang(zh) .card .label{letter-spacing:0}"
	/* print: A4 pages numbered in the bottom margin box; the cover and the contents each
	 * take a page; headings stay with what follows; rows, items and figures are not split */
	"@page{size:A4;margin:18mm 16mm 20mm;"
	"@bottom-center{content:counter(page) ' / ' counter(pages);font-size:9pt;color:#5d6675}}"
	"@page:first{@bottom-center{content:none}}"
	"@media print{body{font-size:10pt}main{max-width:none;padding:0}"
	".cover{break-after:page;border:none;padding-top:60mm}.cover h1{font-size:24pt}"
	"nav.contents{break-after:page}"
	"tr,li,.card,figure,.cards{break-inside:avoid;page-break-inside:avoid}thead{display:table-header-group}"
	".badge{border:1px solid currentColor}a{color:inherit;text-decoration:none}"
	"th{background:none;border-bottom:2px solid #999}}";

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
		copy_item(out, "undone_by_hand", cJSON_GetObjectItem(doc, "undone_by_hand"));
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
	sbuf_adds(b, "id,phase,category,severity,status,plugin,file,line,col,end_line,end_col,message,suggestion,fixable,"
	             "waiver_reason,waiver_actor,waived_at,waiver_carried_from,settled_by,settled_status\r\n");
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
		sbuf_addf(b, ",%s,", cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")) ? "true" : "false");
		/* the waiver in force, as every other report shows it with the finding */
		const cJSON *w = cJSON_GetObjectItem(f, "waiver");
		sbuf_add_csv(b, json_str(w, "reason"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(w, "actor"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(w, "at"));
		if (json_int(w, "carried_from") > 0)
			sbuf_addf(b, ",%lld", json_int(w, "carried_from"));
		else
			sbuf_addc(b, ',');
		/* a survey finding a later phase's finding has since fixed or waived */
		const cJSON *s = cJSON_GetObjectItem(f, "settled_by");
		if (cJSON_IsObject(s))
			sbuf_addf(b, ",%lld,%s\r\n", json_int(s, "id"), json_str(s, "status"));
		else
			sbuf_adds(b, ",,\r\n");
	}
}

static int lang_valid(const char *name) { return name && (strcmp(name, "en") == 0 || strcmp(name, "zh") == 0); }

/* The language of the text formats: lang when given, else the engagement's "language"
 * setting as the document recorded it (English when unset). */
static int report_lang(int *zh, const cJSON *doc, const char *lang)
{
	if (!lang) {
		*zh = intl_is_zh(json_str(cJSON_GetObjectItem(doc, "config"), "language"));
		return 0;
	}
	if (!lang_valid(lang))
		return err_set(FERRY_EUSAGE, _("--lang %s: not one of en, zh"), lang);
	*zh = strcmp(lang, "zh") == 0;
	return 0;
}

/* Markdown or HTML in the report's language: the catalog is switched for the rendering
 * and switched back after it. */
static void render_text(sbuf *b, const cJSON *doc, int parts, int zh, int html)
{
	char was[8];
	snprintf(was, sizeof was, "%s", intl_lang());
	intl_set_lang(zh ? "zh" : "en");
	rdoc *d = model(doc, parts);
	if (html)
		rdoc_render_html(b, d, html_css);
	else
		rdoc_render_md(b, d);
	rdoc_free(d);
	intl_set_lang(was);
}

int report_render(sbuf *b, const cJSON *doc, const char *format, const char *section, const char *lang)
{
	int zh = 0, rc;
	if (section && !report_section_valid(section))
		return err_set(FERRY_EUSAGE, _("--section %s: not one of all, assessment, changes, unsupported"), section);
	if ((rc = report_lang(&zh, doc, lang)))
		return rc;
	int parts = section_parts(section);
	if (strcmp(format, "md") == 0 || strcmp(format, "html") == 0)
		render_text(b, doc, parts, zh, strcmp(format, "html") == 0);
	else if (strcmp(format, "json") == 0)
		json_render(b, doc, parts);
	else if (strcmp(format, "csv") == 0 && parts == PART_CHANGES)
		changes_csv(b, cJSON_GetObjectItem(doc, "changes"));
	else if (strcmp(format, "csv") == 0 && parts == PART_UNSUPPORTED)
		changes_csv(b, cJSON_GetObjectItem(doc, "unsupported"));
	else if (strcmp(format, "csv") == 0)
		csv_findings(b, cJSON_GetObjectItem(doc, "findings"));
	else
		return err_set(FERRY_EUSAGE, _("--format %s: not one of md, html, json, csv"), format);
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
	int pdf = o->format && strcmp(o->format, "pdf") == 0;
	if (!pdf && !report_format_valid(o->format))
		return err_set(FERRY_EUSAGE, _("--format %s: not one of md, html, pdf, json, sarif, csv"), o->format ? o->format : "");
	if (pdf && (!o->output || strcmp(o->output, "-") == 0))
		return err_set(FERRY_EUSAGE, _("--format pdf: needs --output FILE (a PDF is not written to standard output)"));
	if ((rc = ws_output_outside(ws, "report", o->output)))
		return rc;
	if (!report_section_valid(section))
		return err_set(FERRY_EUSAGE, _("--section %s: not one of all, assessment, changes, unsupported"), section);
	if (strcmp(o->format, "sarif") == 0 && strcmp(section, "changes") == 0)
		return err_set(FERRY_EUSAGE, _("--section changes: the change list has no SARIF form (use md, html, json or csv)"));
	if (o->lang && !lang_valid(o->lang))
		return err_set(FERRY_EUSAGE, _("--lang %s: not one of en, zh"), o->lang);
	int csv = strcmp(o->format, "csv") == 0;
	int msft = o->layout && strcmp(o->layout, "msft") == 0;
	if (o->layout && !msft && strcmp(o->layout, "ferry") != 0)
		return err_set(FERRY_EUSAGE, _("--layout %s: not one of ferry, msft"), o->layout);
	if (msft && (!csv || (strcmp(section, "changes") != 0 && strcmp(section, "unsupported") != 0)))
		return err_set(FERRY_EUSAGE, _("--layout msft: only for --format csv with --section changes or unsupported"));
	if (o->excel && !csv)
		return err_set(FERRY_EUSAGE, _("--excel: only for --format csv"));
	sbuf_init(&b);
	/* the language of a text report, set before the build: the store gives the findings'
	 * messages in the current language (JSON, SARIF and CSV keep the process's) */
	int text = strcmp(o->format, "md") == 0 || strcmp(o->format, "html") == 0 || pdf;
	char *setting = store_config_get(ws->db, "language");
	int zh = o->lang ? strcmp(o->lang, "zh") == 0 : setting && *setting ? intl_is_zh(setting) : intl_zh();
	free(setting);
	/* a Chinese deliverable that would come out in English is refused, not written */
	const char *missing = text && zh ? intl_zh_catalog() : NULL;
	if (missing) {
		rc = err_set(FERRY_ENOTFOUND, _("report: the Chinese catalog %s is missing, so the report would be in English; "
		                                "install ferry (`make install`) or set FERRY_LOCALEDIR to its locale folder"),
		             missing);
		goto out;
	}
	char was[8];
	snprintf(was, sizeof was, "%s", intl_lang());
	if (text)
		intl_set_lang(zh ? "zh" : "en");
	rc = report_build(&doc, ws, o->version);
	intl_set_lang(was);
	if (rc)
		goto out;
	const char *bom = json_str(cJSON_GetObjectItem(doc, "config"), "csv.bom");
	if (csv && (o->excel || strcmp(bom, "true") == 0))
		sbuf_adds(&b, CSV_UTF8_BOM);
	if (strcmp(o->format, "sarif") == 0)
		rc = sarif_render(&b, ws, doc, section, o->version);
	else if (msft)
		changes_csv_msft(&b, cJSON_GetObjectItem(doc, section), strcmp(section, "unsupported") == 0);
	else if (pdf) {
		sbuf page;
		sbuf_init(&page);
		if (!(rc = report_render(&page, doc, "html", section, zh ? "zh" : "en")))
			rc = pdfprint(&b, page.buf, page.len);
		sbuf_done(&page);
	} else
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
