/* compare_loss — see compare_loss.h. */
#include "compare_loss.h"
#include "err.h"
#include "json.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* --- parsing --- */

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* A token [s, s+n) equal to word, ignoring case. */
static int token_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

static int token_starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && strncasecmp(s, prefix, k) == 0;
}

static int token_ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && strncasecmp(s + n - k, suffix, k) == 0;
}

/* Parses a decimal or scientific number, or nan/inf/infinity, at s (up to end).
 * Returns the characters consumed (0 when there is no number); *v gets the value. */
static size_t parse_number(double *v, const char *s, const char *end)
{
	const char *p = s;
	int neg = 0;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	size_t rest = (size_t)(end - p);
	if (rest >= 3 && strncasecmp(p, "nan", 3) == 0 && (rest == 3 || !is_ident(p[3]))) {
		*v = NAN;
		return (size_t)(p + 3 - s);
	}
	if (rest >= 3 && strncasecmp(p, "inf", 3) == 0) {
		size_t k = rest >= 8 && strncasecmp(p, "infinity", 8) == 0 ? 8 : 3;
		if (k < rest && is_ident(p[k]))
			return 0;
		*v = neg ? -INFINITY : INFINITY;
		return (size_t)(p + k - s);
	}
	char buf[64];
	size_t n = 0, digits = 0;
	if (neg)
		buf[n++] = '-';
	while (p < end && isdigit((unsigned char)*p) && n < 60) {
		buf[n++] = *p++;
		digits++;
	}
	if (p < end && *p == '.' && n < 60) {
		buf[n++] = *p++;
		while (p < end && isdigit((unsigned char)*p) && n < 60) {
			buf[n++] = *p++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		char ebuf[8];
		size_t en = 0;
		if (q < end && (*q == '-' || *q == '+'))
			ebuf[en++] = *q++;
		size_t ed = 0;
		while (q < end && isdigit((unsigned char)*q) && en < 6) {
			ebuf[en++] = *q++;
			ed++;
		}
		if (ed && n + 1 + en < sizeof buf) {
			buf[n++] = 'e';
			memcpy(buf + n, ebuf, en);
			n += en;
			p = q;
		}
	}
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	return (size_t)(p - s);
}

/* The token preceding position i (skipping blanks), as [*ts, *ts + *tn). */
static void prev_token(const char **ts, size_t *tn, const char *line, size_t i)
{
	size_t k = i;
	while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
		k--;
	size_t e = k;
	while (k > 0 && is_ident(line[k - 1]))
		k--;
	*ts = line + k;
	*tn = e - k;
}

/* A training-loss key: "loss", "lm loss", "train_loss", "lm_loss", "total_loss" …, but
 * not validation, evaluation or test losses. */
static int loss_key(const char *line, size_t i, size_t n)
{
	const char *t = line + i;
	if (!token_is(t, n, "loss") && !token_ends(t, n, "_loss"))
		return 0;
	static const char *const other[] = { "val", "eval", "test", "valid", NULL };
	for (size_t k = 0; other[k]; k++)
		if (token_starts(t, n, other[k]))
			return 0;
	if (n == 4) {
		const char *ps;
		size_t pn;
		prev_token(&ps, &pn, line, i);
		for (size_t k = 0; other[k]; k++)
			if (token_starts(ps, pn, other[k]))
				return 0;
	}
	return 1;
}

static int step_key(const char *t, size_t n)
{
	return token_is(t, n, "step") || token_is(t, n, "global_step") || token_is(t, n, "iteration") ||
	       token_is(t, n, "iter") || token_is(t, n, "train_step");
}

/* Finds the first training loss on the line: 1 and *v (which may be NaN or infinite). */
static int find_loss(double *v, const char *line, size_t len)
{
	const char *end = line + len;
	for (size_t i = 0; i < len; i++) {
		if (!is_ident(line[i]) || (i > 0 && is_ident(line[i - 1])))
			continue;
		size_t j = i;
		while (j < len && is_ident(line[j]))
			j++;
		if (loss_key(line, i, j - i)) {
			const char *p = line + j;
			while (p < end && (*p == ' ' || *p == '\t' || *p == ':' || *p == '=' || *p == '"' || *p == '\''))
				p++;
			if ((size_t)(end - p) >= 7 && strncmp(p, "tensor(", 7) == 0)
				p += 7;
			if (parse_number(v, p, end))
				return 1;
		}
		i = j - 1;
	}
	return 0;
}

/* Finds the first step number on the line: 1 and *step. */
static int find_step(long long *step, const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (!is_ident(line[i]) || (i > 0 && is_ident(line[i - 1])))
			continue;
		size_t j = i;
		while (j < len && is_ident(line[j]))
			j++;
		if (step_key(line + i, j - i)) {
			size_t p = j;
			while (p < len && strchr(" \t:=\"'[#(", line[p]))
				p++;
			long long v = 0;
			size_t d = 0;
			while (p < len && isdigit((unsigned char)line[p]) && d < 18) {
				v = v * 10 + (line[p++] - '0');
				d++;
			}
			if (d && (p >= len || !is_ident(line[p]))) {
				*step = v;
				return 1;
			}
		}
		i = j - 1;
	}
	return 0;
}

