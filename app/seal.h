/* seal — whether an ingested artifact's stored file still has the bytes recorded at ingest.
 *
 * Owns the comparison of an artifact's stored copy (a file under .ferry/artifacts/, a file
 * kept by reference, or a dump's view folder with its manifest) with the SHA-256 recorded
 * when it was ingested, and the one line that says it no longer does. It never changes an
 * artifact or the store. A quick check may trust a hash computed earlier for the same copy
 * while its size, inode, modification and change times are unchanged (the engagement's
 * cache, acache.h, reader "sha256"); a full check hashes everything again.
 *
 * seal_artifact is plain data whose strings the caller owns; seal_file's result is the
 * caller's to free; nothing else is returned to free.
 */
#ifndef FERRY_SEAL_H
#define FERRY_SEAL_H

#include "workspace.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>

typedef struct seal_artifact {
	long long id;        /* the artifacts row */
	const char *kind;    /* bench, loss-log, dump … */
	const char *label;   /* may be NULL or "" */
	const char *file;    /* absolute path: the copy, the file kept by reference, or the dump's view folder */
	const char *sha256;  /* the hash recorded at ingest */
	int by_reference;    /* file is the user's own, recorded by reference ("ref:"), not a copy */
} seal_artifact;

/* The file of a stored path ("KIND/<sha12>-name" under artdir, or "ref:/abs/path"),
 * malloc'd. */
char *seal_file(const char *artdir, const char *path);

/* Checks that a's file still has the bytes recorded at ingest. cache_dir NULL: a full
 * check, every byte hashed again; else hashes computed earlier for an unchanged copy are
 * trusted and new ones kept there. A dump folder (kind "dump", a folder) is intact when its
 * manifest (<folder>.sha256) hashes to the recorded hash, each file it lists hashes to its
 * line, and the folder holds no other file. Returns 0; FERRY_ECORRUPT when the bytes
 * differ; FERRY_EIO when a file cannot be read. Either error's line names the artifact, the
 * file and what to do. */
int seal_check(const seal_artifact *a, const char *cache_dir);

/* seal_check of a store_artifacts row (id, kind, label, path, sha256; borrowed), its
 * stored path under artdir. */
int seal_check_row(const cJSON *row, const char *artdir, const char *cache_dir);

/* Keeps in cache_dir that the regular file at path hashes to sha256, which the caller has
 * just computed from its bytes, so the first check after an ingest does not hash a large
 * file again. With before (the file's stat taken before it was read), only when the file
 * still has that size, inode and those times. Best effort: nothing is kept on any doubt. */
void seal_keep(const char *cache_dir, const char *path, const char *sha256, const struct stat *before);

/* A full check of every artifact of the engagement (`ferry verify`): one problem
 * (replay_problem, table "artifacts", kind "altered" or "unreadable") appended to problems
 * per damaged artifact. Returns 0, or an error when the store cannot be read. */
int seal_verify_all(cJSON *problems, const workspace *ws);

#endif
