/* dump_render — see dump_render.h. */
#include "dump_render.h"
#include "intl.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[] = { "tensor", "statistics", "unmatched" };

/* How bad a pair is within its verdict: 1 − cosine (an undefined cosine worst), or the
 * largest relative statistic difference. */
static double badness(const dump_pair *p)
{
	double v;
	if (p->mode == DUMP_REAL)
		v = isnan(p->m.cosine) ? 3.0 : 1.0 - p->m.cosine;
	else if (p->mode == DUMP_STATS) {
		v = 0;
		for (int k = 0; k < 4; k++)
			if (!isnan(p->stat_rel[k]) && p->stat_rel[k] > v)
				v = p->stat_rel[k];
	} else
		v = 0;
	return v;
}

/* Worst first: failing pairs before passing ones, then the badness within each. */
static int cmp_worst(const void *x, const void *y, void *payload)
{
	const dump_pair *pairs = payload;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	if (pairs[a].pass != pairs[b].pass)
		return pairs[a].pass ? 1 : -1;
	double ba = badness(&pairs[a]), bb = badness(&pairs[b]);
	if (ba != bb)
		return ba > bb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Indices of the pairs of a mode, worst first (caller frees). */
static size_t *worst(size_t *n, const dump_result *r, int mode)
{
	size_t *idx = xmalloc((r->n ? r->n : 1) * sizeof *idx);
	*n = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->pairs[i].mode == mode)
			idx[(*n)++] = i;
	qsort_r(idx, *n, sizeof *idx, cmp_worst, r->pairs);
	return idx;
}

static void fmt_num(char *out, size_t size, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(out, size, "n/a");
	else
		snprintf(out, size, fmt, v);
}

#define SHOW_WORST 10

const char *dump_unjudged_reason(char *buf, size_t size, const dump_result *r)
{
	if (r->n && r->nempty == r->n && !r->incomplete) {
		snprintf(buf, size,
		         P_("its %zu tensor pair holds no finite element (empty, or ±inf on both sides): nothing was compared, "
		            "so nothing vouches for B",
		            "its %zu tensor pairs hold no finite element (empty, or ±inf on both sides): nothing was compared, "
		            "so nothing vouches for B",
		            r->n),
		         r->n);
		return buf;
	}
	if (r->coverage >= DUMP_MIN_COVERAGE && r->unchecked) {
		snprintf(buf, size,
		         _("B lacks %zu of A's tensors that no compared pair comes after or is computed from, first %s: a "
		           "divergence there would not show"),
		         r->unchecked, r->first_unchecked ? r->first_unchecked : "?");
		return buf;
	}
	snprintf(buf, size,
	         _("B holds %zu of A's %zu tensors (%.0f%%): its run stopped early or dumped another scope, so the "
	           "missing ones were never compared"),
	         r->n, r->n + r->only_a, r->coverage * 100.0);
	return buf;
}

/* A passing tensor pair to double-check for its values: ±inf on both sides at the same
 * places, or nothing to compare (a dtype dump.json contradicts has lines of its own). */
static int values_to_check(const dump_pair *p)
{
	return p->mode == DUMP_REAL && p->pass && p->warn && (p->m.nonfinite_a || !dump_pair_compares(p));
}

/* The tensor pairs that passed with their values to double-check; the first SHOW_WORST,
 * in execution order. */
static void render_tensor_warnings(sbuf *out, const dump_result *r)
{
	size_t n = 0, shown = 0;
	for (size_t i = 0; i < r->n; i++)
		n += values_to_check(&r->pairs[i]);
	if (!n)
		return;
	sbuf_addf(out, P_("%zu tensor pair to double-check:\n", "%zu tensor pairs to double-check:\n", n), n);
	for (size_t i = 0; i < r->n && shown < SHOW_WORST; i++) {
		const dump_pair *p = &r->pairs[i];
		if (!values_to_check(p))
			continue;
		if (dump_pair_compares(p))
			sbuf_addf(out, P_("  %s — ±inf on both sides at the same %llu place (as an attention mask holds): the finite "
			                  "elements were judged; msprobe's rule reads such a pair as N/A\n",
			                  "  %s — ±inf on both sides at the same %llu places (as an attention mask holds): the finite "
			                  "elements were judged; msprobe's rule reads such a pair as N/A\n",
			                  (unsigned long)p->m.nonfinite_a),
			          p->name, p->m.nonfinite_a);
		else
			sbuf_addf(out, "  %s — %s\n", p->name, _(p->note));
		shown++;
	}
	sbuf_adds(out, "\n");
}

