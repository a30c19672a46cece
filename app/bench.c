/* bench — see bench.h. */
#include "bench.h"
#include "gbtext.h"
#include "util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* A finite number starting at s ("2.456", "1e-3"), else NAN. */
static double finite_at(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	return end != s && isfinite(v) ? v : NAN;
}

static void add_finite(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
}

/* A ferry-bench/1 document for ais_bench's figures (NAN: not given). */
static cJSON *ais_document(double latency_ms, double throughput, double batch)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "schema", "ferry-bench/1");
	cJSON_AddStringToObject(d, "label", "ais_bench");
	cJSON_AddStringToObject(d, "hardware", "Ascend NPU (ais_bench / msit benchmark)");
	cJSON_AddStringToObject(d, "workload", "inference"); /* it runs an offline model */
	cJSON *m = cJSON_AddObjectToObject(d, "metrics");
	add_finite(m, "latency_ms", latency_ms);
	add_finite(m, "throughput", throughput);
	add_finite(m, "batch", batch);
	return d;
}

/* A number field of o, which ais_bench may also write as a string. */
static double number_field(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	if (cJSON_IsNumber(v))
		return isfinite(v->valuedouble) ? v->valuedouble : NAN;
	return cJSON_IsString(v) ? finite_at(v->valuestring) : NAN;
}

/* The Performance Summary ais_bench prints (source: Ascend/tools ais-bench_workload/tool/
 * ais_bench/ais_bench/infer/summary.py; reference tune-and-inference-formats §5.5):
 *   NPU_compute_time (ms): min = 2.1, max = 2.9, mean = 2.456, median = 2.4, percentile(99%) = 2.8
 *   throughput 1000*batchsize.mean(1)/NPU_compute_time.mean(2.456): 407.16 */
static cJSON *ais_summary(const char *text, size_t len)
{
	double latency = NAN, throughput = NAN, batch = NAN;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *line = xstrndup(p, n);
		const char *c = strstr(line, "NPU_compute_time (ms):"), *m;
		if (c && (m = strstr(c, "mean = ")))
			latency = finite_at(m + 7);
		const char *t = strstr(line, "hroughput 1000*batchsize");
		if (t && t > line && (t[-1] == 't' || t[-1] == 'T')) {
			const char *open = strchr(t, '('), *close = open ? strchr(open, ')') : NULL;
			const char *mean = close ? strstr(close, "/NPU_compute_time.mean(") : NULL;
			const char *colon = mean ? strstr(mean, "): ") : NULL;
			if (close && mean == close + 1 && colon) {
				batch = finite_at(open + 1);
				throughput = finite_at(colon + 3);
			}
		}
		free(line);
		p += n + (nl != NULL);
	}
	if (!isfinite(latency) && !isfinite(throughput))
		return NULL;
	return ais_document(latency, throughput, batch);
}

cJSON *bench_decode(const char *text, size_t len)
{
	/* a document written on a host set to GB18030 (zh_CN.GBK): its lines as UTF-8 */
	size_t ulen = 0, converted = 0;
	char *utf8 = util_utf8_valid(text, len) ? NULL : gbtext_lines(text, len, &ulen, &converted);
	if (utf8) {
		cJSON *doc = bench_decode(utf8, ulen);
		free(utf8);
		return doc;
	}
	cJSON *doc = cJSON_ParseWithLength(text, len);
	if (!doc)
		return ais_summary(text, len);
	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return NULL;
	}
	const cJSON *npu = cJSON_GetObjectItem(doc, "NPU_compute_time");
	if (cJSON_IsObject(npu) && !cJSON_GetObjectItem(doc, "schema")) {
		cJSON *d = ais_document(number_field(npu, "mean"), number_field(doc, "throughput"), NAN);
		cJSON_Delete(doc);
		return d;
	}
	return doc;
}

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* 1 when s holds one of words as a word of its own: no letter right before it, and none
 * after it but a plural 's' ("8 NPUs", "gpu0", "Ascend910B", "npu_run"; not "input"). */
