/*
 * dump_result — what a dump comparison produces: the metrics of one tensor pair, the
 * pairs with their verdicts, and the summary. Types (and one predicate on them), shared
 * by the engine that fills the metrics (dump_engine.h), the renderers (dump_render.h) and
 * the orchestration that builds a result (compare_dump.h).
 *
 * Ownership: a dump_result owns every string and array in it; dump_result_done
 * (compare_dump.h) frees them. dump_pair.note is static text, never freed.
 */
#ifndef FERRY_DUMP_RESULT_H
#define FERRY_DUMP_RESULT_H

#include <stddef.h>

/* The statistics of a dump.json record, in the order of dump_pair.stat_a/stat_b/stat_rel:
 * "Max", "Min", "Mean", "Norm". */
extern const char *const dump_stat_names[4];

/* msprobe's real-data metrics for one tensor pair (DESIGN §2 row 5). */
typedef struct dump_metrics {
	double cosine;      /* A·B / (‖A‖‖B‖); 1 for two all-zero tensors; NaN when undefined */
	double euc_dist;    /* ‖B − A‖₂ */
	double max_abs;     /* max |B − A| */
	double max_rel;     /* max |B − A| / (|A| + 1e-12) */
	double ratio_1e3;   /* share of elements with relative error < 0.001 (NaN when none finite) */
	double ratio_5e3;   /* share of elements with relative error < 0.005 */
	unsigned long long count;              /* elements compared */
	unsigned long long nonfinite_a, nonfinite_b; /* NaN/inf elements (left out of the metrics) */
	unsigned long long nan_a, nan_b;             /* of those, the NaN elements */
	unsigned long long nonfinite_mismatch; /* positions where A and B are not the same NaN/±inf */
	unsigned long long over_tol;           /* finite elements with |B − A| > atol + rtol·|A| (the
	                                        * thresholds agreed for the engagement; 0 without) */
} dump_metrics;

/* The thresholds a tensor pair is judged by: msprobe's rule (cosine and max-abs), or the
 * ones a client agreed for the engagement (tolerance.dump_atol, tolerance.dump_rtol):
 * every element within atol + rtol·|A|, as torch.allclose(B, A, rtol, atol) reads it. */
typedef struct dump_threshold {
	int agreed;       /* 0: msprobe's rule */
	double atol, rtol;
} dump_threshold;

enum dump_mode {
	DUMP_REAL = 0,     /* tensors read from .npy or .pt */
	DUMP_STATS = 1,    /* compared by the statistics in dump.json */
	DUMP_UNMATCHED = 2 /* shapes differ: not compared */
};

/* One compared tensor pair. */
typedef struct dump_pair {
	char *name;          /* tensor name, e.g. Functional.conv2d.0.forward.output.0 */
	char *layer;         /* its API or module call, e.g. Functional.conv2d.0.forward */
	size_t order;        /* execution order of the layer in A */
	int mode;            /* enum dump_mode */
	char dtype_a[32], dtype_b[32]; /* what was compared: a file's own dtype ("<f4", "bf16")
	                                * or, by statistics, what dump.json states */
	char dtype_json_a[32], dtype_json_b[32]; /* the dtype dump.json states for a tensor whose
	                                          * file holds another ("torch.bfloat16" of a
	                                          * float32 file), as written; "" when it agrees
	                                          * or states none */
	const char *dtype_held_a, *dtype_held_b; /* with dtype_json_a/b: the file's dtype by
	                                          * name ("float32"), static text; else NULL */
	char shape_a[64], shape_b[64];
	dump_metrics m;      /* DUMP_REAL */
	double stat_a[4], stat_b[4]; /* DUMP_STATS: Max, Min, Mean, Norm (NaN when absent) */
	double stat_rel[4];  /* |B − A| / (|max(A, B)| + 1e-10) per statistic, the measure
	                      * msprobe's statistics mode judges (NaN when absent) */
	int pass;
	int warn;            /* a pair to double-check, not a failure: DUMP_STATS, a statistic
	                      * differs by more than msprobe's MAGNITUDE (0.5), its "Warning";
	                      * DUMP_REAL, ±inf on both sides at the same places (a mask), no
	                      * finite element to compare (msprobe's "None"), or a dump.json
	                      * dtype its file contradicts (dtype_json_a, dtype_json_b) */
	const char *note;    /* static text: why it failed or was not read, or NULL */
} dump_pair;

typedef struct dump_result {
	dump_pair *pairs;      /* in execution order of A */
	size_t n;
	size_t only_a, only_b; /* tensors without a partner */
	size_t nreal, nstats, nunmatched, nfailed;
	size_t nwarn;          /* passing pairs to double-check (dump_pair.warn) */
	size_t nempty;         /* tensor pairs without a finite element: they compare nothing */
	size_t ndtype;         /* pairs with a file whose dtype dump.json contradicts */
	long long first_fail;  /* index of the first failing pair in execution order, or -1 */
	char *form_a, *form_b; /* "npy", "pt", "dump.json" or "npy folder" (.npy and .pt files) */
	char *stats_reason;    /* why tensors were not read (NULL when all were), static-like copy */
	char sha_a[65], sha_b[65]; /* a file's SHA-256, or for a dump the SHA-256 of its manifest
	                            * (sha256sum lines of dump.json and every tensor file it holds,
	                            * compared or not) */
	double coverage;       /* the share of A's tensors that B holds too (1 when A has none) */
	size_t unchecked;      /* A's tensors B lacks that nothing compared vouches for: no
	                        * compared tensor has their value or is computed from them
	                        * (dump.json statistics trace the values), or, without
	                        * statistics, they come after the last compared pair */
	char *first_unchecked; /* the first of them in A's execution order, or NULL */
	int incomplete;        /* coverage < DUMP_MIN_COVERAGE, or unchecked tensors: B misses
	                        * what A dumped, and what it holds cannot vouch for it */
	int pass;              /* pairs were compared, not all of them empty, none failed and B
	                        * is not incomplete */
	dump_threshold th;     /* what the tensor pairs were judged by */
} dump_result;

/* 1 when the pair compared something: statistics, or at least one finite element (the
 * non-finite places of a pair that passed are the same on both sides). */
static inline int dump_pair_compares(const dump_pair *p)
{
	return p->mode == DUMP_STATS || (p->mode == DUMP_REAL && p->m.count > p->m.nonfinite_a);
}

/* B must hold at least this share of A's tensors, or its run stopped early or dumped
 * another scope: the pairs it does hold cannot vouch for the rest (as LOSS_MIN_COVERAGE
 * for loss curves). */
#define DUMP_MIN_COVERAGE 0.9

#endif
