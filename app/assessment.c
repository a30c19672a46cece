/* assessment — see assessment.h. */
#include "assessment.h"
#include "config.h"
#include "category.h"
#include "json.h"
#include "err.h"
#include "intl.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


/* Whether a category's presence conflicts with automatic migration (transfer_to_npu),
 * as plugins/data/categories.json marks it (torch.jit.script, channels_last). */
static int auto_conflict(const char *category)
{
	const category_info *c = category_find(category);
	return c && c->auto_conflict;
}

/* Whether finding f adds its category's weight to the effort: an info finding asks for no
 * change (a library supported as it is, a version note) and adds nothing, and findings of
 * one bucket naming the same unit of work (a library at each import and in the
 * requirements) add it once. units records the units counted so far. */
static int effort_counts(cJSON *units, const finding *f, const char *bucket)
{
	if (f->severity == SEVERITY_INFO)
		return 0;
	if (!f->unit)
		return 1;
	char *key = xasprintf("%s %s", bucket, f->unit);
	int first = !cJSON_GetObjectItemCaseSensitive(units, key);
	if (first)
		cJSON_AddTrueToObject(units, key);
	free(key);
	return first;
}

static double config_number(store *s, const char *key, double def)
{
	char *v = store_config_get(s, key);
	double d = def;
	if (v) {
		char *end = NULL;
		double x = strtod(v, &end);
		if (end && end != v && !*end && x >= 0)
			d = x;
	}
	free(v);
	return d;
}

/* Person-days per open finding of a category: effort.weight.<category> when set, else
 * the default of plugins/data/categories.json (0 for a category it does not list).
 * Fixable findings of any category count as "mechanical": ferry rewrites them. */
static double category_weight(store *s, const char *category)
{
	const category_info *c = category_find(category);
	double def = c ? c->weight_days : 0;
	char *key = xasprintf("effort.weight.%s", category);
	double d = config_number(s, key, def);
	free(key);
	return d;
}

/* A figure in person-days as documents show it, to a tenth, half up. The same days
 * summed in another order differ in their last bits (2.8500000000000005 against
 * 2.8499999999999996), which must not decide between 2.8 and 2.9: what is within a
 * millionth of a tenth of the half rounds up. */
static double tenths(double days)
{
	return floor(days * 10 + 0.5 + 1e-6) / 10;
}

/* The quote by service line (003 §2): each line's estimate is the weight of the open
 * findings whose category it takes (the base days go to the first line, the survey);
 * quote.days.<line> replaces a line's estimate with the days agreed, and quote.rate
 * prices them. {services[{name, estimate_days, agreed_days?, days, amount?}], days,
 * rate?, currency?, amount?}; days rounded to a tenth (tenths), each amount the days
 * shown times the rate, to the cent. */
static cJSON *quote_compute(store *s, const cJSON *weights, const cJSON *counts, double base)
{
	size_t n = 0;
	const service_info *all = service_all(&n);
	double *est = xcalloc(n ? n : 1, sizeof *est);
	if (n)
		est[0] = base;
	const cJSON *w;
	cJSON_ArrayForEach(w, weights) {
		const char *line = category_service(w->string);
		for (size_t i = 0; i < n; i++)
			if (strcmp(all[i].name, line) == 0)
				est[i] += w->valuedouble * json_num(counts, w->string);
	}
	char *currency = store_config_get(s, "quote.currency");
	double rate = config_number(s, "quote.rate", -1), total = 0; /* -1: no price set */
	cJSON *q = cJSON_CreateObject(), *lines = cJSON_AddArrayToObject(q, "services");
	for (size_t i = 0; i < n; i++) {
		cJSON *l = cJSON_CreateObject();
		cJSON_AddStringToObject(l, "name", all[i].name);
		cJSON_AddNumberToObject(l, "estimate_days", tenths(est[i]));
		char *key = xasprintf("quote.days.%s", all[i].name);
		double agreed = config_number(s, key, -1), days = agreed >= 0 ? agreed : est[i];
		free(key);
		if (agreed >= 0)
			cJSON_AddNumberToObject(l, "agreed_days", agreed);
		cJSON_AddNumberToObject(l, "days", tenths(days));
		if (rate >= 0)
			cJSON_AddNumberToObject(l, "amount", round(tenths(days) * rate * 100) / 100); /* the days shown, priced */
		total += days; /* rounded once, below: with nothing agreed it is the effort estimate */
		cJSON_AddItemToArray(lines, l);
	}
	cJSON_AddNumberToObject(q, "days", tenths(total));
	if (rate >= 0) {
		cJSON_AddNumberToObject(q, "rate", rate);
		cJSON_AddNumberToObject(q, "amount", round(tenths(total) * rate * 100) / 100);
	}
	if (currency)
		cJSON_AddStringToObject(q, "currency", currency);
	free(currency);
	free(est);
	return q;
}

