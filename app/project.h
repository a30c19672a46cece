/*
 * project — the inventory of a project's files and the resolution of project paths.
 *
 * Owns nothing between calls. project_files walks the project root and lists each file
 * once, by its real path: it follows no symlink. A link that stays inside the root is
 * another name for a file or folder the walk reaches by its own path (DeepSpeed's
 * deepspeed/accelerator -> ../accelerator/), so it is not listed; a link that leaves the
 * root, loops or dangles is recorded as a problem. It fills a project_list whose arrays
 * and strings belong to the list until project_list_done. project_resolve turns a relative project path
 * into an absolute one that is guaranteed to lie inside the root; the result belongs to the
 * caller (free()).
 *
 * Must not touch: the workspace (.ferry/), the client's .git/ — both are skipped by the walk.
 */
#ifndef FERRY_PROJECT_H
#define FERRY_PROJECT_H

#include <stddef.h>

typedef struct project_list {
	char **paths;     /* relative paths with '/', sorted by strcmp */
	size_t n;         /* number of paths */
	char **problems;  /* "path: reason" lines, in walk order */
	size_t nproblems; /* number of problems */
} project_list;

/* Says whether a relative path is ignored. Directories are offered with a trailing '/'
 * ("build/"); an ignored directory is not descended into. Non-zero means ignored. */
typedef int (*project_ignore_fn)(const char *relpath, void *payload);

/* Lists the regular files under root by their real relative paths, skipping .git/,
 * .ferry/, and what is_ignored (may be NULL) rejects. No symlink is followed or listed: one
 * pointing inside the root is skipped silently (its target is listed under its own path
 * unless that is skipped too); a symlink loop, a symlink leaving the project, a broken
 * symlink, a directory loop (a bind mount) or an unreadable directory becomes a problem
 * line ("path: reason") and the walk goes on.
 * Sockets, FIFOs and devices are skipped silently.
 * Fails with FERRY_EIO only when root itself cannot be opened; out is then empty.
 * The caller releases out with project_list_done. */
int project_files(project_list *out, const char *root, project_ignore_fn is_ignored, void *payload);

/* Frees the arrays and strings inside l (not l itself) and empties it; NULL is harmless. */
void project_list_done(project_list *l);

/* Resolves rel (relative to root) to an absolute path inside root, following symlinks.
 * Refuses (FERRY_EREFUSED, naming rel) an empty or absolute path, a ".." component, and a
 * path whose symlinks resolve outside root; FERRY_ENOTFOUND when it does not exist;
 * FERRY_EIO for other failures. *out is malloc'd (caller frees) and NULL on failure. */
int project_resolve(char **out, const char *root, const char *rel);

#endif