typedef struct raw_point {
	long long step;
	double loss;
	size_t ord;  /* order in the log */
	int has_step;
} raw_point;

static int cmp_raw(const void *x, const void *y)
{
	const raw_point *a = x, *b = y;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return a->ord < b->ord ? -1 : a->ord > b->ord;
}

int loss_parse(loss_series *out, const char *name, const char *data, size_t len)
{
	memset(out, 0, sizeof *out);
	if (!len)
		return err_set(FERRY_ECORRUPT, "%s: the log is empty", name);
	if (memchr(data, '\0', len))
		return err_set(FERRY_ECORRUPT, "%s: binary data where a training log was expected", name);
	raw_point *raw = NULL;
	size_t nraw = 0, cap = 0, with_step = 0;
	int rc = 0;
	size_t start = 0;
	for (size_t i = 0; i <= len; i++) {
		if (i < len && data[i] != '\n')
			continue;
		const char *line = data + start;
		size_t n = i - start;
		start = i + 1;
		double v;
		if (!find_loss(&v, line, n))
			continue;
		if (!isfinite(v)) {
			out->nonfinite++;
			continue;
		}
		if (nraw == cap) {
			cap = cap ? cap * 2 : 256;
			raw = xrealloc(raw, cap * sizeof *raw);
		}
		raw_point *r = &raw[nraw];
		r->loss = v;
		r->ord = nraw;
		r->has_step = find_step(&r->step, line, n);
		with_step += r->has_step != 0;
		nraw++;
	}
	if (!nraw) {
		rc = out->nonfinite ? err_set(FERRY_ECORRUPT, "%s: every loss value is NaN or infinite", name)
		                    : err_set(FERRY_ECORRUPT,
		                              "%s: no loss values found (expected lines such as \"step 10 loss 2.31\")", name);
		goto out;
	}
	out->ordinal = with_step * 2 < nraw;
	size_t m = 0;
	for (size_t k = 0; k < nraw; k++) {
		if (out->ordinal) {
			raw[k].step = (long long)k + 1;
		} else if (!raw[k].has_step) {
			out->no_step++;
			continue;
		}
		raw[m++] = raw[k];
	}
	qsort(raw, m, sizeof *raw, cmp_raw);
	out->pts = xmalloc((m ? m : 1) * sizeof *out->pts);
	for (size_t k = 0; k < m; k++) {
		if (k + 1 < m && raw[k + 1].step == raw[k].step) {
			out->duplicates++;
			continue; /* the later line for the same step wins */
		}
		out->pts[out->n].step = raw[k].step;
		out->pts[out->n].loss = raw[k].loss;
		out->n++;
	}
out:
	free(raw);
	if (rc)
		loss_series_done(out);
	return rc;
}

void loss_series_done(loss_series *s)
{
	if (!s)
		return;
	free(s->pts);
	memset(s, 0, sizeof *s);
}

/* --- comparison --- */

