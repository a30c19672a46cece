/*
 * history — the shadow git repository (.ferry/history.git) whose work tree is the
 * project. It never reads or writes the client's own .git or its index.
 *
 * The only module that includes git2.h. A history handle owns its libgit2 objects;
 * history_free releases them. Every string handed out through **out belongs to the
 * caller (free()); object ids are 40-char hex strings in caller-provided buffers.
 * Files in the project are written only through projfs.
 */
#ifndef FERRY_HISTORY_H
#define FERRY_HISTORY_H

#include <stddef.h>

typedef struct history history;

typedef struct history_trailer {
	const char *key;   /* "Phase", "Check", "Findings", "Actor", "Audit" */
	const char *value;
} history_trailer;

typedef struct history_sig {
	const char *name;  /* actor name */
	const char *email; /* actor e-mail; may be empty */
} history_sig;

typedef struct history_commit_info {
	char oid[41];
	char *message;     /* full message with trailers */
	char *author;      /* "Name <email>" */
	long long time;    /* seconds since the epoch */
	char **parents;    /* oids */
	size_t nparents;
} history_commit_info;

/* Creates the bare repository at git_dir with root as its work tree (the project's
 * .gitignore honoured; .git/ and .ferry/ always excluded) and commits the project as
 * received: the baseline, its blobs and trees written as packs (files read and hashed
 * on worker threads; see blobpack.h). Writes its oid into baseline. */
int history_init(history **out, char baseline[41], const char *root, const char *git_dir,
                 const history_sig *sig);
/* Called by the scans of history_init with the number of paths looked at so far, on the
 * calling thread (NULL stops it). Meant for a progress line; the count is not a result. */
void history_set_progress(void (*fn)(size_t paths, void *payload), void *payload);

/* Opens an existing history; fails with FERRY_EGIT naming git_dir when it is damaged. */
int history_open(history **out, const char *root, const char *git_dir);
void history_free(history *h);

/* The current head and the baseline (first commit) oids; the baseline is found once per handle. */
int history_head(char out[41], history *h);
int history_baseline(char out[41], history *h);

/* Relative paths that differ between the work tree and HEAD (modified, new and not
 * ignored, deleted). *out is an array of malloc'd strings (caller frees each and the array). */
int history_changed_files(char ***out, size_t *n, history *h);

/* The paths the scans of this handle left out ("path: reason" lines, borrowed): files
 * that could not be read, directories that could not be listed or nested deeper than
 * 100 levels, found after a scan failed on them. Each is hidden from every later scan
 * of the handle; the command warns about each and goes on. */
size_t history_skipped(const char *const **out, const history *h);

/* Commits the given paths (NULL/0 = every changed file) as they are in the work tree,
 * with message, then a blank line and the trailers. Parent = current HEAD. Writes the
 * new oid. Nothing to commit is not an error: out gets HEAD and *made is 0. */
int history_commit(char out[41], int *made, history *h, const char *const *paths, size_t npaths,
                   const char *message, const history_trailer *trailers, size_t ntrailers,
                   const history_sig *sig);

/* Resolves "baseline", "HEAD" or a commit prefix (≥ 4 hex digits) to a full oid.
 * FERRY_EUSAGE when the prefix matches several commits, FERRY_ENOTFOUND when none. */
int history_resolve(char out[41], history *h, const char *rev);
/* 1 when the commit exists in the repository, else 0. */
int history_has_commit(history *h, const char *oid);
int history_commit_info_get(history_commit_info *out, history *h, const char *oid);
void history_commit_info_done(history_commit_info *info);
/* Value of trailer key in a commit message (malloc'd), or NULL. */
char *history_trailer_value(const char *message, const char *key);

/* Unified diff from a to b (b NULL: a's first parent to a). Caller frees *out. */
int history_diff(char **out, history *h, const char *a, const char *b);
/* Unified diff of two versions of one file (a/path, b/path headers); old NULL: the file
 * does not exist yet (a new file, from /dev/null). exec: the file is (or will be made)
 * executable, so the header gives its mode as 100755, else 100644 — what a checkpoint
 * of the change records and `ferry diff` and `ferry export` show. Computed in memory:
 * nothing is written to any repository. Caller frees. */
int history_diff_buffers(char **out, const char *path, const char *old, size_t oldlen, const char *new_text,
                         size_t newlen, int exec);
