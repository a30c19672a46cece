/*
 * compare_loss — the tune phase's loss-curve comparison (DESIGN §2 row 5, §7
 * `ferry compare loss A B`), and the input resolution both comparison commands share.
 *
 * Owns: parsing training logs into (step, loss) series, aligning two series by step,
 * the per-step errors and the verdict against the loss tolerance, and rendering the
 * result as text (a table and a sparkline of both curves) or JSON. A is the baseline
 * (the GPU run), B the run under test (the NPU run): relative errors are |B−A| / |A|.
 *
 * Touches no workspace, database or terminal: the caller reads the files, resolves
 * artifacts from rows it fetched, records the audit event and prints. Fuzzed by
 * tests/fuzz/fuzz_loss.c.
 *
 * Ownership: loss_series and loss_result own their arrays (loss_series_done,
 * loss_result_done; both harmless on a zeroed struct). compare_input owns its strings
 * (compare_input_done). Renderers append to a caller-owned sbuf; JSON documents
 * returned through **out belong to the caller (cJSON_Delete).
 */
#ifndef FERRY_COMPARE_LOSS_H
#define FERRY_COMPARE_LOSS_H

#include "util.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Default accepted mean relative loss error when `tolerance.loss` is unset: 2 %, the
 * criterion FlagPerf applies to every step's loss against the NVIDIA run. */
#define COMPARE_LOSS_DEFAULT_TOLERANCE 0.02

/* B must reach at least this share of A's step range, or the run stopped early; and the
 * aligned steps must cover at least this share of A's training points, or the comparison
 * is incomplete (as DUMP_MIN_COVERAGE for A's tensors). */
#define LOSS_MIN_COVERAGE 0.9

/* The end of training is judged on its own: the mean relative error over the last tenth
 * of the aligned steps with finite losses (at least LOSS_END_MIN_STEPS of them, or all
 * when fewer) must be within the tolerance too, so a run that parts at the end fails
 * although the mean over the whole run hides it. Averaged, so step-to-step noise of
 * agreeing runs does not fail them. */
#define LOSS_END_SHARE 0.1
#define LOSS_END_MIN_STEPS 5

typedef struct loss_point {
	long long step; /* the step the log names, or the loss line's ordinal (1-based) */
	double loss;    /* may be NaN or infinite: a blown-up run keeps its points */
	double lo, hi;  /* a step logged more than once (several ranks): its smallest and
	                 * largest finite loss; lo == hi == loss otherwise */
} loss_point;

enum { LOSS_TABLE_EPOCHS = 1, LOSS_TABLE_STEPS = 2, LOSS_TABLE_EPOCH_ROWS = 3 };

typedef struct loss_series {
	loss_point *pts;          /* sorted by step, one point per step (the last logged wins) */
	size_t n;                 /* points */
	size_t nonfinite;         /* loss values that were NaN or infinite (kept as points) */
	size_t no_step;           /* loss lines without a step, dropped (when most lines had one) */
	size_t duplicates;        /* steps logged more than once (the last value kept) */
	size_t repeated_nonfinite; /* of those, steps kept as NaN/inf because one value was */
	size_t repeated_differ;   /* of those, steps whose finite values differ by more than 0.1 %
	                           * (ranks printing their own loss): judged by the value farthest
	                           * from the baseline */
	int per_epoch;            /* 1 when the log restarted its steps every epoch and they
	                           * were made global (epochs before plus the step) */
	int by_position;          /* 1 when the steps were replaced by positions, to pair with a
	                           * log that gives none (loss_pair_by_position) */
	size_t not_training;      /* evaluation, test and summary losses left out */
	int ordinal;              /* 1 when steps are loss-line ordinals (the log gives none) */
	char *column;             /* the column read (a CSV export's, a loss table's; "a + b" for
	                           * a sum), the --column keys of a text log, or NULL */
	int column_is_key;        /* column names the keys read from a text log's lines */
	char *key;                /* without --column, the keys a text log's losses were read
	                           * from ("train_loss"; up to four, ", "-separated), or NULL */
	int epoch_steps;          /* 1 when the steps are the epochs its lines name (no step
	                           * given, mostly a line per epoch: detr's log.txt) */
	int table;                /* read from a console loss table: one point per epoch
	                           * (LOSS_TABLE_EPOCHS, YOLOv5's and YOLOv8's: the progress bar's
	                           * running mean at the epoch's last batch, the epoch's mean
	                           * loss; LOSS_TABLE_EPOCH_ROWS, fastai's and transformers':
	                           * the loss a row without a bar gives) or per step
	                           * (LOSS_TABLE_STEPS); 0 otherwise */
	size_t partial;           /* epochs of a loss table whose bar stopped before its total
	                           * (the run was killed in it): left out */
	int cut_last;             /* 1 when the last line had no line end and looked cut short
	                           * (a CSV row short of columns, a number at the very end): left
	                           * out */
} loss_series;

