/* project — see project.h. */
#include "intl.h"
#include "project.h"
#include "err.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Deeper than this, a tree is either generated garbage or a loop we failed to see. */
#define MAX_DEPTH 128

typedef struct walk {
	const char *root_real;  /* realpath of the root */
	project_ignore_fn is_ignored;
	void *payload;
	project_list *out;
	size_t cap, pcap;       /* allocated slots in out->paths and out->problems */
	dev_t devs[MAX_DEPTH + 1]; /* the directories being walked, outermost first */
	ino_t inos[MAX_DEPTH + 1];
	size_t depth;
} walk;

static void add_path(walk *w, char *rel)
{
	if (w->out->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 64;
		w->out->paths = xrealloc(w->out->paths, w->cap * sizeof *w->out->paths);
	}
	w->out->paths[w->out->n++] = rel;
}

static void add_problem(walk *w, const char *rel, const char *reason)
{
	if (w->out->nproblems == w->pcap) {
		w->pcap = w->pcap ? w->pcap * 2 : 8;
		w->out->problems = xrealloc(w->out->problems, w->pcap * sizeof *w->out->problems);
	}
	w->out->problems[w->out->nproblems++] = xasprintf("%s: %s", rel, reason);
}

/* 1 when path (absolute, resolved) is root or lies below it. */
static int inside(const char *root, const char *path)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return 1;
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int ignored(walk *w, const char *rel, int is_dir)
{
	if (!w->is_ignored)
		return 0;
	if (!is_dir)
		return w->is_ignored(rel, w->payload) != 0;
	char *with_slash = xasprintf("%s/", rel);
	int r = w->is_ignored(with_slash, w->payload) != 0;
	free(with_slash);
	return r;
}

static void walk_dir(walk *w, const char *abs, const char *rel);

/* One directory entry: abs is its path on disk, rel its project path (caller frees both).
 * A symlink is never followed: one that stays inside the root names a file or folder the
 * walk reaches by its real path anyway (listing it again would scan the same file twice
 * under two names, and ferry writes only by real paths), so it is left out silently; one
 * that leaves the root, loops or dangles is a problem. */
