/* artview — see artview.h. */
#include "artview.h"
#include "acache.h"
#include "bench.h"
#include "gbtext.h"
#include "json.h"
#include "err.h"
#include "intl.h"
#include "pane.h"
#include "profile.h"
#include "seal.h"
#include "text.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "label  value" with the label padded to cols display columns (labels are translated). */
static void label_line(sbuf *b, const char *label, int cols, const char *value)
{
	char *cell = text_cell(label, cols, 0);
	sbuf_addf(b, "%s %s\n", cell, value);
	free(cell);
}

/* A bench document (ferry-bench/1) as lines: what ran, its metrics, its sweep. */
static void bench_text(sbuf *b, const cJSON *doc)
{
	label_line(b, _("label"), 10, json_str(doc, "label"));
	label_line(b, _("hardware"), 10, json_str(doc, "hardware"));
	/* TRANSLATORS: the numeric format of a benchmark (float16, int8): 数据类型 */
	label_line(b, _("precision"), 10, json_str(doc, "precision"));
	sbuf_addf(b, "\n%s\n", _("metrics"));
	const cJSON *v;
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(doc, "metrics"))
		if (cJSON_IsNumber(v))
			sbuf_addf(b, "  %-22s %g\n", v->string, v->valuedouble);
	const cJSON *sweep = cJSON_GetObjectItem(doc, "sweep");
	if (!cJSON_IsArray(sweep))
		return;
	char *c1 = text_cell(_("batch"), 8, 1), *c2 = text_cell(_("latency ms"), 12, 1), *c3 = text_cell(_("throughput"), 12, 1);
	sbuf_addf(b, "\n%s\n  %s  %s  %s\n", _("batch-size sweep"), c1, c2, c3);
	free(c1);
	free(c2);
	free(c3);
	double best = -1;
	long long best_batch = 0;
	cJSON_ArrayForEach(v, sweep) {
		const cJSON *tp = cJSON_GetObjectItem(v, "throughput"), *lat = cJSON_GetObjectItem(v, "latency_ms");
		sbuf_addf(b, "  %8lld  %12.4g  %12.4g\n", json_int(v, "batch"), cJSON_IsNumber(lat) ? lat->valuedouble : NAN,
		          cJSON_IsNumber(tp) ? tp->valuedouble : NAN);
		if (cJSON_IsNumber(tp) && tp->valuedouble > best) {
			best = tp->valuedouble;
			best_batch = json_int(v, "batch");
		}
	}
	if (best >= 0)
		sbuf_addf(b, _("\nbest throughput %g at batch %lld\n"), best, best_batch);
}