void loss_compare(loss_result *out, const loss_series *a, const loss_series *b, double tolerance)
{
	memset(out, 0, sizeof *out);
	out->tolerance = tolerance;
	size_t cap = a->n < b->n ? a->n : b->n;
	out->rows = xmalloc((cap ? cap : 1) * sizeof *out->rows);
	size_t i = 0, k = 0;
	double sum = 0;
	while (i < a->n && k < b->n) {
		if (a->pts[i].step < b->pts[k].step) {
			out->only_a++;
			i++;
			continue;
		}
		if (a->pts[i].step > b->pts[k].step) {
			out->only_b++;
			k++;
			continue;
		}
		loss_row *r = &out->rows[out->n++];
		r->step = a->pts[i].step;
		r->a = a->pts[i].loss;
		r->b = b->pts[k].loss;
		r->abs_err = fabs(r->b - r->a);
		r->rel_err = r->a != 0 ? r->abs_err / fabs(r->a) : r->abs_err;
		sum += r->rel_err;
		if (out->n == 1 || r->rel_err > out->max_rel) {
			out->max_rel = r->rel_err;
			out->max_rel_step = r->step;
		}
		if (!out->exceeded && r->rel_err > tolerance) {
			out->exceeded = 1;
			out->first_exceed_step = r->step;
		}
		i++;
		k++;
	}
	out->only_a += a->n - i;
	out->only_b += b->n - k;
	if (out->n)
		out->mean_rel = sum / (double)out->n;
	if (a->n) {
		out->final_a = a->pts[a->n - 1].loss;
		out->final_step_a = a->pts[a->n - 1].step;
	}
	if (b->n) {
		out->final_b = b->pts[b->n - 1].loss;
		out->final_step_b = b->pts[b->n - 1].step;
	}
	out->pass = out->n > 0 && out->mean_rel <= tolerance;
}

void loss_result_done(loss_result *r)
{
	if (!r)
		return;
	free(r->rows);
	memset(r, 0, sizeof *r);
}

/* --- rendering --- */

