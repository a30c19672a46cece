/* acache: what a reader made of an ingested artifact (a profile's aggregates, a log's
 * matching lines), kept on disk in the engagement's cache folder so that judging the
 * evidence again, after every ingest, does not read a 2 GB profile or a 300 MB log again.
 *
 * An entry is named by the artifact's SHA-256, the reader, the ferry executable that wrote
 * it (its inode, size and modification time: a new build never trusts an old build's
 * reading, and storing an entry removes that reader's entries of other builds for the same
 * artifact, so the folder does not grow with every build) and the reader's arguments
 * (which include the language when the reading holds translated text). It holds the
 * stored copy's size, inode, modification and change times when it was read, and is used
 * only while the copy still has them (a copy rewritten in place, even with its old time
 * put back, has a new change time). Entries are written to a temporary file and renamed,
 * so a reader sees a whole entry or none. The cache is derived data: deleting the folder
 * loses nothing, and failing to read or write it is no error (no error record is left).
 *
 * acache_key is plain data on the caller's stack; acache_load's bytes are the caller's. */
#ifndef FERRY_ACACHE_H
#define FERRY_ACACHE_H

#include <stddef.h>
#include <sys/stat.h>

typedef struct acache_key {
	char path[4096];     /* the entry's file */
	char stem[4096];     /* its name up to the executable: "DIR/SHA256.READER." */
	long long size;      /* the artifact copy's size, inode, and modification and change */
	long long ino;       /* times (nanoseconds) when the key was made */
	long long mtime_ns, ctime_ns;
} acache_key;

/* The key of reading `file` (the artifact copy, whose recorded hash is sha256) with
 * `reader` ("profile": letters, digits and '-') and its arguments (any bytes) into dir.
 * Returns 0, or -1 when no entry can be kept (no dir, or dir is no folder of its own but
 * a link; a hash that is not 64 hex digits; the copy cannot be stat'ed; the executable
 * unknown). */
int acache_key_make(acache_key *k, const char *dir, const char *sha256, const char *reader, const void *args,
                    size_t argslen, const char *file);

/* 1 when st (a stat of the same file) still has the size, inode, modification and change
 * times k was made with. */
int acache_key_matches(const acache_key *k, const struct stat *st);

/* The bytes kept for k (malloc'd, *len set), or NULL when there is no entry that matches
 * the copy's size and modification time. */
char *acache_load(const acache_key *k, size_t *len);

/* Keeps bytes for k, creating dir when needed; returns 0, or -1 when it could not (the
 * caller carries on without the cache). */
int acache_store(const acache_key *k, const char *bytes, size_t len);

#endif