/* Parses a training log (len bytes, need not be NUL-terminated) into out.
 *
 * Text logs, split into lines at \n and \r (progress bars redraw with \r): "step 10
 * loss 2.31", "iter: 10, loss: 2.31", dict and JSON lines ({'loss': 2.31, 'step': 10}),
 * Megatron ("iteration 10/ 1000 | lm loss: 2.31E+00 |"), "loss=2.31", "loss: tensor(2.31,
 * …)", tqdm/Lightning bars ("Epoch 1: 45%|██▌ | 90/200 [00:01, loss=0.12]": the step is
 * the bar's counter plus the totals of the bars before it). Validation, evaluation and
 * test losses, "Test:"/"Validation" lines, HF Trainer's closing summary and "loss
 * scale" are not training losses and are left out. When most loss lines carry no step,
 * every point's step is its ordinal among the loss lines (NaN lines keep their slot).
 *
 * Console loss tables (YOLOv5's "Epoch GPU_mem box_loss obj_loss cls_loss Instances Size",
 * ultralytics YOLOv8's "… box_loss cls_loss dfl_loss …"): a header row naming an epoch (or
 * step) column and loss columns, then the progress bar's rows whose cells line up with it
 * ("3/29 3.42G 0.9972 0.6974 1.608 214 640: 100%|…| 8/8 […]"). Each row shows the running
 * mean of the epoch's batch losses so far, so each epoch is one point: its last row, once
 * its bar reached its total (the epoch's mean, what results.csv records), at step = the
 * epoch as printed; redraws with \r and "\033[K" are lines; an epoch the run was killed
 * in is left out (partial). The validation table between epochs ("Class Images …", "all
 * 128 929 …") closes the loss table and is never read. Several loss columns need a
 * --column (one, a sum "a+b", or results.csv's "train/box_loss" for box_loss), as in a
 * CSV export.
 *
 * CSV exports (a header naming a loss column): Lightning's metrics.csv (rows without
 * the loss are other metrics' rows), TensorBoard's "Wall time,Step,Value", W&B's
 * "Step,run - train/loss,…__MIN,…__MAX". column, when not NULL, names the CSV column
 * (or, in a text log, the key) to read; without it several loss columns are a
 * FERRY_EUSAGE error that lists them.
 *
 * Fails with FERRY_ECORRUPT naming `name` for binary data or a log without any loss
 * value. NaN and infinite losses are points: the comparison judges them. */
int loss_parse(loss_series *out, const char *name, const char *data, size_t len, const char *column);
void loss_series_done(loss_series *s);
/* 1 when a and b hold the same losses at the same steps: every step of one is a step of
 * the other and its values agree to within float32's precision (1e-7 relative), or to
 * within half the last digit the less precise log prints ("%.6f" against the full value),
 * NaN with NaN, an infinity with the same one. Two runs on different devices never do over
 * a training run: such a pair is one run's log twice, whatever its format. Agreement as
 * printed counts only over LOSS_SAME_MIN_STEPS steps or more, with nine points of ten
 * printed to 1e-4 of the loss or finer (logs of "%.2f" cannot tell runs apart). *decimals,
 * when not NULL, gets the decimals the less precise log prints (the most any of its
 * points shows), or -1 when the logs agree to float32's precision (or are not the same). */
#define LOSS_SAME_MIN_STEPS 5
int loss_series_same(const loss_series *a, const loss_series *b, int *decimals);

/* When one log gives steps and the other does not (a trainer_state.json against the
 * console's dict lines), pairing a step with a line number is meaningless: the series
 * with steps is numbered by position instead (its k-th point is step k), so the k-th
 * points pair. Returns 1 when it did that. */
int loss_pair_by_position(loss_series *a, loss_series *b);

typedef struct loss_row {
	long long step;
	double a, b;       /* the two losses */
	double abs_err;    /* |b − a| */
	double rel_err;    /* |b − a| / |a| (|b − a| itself when a is 0) */
} loss_row;

typedef struct loss_result {
	loss_row *rows;            /* the steps both series hold, ascending */
	size_t n;
	size_t only_a, only_b;     /* steps present in one series only */
	double tolerance;          /* accepted mean relative error */
	size_t finite;             /* aligned steps where both losses are finite */
	double mean_rel, max_rel;  /* over those steps */
	long long max_rel_step;
	int exceeded;              /* 1 when some step's relative error exceeds the tolerance */
	long long first_exceed_step; /* the first such step (valid when exceeded) */
	double final_a, final_b;   /* the last point of each series (also unaligned) */
	long long final_step_a, final_step_b;
	size_t nonfinite_b;        /* B's NaN/inf losses where A is finite (or has no value) */
	long long first_nonfinite_step;
	int blowup;                /* B's loss ends in NaN/inf, whatever A's does */
	long long blowup_step;     /* where that final run of NaN/inf begins */
	int blowup_a;              /* A's loss ends in NaN/inf: the baseline cannot vouch for B */
	long long blowup_step_a;   /* where A's final run of NaN/inf begins */
	double coverage;           /* the share of A's step range B reaches (1 when B goes as far) */
	int truncated;             /* B stops before A and coverage < LOSS_MIN_COVERAGE */
	size_t a_points;           /* A's training points */
	size_t a_covered;          /* of those, the points within the aligned steps' logging
	                            * interval of an aligned step (all of them when B logs every
	                            * 4th step over the whole run, 1 when one step is shared) */
	double aligned_coverage;   /* a_covered / a_points (0 when A has none) */
	int incomplete;            /* aligned_coverage < LOSS_MIN_COVERAGE: the aligned steps
	                            * cannot vouch for A's run */
	size_t end_n;              /* finite aligned steps in the end window (LOSS_END_SHARE) */
	long long end_from_step;   /* the window's first step (valid when end_n) */
	double end_mean_rel;       /* mean relative error over the window */
	int end_exceeded;          /* end_mean_rel > tolerance */
	int shift;                 /* when the errors fail the comparison and B's losses agree
	                            * with A's one step apart (B's step N holds A's step N - shift:
	                            * the logs count steps from 0 and from 1), -1 or 1; else 0 */
	double shift_mean_rel;     /* the mean relative error at that shift */
	int pass;                  /* finite aligned steps exist, mean_rel and end_mean_rel <=
	                            * tolerance, no NaN/inf of B's own, neither run ends in
	                            * NaN/inf, B neither truncated nor incomplete */
} loss_result;

