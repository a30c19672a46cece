/* bench — see bench.h. */
#include "bench.h"
#include "accel.h"
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

/* 1 when the entry's artifact label, document label or hardware names the accelerator
 * which (ACCEL_GPU or ACCEL_NPU). */
static int entry_names(const bench_entry *e, int which)
{
	const char *label = NULL, *hardware = NULL;
	if (cJSON_IsString(cJSON_GetObjectItem(e->doc, "label")))
		label = cJSON_GetObjectItem(e->doc, "label")->valuestring;
	if (cJSON_IsString(cJSON_GetObjectItem(e->doc, "hardware")))
		hardware = cJSON_GetObjectItem(e->doc, "hardware")->valuestring;
	return ((accel_named(e->label) | accel_named(label) | accel_named(hardware)) & which) != 0;
}

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
	return cJSON_IsObject(cJSON_GetObjectItem(e->doc, "metrics")) && entry_names(e, ACCEL_NPU);
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
		if (entry_names(&e[i], ACCEL_NPU))
			continue; /* an NPU run, whatever else it names, is never the baseline */
		if (entry_names(&e[i], ACCEL_GPU)) {
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