/* One side's dtype contradiction of a pair, "  NAME — A: dump.json says X, the file holds
 * Y\n", or nothing when that side's record agrees with its file. */
static void render_stated_dtype(sbuf *out, const dump_pair *p, int b)
{
	const char *stated = b ? p->dtype_json_b : p->dtype_json_a, *held = b ? p->dtype_held_b : p->dtype_held_a;
	if (*stated)
		/* TRANSLATORS: a tensor's name, A or B, the dtype dump.json states, the file's */
		sbuf_addf(out, _("  %s — %s: dump.json says %s, the file holds %s\n"), p->name, b ? "B" : "A", stated, held);
}

/* The pairs whose dump.json states a dtype its file contradicts; the first SHOW_WORST,
 * in execution order. */
static void render_stated_dtypes(sbuf *out, const dump_result *r)
{
	if (!r->ndtype)
		return;
	sbuf_addf(out,
	          P_("%zu tensor pair whose dump.json states another dtype than its file holds (the file's own dtype was "
	             "compared: dump.json's is read only for 2-byte integers holding bfloat16 bits):\n",
	             "%zu tensor pairs whose dump.json states another dtype than their files hold (the file's own dtype was "
	             "compared: dump.json's is read only for 2-byte integers holding bfloat16 bits):\n",
	             r->ndtype),
	          r->ndtype);
	size_t shown = 0;
	for (size_t i = 0; i < r->n && shown < SHOW_WORST; i++) {
		const dump_pair *p = &r->pairs[i];
		if (!p->dtype_json_a[0] && !p->dtype_json_b[0])
			continue;
		render_stated_dtype(out, p, 0);
		render_stated_dtype(out, p, 1);
		shown++;
	}
	sbuf_adds(out, "\n");
}

