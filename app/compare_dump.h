/*
 * compare_dump — the tune phase's tensor dump comparison (DESIGN §2 row 5, §7
 * `ferry compare dump A B`): two .npy or .pt files (a .pt state_dict compares key by
 * key), two msprobe dump directories (or their dump.json files) with .npy or .pt
 * tensors, or two folders of .npy/.pt tensors. .pt files are read through ptfile.h.
 *
 * Owns: the .npy reader (header parsing and element decoding for little/big-endian
 * float16/32/64, signed and unsigned integers and bool, C and Fortran order), the
 * streaming engine that compares tensor pairs in bounded chunks on a pool of threads
 * (memory bounded by threads × chunk size, never by tensor size), the dump.json reader
 * (entries matched by name, in execution order), the per-pair metrics and verdicts of
 * msprobe's compare tool, and the text, JSON and CSV renderings.
 *
 * A is the baseline (the GPU run, msprobe's "bench"), B the run under test (the NPU
 * run): relative errors are |B−A| / (|A| + 1e-12).
 *
 * Touches no workspace or database: the caller records the audit event. Fuzzed by
 * tests/fuzz/fuzz_npy.c.
 *
 * Ownership: dump_result owns every string and array in it (dump_result_done, harmless
 * on a zeroed struct). Renderers append to a caller-owned sbuf; JSON returned belongs to
 * the caller (cJSON_Delete).
 */
#ifndef FERRY_COMPARE_DUMP_H
#define FERRY_COMPARE_DUMP_H

#include "util.h"

#include <cjson/cJSON.h>
#include <stddef.h>

#define NPY_MAX_DIMS 32

/* What a .npy header says about the array that follows it. */
typedef struct npy_info {
	char kind;                       /* 'f' float, 'i' signed int, 'u' unsigned int, 'b' bool,
	                                  * 'V' opaque 2-byte values, 'B' bfloat16 (never in a header:
	                                  * set when a 2-byte tensor is known to hold bfloat16 bits) */
	int itemsize;                    /* bytes per element: 1, 2, 4 or 8 */
	int big_endian;                  /* 1 when the elements are stored big-endian */
	int fortran;                     /* 1 for Fortran (column-major) order */
	int ndim;                        /* 0 for a scalar */
	long long shape[NPY_MAX_DIMS];
	unsigned long long count;        /* elements: the product of the shape */
	unsigned long long data_offset;  /* bytes of magic, version, length and header */
	char descr[8];                   /* as written, e.g. "<f4" */
} npy_info;

/* Parses the .npy header at the start of buf (len bytes: at least the whole header).
 * Fails with FERRY_ECORRUPT naming `name`: bad magic or version, truncated header, a
 * header that is not the expected dict literal, an unsupported dtype (structured,
 * complex, object, strings), or a shape whose byte size overflows. */
int npy_parse_header(npy_info *out, const char *name, const unsigned char *buf, size_t len);

/* Reads and parses path's header and checks that the file holds exactly the data the
 * header promises (truncated or trailing bytes: FERRY_ECORRUPT naming the file). */
int npy_read_info(npy_info *out, const char *path);

/* Decodes n elements of raw (stored as h describes) into doubles. */
void npy_decode(double *out, const npy_info *h, const unsigned char *raw, size_t n);

/* "(2, 3)" into out (at least 16 bytes; long shapes are cut with "…"). */
void npy_shape_text(char *out, size_t size, const npy_info *h);

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
	unsigned long long nonfinite_mismatch; /* positions where A and B are not the same NaN/±inf */
} dump_metrics;

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
	char dtype_a[32], dtype_b[32];
	char shape_a[64], shape_b[64];
	dump_metrics m;      /* DUMP_REAL */
	double stat_a[4], stat_b[4]; /* DUMP_STATS: Max, Min, Mean, Norm (NaN when absent) */
	double stat_rel[4];  /* |B − A| / max(|A|, |B|) per statistic, msprobe's statistics-mode
	                      * measure (NaN when absent) */
	int pass;
	int warn;            /* DUMP_STATS: a statistic differs by more than msprobe's MAGNITUDE
	                      * (0.5): its "Warning", a pair to double-check, not a failure */
	const char *note;    /* static text: why it failed or was not read, or NULL */
} dump_pair;

typedef struct dump_result {
	dump_pair *pairs;      /* in execution order of A */
	size_t n;
	size_t only_a, only_b; /* tensors without a partner */
	size_t nreal, nstats, nunmatched, nfailed;
	size_t nwarn;          /* passing statistics pairs with msprobe's Warning */
	long long first_fail;  /* index of the first failing pair in execution order, or -1 */
	char *form_a, *form_b; /* "npy", "pt", "dump.json" or "npy folder" (.npy and .pt files) */
	char *stats_reason;    /* why tensors were not read (NULL when all were), static-like copy */
	char sha_a[65], sha_b[65]; /* a file's SHA-256, or for a dump the SHA-256 of its manifest
	                            * (sha256sum lines of dump.json and every tensor file read) */
	int pass;              /* pairs were compared and none failed */
} dump_result;

typedef struct dump_opts {
	int threads;        /* worker threads; 0 = all online cores */
	size_t chunk_elems; /* elements per chunk; 0 = the default (128 Ki) */
	const char *dtype_a, *dtype_b; /* "bf16": that side's 2-byte integer or |V2 tensors hold
	                                * bfloat16 bits; NULL: as the header (or dump.json) says */
} dump_opts;

/* 1 for the names the dtype overrides accept for bfloat16 ("bf16", "bfloat16"). */
int dump_dtype_is_bf16(const char *name);

/* Compares the dumps at paths a and b (files or directories). Fails naming the file:
 * FERRY_ECORRUPT for a truncated or corrupt .npy or dump.json, or for two arrays of more
 * than one dimension stored in different memory orders (C against Fortran: compared in
 * file order their elements would not correspond); FERRY_EUSAGE for inputs of different
 * forms (a folder against a single .npy) or a folder holding several dump.json files;
 * FERRY_EIO for unreadable files. A failing verdict is a result, not an error. */
int dump_compare(dump_result *out, const char *a, const char *b, const dump_opts *opts);
void dump_result_done(dump_result *r);

/* The summary, the first diverging layer and the worst pairs. */
void dump_render_text(sbuf *out, const dump_result *r, const char *name_a, const char *name_b);
/* One row per compared pair, with a header line. */
void dump_render_csv(sbuf *out, const dump_result *r);
/* {"kind":"dump","a","b","summary","first_diverging","verdict","pairs":[…]}; ina/inb may be NULL. */
cJSON *dump_result_json(const dump_result *r, const cJSON *ina, const cJSON *inb);

#endif
