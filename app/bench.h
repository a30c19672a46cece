/*
 * bench — the benchmarks on record, read one way by every reader: the acceptance checks
 * (through ctx.bench and ctx.bench_choice) and the report's verdict.
 *
 * A benchmark is a ferry-bench/1 document as written, or ais_bench / msit benchmark
 * output — its summary JSON or its printed Performance Summary — read as a ferry-bench/1
 * document of its throughput, mean NPU compute time (latency_ms) and batch; a document
 * written in GB18030 is read as UTF-8. The NPU's benchmarks are those whose artifact
 * label, document label or hardware names an NPU (npu, ascend, atlas: ais_bench's always
 * do); the GPU baseline is the newest of the others naming a GPU (gpu, nvidia, cuda), else
 * the newest naming neither (a baseline labelled "a100-run"), so an NPU run is never
 * measured against another; each acceptance metric comes from the newest NPU benchmark
 * that measured it.
 */
#ifndef FERRY_BENCH_H
#define FERRY_BENCH_H

#include <cjson/cJSON.h>
#include <stddef.h>

/* The benchmark in text[0..len) as a ferry-bench/1 document (the caller deletes it), or
 * NULL when it is neither a JSON object nor ais_bench output. A JSON object is returned
 * as it is, whatever its schema: judging it is the caller's business. */
cJSON *bench_decode(const char *text, size_t len);

/* One benchmark on record: its artifact id and label, and its decoded document (or NULL
 * when it could not be read). */
typedef struct bench_entry {
	long long id;
	const char *label;
	const cJSON *doc;
} bench_entry;

/* The choices, as indexes into the entries, -1 for none: the GPU baseline, the newest
 * NPU benchmark with metrics, and the newest NPU benchmark measuring each metric. */
typedef struct bench_choice {
	int baseline, npu, accuracy, throughput;
} bench_choice;

void bench_choose(bench_choice *c, const bench_entry *e, size_t n);

/* The newest NPU benchmark with metrics (metric NULL) or measuring metric, other than
 * the entry baseline (-1: none), as an index into the entries; -1 when there is none. */
int bench_measuring(const bench_entry *e, size_t n, int baseline, const char *metric);

#endif