/* 1 when ferry rewrites the finding's code: a fix here, or a later phase's check that
 * rewrites it automatically (the assess survey marks what adapt fixes). */
static int mechanical_fix(const finding *f)
{
	return f->fixable || f->automatic;
}

/* The category a finding counts under: "other" when it has none. */
static const char *category_of(const finding *f)
{
	return f->category && *f->category ? f->category : "other";
}

/* Score: 100 minus penalties: 10 per open error and 3 per warning without an automatic
 * fix, capped at 25 and 12 per category so one noisy rule cannot sink it; 0.25 per
 * fixable warning, 5 at most in all. */
static double penalty(finding_severity severity, int fixable)
{
	if (severity == SEVERITY_ERROR)
		return 10;
	if (severity == SEVERITY_WARNING)
		return fixable ? 0.25 : 3;
	return 0;
}

static const char *readiness_class(double score, int open_errors)
{
	if (score >= 85 && !open_errors)
		return "ready";
	if (score >= 65)
		return "ready with conditions";
	if (score >= 35)
		return "needs manual porting";
	return "blocked";
}

struct risk {
	const finding *f;
	double weight;
};

static int risk_cmp(const void *a, const void *b)
{
	const struct risk *x = a, *y = b;
	if (x->f->severity != y->f->severity)
		return (int)y->f->severity - (int)x->f->severity;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	return x->f->id < y->f->id ? -1 : x->f->id > y->f->id;
}

/* Whether a finding of the same piece of work as f (its category and unit) is among the
 * n listed already: a library imported in many files is one risk. */
static int unit_listed(const finding *const *listed, int n, const finding *f)
{
	if (!f->unit)
		return 0;
	for (int i = 0; i < n; i++)
		if (listed[i]->unit && !strcmp(listed[i]->unit, f->unit) && !strcmp(category_of(listed[i]), category_of(f)))
			return 1;
	return 0;
}

/* How many assess findings with a mechanical rewrite are fixed: sites the code no longer
 * has (0 when the store cannot say). */
static int mechanical_fixed(store *s)
{
	store_finding_filter fl = { "assess", "fixed", NULL, NULL, 0, 1 };
	finding *fixed = NULL;
	size_t n = 0;
	if (store_finding_list(&fixed, &n, s, &fl))
		return 0;
	int count = 0;
	for (size_t i = 0; i < n; i++)
		count += mechanical_fix(&fixed[i]);
	finding_list_free(fixed, n);
	return count;
}

static void add_id(cJSON *ids, const finding *f)
{
	cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)f->id));
}

const char *const assessment_reasons[REASON_COUNT] = {
	[REASON_MANUAL] = N_("Errors without an automatic fix (custom CUDA kernels, unsupported operators or GPU-only "
	                     "libraries) must be ported by hand first; the mechanical rewrites can then be applied with "
	                     "ferry fix."),
	[REASON_CONFLICT] = N_("Constructs that automatic migration (transfer_to_npu) disables or does not handle "
	                       "(torch.jit.script, channels_last) are present: rewrite the code explicitly with ferry fix, "
	                       "reviewing each change."),
	[REASON_AUTO] = N_("Many mechanical CUDA call sites and nothing that conflicts with automatic migration: "
	                   "`from torch_npu.contrib import transfer_to_npu` in the entry scripts is the fastest path."),
	[REASON_FEW] = N_("Few CUDA-specific sites and no blockers: rewrite them explicitly with ferry fix, so every "
	                  "change is visible in the history."),
	[REASON_APPLIED] = N_("The CUDA sites with a mechanical rewrite are fixed: keep to explicit rewrites (ferry fix), "
	                      "and port the findings still open by hand."),
};