void dump_render_text(sbuf *out, const dump_result *r, const char *name_a, const char *name_b, const char *same)
{
	sbuf_adds(out, _("dump comparison (A: baseline, B: compared run)\n"));
	sbuf_addf(out, _("  A  %s  (%s, sha256 %.16s)\n"), name_a, r->form_a ? r->form_a : "", r->sha_a);
	sbuf_addf(out, _("  B  %s  (%s, sha256 %.16s)\n"), name_b, r->form_b ? r->form_b : "", r->sha_b);
	sbuf_addf(out, P_("  %zu tensor pair: %zu compared from tensor data, %zu from dump.json statistics, %zu not comparable (another shape or dtype)", "  %zu tensor pairs: %zu compared from tensor data, %zu from dump.json statistics, %zu not comparable (another shape or dtype)", r->n),
	          r->n, r->nreal, r->nstats, r->nunmatched);
	if (r->only_a || r->only_b)
		sbuf_addf(out, _("; %zu only in A, %zu only in B"), r->only_a, r->only_b);
	sbuf_adds(out, "\n");
	if (r->nstats)
		sbuf_addf(out, P_("  tensors were not read for %zu pair: %s; compared Max, Min, Mean and Norm from dump.json\n", "  tensors were not read for %zu pairs: %s; compared Max, Min, Mean and Norm from dump.json\n", r->nstats),
		          r->nstats, r->stats_reason ? r->stats_reason : "");
	sbuf_adds(out, "\n");
	if (r->first_fail >= 0) {
		const dump_pair *p = &r->pairs[r->first_fail];
		sbuf_addf(out, _("first diverging layer: %s\n  %s"), p->layer, p->name);
		char c[32], a[32];
		if (p->mode == DUMP_REAL) {
			fmt_num(c, sizeof c, "%.6f", p->m.cosine);
			fmt_num(a, sizeof a, "%.3e", p->m.max_abs);
			sbuf_addf(out, _(": cosine %s, max abs err %s"), c, a);
		}
		sbuf_addf(out, "%s%s\n\n", p->note ? " — " : "", p->note ? _(p->note) : "");
	} else if (r->n == r->nempty) {
		/* nothing compared: said with the verdict */
	} else if (r->n && r->th.agreed) {
		sbuf_addf(out, _("no diverging layer: every pair is within the thresholds agreed for the engagement (atol %g, rtol %g)\n\n"),
		          r->th.atol, r->th.rtol);
	} else if (r->n && r->nstats >= r->n) {
		sbuf_adds(out, _("no diverging layer found by dump.json statistics, which cannot show one the way tensor values "
		                 "do: dump the tensors (msprobe task \"tensor\") to judge them\n\n"));
	} else if (r->n) {
		sbuf_adds(out, _("no diverging layer: every pair is within msprobe's accuracy rules\n\n"));
	}
	size_t n;
	size_t *idx = worst(&n, r, DUMP_REAL);
	if (n) {
		sbuf_addf(out, _("%s tensor pairs, worst first:\n"), n > SHOW_WORST ? _("the 10 worst") : _("all"));
		sbuf_addf(out, "  %10s %12s %12s %8s %8s %-6s %s\n", _("cosine"), _("max abs err"), _("max rel err"), "<0.1%", "<0.5%",
		          _("result"), _("name"));
		for (size_t k = 0; k < n && k < SHOW_WORST; k++) {
			const dump_pair *p = &r->pairs[idx[k]];
			char c[32], a[32], rl[32], r1[32], r5[32];
			fmt_num(c, sizeof c, "%.6f", p->m.cosine);
			fmt_num(a, sizeof a, "%.3e", p->m.max_abs);
			fmt_num(rl, sizeof rl, "%.3e", p->m.max_rel);
			fmt_num(r1, sizeof r1, "%.2f%%", p->m.ratio_1e3 * 100.0);
			fmt_num(r5, sizeof r5, "%.2f%%", p->m.ratio_5e3 * 100.0);
			if (!dump_pair_compares(p))
				snprintf(c, sizeof c, "n/a"), snprintf(a, sizeof a, "n/a"), snprintf(rl, sizeof rl, "n/a"),
					snprintf(r1, sizeof r1, "n/a"), snprintf(r5, sizeof r5, "n/a");
			sbuf_addf(out, "  %10s %12s %12s %8s %8s %-6s %s\n", c, a, rl, r1, r5,
			          !p->pass ? _("FAIL") : p->warn ? _("warn") : _("pass"), p->name);
		}
		sbuf_adds(out, "\n");
	}
	free(idx);
	idx = worst(&n, r, DUMP_STATS);
	if (n) {
		sbuf_addf(out, _("%s pairs compared by statistics, worst first (relative differences):\n"),
		          n > SHOW_WORST ? _("the 10 worst") : _("all"));
		sbuf_addf(out, "  %10s %10s %10s %10s %-6s %s\n", "Max", "Min", "Mean", "Norm", _("result"), _("name"));
		for (size_t k = 0; k < n && k < SHOW_WORST; k++) {
			const dump_pair *p = &r->pairs[idx[k]];
			char v[4][32];
			for (int s = 0; s < 4; s++)
				fmt_num(v[s], sizeof v[s], "%.2f%%", p->stat_rel[s] * 100.0);
			sbuf_addf(out, "  %10s %10s %10s %10s %-6s %s\n", v[0], v[1], v[2], v[3],
			          !p->pass ? _("FAIL") : p->warn ? _("warn") : _("pass"), p->name);
		}
		sbuf_adds(out, "\n");
	}
	free(idx);
	if (r->nunmatched) {
		sbuf_addf(out, _("pairs not compared (%zu):\n"), r->nunmatched);
		size_t shown = 0;
		for (size_t i = 0; i < r->n && shown < SHOW_WORST; i++)
			if (r->pairs[i].mode == DUMP_UNMATCHED) {
				sbuf_addf(out, "  %s: A %s, B %s — %s\n", r->pairs[i].name, r->pairs[i].shape_a, r->pairs[i].shape_b,
				          r->pairs[i].note ? _(r->pairs[i].note) : "");
				shown++;
			}
		sbuf_adds(out, "\n");
	}
	if (!r->n)
		sbuf_adds(out, _("the two dumps share no tensor name: nothing to compare\n"));
	render_tensor_warnings(out, r);
	render_stated_dtypes(out, r);
	size_t nwarn_stats = 0;
	for (size_t i = 0; i < r->n; i++)
		nwarn_stats += r->pairs[i].mode == DUMP_STATS && r->pairs[i].pass && r->pairs[i].warn;
	if (nwarn_stats)
		sbuf_addf(out, P_("%zu pair to double-check: a statistic differs by more than 50%% of the greater of its two values (msprobe's Warning; compare the tensors to decide)\n", "%zu pairs to double-check: a statistic differs by more than 50%% of the greater of its two values (msprobe's Warning; compare the tensors to decide)\n", nwarn_stats),
		          nwarn_stats);
	if (r->incomplete || (r->n && r->nempty == r->n)) {
		char why[240];
		sbuf_addf(out, "%s\n", dump_unjudged_reason(why, sizeof why, r));
	}
	/* the same data on both sides passes and proves nothing: no PASS is shown for it */
	const char *word = !r->pass ? _("FAIL") : same ? _("PROVES NOTHING") : _("PASS");
	if (r->pass && same)
		sbuf_addf(out, "%s\n", same);
	if (r->th.agreed)
		sbuf_addf(out, _("verdict: %s (%zu of %zu pairs fail; thresholds agreed for the engagement: every element within "
		                 "atol %g + rtol %g × |A|; statistics more than 50%% apart are warnings)\n"),
		          word, r->nfailed, r->n, r->th.atol, r->th.rtol);
	else
		sbuf_addf(out, _("verdict: %s (%zu of %zu pairs fail; rules: cosine ≥ 0.99 or max abs err ≤ 0.001, cosine ≥ 0.9, "
	               "max abs err ≤ 1; statistics more than 50%% apart are warnings)\n"),
	          word, r->nfailed, r->n);
}