static int names_any(const char *s, const char *const *words)
{
	for (size_t i = 0; s && words[i]; i++) {
		size_t n = strlen(words[i]);
		for (const char *p = strcasestr(s, words[i]); p; p = strcasestr(p + 1, words[i])) {
			const char *after = p + n;
			if (*after == 's' || *after == 'S')
				after++;
			if ((p == s || !is_letter(p[-1])) && !is_letter(*after))
				return 1;
		}
	}
	return 0;
}

/* 1 when the entry's artifact label, document label or hardware holds one of words. */
static int entry_names(const bench_entry *e, const char *const *words)
{
	const char *label = NULL, *hardware = NULL;
	if (cJSON_IsString(cJSON_GetObjectItem(e->doc, "label")))
		label = cJSON_GetObjectItem(e->doc, "label")->valuestring;
	if (cJSON_IsString(cJSON_GetObjectItem(e->doc, "hardware")))
		hardware = cJSON_GetObjectItem(e->doc, "hardware")->valuestring;
	return names_any(e->label, words) || names_any(label, words) || names_any(hardware, words);
}

static const char *const gpu_words[] = { "gpu", "nvidia", "cuda", "英伟达", NULL };
static const char *const npu_words[] = { "npu", "ascend", "atlas", "昇腾", NULL };

static const char *const workload_names[] = { NULL, "training", "inference" };

const char *bench_workload_name(bench_workload w) { return workload_names[w]; }

int bench_workload_parse(const char *name)
{
	for (int w = BENCH_TRAINING; w <= BENCH_INFERENCE; w++)
		if (name && strcmp(name, workload_names[w]) == 0)
			return w;
	return -1;
}

bench_workload bench_workload_of(const cJSON *doc)
{
	const cJSON *w = cJSON_GetObjectItem(doc, "workload");
	int stated = cJSON_IsString(w) ? bench_workload_parse(w->valuestring) : -1;
	if (stated >= 0)
		return (bench_workload)stated;
	return cJSON_IsArray(cJSON_GetObjectItem(doc, "sweep")) ? BENCH_INFERENCE : BENCH_ANY;
}

/* 1 when the entry counts for workload w. */
static int of_workload(const bench_entry *e, bench_workload w)
{
	bench_workload own = bench_workload_of(e->doc);
	return w == BENCH_ANY || own == BENCH_ANY || own == w;
}

static int newer(const bench_entry *e, int i, int best)
{
	return best < 0 || e[i].id > e[best].id;
}

/* 1 when the entry names an NPU and has metrics: an NPU benchmark. */
static int npu_measured(const bench_entry *e)
{
	return cJSON_IsObject(cJSON_GetObjectItem(e->doc, "metrics")) && entry_names(e, npu_words);
}

int bench_measuring(const bench_entry *e, size_t n, int baseline, const char *metric, bench_workload w)
{
	int best = -1;
	for (size_t k = 0; k < n; k++) {
		int i = (int)k;
		const cJSON *m = cJSON_GetObjectItem(e[i].doc, "metrics");
		const cJSON *v = metric ? cJSON_GetObjectItem(m, metric) : NULL;
		if (i != baseline && npu_measured(&e[i]) && of_workload(&e[i], w) && (!metric || (cJSON_IsNumber(v) && isfinite(v->valuedouble))) &&
		    newer(e, i, best))
			best = i;
	}
	return best;
}

void bench_choose(bench_choice *c, const bench_entry *e, size_t n, bench_workload w)
{
	int other = -1, gpu = -1; /* the newest naming a GPU, and naming neither */
	for (size_t k = 0; k < n; k++) {
		int i = (int)k;
		if (!of_workload(&e[i], w))
			continue;
		if (entry_names(&e[i], npu_words))
			continue; /* an NPU run, whatever else it names, is never the baseline */
		if (entry_names(&e[i], gpu_words)) {
			if (newer(e, i, gpu))
				gpu = i;
		} else if (newer(e, i, other)) {
			other = i;
		}
	}
	c->baseline = gpu >= 0 ? gpu : other;
	c->npu = bench_measuring(e, n, c->baseline, NULL, w);
	c->accuracy = bench_measuring(e, n, c->baseline, "accuracy", w);
	c->throughput = bench_measuring(e, n, c->baseline, "throughput", w);
}
