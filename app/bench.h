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
 * that measured it. The words are matched whole (a label "gpu-input512" names no NPU,
 * "ascending" no Ascend), so a name that merely contains one does not move a run to the
 * other side.
 *
 * A benchmark measures training or inference: its "workload" says so, ais_bench output
 * and a document with a batch "sweep" are inference, and one that states nothing counts
 * for both. A choice for one workload leaves out the benchmarks of the other, so an
 * inference throughput never answers a training criterion.
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

typedef enum bench_workload { BENCH_ANY, BENCH_TRAINING, BENCH_INFERENCE } bench_workload;

/* The workload a decoded benchmark states or implies (BENCH_ANY: it does not say). */
bench_workload bench_workload_of(const cJSON *doc);

/* "training", "inference" or NULL (BENCH_ANY), and back (-1: not a workload name). */
const char *bench_workload_name(bench_workload w);
int bench_workload_parse(const char *name);

/* Chooses among the benchmarks of workload w (BENCH_ANY: all of them). */
void bench_choose(bench_choice *c, const bench_entry *e, size_t n, bench_workload w);

/* The newest NPU benchmark of workload w with metrics (metric NULL) or measuring metric,
 * other than the entry baseline (-1: none), as an index into the entries; -1 when there
 * is none. */
int bench_measuring(const bench_entry *e, size_t n, int baseline, const char *metric, bench_workload w);

#endif