static void csv_num(sbuf *out, double v, int valid)
{
	sbuf_addc(out, ',');
	if (valid && !isnan(v))
		sbuf_addf(out, "%.9g", v);
}

void dump_render_csv(sbuf *out, const dump_result *r)
{
	sbuf_adds(out, "order,layer,name,mode,dtype_a,dtype_b,shape_a,shape_b,cosine,euc_dist,max_abs_err,max_rel_err,"
	               "one_thousandth_err_ratio,five_thousandths_err_ratio,nonfinite_a,nonfinite_b,max_rel_diff,"
	               "min_rel_diff,mean_rel_diff,norm_rel_diff,result,note,dtype_json_a,dtype_json_b\n");
	for (size_t i = 0; i < r->n; i++) {
		const dump_pair *p = &r->pairs[i];
		int real = p->mode == DUMP_REAL && dump_pair_compares(p), st = p->mode == DUMP_STATS;
		sbuf_addf(out, "%zu,", p->order);
		sbuf_add_csv(out, p->layer);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->name);
		sbuf_addf(out, ",%s,", mode_names[p->mode]);
		sbuf_add_csv(out, p->dtype_a);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->dtype_b);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->shape_a);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->shape_b);
		csv_num(out, p->m.cosine, real);
		csv_num(out, p->m.euc_dist, real);
		csv_num(out, p->m.max_abs, real);
		csv_num(out, p->m.max_rel, real);
		csv_num(out, p->m.ratio_1e3, real);
		csv_num(out, p->m.ratio_5e3, real);
		csv_num(out, (double)p->m.nonfinite_a, p->mode == DUMP_REAL);
		csv_num(out, (double)p->m.nonfinite_b, p->mode == DUMP_REAL);
		for (int k = 0; k < 4; k++)
			csv_num(out, p->stat_rel[k], st);
		sbuf_addf(out, ",%s,", !p->pass ? "fail" : p->warn ? "warning" : "pass");
		sbuf_add_csv(out, p->note ? p->note : "");
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->dtype_json_a);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->dtype_json_b);
		sbuf_addc(out, '\n');
	}
}