/* Paths touched between a's parent and a. */
int history_commit_paths(char ***out, size_t *n, history *h, const char *oid);

/* One hunk of a commit's diff against its first parent, computed without context
 * lines so each hunk is exactly one change. Everything is borrowed for the callback. */
typedef struct history_hunk {
	const char *path;     /* the file (its old path when deleted) */
	char status;          /* 'A' file added, 'D' file deleted, 'M' modified, 'R' renamed */
	int binary;           /* 1 for a binary file: one call, no lines */
	int old_start, old_lines; /* removed range in the parent's version (1-based; 0 lines = none) */
	int new_start, new_lines; /* added range in the commit's version */
	const char *old_text; /* the removed lines, NUL-terminated */
	const char *new_text; /* the added lines, NUL-terminated */
} history_hunk;
/* Returns non-zero to stop; that value is returned by history_diff_hunks. */
typedef int (*history_hunk_cb)(const history_hunk *hunk, void *payload);
/* Calls cb for every hunk of commit oid (the baseline: against the empty tree), file
 * by file in path order. */
int history_diff_hunks(history *h, const char *oid, history_hunk_cb cb, void *payload);
/* The same for the change from commit from (NULL: oid's first parent) to commit oid,
 * of the file path alone (NULL: of every file). */
int history_diff_hunks_from(history *h, const char *from, const char *oid, const char *path, history_hunk_cb cb,
                            void *payload);

/* Contents of path at commit oid; FERRY_ENOTFOUND when absent there. */
int history_read_at(char **out, size_t *len, history *h, const char *oid, const char *path);

/* Undoes commit oid in the work tree (files written atomically, deleted files restored,
 * added files removed, every write through projfs) and commits the result as a new
 * commit. Refused with FERRY_EREFUSED, nothing written, when a touched file has changed
 * since in a way that conflicts, when a touched file has edits not yet committed and
 * when there is nothing left to undo (the history's state: the same request may pass
 * later); FERRY_EUSAGE for the baseline, which no state lets anyone revert.
 *
 * hooks (may be NULL, as may each of its functions): once every check has passed and
 * before the first write, planned gets the paths the revert will write and the SHA-256
 * each will hold (NULL: deleted); a non-zero return stops it with nothing written.
 * name writes into out (cap bytes) what the user calls a commit, "checkpoint #5", for
 * the refusal's message; left empty, the commit is named by its hash. */
typedef int (*history_planned_cb)(const char *const *paths, const char *const *sha256, size_t n, void *payload);
typedef void (*history_name_cb)(char *out, size_t cap, const char *oid, void *payload);
typedef struct history_revert_hooks {
	history_planned_cb planned;
	history_name_cb name;
	void *payload;
} history_revert_hooks;
int history_revert(char out[41], history *h, const char *oid, const char *message,
                   const history_trailer *trailers, size_t ntrailers, const history_sig *sig,
                   const history_revert_hooks *hooks);

/* 1 in *ignored when relpath is ignored by the project's ignore rules. */
int history_is_ignored(int *ignored, history *h, const char *relpath);

/* Writes one mbox patch per commit after the baseline, oldest first, into dir
 * (0001-<subject>.patch ...), appliable with `git am` on the baseline. A non-ASCII
 * author name or subject is RFC 2047 encoded, with UTF-8 MIME headers. signoff
 * ("Name <email>", or NULL) adds a Signed-off-by: trailer to every message. */
int history_export_patches(history *h, const char *dir, const char *signoff);
/* Creates branch name in the git repository at repo, without touching its checked-out
 * branch, index or work tree. The branch starts at the client's commit the code came
 * from: base_rev when given, else the newest commit reachable from HEAD whose folder at
 * the project's place (its path inside the git work tree that holds it; the root when
 * none) holds the baseline's files (our ignore rules applied). Each checkpoint follows
 * as one commit changing only that folder; a named base that differs from the baseline
 * first gets one commit with the project as received. FERRY_EEXISTS when the branch
 * exists, FERRY_EREFUSED when no commit matches, FERRY_EUSAGE when base_rev names no
 * commit. */
int history_export_branch(history *h, const char *name, const char *repo, const char *base_rev);

/* The user identity from git configuration (user.name, user.email); either may be
 * NULL in *name / *email (caller frees). Non-zero when git has none. */
int history_user_identity(char **name, char **email);

/* git fsck-like connectivity check of every commit reachable from HEAD. */
int history_check(history *h);

#endif