static void describe_series(sbuf *out, const char *tag, const char *name, const loss_series *s, double final,
                            long long final_step)
{
	sbuf_addf(out, "  %s  %s\n      %zu point%s", tag, name, s->n, s->n == 1 ? "" : "s");
	if (s->n)
		sbuf_addf(out, ", steps %lld–%lld%s, final loss %.6g at step %lld", s->pts[0].step, s->pts[s->n - 1].step,
		          s->ordinal ? " (line ordinals: the log gives no steps)" : "", final, final_step);
	if (s->nonfinite)
		sbuf_addf(out, "; %zu NaN/inf value%s skipped", s->nonfinite, s->nonfinite == 1 ? "" : "s");
	if (s->no_step)
		sbuf_addf(out, "; %zu loss line%s without a step dropped", s->no_step, s->no_step == 1 ? "" : "s");
	if (s->duplicates)
		sbuf_addf(out, "; %zu repeated step%s (last value kept)", s->duplicates, s->duplicates == 1 ? "" : "s");
	sbuf_adds(out, "\n");
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

/* One sparkline of the column averages of column `which` (0: a, 1: b). */
static void sparkline(sbuf *out, const loss_result *r, int which, size_t width, double lo, double hi)
{
	static const char *const bars[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	for (size_t c = 0; c < width; c++) {
		size_t from = c * r->n / width, to = (c + 1) * r->n / width;
		if (to <= from)
			to = from + 1;
		double sum = 0;
		for (size_t i = from; i < to; i++)
			sum += which ? r->rows[i].b : r->rows[i].a;
		double v = sum / (double)(to - from);
		int level = hi > lo ? (int)lround((v - lo) / (hi - lo) * 7.0) : 3;
		if (level < 0)
			level = 0;
		if (level > 7)
			level = 7;
		sbuf_adds(out, bars[level]);
	}
}

void loss_render_text(sbuf *out, const loss_result *r, const loss_series *a, const loss_series *b,
                      const char *name_a, const char *name_b)
{
	sbuf_adds(out, "loss comparison (A: baseline, B: compared run)\n");
	describe_series(out, "A", name_a, a, r->final_a, r->final_step_a);
	describe_series(out, "B", name_b, b, r->final_b, r->final_step_b);
	sbuf_addf(out, "  aligned %zu step%s", r->n, r->n == 1 ? "" : "s");
	if (r->only_a || r->only_b)
		sbuf_addf(out, " (%zu only in A, %zu only in B)", r->only_a, r->only_b);
	sbuf_adds(out, "\n\n");
	if (r->n) {
		/* a sample of rows: evenly spaced, plus the worst step and the first one over */
		size_t pick[16], np = 0;
		if (r->n <= 12) {
			for (size_t i = 0; i < r->n; i++)
				pick[np++] = i;
		} else {
			for (size_t k = 0; k < 10; k++)
				pick[np++] = k * (r->n - 1) / 9;
			for (size_t i = 0; i < r->n; i++)
				if (r->rows[i].step == r->max_rel_step || (r->exceeded && r->rows[i].step == r->first_exceed_step))
					pick[np++] = i;
			qsort(pick, np, sizeof *pick, cmp_size);
		}
		sbuf_addf(out, "  %10s %14s %14s %12s %9s\n", "step", "A", "B", "abs err", "rel err");
		for (size_t k = 0; k < np; k++) {
			if (k && pick[k] == pick[k - 1])
				continue;
			const loss_row *row = &r->rows[pick[k]];
			sbuf_addf(out, "  %10lld %14.6g %14.6g %12.3e %8.3f%%%s\n", row->step, row->a, row->b, row->abs_err,
			          row->rel_err * 100.0, row->rel_err > r->tolerance ? "  over" : "");
		}
		double lo = r->rows[0].a, hi = lo;
		for (size_t i = 0; i < r->n; i++) {
			double v[2] = { r->rows[i].a, r->rows[i].b };
			for (int j = 0; j < 2; j++) {
				lo = v[j] < lo ? v[j] : lo;
				hi = v[j] > hi ? v[j] : hi;
			}
		}
		size_t width = r->n < 64 ? r->n : 64;
		sbuf_adds(out, "\n  A ");
		sparkline(out, r, 0, width, lo, hi);
		sbuf_adds(out, "\n  B ");
		sparkline(out, r, 1, width, lo, hi);
		sbuf_addf(out, "\n    loss %.6g … %.6g on one scale, steps %lld–%lld\n\n", lo, hi, r->rows[0].step,
		          r->rows[r->n - 1].step);
		sbuf_addf(out, "mean relative error %.3f%%, max %.3f%% at step %lld; tolerance %.3f%% (mean)\n",
		          r->mean_rel * 100.0, r->max_rel * 100.0, r->max_rel_step, r->tolerance * 100.0);
		if (r->exceeded)
			sbuf_addf(out, "first step above the tolerance: %lld\n", r->first_exceed_step);
		else
			sbuf_adds(out, "no step above the tolerance\n");
		sbuf_addf(out, "final loss: A %.6g, B %.6g\n", r->final_a, r->final_b);
	} else {
		sbuf_adds(out, "the two logs share no step: nothing to compare\n");
	}
	sbuf_addf(out, "verdict: %s\n", r->pass ? "PASS" : "FAIL");
}

static void add_series(cJSON *o, const loss_series *s, double final, long long final_step)
{
	cJSON_AddNumberToObject(o, "points", (double)s->n);
	cJSON_AddBoolToObject(o, "ordinal_steps", s->ordinal);
	cJSON_AddNumberToObject(o, "nonfinite_skipped", (double)s->nonfinite);
	cJSON_AddNumberToObject(o, "no_step_dropped", (double)s->no_step);
	cJSON_AddNumberToObject(o, "repeated_steps", (double)s->duplicates);
	if (s->n) {
		cJSON_AddNumberToObject(o, "final_loss", final);
		cJSON_AddNumberToObject(o, "final_step", (double)final_step);
	} else {
		cJSON_AddNullToObject(o, "final_loss");
		cJSON_AddNullToObject(o, "final_step");
	}
}

cJSON *loss_result_json(const loss_result *r, const loss_series *a, const loss_series *b, const cJSON *ina,
                        const cJSON *inb)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "kind", "loss");
	cJSON *ja = ina ? cJSON_Duplicate(ina, 1) : cJSON_CreateObject();
	cJSON *jb = inb ? cJSON_Duplicate(inb, 1) : cJSON_CreateObject();
	add_series(ja, a, r->final_a, r->final_step_a);
	add_series(jb, b, r->final_b, r->final_step_b);
	cJSON_AddItemToObject(doc, "a", ja);
	cJSON_AddItemToObject(doc, "b", jb);
	cJSON_AddNumberToObject(doc, "tolerance", r->tolerance);
	cJSON_AddNumberToObject(doc, "aligned_steps", (double)r->n);
	cJSON_AddNumberToObject(doc, "only_a", (double)r->only_a);
	cJSON_AddNumberToObject(doc, "only_b", (double)r->only_b);
	if (r->n) {
		cJSON_AddNumberToObject(doc, "mean_rel_err", r->mean_rel);
		cJSON_AddNumberToObject(doc, "max_rel_err", r->max_rel);
		cJSON_AddNumberToObject(doc, "max_rel_step", (double)r->max_rel_step);
	} else {
		cJSON_AddNullToObject(doc, "mean_rel_err");
		cJSON_AddNullToObject(doc, "max_rel_err");
		cJSON_AddNullToObject(doc, "max_rel_step");
	}
	if (r->exceeded)
		cJSON_AddNumberToObject(doc, "first_exceed_step", (double)r->first_exceed_step);
	else
		cJSON_AddNullToObject(doc, "first_exceed_step");
	cJSON_AddStringToObject(doc, "verdict", r->pass ? "pass" : "fail");
	cJSON *steps = cJSON_AddArrayToObject(doc, "steps");
	for (size_t i = 0; i < r->n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "step", (double)r->rows[i].step);
		cJSON_AddNumberToObject(o, "a", r->rows[i].a);
		cJSON_AddNumberToObject(o, "b", r->rows[i].b);
		cJSON_AddNumberToObject(o, "abs_err", r->rows[i].abs_err);
		cJSON_AddNumberToObject(o, "rel_err", r->rows[i].rel_err);
		cJSON_AddItemToArray(steps, o);
	}
	return doc;
}