static void json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

/* key: text, or null for "" */
static void json_text_or_null(cJSON *o, const char *key, const char *text)
{
	if (*text)
		cJSON_AddStringToObject(o, key, text);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *pair_json(const dump_pair *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "layer", p->layer);
	cJSON_AddNumberToObject(o, "order", (double)p->order);
	cJSON_AddStringToObject(o, "mode", mode_names[p->mode]);
	cJSON_AddStringToObject(o, "dtype_a", p->dtype_a);
	cJSON_AddStringToObject(o, "dtype_b", p->dtype_b);
	json_text_or_null(o, "dtype_json_a", p->dtype_json_a);
	json_text_or_null(o, "dtype_json_b", p->dtype_json_b);
	cJSON_AddStringToObject(o, "shape_a", p->shape_a);
	cJSON_AddStringToObject(o, "shape_b", p->shape_b);
	if (p->mode == DUMP_REAL) {
		int some = dump_pair_compares(p); /* no finite element: no metric (null) */
		json_num(o, "cosine", some ? p->m.cosine : NAN);
		json_num(o, "euc_dist", some ? p->m.euc_dist : NAN);
		json_num(o, "max_abs_err", some ? p->m.max_abs : NAN);
		json_num(o, "max_rel_err", some ? p->m.max_rel : NAN);
		json_num(o, "one_thousandth_err_ratio", some ? p->m.ratio_1e3 : NAN);
		json_num(o, "five_thousandths_err_ratio", some ? p->m.ratio_5e3 : NAN);
		cJSON_AddNumberToObject(o, "elements", (double)p->m.count);
		cJSON_AddNumberToObject(o, "nonfinite_a", (double)p->m.nonfinite_a);
		cJSON_AddNumberToObject(o, "nonfinite_b", (double)p->m.nonfinite_b);
		cJSON_AddNumberToObject(o, "nonfinite_mismatch", (double)p->m.nonfinite_mismatch);
	} else if (p->mode == DUMP_STATS) {
		cJSON *sa = cJSON_AddObjectToObject(o, "stats_a"), *sb = cJSON_AddObjectToObject(o, "stats_b");
		cJSON *sr = cJSON_AddObjectToObject(o, "stats_rel_err");
		for (int k = 0; k < 4; k++) {
			json_num(sa, dump_stat_names[k], p->stat_a[k]);
			json_num(sb, dump_stat_names[k], p->stat_b[k]);
			json_num(sr, dump_stat_names[k], p->stat_rel[k]);
		}
	}
	cJSON_AddStringToObject(o, "result", !p->pass ? "fail" : p->warn ? "warning" : "pass");
	if (p->note)
		cJSON_AddStringToObject(o, "note", p->note);
	else
		cJSON_AddNullToObject(o, "note");
	return o;
}

const char *dump_threshold_text(char *buf, size_t size, const dump_threshold *th, size_t nstats, size_t npairs)
{
	if (th->agreed && nstats)
		snprintf(buf, size,
		         P_("judged by the thresholds agreed for the engagement: atol %g, rtol %g (%zu pair with only dump.json "
		            "statistics cannot pass them)",
		            "judged by the thresholds agreed for the engagement: atol %g, rtol %g (%zu pairs with only dump.json "
		            "statistics cannot pass them)",
		            nstats),
		         th->atol, th->rtol, nstats);
	else if (th->agreed)
		snprintf(buf, size, _("judged by the thresholds agreed for the engagement: atol %g, rtol %g"), th->atol, th->rtol);
	else if (nstats && nstats >= npairs)
		snprintf(buf, size, "%s",
		         /* xgettext:no-c-format */
		         _("judged by dump.json statistics alone (msprobe's statistics rule: Max, Min, Mean or Norm more than 50% "
		           "apart is a Warning); no tensor values were compared, so no cosine or max abs error vouches for them"));
	else if (nstats)
		snprintf(buf, size,
		         P_("judged by msprobe's rule (cosine and max abs error); %zu pair by dump.json statistics alone, where "
		            "more than 50%% apart is a Warning at most",
		            "judged by msprobe's rule (cosine and max abs error); %zu pairs by dump.json statistics alone, where "
		            "more than 50%% apart is a Warning at most",
		            nstats),
		         nstats);
	else
		snprintf(buf, size, "%s", _("judged by msprobe's rule (cosine and max abs error)"));
	return buf;
}

