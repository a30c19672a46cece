/*
 * blobpack — stores the contents of many files as git blobs in one new pack (pack
 * format version 2, whole objects, no deltas) with its index (version 2), written into
 * a repository's objects/pack directory. Files are read, hashed and compressed on
 * worker threads and appended by one writer as they come: one file created for the
 * lot instead of one per blob.
 *
 * Knows git's on-disk pack formats but not libgit2 (history, the only user, makes its
 * object database see the new pack). Never touches anything but pack_dir, where it
 * leaves either a complete pack and index or nothing. The caller owns the array and
 * its strings; blobpack fills in each entry's result fields.
 */
#ifndef FERRY_BLOBPACK_H
#define FERRY_BLOBPACK_H

#include <stddef.h>
#include <sys/stat.h>

/* Larger files are not read into memory: they come back with big set and no id, for
 * the caller to store by streaming. */
#define BLOBPACK_MAX_INLINE ((off_t)32 << 20)

typedef struct blobpack_file {
	const char *path;     /* in: the file; a symlink is stored as its target */
	unsigned char id[20]; /* out: the blob's object id (SHA-1) when err and big are 0 */
	struct stat st;       /* out: lstat of the file taken before it was read */
	int err;              /* out: 0, or why it was left out (errno; ENOENT: gone, or no longer a file or symlink) */
	int big;              /* out: 1 when larger than BLOBPACK_MAX_INLINE: st filled in, nothing stored */
} blobpack_file;

/* Stores files[0..n) as blobs in one pack in pack_dir, on up to threads workers
 * (0: every online core), each distinct content once. A file that cannot be read is
 * not a failure: its err says why. Returns 0, or FERRY_EIO naming the pack when it
 * cannot be written (nothing is left behind then). Writes no pack when no file is
 * stored. A file that changes while read is read again, a few times at most; its st is
 * always the one taken before the content that was stored, so a change afterwards shows
 * in a stat comparison. */
int blobpack_write(blobpack_file *files, size_t n, const char *pack_dir, int threads);

/* 1 when a and b describe the same file version (device, inode, type, size, change
 * and modification times), else 0. */
int blobpack_same_stat(const struct stat *a, const struct stat *b);

#endif