/* --- inputs --- */

static void input_from_row(compare_input *out, const cJSON *row, const char *artifacts_dir)
{
	const char *p = json_str(row, "path");
	out->path = util_starts_with(p, "ref:") ? xstrdup(p + 4) : util_path_join(artifacts_dir, p);
	out->artifact = json_int(row, "id");
	out->kind = xstrdup(json_str(row, "kind"));
	out->label = xstrdup(json_str(row, "label"));
	/* a stored copy is what was hashed at ingest; a reference may have changed since */
	out->sha256 = util_starts_with(p, "ref:") || !*json_str(row, "sha256") ? NULL : xstrdup(json_str(row, "sha256"));
}

int compare_resolve(compare_input *out, const cJSON *artifacts, const char *artifacts_dir, const char *arg,
                    const char *kind)
{
	memset(out, 0, sizeof *out);
	out->arg = xstrdup(arg);
	struct stat st;
	int exists = stat(arg, &st) == 0;
	const char *digits = arg[0] == '#' ? arg + 1 : arg;
	size_t nd = strspn(digits, "0123456789");
	const cJSON *row;
	if (*digits && nd == strlen(digits) && !(exists && arg[0] != '#')) {
		long long id = strtoll(digits, NULL, 10);
		cJSON_ArrayForEach(row, artifacts)
			if (json_int(row, "id") == id) {
				input_from_row(out, row, artifacts_dir);
				return 0;
			}
		compare_input_done(out);
		return err_set(FERRY_ENOTFOUND, "artifact %s: no such artifact (ferry status lists the engagement)", arg);
	}
	const cJSON *best = NULL, *any = NULL;
	cJSON_ArrayForEach(row, artifacts)
	{
		if (strcmp(json_str(row, "label"), arg) != 0)
			continue;
		if (!kind || strcmp(json_str(row, "kind"), kind) == 0) {
			if (!best || json_int(row, "id") > json_int(best, "id"))
				best = row;
		} else if (!any || json_int(row, "id") > json_int(any, "id")) {
			any = row;
		}
	}
	if (best || any) {
		input_from_row(out, best ? best : any, artifacts_dir);
		return 0;
	}
	if (exists) {
		out->path = xstrdup(arg);
		return 0;
	}
	compare_input_done(out);
	return err_set(FERRY_ENOTFOUND, "%s: no such artifact id, artifact label or file", arg);
}

void compare_input_done(compare_input *in)
{
	if (!in)
		return;
	free(in->arg);
	free(in->path);
	free(in->kind);
	free(in->label);
	free(in->sha256);
	memset(in, 0, sizeof *in);
}

cJSON *compare_input_json(const compare_input *in, const char *sha256)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "arg", in->arg ? in->arg : "");
	cJSON_AddStringToObject(o, "path", in->path ? in->path : "");
	if (in->artifact)
		cJSON_AddNumberToObject(o, "artifact", (double)in->artifact);
	else
		cJSON_AddNullToObject(o, "artifact");
	if (in->label && *in->label)
		cJSON_AddStringToObject(o, "label", in->label);
	const char *h = sha256 ? sha256 : in->sha256;
	if (h)
		cJSON_AddStringToObject(o, "sha256", h);
	else
		cJSON_AddNullToObject(o, "sha256");
	return o;
}