void dump_threshold_json(cJSON *parent, const dump_threshold *th)
{
	cJSON *t = cJSON_AddObjectToObject(parent, "threshold");
	cJSON_AddStringToObject(t, "rule", th->agreed ? "allclose" : "msprobe");
	if (th->agreed) {
		cJSON_AddNumberToObject(t, "atol", th->atol);
		cJSON_AddNumberToObject(t, "rtol", th->rtol);
	}
}

cJSON *dump_result_json(const dump_result *r, const cJSON *ina, const cJSON *inb)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "kind", "dump");
	cJSON *ja = ina ? cJSON_Duplicate(ina, 1) : cJSON_CreateObject();
	cJSON *jb = inb ? cJSON_Duplicate(inb, 1) : cJSON_CreateObject();
	cJSON_DeleteItemFromObject(ja, "sha256");
	cJSON_DeleteItemFromObject(jb, "sha256");
	cJSON_AddStringToObject(ja, "form", r->form_a ? r->form_a : "");
	cJSON_AddStringToObject(jb, "form", r->form_b ? r->form_b : "");
	cJSON_AddStringToObject(ja, "sha256", r->sha_a);
	cJSON_AddStringToObject(jb, "sha256", r->sha_b);
	cJSON_AddItemToObject(doc, "a", ja);
	cJSON_AddItemToObject(doc, "b", jb);
	dump_threshold_json(doc, &r->th);
	cJSON *s = cJSON_AddObjectToObject(doc, "summary");
	cJSON_AddNumberToObject(s, "pairs", (double)r->n);
	cJSON_AddNumberToObject(s, "tensor", (double)r->nreal);
	cJSON_AddNumberToObject(s, "statistics", (double)r->nstats);
	cJSON_AddNumberToObject(s, "unmatched", (double)r->nunmatched);
	cJSON_AddNumberToObject(s, "failed", (double)r->nfailed);
	cJSON_AddNumberToObject(s, "warnings", (double)r->nwarn);
	cJSON_AddNumberToObject(s, "dtype_conflicts", (double)r->ndtype);
	cJSON_AddNumberToObject(s, "only_a", (double)r->only_a);
	cJSON_AddNumberToObject(s, "only_b", (double)r->only_b);
	cJSON_AddNumberToObject(s, "coverage", r->coverage);
	cJSON_AddBoolToObject(s, "incomplete", r->incomplete);
	cJSON_AddNumberToObject(s, "unchecked", (double)r->unchecked);
	if (r->first_unchecked)
		cJSON_AddStringToObject(s, "first_unchecked", r->first_unchecked);
	else
		cJSON_AddNullToObject(s, "first_unchecked");
	cJSON_AddBoolToObject(s, "tensors_read", r->nstats == 0);
	if (r->stats_reason)
		cJSON_AddStringToObject(s, "tensors_not_read_because", r->stats_reason);
	if (r->first_fail >= 0) {
		const dump_pair *p = &r->pairs[r->first_fail];
		cJSON *f = cJSON_AddObjectToObject(doc, "first_diverging");
		cJSON_AddStringToObject(f, "layer", p->layer);
		cJSON_AddStringToObject(f, "name", p->name);
		cJSON_AddNumberToObject(f, "order", (double)p->order);
	} else {
		cJSON_AddNullToObject(doc, "first_diverging");
	}
	cJSON_AddStringToObject(doc, "verdict", r->pass ? "pass" : "fail");
	cJSON *arr = cJSON_AddArrayToObject(doc, "pairs");
	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(arr, pair_json(&r->pairs[i]));
	return doc;
}
