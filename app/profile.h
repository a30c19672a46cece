/*
 * profile — profiler output aggregated in one streaming pass, for files of any size.
 *
 * Owns the readers of torch_npu / msprof profiling tables (kernel_details.csv in both
 * header generations, op_statistic.csv, step_trace_time.csv) and of Chrome trace JSON
 * (trace_view.json, torch.profiler exports) and the aggregates made from them: per
 * operator name and per operator type totals, the accelerator core of each (so AI CPU
 * operators are known), communication time, device idle time between operators, the
 * per-step breakdown, per-rank totals. Facts about the formats: shared reference
 * "tune-and-inference-formats" §3.1.
 *
 * Memory grows with the number of distinct operator names, ranks, streams and steps,
 * never with the file's size: the file is read through an artifact_source in fixed
 * chunks; a CSV record or JSON string longer than PROFILE_MAX_TOKEN is cut there.
 *
 * Reading never aborts on bad data: an unreadable row is counted in bad_rows; a file that
 * ends early or turns malformed keeps the aggregates of what came before and says where
 * and why reading stopped (profile.stopped). Only input that is not a profile at all
 * (empty, binary, no recognised header, not a trace) is an error.
 *
 * Ownership: profile_read gives the caller a profile freed with profile_free; every
 * string and array in it belongs to it.
 */
#ifndef FERRY_PROFILE_H
#define FERRY_PROFILE_H

#include "artifact.h"

#include <stddef.h>

#define PROFILE_MAX_TOKEN 4096 /* bytes kept of one CSV record field or one JSON string */

enum profile_form {
	PROFILE_KERNEL_DETAILS = 1, /* kernel_details.csv / op_summary_*.csv: one row per kernel */
	PROFILE_OP_STATISTIC,       /* op_statistic.csv: one row per operator type */
	PROFILE_STEP_TRACE,         /* step_trace_time.csv: one row per device and step */
	PROFILE_TRACE,              /* Chrome trace JSON */
};

/* Totals of one operator name (or, in profile.types, one operator type). */
typedef struct profile_op {
	char *name;                 /* kernel / event name; the type itself in profile.types */
	char *type;                 /* operator type ("MatMulV2"); "" when the input has none */
	char *core;                 /* accelerator core or task type ("AI_CORE", "AI_CPU", "HCCL"); "" unknown */
	double total_us;            /* summed duration, microseconds */
	double max_us;              /* longest single run */
	unsigned long long count;   /* runs */
} profile_op;

/* One rank (device): from a Device_id column or an "NPU n" process of a trace. */
typedef struct profile_rank {
	char *id;                   /* the device id or process label */
	double busy_us;             /* summed device operator time */
	double step_us;             /* summed step time (step_trace_time.csv: compute + comm + free) */
	double idle_us;             /* gaps between consecutive operators (sorted input only) */
	unsigned long long steps;   /* steps seen for this rank */
	double last_end;            /* private: end of the latest operator, for idle time */
} profile_rank;

/* One training step: a "ProfilerStep#N" event of a trace, or a step_trace_time.csv row. */
typedef struct profile_step {
	char *id;                   /* "ProfilerStep#3", or "device 0 step 3" */
	double ts, dur_us;          /* start (trace µs) and length */
	double busy_us;             /* device operator time inside it (at most dur_us) */
	double free_us;             /* time the device waited for the host */
} profile_step;

typedef struct profile {
	int form;                   /* enum profile_form */
	int device;                 /* ops are device kernels (0: host operators of a CPU-only trace) */
	profile_op *ops;            /* per operator name, sorted by total_us descending */
	size_t nops;
	profile_op *types;          /* per operator type, sorted by total_us descending */
	size_t ntypes;
	double total_us;            /* all operator time */
	double comm_us;             /* communication operators (hcom_*, HCCL) */
	double aicpu_us;            /* AI CPU operators */
	double idle_us;             /* device idle between operators, summed over ranks/streams */
	double busy_us;             /* device operator time used for idle_us (same tracks) */
	int has_breakdown;          /* the overlap analysis below is present */
	double compute_us, comm_exposed_us, free_us; /* Computing, Communication(Not Overlapped), Free */
	profile_step *steps;        /* steps in input order */
	size_t nsteps;
	profile_rank *ranks;        /* ranks in order of first appearance */
	size_t nranks;
	unsigned long long dynamic_rows, static_rows; /* kernel rows by OP State */
	unsigned long long rows;    /* data rows / events read */
	unsigned long long bad_rows;/* rows or events that could not be used */
	unsigned long long bytes;   /* bytes read */
	char *stopped;              /* where and why reading stopped early ("byte N: reason"), or NULL */
	int read_failed;            /* it stopped on an error reading the file, not on its content */
} profile;

/* Reads the profile in src (name is used in messages) into *out (caller frees with
 * profile_free). Returns 0, also for a partly readable file (then (*out)->stopped says
 * where it stopped); FERRY_ECORRUPT naming `name` for input that is no profile;
 * FERRY_EIO for a read error before anything was read. */
int profile_read(profile **out, const char *name, const artifact_source *src);

/* profile_read over a file on disk. */
int profile_read_file(profile **out, const char *path);

/* 1 when core names the AI CPU ("AI_CPU", "AICPU"). */
int profile_is_aicpu(const char *core);

/* The form's name ("kernel_details", "op_statistic", "step_trace_time", "trace"). */
const char *profile_form_name(int form);

void profile_free(profile *p);

#endif
