/*
 * compare_dump — the tune phase's tensor dump comparison (DESIGN §2 row 5, §7
 * `ferry compare dump A B`): two .npy or .pt files (a .pt state_dict compares key by
 * key), two msprobe dump directories (or their dump.json files) with .npy or .pt
 * tensors, or two folders of .npy/.pt tensors.
 *
 * Owns the orchestration: pairing the tensors of A and B by name, deciding per pair
 * whether it is compared from tensor data, from dump.json statistics or not at all, and
 * collecting the verdicts and the hashes into a dump_result. The work is done by:
 *   npy.h          the .npy reader (headers, element decoding)
 *   dump_input.h   reading an input: a file, a dump.json, a folder (.pt through ptfile.h)
 *   dump_engine.h  the streaming metric engine, hashing, and msprobe's verdict rules
 *   dump_render.h  the text, CSV and JSON renderings of a result
 * This header includes npy.h, dump_result.h and dump_render.h, so a caller needs only it.
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

#include "dump_render.h"
#include "dump_result.h"
#include "npy.h"

#include <stddef.h>

typedef struct dump_opts {
	int threads;        /* worker threads; 0 = all online cores */
	size_t chunk_elems; /* elements per chunk; 0 = the engine's default */
	const char *dtype_a, *dtype_b; /* "bf16": that side's 2-byte integer or |V2 tensors hold
	                                * bfloat16 bits; NULL: as the header (or dump.json) says */
	dump_threshold th;  /* what a pair of tensors is judged by (agreed 0: msprobe's rule) */
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

/* Frees what r owns and leaves it zeroed (first_fail -1); harmless on a zeroed result
 * and on NULL. */
void dump_result_done(dump_result *r);

/* 1 when A and B hold the same values: every tensor of each has a partner, and every pair
 * compared something and is equal element for element (the same NaN and ±inf at the same
 * places) or, by statistics, has the same ones. Two runs on different devices never give
 * that for a whole dump: it is one run's dump twice, whatever the bytes (a re-save, another
 * byte order, strided views). */
int dump_result_same_values(const dump_result *r);

#endif