static void walk_entry(walk *w, const char *abs, const char *rel)
{
	struct stat st;
	if (lstat(abs, &st) != 0) {
		if (errno != ENOENT) /* a file deleted while the walk ran is simply not there */
			add_problem(w, rel, strerror(errno));
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		char *target = realpath(abs, NULL);
		if (!target)
			add_problem(w, rel, errno == ELOOP ? N_("symlink loop")
			                    : errno == ENOENT ? N_("broken symlink") : strerror(errno));
		else if (!inside(w->root_real, target))
			add_problem(w, rel, N_("symlink leaving the project"));
		free(target);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		if (ignored(w, rel, 1))
			return;
		/* without links, only a bind mount can bring a folder back inside itself */
		for (size_t i = 0; i < w->depth; i++) {
			if (w->devs[i] == st.st_dev && w->inos[i] == st.st_ino) {
				add_problem(w, rel, N_("directory loop"));
				return;
			}
		}
		if (w->depth >= MAX_DEPTH) {
			add_problem(w, rel, N_("directories nested too deeply"));
			return;
		}
		w->devs[w->depth] = st.st_dev;
		w->inos[w->depth] = st.st_ino;
		w->depth++;
		walk_dir(w, abs, rel);
		w->depth--;
	} else if (S_ISREG(st.st_mode)) {
		if (!ignored(w, rel, 0))
			add_path(w, xstrdup(rel));
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Walks the directory abs whose project path is rel ("" for the root). */
static void walk_dir(walk *w, const char *abs, const char *rel)
{
	DIR *d = opendir(abs);
	if (!d) {
		char *why = xasprintf("unreadable directory (%s)", strerror(errno)) /* skip_reasons in plugin_host.c */;
		char *name = xasprintf("%s/", rel);
		add_problem(w, name, why);
		free(name);
		free(why);
		return;
	}
	/* Entries are collected first so the directory stream is not held open while
	 * descending (deep trees would otherwise run out of descriptors). */
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		const char *nm = de->d_name;
		if (strcmp(nm, ".") == 0 || strcmp(nm, "..") == 0)
			continue;
		if (strcmp(nm, ".git") == 0 || strcmp(nm, ".ferry") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = xrealloc(names, cap * sizeof *names);
		}
		names[n++] = xstrdup(nm);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char *child_abs = util_path_join(abs, names[i]);
		char *child_rel = *rel ? xasprintf("%s/%s", rel, names[i]) : xstrdup(names[i]);
		walk_entry(w, child_abs, child_rel);
		free(child_abs);
		free(child_rel);
		free(names[i]);
	}
	free(names);
}

int project_files(project_list *out, const char *root, project_ignore_fn is_ignored, void *payload)
{
	int rc = 0;
	memset(out, 0, sizeof *out);
	walk w = {.is_ignored = is_ignored, .payload = payload, .out = out};
	char *root_real = realpath(root, NULL);
	struct stat st;
	if (!root_real || stat(root_real, &st) != 0) {
		rc = err_set(FERRY_EIO, "%s: %s", root, strerror(errno));
		goto out;
	}
	if (!S_ISDIR(st.st_mode)) {
		rc = err_set(FERRY_EIO, _("%s: not a directory"), root);
		goto out;
	}
	DIR *probe = opendir(root_real);
	if (!probe) {
		rc = err_set(FERRY_EIO, "%s: %s", root, strerror(errno));
		goto out;
	}
	closedir(probe);
	w.root_real = root_real;
	w.devs[0] = st.st_dev;
	w.inos[0] = st.st_ino;
	w.depth = 1;
	walk_dir(&w, root_real, "");
	if (out->n)
		qsort(out->paths, out->n, sizeof *out->paths, by_name);
out:
	free(root_real);
	return rc;
}

void project_list_done(project_list *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->paths[i]);
	for (size_t i = 0; i < l->nproblems; i++)
		free(l->problems[i]);
	free(l->paths);
	free(l->problems);
	memset(l, 0, sizeof *l);
}

/* 1 when rel has a ".." component. */
static int has_dotdot(const char *rel)
{
	const char *p = rel;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (!slash)
			break;
		p = slash + 1;
	}
	return 0;
}

int project_resolve(char **out, const char *root, const char *rel)
{
	int rc = 0;
	char *root_real = NULL, *joined = NULL, *real = NULL;
	*out = NULL;
	if (!rel || !*rel) {
		rc = err_set(FERRY_EREFUSED, _("(empty path): not a project path"));
		goto out;
	}
	if (rel[0] == '/') {
		rc = err_set(FERRY_EREFUSED, _("%s: absolute path refused"), rel);
		goto out;
	}
	if (has_dotdot(rel)) {
		rc = err_set(FERRY_EREFUSED, _("%s: path leaves the project"), rel);
		goto out;
	}
	root_real = realpath(root, NULL);
	if (!root_real) {
		rc = err_set(FERRY_EIO, "%s: %s", root, strerror(errno));
		goto out;
	}
	joined = util_path_join(root_real, rel);
	real = realpath(joined, NULL);
	if (!real) {
		int e = errno;
		if (e == ENOENT || e == ENOTDIR)
			rc = err_set(FERRY_ENOTFOUND, _("%s: no such file"), rel);
		else if (e == ELOOP)
			rc = err_set(FERRY_EREFUSED, _("%s: symlink loop"), rel);
		else
			rc = err_set(FERRY_EIO, "%s: %s", rel, strerror(e));
		goto out;
	}
	if (!inside(root_real, real)) {
		rc = err_set(FERRY_EREFUSED, _("%s: symlink leaves the project"), rel);
		goto out;
	}
	*out = real;
	real = NULL;
out:
	free(root_real);
	free(joined);
	free(real);
	return rc;
}