/* Aligns a and b by step and computes the errors and the verdict. Cannot fail: two
 * logs without a common step are a result too (n 0, pass 0). */
void loss_compare(loss_result *out, const loss_series *a, const loss_series *b, double tolerance);
void loss_result_done(loss_result *r);
/* One line saying why r failed (or "within the tolerance"), written into buf. */
const char *loss_fail_reason(char *buf, size_t size, const loss_result *r);
/* The same in the reader's language, for the screen (the record keeps loss_fail_reason's). */
const char *loss_fail_reason_shown(char *buf, size_t size, const loss_result *r);

/* Text for people: the two inputs, a sampled table of steps, a sparkline of both curves
 * on one scale, the summary and the verdict. name_a/name_b label the inputs. same, when
 * not NULL, says the inputs are the same data (compare_same_text): a passing comparison's
 * verdict is then PROVES NOTHING with that sentence, never PASS. */
void loss_render_text(sbuf *out, const loss_result *r, const loss_series *a, const loss_series *b,
                      const char *name_a, const char *name_b, const char *same);
/* JSON for tools: {"kind":"loss","tolerance",…,"verdict","steps":[{step,a,b,abs_err,rel_err}]}.
 * ina/inb (may be NULL) are added as "a"/"b" input descriptions (copied). */
cJSON *loss_result_json(const loss_result *r, const loss_series *a, const loss_series *b, const cJSON *ina,
                        const cJSON *inb);

/* --- inputs shared by `compare loss` and `compare dump` --- */

typedef struct compare_input {
	char *arg;          /* as the user typed it */
	char *path;         /* the file or directory to read */
	long long artifact; /* artifact id, or 0 for a plain path */
	char *kind;         /* the artifact's kind, or NULL */
	char *label;        /* the artifact's label, or NULL */
	char *sha256;       /* the stored hash of an artifact copy, or NULL (computed by the engine) */
	char *file;         /* an artifact's original file name (the last component of where it
	                     * was ingested from), or NULL */
} compare_input;

/* Resolves arg to an input: an artifact id ("12" or "#12"), an artifact label (the most
 * recent artifact of `kind` with that label, else of any kind), else a path. artifacts
 * is the store's artifact rows ({id, kind, label, path, sha256}); artifacts_dir is
 * .ferry/artifacts (stored paths are relative to it; "ref:" paths are absolute). Fails
 * with FERRY_ENOTFOUND naming arg when it is none of these. */
int compare_resolve(compare_input *out, const cJSON *artifacts, const char *artifacts_dir, const char *arg,
                    const char *kind);
void compare_input_done(compare_input *in);
/* {"arg","path","artifact"(id or null),"label","file","sha256","shown"} describing an input;
 * sha256 overrides in->sha256 when not NULL; root is the project's real path (NULL when
 * unknown), for the input's name. Caller owns the object. */
cJSON *compare_input_json(const compare_input *in, const char *sha256, const char *root);
/* The name a client document gives a compared input (side: an input as
 * compare_input_json describes it), kept in side's "shown" when it has none yet: its
 * label; else, for an artifact, the name of the file it was ingested from ("#12" for one
 * recorded before that name was: never its stored copy's path); else, for a path, where
 * the file really lies relative to root (the project's real path) when it is inside it;
 * else the file's name alone, since the rest of such a path is the consultant's machine
 * (/home/me/clients/another-client/...). Without root, or when the file is gone (a
 * comparison recorded before names were), the path as typed decides: kept when it stays
 * below where it was typed, else the file's name. */
void compare_input_shown(cJSON *side, const char *root);
/* Two sides of one comparison shown by the same name (gpu/loss.log and npu/loss.log are
 * both "loss.log") are named by their paths' last components, as few as tell them apart;
 * two artifacts ingested from files of one name by their ids ("#3 loss.log"). */
void compare_inputs_tell_apart(cJSON *a, cJSON *b, const char *root);

#endif
