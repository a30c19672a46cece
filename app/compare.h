/*
 * compare — a recorded comparison: `ferry compare loss|dump A B` and the workbench's
 * `:compare` both run it. Resolves A and B (artifact id, label or path), reads the
 * loss tolerance setting, runs the engine (compare_loss.h, compare_dump.h) and appends
 * the "compare" audit event with the inputs' hashes and the verdict. Rendering is the
 * caller's (text, JSON, CSV, or the workbench's chart).
 *
 * The caller holds the writer lock; a dump comparison releases it while the engine
 * reads the tensors and takes it again before recording.
 *
 * Ownership: compare_outcome owns its series, results and input descriptions;
 * compare_outcome_done frees them and is harmless on a zeroed struct.
 */
#ifndef FERRY_COMPARE_H
#define FERRY_COMPARE_H

#include "compare_dump.h"
#include "compare_loss.h"
#include "workspace.h"

typedef struct compare_req {
	int loss;                /* 1: loss curves; 0: tensor dumps */
	const char *a, *b;       /* baseline (GPU) and run under test (NPU), as typed */
	const char *column;      /* loss: the CSV column or key, or NULL */
	int threads;             /* dump: worker threads, 0 for every core */
	const char *dtype_a, *dtype_b; /* dump: "bf16" overrides, or NULL */
	int th_given;            /* dump: 1: judge by th (a recorded comparison's); 0: by the
	                          * engagement's tolerance.dump_atol / tolerance.dump_rtol */
	dump_threshold th;
	double tolerance;        /* loss: > 0: judge by it (a recorded comparison's); 0: by the
	                          * engagement's tolerance.loss */
} compare_req;

typedef struct compare_outcome {
	int loss;                /* which comparison ran */
	int pass;                /* the verdict */
	double tolerance;        /* loss: the accepted mean relative error used */
	loss_series sa, sb;      /* loss: both curves */
	loss_result lr;          /* loss: the aligned steps and the verdict */
	dump_result dr;          /* dump: the pairs and the verdict */
	cJSON *in_a, *in_b;      /* {"arg","path","artifact","sha256"} of each input */
} compare_outcome;

/* FERRY_EUSAGE with one line when req's options do not fit: a --dtype override that names
 * no bfloat16, --column on dumps, --dtype on loss curves; else 0. */
int compare_req_check(const compare_req *req);

/* tolerance.loss's text as a fraction: "0.02" or "2%". FERRY_EUSAGE naming the text when
 * it is neither (or negative, or absurdly large). */
int compare_parse_loss_tolerance(double *out, const char *text);

/* Runs and records the comparison. A failing verdict is an outcome (pass 0, return 0);
 * errors are bad settings (FERRY_EUSAGE), unknown inputs (FERRY_ENOTFOUND), corrupt or
 * truncated inputs (FERRY_ECORRUPT), I/O and store failures. On error *out is left
 * zeroed. */
int compare_record(compare_outcome *out, workspace *ws, const compare_req *req);
/* compare_record without the audit event and without touching the lock: to look at a
 * comparison again (the workbench's artifacts pane). */
int compare_compute(compare_outcome *out, workspace *ws, const compare_req *req);
void compare_outcome_done(compare_outcome *o);

/* Sets and returns FERRY_EFAIL with the one line saying why a failing outcome failed
 * ("compare loss A B: …"); 0 for a passing one. */
int compare_failure(const compare_outcome *o, const compare_req *req);

/* Whether A and B are the same data: COMPARE_SAME_BYTES (equal SHA-256), for loss logs
 * COMPARE_SAME_LOSSES (other bytes, the same losses at every step: one run's log in two
 * formats, loss_series_same, which puts in *decimals, when not NULL, the decimals the
 * logs agree to, or -1 when they agree in full), for dumps COMPARE_SAME_VALUES (other
 * bytes, the same values in every tensor, dump_result_same_values); else 0. Whatever the
 * verdict, such a comparison says nothing about the NPU run, and the callers say so. */
enum { COMPARE_SAME_BYTES = 1, COMPARE_SAME_LOSSES = 2, COMPARE_SAME_VALUES = 3 };

/* 1 when B's label (or, without one, the name it is shown by) names a GPU and no NPU
 * (accel_named): a second GPU run, the baseline's noise, not the NPU's. Such a comparison
 * is recorded with b_names "gpu", answers no failure, and the callers say so. */
int compare_b_is_gpu(const compare_outcome *o);
int compare_same_input(const compare_outcome *o, int *decimals);

/* The sentence saying that o's inputs are the same data (same and decimals as
 * compare_same_input gave them) and so prove nothing about the NPU, in the reader's
 * language, written into buf: what `ferry compare` warns on stderr, and what its text and
 * the workbench give as the verdict of such a comparison instead of a PASS. NULL when
 * same is 0. */
const char *compare_same_text(char *buf, size_t size, const compare_outcome *o, int same, int decimals);

/* Sets req's options (--column, --dtype-a, --dtype-b) to those the recorded comparison
 * ev (a "compare" event's data) was made with; the strings are borrowed from ev. */
/* The thresholds a recorded dump comparison ev was judged by (msprobe's rule when it
 * names none: it was recorded before they were settings). */
void compare_event_threshold(dump_threshold *th, const cJSON *ev);
void compare_req_options(compare_req *req, const cJSON *ev);

/* Why the recorded comparison ev (a "compare" event's data) failed, in the reader's
 * language, written into buf; NULL when it passed or when its numbers say it themselves
 * (a loss mean error over the tolerance, failing tensor pairs). The grounds are taken from
 * the event and the engine's own wording used (loss_fail_reason_shown,
 * dump_unjudged_reason); loss events recorded before those grounds were kept give the
 * closest reason their fields allow. */
const char *compare_event_reason(char *buf, size_t size, const cJSON *ev);

/* Whether the recorded comparison ev passed on the same data on both sides
 * ("same_input"): it proves nothing, and no reader is shown PASS for it. */
int compare_event_proves_nothing(const cJSON *ev);

#endif
