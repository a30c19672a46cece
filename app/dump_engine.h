/*
 * dump_engine — the arithmetic of a dump comparison: streams tensor pairs in bounded
 * chunks over a pool of threads and reduces them to msprobe's metrics, takes the SHA-256
 * of every file read for the audit record, and applies msprobe's verdict rules to the
 * metrics (tensor data) or to dump.json statistics.
 *
 * Memory is bounded by threads × chunk buffers, never by tensor size. Results do not
 * depend on the number of threads: each chunk's sums are combined in chunk order.
 *
 * Owns nothing past a call: the tensor and file lists are the caller's (paths, .pt
 * archives and tensors borrowed for the call); results go into caller-owned structs.
 * Touches no workspace.
 */
#ifndef FERRY_DUMP_ENGINE_H
#define FERRY_DUMP_ENGINE_H

#include "dump_result.h"
#include "npy.h"
#include "ptfile.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* Where the two sides of one tensor pair are read from. */
typedef struct dump_tensor_io {
	const char *path_a, *path_b; /* the files (borrowed) */
	npy_info a, b;               /* the element layout of each side (a .pt tensor in .npy terms) */
	const ptfile *fa, *fb;       /* the .pt archive of a side, or NULL for .npy (borrowed) */
	const pt_tensor *ta, *tb;    /* its tensor in that archive */
	size_t file_a, file_b;       /* a side's .npy in the file list, or (size_t)-1: a .npy still
	                              * to hash is hashed from the chunks read to compare it */
} dump_tensor_io;

/* A file whose SHA-256 the audit record needs. */
typedef struct dump_hash_file {
	const char *path; /* borrowed */
	char sha[65];     /* lowercase hex; "" until known */
} dump_hash_file;

/* Compares the n tensor pairs of io (same element count on both sides) into out[0..n-1]
 * and hashes every file of files[0..nfiles-1] whose sha is still "", on `threads`
 * workers (the calling thread is one of them) with chunks of `chunk` elements (0: the
 * default). A .npy named by io[].file_a/file_b is read once: its hash is fed, in file
 * order, from the chunks read for the comparison. Fails with the first error of a worker: FERRY_EIO for an unreadable file,
 * FERRY_ECORRUPT for a file that ends early (changed while read). */
int dump_engine_run(dump_metrics *out, const dump_tensor_io *io, size_t n, dump_hash_file *files, size_t nfiles,
                    size_t chunk, int threads, const dump_threshold *th);

/* Fills in the hashes recorded when a dump folder was ingested (the sha256sum-style
 * manifest ROOT.sha256 beside its stored copy, see ingest.c) for the files below root,
 * so a stored dump is read once, to compare it. Returns how many files got their hash
 * that way; a missing or unreadable manifest gives 0. */
size_t dump_known_hashes(dump_hash_file *files, size_t n, const char *root);

/* The SHA-256 of sha256sum-style lines for files[idx[0..n-1]], named by their path below
 * root and sorted by it, so the same dump has the same hash wherever it lies. */
void dump_manifest_hash(char out[65], const dump_hash_file *files, const size_t *idx, size_t n, const char *root);

/* msprobe's "Accuracy Reached or Not" for real data, or with th->agreed the agreed
 * thresholds (th NULL: msprobe's), plus NaN/inf agreement: sets p->pass, p->warn and
 * p->note from p->m. A NaN fails, on both sides at the same place too (the baseline's
 * NaN cannot vouch for B); ±inf on both sides at the same places leaves the finite
 * elements to judge and a warning; a pair with no finite element compares nothing:
 * a warning, msprobe's "None". */
void dump_judge_real(dump_pair *p, const dump_threshold *th);

/* msprobe's statistics mode: fills p->stat_a/stat_b/stat_rel from the dump.json records
 * ra and rb and sets p->pass, p->warn and p->note. Under thresholds agreed for the
 * engagement (th->agreed) a statistics pair never passes: it fails when its Max or Min
 * proves an element outside them, and is otherwise not judged. */
void dump_judge_stats(dump_pair *p, const cJSON *ra, const cJSON *rb, const dump_threshold *th);

#endif