/* A bench as its summary, another text file as its first 400 lines, a binary one as its size. */
static int file_text(char **out, model *m, const tui_artifact *a)
{
	*out = NULL;
	/* the first MiB is enough to read; dumps and profiles may be far larger */
	char *path = model_artifact_file(m, a);
	FILE *f = fopen(path, "rb");
	if (!f) {
		int rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	free(path);
	char *data = xmalloc((1 << 20) + 1);
	size_t len = fread(data, 1, 1 << 20, f);
	fclose(f);
	data[len] = '\0';
	sbuf b;
	sbuf_init(&b);
	/* a benchmark as the checks read it (ais_bench output included), a log from a
	 * Chinese-locale host with its GBK lines as UTF-8 */
	cJSON *doc = strcmp(a->kind, "bench") == 0 ? bench_decode(data, len) : NULL;
	if (doc) {
		bench_text(&b, doc);
	} else if (memchr(data, '\0', len)) {
		/* its size as recorded (only the first MiB was read); a model's reading is with
		 * the infer-convert findings, a dump's with :compare dump */
		size_t size = a->size > 0 ? (size_t)a->size : len;
		if (strcmp(a->kind, "dump") == 0)
			sbuf_addf(&b, P_("%s: %zu byte of binary data (compare it with :compare dump)\n",
			                 "%s: %zu bytes of binary data (compare it with :compare dump)\n", size),
			          a->kind, size);
		else
			sbuf_addf(&b, P_("%s: %zu byte of binary data (the infer-convert checks read it: their findings are in phase 6)\n",
			                 "%s: %zu bytes of binary data (the infer-convert checks read it: their findings are in phase 6)\n", size),
			          a->kind, size);
	} else {
		size_t ulen, converted;
		char *utf8 = gbtext_lines(data, len, &ulen, &converted);
		if (utf8) {
			free(data);
			data = utf8, len = ulen;
		}
		size_t lines = 0, i = 0;
		for (; i < len && lines < 400; i++)
			lines += data[i] == '\n';
		sbuf_addf(&b, "%.*s", (int)i, data);
		if (i < len)
			sbuf_addf(&b, P_("\n… (%zu more byte)\n", "\n… (%zu more bytes)\n", len - i), len - i);
	}
	cJSON_Delete(doc);
	free(data);
	*out = sbuf_detach(&b);
	sbuf_done(&b);
	return 0;
}

/* Milliseconds of a microsecond figure, for the tables. */
static double ms(double us)
{
	return us / 1000.0;
}

/* share of part in whole, in percent (0 when whole is 0). */
static double pct(double part, double whole)
{
	return whole > 0 ? 100.0 * part / whole : 0;
}

/* A table's heading row: each title in its column, width w (negative: left-aligned,
 * 0: as wide as the title, for the last column), one space between columns. */
static void heading(sbuf *b, const char *const *titles, const int *w, int n)
{
	sbuf_adds(b, " ");
	for (int i = 0; i < n; i++) {
		char *c = w[i] ? text_cell(titles[i], w[i] < 0 ? -w[i] : w[i], w[i] > 0) : xstrdup(titles[i]);
		sbuf_addf(b, " %s", c);
		free(c);
	}
	sbuf_addc(b, '\n');
}

/* One table of operators (or types): a bar of the share of all operator time, the
 * share, the total and longest run in ms, the calls, the core and the name. */
static void ops_table(sbuf *b, const char *title, const profile_op *ops, size_t n, size_t top, double total)
{
	if (!n)
		return;
	sbuf_addf(b, "\n%s\n", title);
	const char *const t[] = { C_("profile", "share"), C_("profile", "total ms"), C_("profile", "longest ms"),
		                  C_("profile", "calls"), C_("profile", "core"), C_("profile", "operator") };
	static const int w[] = { -17, 11, 11, 10, -10, 0 };
	heading(b, t, w, 6);
	for (size_t i = 0; i < n && i < top; i++) {
		const profile_op *o = &ops[i];
		double share = pct(o->total_us, total);
		char *bar = pane_score_bar((int)lround(share), 10);
		char *core = text_cell(*o->core ? o->core : "-", 10, 0);
		sbuf_addf(b, "  %s %5.1f%% %11.3f %11.3f %9llu  %s %s", bar, share, ms(o->total_us), ms(o->max_us), o->count,
		          core, o->name);
		if (*o->type && strcmp(o->type, o->name) != 0)
			sbuf_addf(b, " (%s)", o->type);
		sbuf_addc(b, '\n');
		free(bar);
		free(core);
	}
	if (n > top)
		sbuf_addf(b, P_("  … and %zu more\n", "  … and %zu more\n", n - top), n - top);
}

void artview_profile(sbuf *b, const profile *p, size_t top)
{
	char v[160];
	label_line(b, _("form"), 14, profile_form_name(p->form));
	snprintf(v, sizeof v, "%llu", p->rows);
	label_line(b, _("rows read"), 14, v);
	snprintf(v, sizeof v, _("%.3f ms in %zu operators, %zu types"), ms(p->total_us), p->nops, p->ntypes);
	label_line(b, _("operator time"), 14, v);
	if (p->total_us > 0) {
		snprintf(v, sizeof v, "%.3f ms (%.1f%%)", ms(p->comm_us), pct(p->comm_us, p->total_us));
		label_line(b, _("communication"), 14, v);
		snprintf(v, sizeof v, "%.3f ms (%.1f%%)", ms(p->aicpu_us), pct(p->aicpu_us, p->total_us));
		label_line(b, _("AI CPU"), 14, v);
	}
	if (p->device && p->idle_us > 0) {
		snprintf(v, sizeof v, _("%.3f ms (%.1f%% of the device streams' time)"), ms(p->idle_us),
		         pct(p->idle_us, p->idle_us + p->busy_us));
		label_line(b, _("device idle"), 14, v);
	}
	if (p->has_breakdown) {
		double all = p->compute_us + p->comm_exposed_us + p->free_us;
		snprintf(v, sizeof v, _("computation %.1f%%, exposed communication %.1f%%, free %.1f%%"), pct(p->compute_us, all),
		         pct(p->comm_exposed_us, all), pct(p->free_us, all));
		label_line(b, _("step time"), 14, v);
	}
	if (p->bad_rows) {
		snprintf(v, sizeof v, "%llu", p->bad_rows);
		label_line(b, _("unusable rows"), 14, v);
	}
	if (p->stopped)
		label_line(b, _("stopped at"), 14, p->stopped);

	ops_table(b, _("Top operators by device time"), p->ops, p->nops, top, p->total_us);
	if (p->ntypes && !(p->ntypes == p->nops && p->form == PROFILE_OP_STATISTIC))
		ops_table(b, _("Top operator types"), p->types, p->ntypes, top, p->total_us);

	size_t naicpu = 0;
	for (size_t i = 0; i < p->nops; i++)
		naicpu += profile_is_aicpu(p->ops[i].core);
	if (naicpu) {
		sbuf_addf(b, "\n%s\n", _("Operators on the AI CPU"));
		for (size_t i = 0, shown = 0; i < p->nops && shown < top; i++)
			if (profile_is_aicpu(p->ops[i].core)) {
				sbuf_addf(b, "  %11.3f ms %9llu × %s\n", ms(p->ops[i].total_us), p->ops[i].count, p->ops[i].name);
				shown++;
			}
	}

	if (p->nsteps) {
		sbuf_addf(b, "\n%s\n", _("Steps (the device waits for the host in \"free\")"));
		const char *const t[] = { C_("profile", "step"), C_("profile", "step ms"), C_("profile", "busy ms"),
			                  C_("profile", "free ms") };
		static const int w[] = { -24, 11, 11, 11 };
		heading(b, t, w, 4);
		for (size_t i = 0; i < p->nsteps && i < 50; i++) {
			const profile_step *s = &p->steps[i];
			char *id = text_cell(s->id, 24, 0);
			sbuf_addf(b, "  %s %11.3f %11.3f %11.3f%s\n", id, ms(s->dur_us), ms(s->busy_us), ms(s->free_us),
			          s->dur_us > 0 && s->free_us / s->dur_us >= 0.2 ? _("  ← host-bound") : "");
			free(id);
		}
		if (p->nsteps > 50)
			sbuf_addf(b, P_("  … and %zu more\n", "  … and %zu more\n", p->nsteps - 50), p->nsteps - 50);
	}

	if (p->nranks > 1) {
		sbuf_addf(b, "\n%s\n", _("Ranks"));
		const char *const t[] = { C_("profile", "rank"), C_("profile", "busy ms"), C_("profile", "step ms"),
			                  C_("profile", "idle ms") };
		static const int w[] = { -16, 11, 11, 11 };
		heading(b, t, w, 4);
		for (size_t i = 0; i < p->nranks; i++) {
			const profile_rank *r = &p->ranks[i];
			char *id = text_cell(r->id, 16, 0), step[32] = "          -";
			if (r->step_us > 0)
				snprintf(step, sizeof step, "%11.3f", ms(r->step_us));
			sbuf_addf(b, "  %s %11.3f %s %11.3f\n", id, ms(r->busy_us), step, ms(r->idle_us));
			free(id);
		}
	}
}

/* The artifact's file still has the bytes recorded at ingest (seal.h): the view never
 * shows figures of an altered copy, as the checks and the report never read one. A dump's
 * folder is left to :compare dump, which checks it as it reads it. */
static int sealed(model *m, const tui_artifact *a)
{
	if (!a->sha256 || strcmp(a->kind, "dump") == 0)
		return 0;
	char *file = model_artifact_file(m, a), *cache = model_cache_dir(m);
	seal_artifact s = { a->id, a->kind, a->label, file, a->sha256, util_starts_with(a->path, "ref:") };
	int rc = seal_check(&s, cache);
	free(file);
	free(cache);
	return rc;
}

int artview_text(char **out, model *m, const tui_artifact *a)
{
	*out = NULL;
	int rc = sealed(m, a);
	if (rc)
		return rc;
	if (strcmp(a->kind, "profile") != 0)
		return file_text(out, m, a);
	/* the view of a 2 GB profile takes most of a minute to read: kept in the engagement's
	 * cache (acache.h) by the profile's hash and the language it is written in */
	char *path = model_artifact_file(m, a), *cache = model_cache_dir(m);
	const char *lang = intl_lang();
	acache_key key;
	int keep = a->sha256 && acache_key_make(&key, cache, a->sha256, "view", lang, strlen(lang), path) == 0;
	free(cache);
	size_t len = 0;
	char *kept = keep ? acache_load(&key, &len) : NULL;
	if (kept && memchr(kept, '\0', len) == NULL && util_utf8_valid(kept, len)) {
		free(path);
		*out = xrealloc(kept, len + 1);
		(*out)[len] = '\0';
		return 0;
	}
	free(kept);
	profile *p = NULL;
	rc = profile_read_file(&p, path);
	free(path);
	if (rc)
		return rc;
	sbuf b;
	sbuf_init(&b);
	artview_profile(&b, p, 15);
	keep &= !p->read_failed; /* the disk failed, not the file: read it again next time */
	profile_free(p);
	*out = sbuf_detach(&b);
	sbuf_done(&b);
	if (keep)
		acache_store(&key, *out, strlen(*out));
	return 0;
}