static void add_strategy(cJSON *out, store *s, const finding *open, size_t nopen, const cJSON *counts,
                         int mechanical, int applied)
{
	cJSON *st = cJSON_AddObjectToObject(out, "strategy");
	cJSON *drivers = cJSON_CreateArray();
	const char *rec = "tool", *reason;
	/* errors that no rewrite fixes (custom kernels, unsupported operators, GPU-only libraries) */
	for (size_t i = 0; i < nopen; i++)
		if (open[i].severity == SEVERITY_ERROR && !mechanical_fix(&open[i]))
			add_id(drivers, &open[i]);
	if (cJSON_GetArraySize(drivers)) {
		rec = "manual";
		reason = assessment_reasons[REASON_MANUAL];
	} else {
		int conflict = 0;
		const cJSON *c;
		cJSON_ArrayForEach(c, counts)
			conflict |= auto_conflict(c->string);
		/* an info finding of such a category (scripting in test code) asks for no change */
		for (size_t i = 0; i < nopen; i++)
			if (auto_conflict(open[i].category) && open[i].severity != SEVERITY_INFO)
				add_id(drivers, &open[i]);
		if (conflict) {
			rec = "tool";
			reason = assessment_reasons[REASON_CONFLICT];
		} else if (mechanical >= 50) {
			rec = "auto";
			reason = assessment_reasons[REASON_AUTO];
			for (size_t i = 0; i < nopen; i++)
				if (mechanical_fix(&open[i]) && cJSON_GetArraySize(drivers) < 10)
					add_id(drivers, &open[i]);
		} else {
			rec = "tool";
			reason = assessment_reasons[applied ? REASON_APPLIED : REASON_FEW];
			for (size_t i = 0; i < nopen; i++)
				if (mechanical_fix(&open[i]) && cJSON_GetArraySize(drivers) < 10)
					add_id(drivers, &open[i]);
		}
	}
	cJSON_AddStringToObject(st, "recommended", rec);
	char *chosen = store_config_get(s, "strategy");
	if (chosen)
		cJSON_AddStringToObject(st, "chosen", chosen);
	else
		cJSON_AddNullToObject(st, "chosen");
	free(chosen);
	cJSON_AddStringToObject(st, "reason", reason);
	cJSON_AddItemToObject(st, "drivers", drivers);
}

