/*
 * projfs — the one door through which ferry writes into the client's project
 * (fix edits, generated files, reverts), and the reads that plan those writes.
 *
 * A path may be written only when it names a regular file of the project by its real
 * path below the root: relative, without "", "." or ".." components, without a
 * component that is a version-control or ferry directory (.git .hg .svn .bzr _darcs
 * CVS .ferry, in any letter case), with no symbolic link on the way or at the end, and
 * the file (when it exists) a regular file with exactly one hard link — never a FIFO, a
 * device or a link into somewhere else. Directories are walked from the root's
 * descriptor one component at a time with openat(O_DIRECTORY|O_NOFOLLOW); a new file
 * is made as a temporary with O_CREAT|O_EXCL|O_NOFOLLOW in its directory and renamed
 * over the name with renameat, so no component can be swapped for a link midway. A
 * path breaking a rule fails with FERRY_EREFUSED naming the path and the rule, and
 * nothing is written.
 *
 * Nothing here keeps state. Buffers handed out through **out belong to the caller.
 */
#ifndef FERRY_PROJFS_H
#define FERRY_PROJFS_H

#include <stddef.h>

/* What a file looked like when ferry read it; a write that expects it refuses to
 * replace a file that no longer matches (an editor saved it meanwhile). */
typedef struct projfs_stamp {
	int exists;              /* 0: the file did not exist */
	long long size;
	long long mtime_ns;
	unsigned long long ino;
	unsigned mode;           /* permission bits (st_mode & 07777): a diff shows 100755 by them */
	char sha256[65];         /* of the content */
} projfs_stamp;

/* Checks the name rules only (no file system access). */
int projfs_check_path(const char *rel);

/* Reads rel below root after checking every rule. A missing file (its directories
 * may be missing too) is not an error: *out is "" and st->exists 0. *out is
 * NUL-terminated; st may be NULL. */
int projfs_read(char **out, size_t *len, projfs_stamp *st, const char *root, const char *rel);

/* Test hook: with the environment variable FERRY_TEST_PAUSE naming a FIFO, each write
 * below first writes the path to the FIFO and then waits until a writer has opened and
 * closed it, so a test can change a file, or kill ferry, at that exact point. */

/* Writes data as rel atomically (temporary beside it, fsync, renameat, fsync of the
 * directory), making missing directories. An existing file keeps its permission bits
 * except that exec 1 / 0 sets / clears the executable bits (-1 keeps them); a new file
 * gets mode. With expect, the file must still be as expect says right before the
 * rename (FERRY_EREFUSED otherwise, nothing written). after (may be NULL) receives the
 * stamp of what was written. */
int projfs_write(projfs_stamp *after, const char *root, const char *rel, const void *data, size_t len,
                 unsigned mode, int exec, const projfs_stamp *expect);

/* 0 when rel is still as expect says (FERRY_EREFUSED naming it otherwise). */
int projfs_unchanged(const char *root, const char *rel, const projfs_stamp *expect);

/* Makes rel a symbolic link to target (restoring a link the history records); the
 * directories on the way follow the rules above. */
int projfs_symlink(const char *root, const char *rel, const char *target);

/* Removes rel (a file, or a link itself) and then the directories it leaves empty. */
int projfs_remove(const char *root, const char *rel);

/* Removes the temporary files (NAME.ferry-tmp.PID) that an interrupted atomic write
 * left below dir, without following links or entering version-control folders or
 * history.git. Call it only while holding the engagement's writer lock. *removed (may
 * be NULL) receives the count. Best effort: unreadable folders are skipped. */
void projfs_sweep_tmp(size_t *removed, const char *dir);

#endif