int assessment_compute(cJSON **out, store *s)
{
	*out = NULL;
	cJSON *phases = NULL;
	int rc = store_phases(&phases, s);
	if (rc)
		return rc;
	cJSON *res = cJSON_CreateObject();
	const cJSON *assess = cJSON_GetArrayItem(phases, 0);
	int ran = assess && cJSON_GetObjectItem(assess, "runs")->valuedouble > 0;
	cJSON_AddBoolToObject(res, "ran", ran);
	cJSON_Delete(phases);
	if (!ran) {
		*out = res;
		return 0;
	}
	store_finding_filter fl = { "assess", "open", NULL, NULL, 0, 1 };
	finding *all = NULL;
	size_t nall = 0;
	if ((rc = store_finding_list(&all, &nall, s, &fl))) {
		cJSON_Delete(res);
		return rc;
	}
	/* the engagement as it is now: what a later phase fixed or waived no longer counts */
	finding *rows = xcalloc(nall ? nall : 1, sizeof *rows); /* borrowed from all */
	size_t n = 0;
	for (size_t i = 0; i < nall; i++)
		if (!all[i].settled.finding)
			rows[n++] = all[i];
	cJSON_AddNumberToObject(res, "settled_later", (double)(nall - n));
	int applied = mechanical_fixed(s);
	cJSON *counts = cJSON_CreateObject(), *weights = cJSON_CreateObject();
	double base = config_number(s, "effort.base_days", config_builtin_default("effort.base_days")), days = base, score = 100;
	int mechanical = 0, open_errors = 0, nrisks = 0;
	cJSON *caps = cJSON_CreateObject(); /* category → penalty so far */
	cJSON *units = cJSON_CreateObject(); /* "bucket unit" → true: units counted so far */
	double fix_penalty = 0;
	struct risk *risks = xcalloc(n ? n : 1, sizeof *risks);
	for (size_t i = 0; i < n; i++) {
		const finding *f = &rows[i];
		const char *cat = category_of(f);
		int fixable = mechanical_fix(f);
		const char *bucket = fixable ? "mechanical" : cat;
		const cJSON *known = cJSON_GetObjectItem(weights, bucket); /* one settings lookup per category */
		double w = known ? known->valuedouble : category_weight(s, bucket);
		if (effort_counts(units, f, bucket)) {
			if (!known)
				cJSON_AddNumberToObject(weights, bucket, w);
			cJSON *c = cJSON_GetObjectItem(counts, bucket);
			if (c)
				cJSON_SetNumberValue(c, c->valuedouble + 1);
			else
				cJSON_AddNumberToObject(counts, bucket, 1);
			days += w;
		}
		mechanical += fixable;
		open_errors += f->severity == SEVERITY_ERROR;
		double p = penalty(f->severity, fixable);
		if (fixable) {
			double take = fix_penalty + p > 5 ? fmax(0, 5 - fix_penalty) : p;
			fix_penalty += take;
			score -= take;
		} else if (p > 0) {
			cJSON *cap = cJSON_GetObjectItem(caps, cat);
			double used = cap ? cap->valuedouble : 0, limit = f->severity == SEVERITY_ERROR ? 25 : 12;
			double take = used + p > limit ? fmax(0, limit - used) : p;
			if (cap)
				cJSON_SetNumberValue(cap, used + take);
			else
				cJSON_AddNumberToObject(caps, cat, take);
			score -= take;
		}
		if (!fixable && f->severity != SEVERITY_INFO)
			risks[nrisks++] = (struct risk){ f, w };
	}
	cJSON_Delete(caps);
	cJSON_Delete(units);
	if (score < 0)
		score = 0;
	score = round(score);
	cJSON_AddNumberToObject(res, "score", score);
	cJSON_AddStringToObject(res, "class", readiness_class(score, open_errors));
	cJSON_AddNumberToObject(res, "effort_days", tenths(days));
	cJSON_AddNumberToObject(res, "base_days", base);
	cJSON_AddItemToObject(res, "weights", weights);
	cJSON_AddNumberToObject(res, "mechanical", mechanical);
	cJSON_AddNumberToObject(res, "open_errors", open_errors);
	qsort(risks, (size_t)nrisks, sizeof *risks, risk_cmp);
	cJSON *top = cJSON_AddArrayToObject(res, "top_risks");
	const finding *listed[5];
	int nlisted = 0;
	for (int i = 0; i < nrisks && nlisted < 5; i++) {
		const finding *f = risks[i].f;
		if (unit_listed(listed, nlisted, f))
			continue;
		listed[nlisted++] = f;
		cJSON *r = cJSON_CreateObject();
		cJSON_AddNumberToObject(r, "id", (double)f->id);
		cJSON_AddStringToObject(r, "plugin", f->plugin ? f->plugin : "");
		cJSON_AddStringToObject(r, "category", f->category ? f->category : "");
		cJSON_AddStringToObject(r, "severity", severity_name(f->severity));
		cJSON_AddStringToObject(r, "file", f->file ? f->file : "");
		cJSON_AddNumberToObject(r, "line", f->line);
		cJSON_AddStringToObject(r, "message", f->message ? f->message : "");
		cJSON_AddNumberToObject(r, "weight", risks[i].weight);
		cJSON_AddItemToArray(top, r);
	}
	free(risks);
	add_strategy(res, s, rows, n, counts, mechanical, applied);
	cJSON_AddItemToObject(res, "quote", quote_compute(s, weights, counts, base));
	cJSON_AddItemToObject(res, "counts", counts);
	char *formula = assessment_formula(res, 1);
	cJSON_AddStringToObject(res, "formula", formula);
	free(formula);
	free(rows);
	finding_list_free(all, nall);
	*out = res;
	return 0;
}

char *assessment_formula(const cJSON *as, int english)
{
	static const char *const form = N_("effort = base %.2g%s = %.1f person-days");
	const cJSON *weights = cJSON_GetObjectItem(as, "weights"), *c;
	sbuf terms;
	sbuf_init(&terms);
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(as, "counts")) {
		const cJSON *w = cJSON_GetObjectItem(weights, c->string);
		if (cJSON_IsNumber(w) && w->valuedouble > 0)
			sbuf_addf(&terms, " + %.3g × %d %s", w->valuedouble, (int)c->valuedouble,
			          english ? c->string : category_title(c->string));
	}
	const cJSON *base = cJSON_GetObjectItem(as, "base_days"), *days = cJSON_GetObjectItem(as, "effort_days");
	char *text = xasprintf(english ? form : _(form), cJSON_IsNumber(base) ? base->valuedouble : 0,
	                       terms.buf, cJSON_IsNumber(days) ? days->valuedouble : 0);
	sbuf_done(&terms);
	return text;
}
