/* history — see history.h. The only file that includes git2.h.
 *
 * The shadow repository is bare; a handle sets the project root as its work tree in
 * memory (nothing is written into the project) and uses history.git/index as its
 * private index, kept equal to HEAD's tree between calls so it serves as a stat cache.
 * info/attributes turns off every content filter (line-ending conversion, ident,
 * filter drivers): blobs are the files' exact bytes, so a restored file is
 * byte-identical to what was committed whatever the client's .gitattributes say.
 */
#define _POSIX_C_SOURCE 200809L
#include "intl.h"
#include "subject.h"
#include "history.h"
#include "blobpack.h"
#include "err.h"
#include "projfs.h"
#include "util.h"

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
/* libgit2's *_INIT macros name only the leading fields of each options struct */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct history {
	git_repository *repo; /* the bare repository, work tree set to root */
	char *root;           /* project root as given (for messages and file writes) */
	char *git_dir;        /* history.git as given (for messages) */
	char **skipped;       /* "path: reason" of odd paths left out of the scans */
	size_t nskipped;
	char **spec;          /* a status pathspec without them: "!path"…, then "*" */
	size_t nspec;
	char **rules;         /* the in-memory ignore rules hiding them */
	char **odd;           /* their paths ("dir/" for a directory), one per rule */
	size_t nrules;
	char **kept;          /* files the client's git tracks that the ignore rules match, sorted */
	size_t nkept;
	char *client_index;   /* the client's index file; NULL until looked for, "" when none */
	char *client_prefix;  /* the project's folder in the client's work tree ("" or "dir/") */
	char *own_git_dir;    /* this repository's path in the project ("" when not in it);
	                       * NULL until looked for (own_git_dir()) */
	struct stat kept_at;  /* that file when kept was read */
	char baseline[41];    /* the root of the first-parent chain once found ("" until then):
	                       * a history's first commit never changes */
};

#define BRANCH_REF "refs/heads/ferry"

/* ---------- libgit2 plumbing ---------- */

static pthread_once_t git_once = PTHREAD_ONCE_INIT;

static void git_init_once(void) { git_libgit2_init(); }

static void git_ready(void) { pthread_once(&git_once, git_init_once); }

/* Copies libgit2's last error into the record: "<obj>: <what>: <message>". Must be
 * called right after the failing libgit2 call. */
static int git_fail(int code, const char *obj, const char *what)
{
	const git_error *e = git_error_last();
	return err_set(code, "%s: %s: %s", obj, what, e && e->message ? e->message : _("unknown libgit2 error"));
}

static int hfail(history *h, const char *what) { return git_fail(FERRY_EGIT, h->git_dir, what); }

static void oid_hex(char out[41], const git_oid *oid) { git_oid_tostr(out, 41, oid); }

static int parse_oid(git_oid *out, const char *hex)
{
	if (!hex || strlen(hex) != 40 || git_oid_fromstr(out, hex) < 0)
		return err_set(FERRY_EUSAGE, _("%s: not a commit id"), hex ? hex : "(null)");
	return 0;
}

static int make_sig(git_signature **out, const history_sig *sig, const char *obj)
{
	const char *name = sig && sig->name && *sig->name ? sig->name : "ferry";
	/* libgit2 refuses an empty address; the actor may not have one */
	const char *email = sig && sig->email && *sig->email ? sig->email : "nobody@localhost";
	if (git_signature_now(out, name, email) < 0)
		return git_fail(FERRY_EUSAGE, obj, _("invalid actor"));
	return 0;
}

static char *build_message(const char *message, const history_trailer *trailers, size_t ntrailers)
{
	sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, message ? message : "");
	while (b.len && isspace((unsigned char)b.buf[b.len - 1]))
		b.buf[--b.len] = '\0';
	if (ntrailers)
		sbuf_adds(&b, "\n\n");
	else
		sbuf_addc(&b, '\n');
	for (size_t i = 0; i < ntrailers; i++)
		sbuf_addf(&b, "%s: %s\n", trailers[i].key, trailers[i].value ? trailers[i].value : "");
	char *msg = sbuf_detach(&b);
	sbuf_done(&b);
	return msg;
}

static int lookup_commit(git_commit **out, history *h, const char *hex)
{
	git_oid oid;
	int rc = parse_oid(&oid, hex);
	if (rc < 0)
		return rc;
	int grc = git_commit_lookup(out, h->repo, &oid);
	if (grc == GIT_ENOTFOUND)
		return err_set(FERRY_ENOTFOUND, _("%s: no such commit in %s"), hex, h->git_dir);
	if (grc < 0)
		return git_fail(FERRY_EGIT, h->git_dir, hex);
	return 0;
}

static int head_commit(git_commit **out, history *h)
{
	git_oid oid;
	if (git_reference_name_to_id(&oid, h->repo, "HEAD") < 0)
		return hfail(h, _("HEAD does not resolve"));
	if (git_commit_lookup(out, h->repo, &oid) < 0)
		return hfail(h, _("HEAD commit"));
	return 0;
}

/* The first-parent chain from HEAD, oldest (the baseline) first. */
static int first_parent_chain(git_oid **out, size_t *n, history *h)
{
	git_commit *c = NULL, *parent = NULL;
	git_oid *v = NULL;
	size_t len = 0, cap = 0;
	int rc = head_commit(&c, h);
	if (rc < 0)
		goto out;
	for (;;) {
		if (len == cap) {
			cap = cap ? cap * 2 : 16;
			v = xrealloc(v, cap * sizeof *v);
		}
		git_oid_cpy(&v[len++], git_commit_id(c));
		if (git_commit_parentcount(c) == 0)
			break;
		if (git_commit_parent(&parent, c, 0) < 0) {
			rc = hfail(h, _("parent commit"));
			goto out;
		}
		git_commit_free(c);
		c = parent;
		parent = NULL;
	}
	for (size_t i = 0; i < len / 2; i++) {
		git_oid t = v[i];
		v[i] = v[len - 1 - i];
		v[len - 1 - i] = t;
	}
	*out = v;
	*n = len;
	v = NULL;
out:
	free(v);
	git_commit_free(c);
	return rc;
}

/* Makes the private index equal to HEAD's tree (a crash between writing the index
 * and moving HEAD could leave them apart). Stat data of unchanged entries is kept. */
static int sync_index(history *h)
{
	git_index *index = NULL;
	git_commit *head = NULL;
	git_tree *tree = NULL;
	git_oid itree;
	int rc = head_commit(&head, h);
	if (rc < 0)
		goto out;
	if (git_repository_index(&index, h->repo) < 0) {
		rc = hfail(h, _("opening the index"));
		goto out;
	}
	if (git_index_write_tree(&itree, index) == 0 && git_oid_equal(&itree, git_commit_tree_id(head)))
		goto out;
	if (git_commit_tree(&tree, head) < 0 || git_index_read_tree(index, tree) < 0 ||
	    git_index_write(index) < 0)
		rc = hfail(h, _("resetting index to HEAD"));
out:
	git_tree_free(tree);
	git_commit_free(head);
	git_index_free(index);
	return rc;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void remove_tree(const char *path) { nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS); }

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct strv {
	char **v;
	size_t n, cap;
} strv;

static void strv_push(strv *s, char *owned)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = owned;
}

/* ---------- files the client tracks ----------
 * Ignore rules only ever hide untracked files: a file the client's own git tracks is
 * part of the project even when a .gitignore pattern matches it (`git add -f` under an
 * ignored folder). When the project lies in a git work tree, the client's index names
 * such files; it is read again whenever it changes. ferry's own paths (.git, .ferry,
 * this repository) never count, whatever the client tracks. */

/* The git work tree holding root, opened (NULL when none), and root's folder in it
 * ("" or "sub/dir/") in *prefix; caller frees both. */
static git_repository *client_repo(const char *root, char **prefix)
{
	git_buf found = GIT_BUF_INIT;
	git_repository *r = NULL;
	char *real = realpath(root, NULL), *wd = NULL;
	*prefix = NULL;
	if (real && git_repository_discover(&found, real, 0, NULL) == 0 &&
	    git_repository_open(&r, found.ptr) == 0 && git_repository_workdir(r))
		wd = realpath(git_repository_workdir(r), NULL);
	size_t n = wd ? strlen(wd) : 0;
	if (wd && strcmp(real, wd) == 0)
		*prefix = xstrdup("");
	else if (wd && strncmp(real, wd, n) == 0 && real[n] == '/' && real[n + 1])
		*prefix = xasprintf("%s/", real + n + 1);
	if (!*prefix) {
		git_repository_free(r);
		r = NULL;
	}
	git_buf_dispose(&found);
	free(real);
	free(wd);
	return r;
}

/* This repository's path in the project when it lies inside it ("" when not), found once
 * the repository exists: info/exclude keeps it out, and so does the client's index. */
static const char *own_git_dir(history *h)
{
	if (!h->own_git_dir) {
		char *rroot = realpath(h->root, NULL), *rgit = realpath(h->git_dir, NULL);
		size_t rl = rroot ? strlen(rroot) : 0;
		h->own_git_dir = xstrdup(rroot && rgit && strncmp(rgit, rroot, rl) == 0 && rgit[rl] == '/' ? rgit + rl + 1 : "");
		free(rroot);
		free(rgit);
	}
	return h->own_git_dir;
}

/* 1 when rel (a project path) lies in one of ferry's own folders (info/exclude's rules). */
static int ferry_own_path(history *h, const char *rel)
{
	const char *const own[] = { ".git", ".ferry", own_git_dir(h) };
	for (size_t i = 0; i < sizeof own / sizeof *own; i++) {
		size_t n = strlen(own[i]);
		if (n && strncmp(rel, own[i], n) == 0 && (rel[n] == '\0' || rel[n] == '/'))
			return 1;
	}
	const char *base = strrchr(rel, '/');
	return strstr(base ? base + 1 : rel, ".ferry-tmp.") != NULL;
}

/* Finds the client's index, once. */
static void locate_client_index(history *h)
{
	git_repository *r = client_repo(h->root, &h->client_prefix);
	h->client_index = r ? util_path_join(git_repository_path(r), "index") : xstrdup("");
	git_repository_free(r);
}

/* Reads the client's index again when it changed since the last read: kept becomes its
 * files below the project that the ignore rules match. */
static int refresh_kept(history *h)
{
	if (!h->client_index)
		locate_client_index(h);
	struct stat st;
	if (!*h->client_index || stat(h->client_index, &st) != 0) {
		free_strv(h->kept, h->nkept);
		h->kept = NULL;
		h->nkept = 0;
		return 0;
	}
	if (st.st_ino == h->kept_at.st_ino && st.st_size == h->kept_at.st_size &&
	    st.st_mtim.tv_sec == h->kept_at.st_mtim.tv_sec && st.st_mtim.tv_nsec == h->kept_at.st_mtim.tv_nsec)
		return 0;
	git_index *idx = NULL;
	if (git_index_open(&idx, h->client_index) < 0)
		return git_fail(FERRY_EGIT, h->client_index, _("reading the client's git index"));
	strv kept = { NULL, 0, 0 };
	size_t plen = strlen(h->client_prefix), count = git_index_entrycount(idx);
	int rc = 0;
	for (size_t i = 0; i < count && rc == 0; i++) {
		const git_index_entry *e = git_index_get_byindex(idx, i);
		const char *rel = e->path + plen;
		int ig = 0;
		if (strncmp(e->path, h->client_prefix, plen) != 0 || e->mode == GIT_FILEMODE_COMMIT ||
		    ferry_own_path(h, rel) || (kept.n && strcmp(kept.v[kept.n - 1], rel) == 0))
			continue; /* outside the project, a submodule, ferry's own, a conflict's other stage */
		if (git_ignore_path_is_ignored(&ig, h->repo, rel) < 0)
			rc = git_fail(FERRY_EGIT, rel, _("checking ignore rules"));
		else if (ig)
			strv_push(&kept, xstrdup(rel));
	}
	git_index_free(idx);
	if (rc < 0) {
		free_strv(kept.v, kept.n);
		return rc;
	}
	free_strv(h->kept, h->nkept);
	h->kept = kept.v;
	h->nkept = kept.n;
	h->kept_at = st;
	return 0;
}

/* 1 when rel is a kept file, or a folder ("dir/") holding one. */
static int is_kept(const history *h, const char *rel)
{
	size_t lo = 0, hi = h->nkept, n = strlen(rel);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(h->kept[mid], rel) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == h->nkept || n == 0)
		return 0;
	return rel[n - 1] == '/' ? strncmp(h->kept[lo], rel, n) == 0 : strcmp(h->kept[lo], rel) == 0;
}

/* Whether the ignore rules hide rel from the project: never a file the client tracks. */
static int path_ignored(int *ignored, history *h, const char *rel)
{
	int rc = h->client_index ? 0 : refresh_kept(h);
	*ignored = 0;
	if (rc < 0)
		return rc;
	if (git_ignore_path_is_ignored(ignored, h->repo, rel) < 0)
		return git_fail(FERRY_EGIT, rel, _("checking ignore rules"));
	if (*ignored && is_kept(h, rel))
		*ignored = 0;
	return 0;
}

/* ---------- nested repositories ----------
 * A directory of the project holding its own .git (a vendored checkout) is opaque to
 * libgit2's scans: it shows as one untracked "dir/" entry and cannot be staged as a
 * whole. To ferry its files are project files like any other, so they are listed and
 * staged one by one (the nested .git itself never). */

typedef int (*file_cb)(history *h, const char *rel, void *payload);

/* Calls cb for every non-ignored file and symlink under rel_dir (ending in '/'). */
static int walk_nested(history *h, const char *rel_dir, file_cb cb, void *payload)
{
	char *full = util_path_join(h->root, rel_dir);
	DIR *d = opendir(full);
	struct dirent *de;
	int rc = 0;
	if (!d) {
		rc = err_set(FERRY_EIO, "%s: %s", full, strerror(errno));
		goto out;
	}
	while (rc == 0 && (de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
			continue;
		char *rel = xasprintf("%s%s", rel_dir, de->d_name);
		char *path = util_path_join(h->root, rel);
		struct stat st;
		int ignored = 0;
		if (lstat(path, &st) == 0) {
			int dir = S_ISDIR(st.st_mode);
			char *probe = dir ? xasprintf("%s/", rel) : xstrdup(rel);
			if ((rc = path_ignored(&ignored, h, probe)) == 0 && !ignored) {
				if (dir)
					rc = walk_nested(h, probe, cb, payload);
				else if (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
					rc = cb(h, rel, payload);
			}
			free(probe);
		}
		free(path);
		free(rel);
	}
out:
	if (d)
		closedir(d);
	free(full);
	return rc;
}

static int collect_file(history *h, const char *rel, void *payload)
{
	(void)h;
	strv_push(payload, xstrdup(rel));
	return 0;
}

/* ---------- odd paths ----------
 * libgit2's work-tree scans stop at the first file they cannot read, at a directory
 * they cannot list and at directories nested deeper than 100 levels, and a file that
 * vanishes between a scan and its staging fails the staging. A scan that fails is
 * therefore retried after a walk of the project that finds such paths and hides them
 * from this handle with in-memory ignore rules; each is remembered (history_skipped)
 * so the command can warn about it and go on. */

#define ODD_MAX_DEPTH 100 /* libgit2's own nesting limit for work-tree scans */
#define ODD_RETRIES 10

/* Adds an in-memory ignore rule matching exactly rel (a directory when dir). */
static void skip_path(history *h, const char *rel, int dir, const char *reason)
{
	sbuf rule;
	sbuf_init(&rule);
	for (const char *p = rel; *p; p++) {
		if (strchr("*?[]\\!# ", *p))
			sbuf_addc(&rule, '\\');
		sbuf_addc(&rule, *p);
	}
	/* ignore rules hide untracked paths; the status pathspec hides tracked ones too
	 * (its patterns match in order: the exclusions, then everything) */
	size_t keep = h->nspec ? h->nspec - 1 : 0;
	h->spec = xrealloc(h->spec, (keep + 3) * sizeof *h->spec);
	if (h->nspec)
		free(h->spec[keep]);
	h->spec[keep++] = xasprintf("!%s", rule.buf);
	if (dir)
		h->spec[keep++] = xasprintf("!%s/*", rule.buf);
	h->spec[keep++] = xstrdup("*");
	h->nspec = keep;
	h->rules = xrealloc(h->rules, (h->nrules + 1) * sizeof *h->rules);
	h->odd = xrealloc(h->odd, (h->nrules + 1) * sizeof *h->odd);
	h->rules[h->nrules] = xasprintf("/%s%s", rule.buf, dir ? "/" : "");
	h->odd[h->nrules] = xasprintf("%s%s", rel, dir ? "/" : "");
	git_ignore_add_rule(h->repo, h->rules[h->nrules++]);
	sbuf_done(&rule);
	h->skipped = xrealloc(h->skipped, (h->nskipped + 1) * sizeof *h->skipped);
	h->skipped[h->nskipped++] = xasprintf("%s%s: %s", rel, dir ? "/" : "", reason);
}

/* Hides rel, a file (or a directory when dir) that cannot be read for reason e. */
static void skip_unreadable(history *h, const char *rel, int dir, int e)
{
	char *why = xasprintf(dir ? _("unreadable directory (%s); left out of the record")
	                          : _("unreadable (%s); left out of the record"),
	                      strerror(e));
	skip_path(h, rel, dir, why);
	free(why);
}

/* 1 when relpath is an odd path or lies below an odd directory. */
static int under_odd(const history *h, const char *relpath)
{
	for (size_t i = 0; i < h->nrules; i++) {
		const char *o = h->odd[i];
		size_t n = strlen(o);
		if (strcmp(relpath, o) == 0)
			return 1;
		if (o[n - 1] == '/' && strncmp(relpath, o, n - 1) == 0 && (relpath[n - 1] == '\0' || relpath[n - 1] == '/'))
			return 1; /* the directory itself, or below it */
	}
	return 0;
}


/* Walks rel_dir ("" or ending in '/') at depth, hiding every odd path below it; returns
 * how many it hid. */
static size_t skip_odd_paths(history *h, const char *rel_dir, int depth)
{
	char *full = util_path_join(h->root, *rel_dir ? rel_dir : ".");
	DIR *d = opendir(full);
	free(full);
	if (!d)
		return 0;
	size_t found = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git") ||
		    (!*rel_dir && !strcmp(de->d_name, ".ferry")))
			continue;
		char *rel = xasprintf("%s%s", rel_dir, de->d_name);
		char *path = util_path_join(h->root, rel);
		struct stat st;
		if (lstat(path, &st) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)) && !under_odd(h, rel)) {
			int dir = S_ISDIR(st.st_mode), ignored = 0;
			char *probe = dir ? xasprintf("%s/", rel) : xstrdup(rel);
			if (path_ignored(&ignored, h, probe) < 0 || ignored) {
				/* outside the scans already */
			} else if (dir && depth + 1 >= ODD_MAX_DEPTH) {
				skip_path(h, rel, 1, _("directories nested deeper than 100 levels; left out of the record"));
				found++;
			} else if (dir && access(path, R_OK | X_OK) != 0) {
				skip_unreadable(h, rel, 1, errno);
				found++;
			} else if (dir) {
				found += skip_odd_paths(h, probe, depth + 1);
			} else if (access(path, R_OK) != 0) {
				skip_unreadable(h, rel, 0, errno);
				found++;
			}
			free(probe);
		}
		free(path);
		free(rel);
	}
	closedir(d);
	return found;
}

/* After a failed scan: 1 when a retry may succeed (odd paths were hidden, or a file
 * may have vanished under the scan), 0 when the failure stands. */
static int retry_after_odd_paths(history *h, int attempt)
{
	int cls = git_error_last() ? git_error_last()->klass : 0;
	size_t found = skip_odd_paths(h, "", 0);
	/* a file deleted between listing and reading fails with an OS error and nothing new to hide */
	return found > 0 || ((cls == GIT_ERROR_OS || cls == GIT_ERROR_FILESYSTEM) && attempt + 1 < ODD_RETRIES);
}

size_t history_skipped(const char *const **out, const history *h)
{
	*out = (const char *const *)h->skipped;
	return h->nskipped;
}

typedef struct stage_ctx {
	history *h;
	strv nested;
	strv *collect; /* when set, the files are listed here instead of staged */
} stage_ctx;

/* add_all's per-path hook: a nested repository is set aside, an odd path left out
 * (>0 skips it). */
static _Thread_local void (*progress_fn)(size_t, void *);
static _Thread_local void *progress_payload;
static _Thread_local size_t progress_paths;

void history_set_progress(void (*fn)(size_t paths, void *payload), void *payload)
{
	progress_fn = fn;
	progress_payload = payload;
	progress_paths = 0;
}

static int note_nested(const char *path, const char *matched, void *payload)
{
	stage_ctx *c = payload;
	size_t len = strlen(path);
	(void)matched;
	if (progress_fn)
		progress_fn(++progress_paths, progress_payload);
	if (under_odd(c->h, path))
		return 1;
	if (len && path[len - 1] == '/') {
		strv_push(&c->nested, xstrdup(path));
		return 1;
	}
	if (c->collect) {
		strv_push(c->collect, xstrdup(path));
		return 1;
	}
	return 0;
}

/* For a path a scan found missing: 1 when it is really gone. A path that cannot be
 * looked at (under a directory that cannot be searched) is not a deletion: it is hidden
 * as odd and 0 returned, so the record keeps it. */
static int really_gone(history *h, const char *rel)
{
	char *abs = util_path_join(h->root, rel);
	struct stat st;
	int rc = lstat(abs, &st), e = errno;
	free(abs);
	if (rc != 0 && (e == ENOENT || e == ENOTDIR))
		return 1;
	if (rc == 0)
		return 0; /* back again since the scan: the next sync records it */
	skip_odd_paths(h, "", 0);
	if (!under_odd(h, rel)) {
		char *why = xasprintf(_("cannot be looked at (%s); left out of the record"), strerror(e));
		skip_path(h, rel, 0, why);
		free(why);
	}
	return 0;
}

/* update_all's per-path hook: odd paths keep their recorded content, and so do files a
 * scan cannot see but that are not gone. */
static int keep_skipped(const char *path, const char *matched, void *payload)
{
	history *h = payload;
	(void)matched;
	if (under_odd(h, path))
		return 1;
	char *abs = util_path_join(h->root, path);
	struct stat st;
	int missing = lstat(abs, &st) != 0;
	free(abs);
	return missing && !really_gone(h, path);
}

#define STAGE_SCANS 3 /* whole-tree staging attempts before staging file by file */

/* Stages rel as it is now, reading it again while it changes or vanishes under the
 * read. A file gone for good is staged as deleted and one that cannot be read is left
 * out as an odd path; so is one that never holds still for a whole read (deleted and
 * recreated between every look and every read), which keeps its recorded content until
 * a later sync. Only failures that are not the file system's fail. */
static int stage_path(history *h, git_index *index, const char *rel)
{
	char *abs = util_path_join(h->root, rel);
	int rc = 0, cls = 0, e = 0;
	for (int i = 0; i < ODD_RETRIES; i++) {
		struct stat st;
		if (git_index_add_bypath(index, rel) == 0)
			goto out;
		cls = git_error_last() ? git_error_last()->klass : 0;
		e = lstat(abs, &st) != 0 ? errno : access(abs, R_OK) != 0 ? errno : 0;
		if (e == ENOENT || e == ENOTDIR) {
			if (git_index_get_bypath(index, rel, 0) && git_index_remove_bypath(index, rel) < 0)
				rc = git_fail(FERRY_EGIT, rel, _("staging a deletion"));
			goto out;
		}
		if (e) {
			skip_unreadable(h, rel, 0, e);
			goto out;
		}
		if (cls != GIT_ERROR_OS && cls != GIT_ERROR_FILESYSTEM) {
			rc = git_fail(FERRY_EGIT, rel, _("staging the file"));
			goto out;
		}
	}
	skip_path(h, rel, 0, _("changing or vanishing under every read; left as last recorded"));
out:
	free(abs);
	return rc;
}

/* walk_nested's and the exact paths' sink: stages rel into the index (payload). */
static int stage_file(history *h, const char *rel, void *payload)
{
	return stage_path(h, payload, rel);
}

/* Stages the changed paths (spec's, or every changed path) one at a time: a file gone
 * by the time it is read is staged as deleted, one that cannot be read is left out as
 * an odd path; only other failures fail. */
static int stage_each(history *h, git_index *index, const git_strarray *spec)
{
	strv paths = { NULL, 0, 0 };
	int rc = 0;
	if (spec) {
		for (size_t i = 0; i < spec->count; i++)
			strv_push(&paths, xstrdup(spec->strings[i]));
	} else if ((rc = history_changed_files(&paths.v, &paths.n, h)) < 0) {
		return rc;
	}
	for (size_t i = 0; i < paths.n && rc == 0; i++) {
		const char *rel = paths.v[i];
		char *abs = util_path_join(h->root, rel);
		struct stat st;
		int ignored = 0;
		if (under_odd(h, rel)) {
			/* left as recorded */
		} else if (lstat(abs, &st) != 0) {
			if (really_gone(h, rel) && git_index_get_bypath(index, rel, 0) &&
			    git_index_remove_bypath(index, rel) < 0)
				rc = git_fail(FERRY_EGIT, rel, _("staging a deletion"));
		} else if ((S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) &&
		           path_ignored(&ignored, h, rel) == 0 &&
		           (!ignored || git_index_get_bypath(index, rel, 0))) {
			rc = stage_path(h, index, rel);
		}
		free(abs);
	}
	free_strv(paths.v, paths.n);
	return rc;
}

/* Hands take every kept file the index lacks (an ignored file a scan passes over). */
static int take_kept(history *h, git_index *index, file_cb take, void *sink)
{
	int rc = refresh_kept(h);
	for (size_t i = 0; i < h->nkept && rc == 0; i++) {
		const char *rel = h->kept[i];
		char *abs = util_path_join(h->root, rel);
		struct stat st;
		if (!under_odd(h, rel) && !git_index_get_bypath(index, rel, 0) && lstat(abs, &st) == 0 &&
		    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			rc = take(h, rel, sink);
		free(abs);
	}
	return rc;
}

/* `git add -A` over pathspec (NULL: everything), nested repositories included, then
 * the exact paths of spec that a scan could not reach. With collect, nothing is staged:
 * the new files that would be are appended to it (a scan of an empty index). */
static int stage_all(history *h, git_index *index, const git_strarray *given, strv *collect)
{
	const git_strarray *spec = given;
	stage_ctx c = { h, { NULL, 0, 0 }, collect };
	file_cb take = collect ? collect_file : stage_file;
	void *sink = collect ? (void *)collect : (void *)index;
	strv narrowed = { NULL, 0, 0 };
	git_strarray nspec = { NULL, 0 };
	int rc = 0;
	unsigned flags = spec ? GIT_INDEX_ADD_DISABLE_PATHSPEC_MATCH : GIT_INDEX_ADD_DEFAULT;
	/* add_all stages new and modified files (ignored new files stay out),
	 * update_all stages deletions */
	for (int attempt = 0;; attempt++) {
		if (h->nskipped) {
			/* ignore rules cannot hide a tracked file from the scans: once odd paths are
			 * known, stage exactly the changed paths without them */
			free_strv(narrowed.v, narrowed.n);
			memset(&narrowed, 0, sizeof narrowed);
			if (given) {
				for (size_t i = 0; i < given->count; i++)
					if (!under_odd(h, given->strings[i]))
						strv_push(&narrowed, xstrdup(given->strings[i]));
			} else if ((rc = history_changed_files(&narrowed.v, &narrowed.n, h)) < 0) {
				goto out;
			}
			if (!narrowed.n)
				goto out; /* an empty pathspec would mean every path */
			nspec.strings = narrowed.v;
			nspec.count = narrowed.n;
			spec = &nspec;
			flags = GIT_INDEX_ADD_DISABLE_PATHSPEC_MATCH;
		}
		const char *what = NULL;
		if (git_index_add_all(index, spec, flags, note_nested, &c) < 0)
			what = _("staging files");
		else if (git_index_update_all(index, spec, keep_skipped, h) < 0)
			what = _("staging deletions");
		if (!what)
			break;
		free_strv(c.nested.v, c.nested.n);
		memset(&c.nested, 0, sizeof c.nested);
		if (collect) {
			free_strv(collect->v, collect->n);
			memset(collect, 0, sizeof *collect);
		}
		if (attempt + 1 >= STAGE_SCANS) {
			/* files keep vanishing under the scans: take the changes one by one */
			rc = collect ? history_changed_files(&collect->v, &collect->n, h) : stage_each(h, index, spec);
			if (collect)
				collect->cap = collect->n;
			goto out;
		}
		if (!retry_after_odd_paths(h, attempt)) {
			rc = hfail(h, what);
			goto out;
		}
	}
	for (size_t i = 0; i < c.nested.n && rc == 0; i++)
		rc = walk_nested(h, c.nested.v[i], take, sink);
	if (!given && rc == 0)
		rc = take_kept(h, index, take, sink);
	/* libgit2 parses even a literal pathspec as a pattern: a leading '#' makes it a
	 * comment, '!' a negation, a newline ends it, trailing spaces are trimmed. So the
	 * exact paths asked for are staged again one by one, and a fix of "#train.py" is the
	 * fix's checkpoint, not a later "manual edit" a revert of the fix leaves behind. */
	if (given && !collect && rc == 0)
		rc = stage_each(h, index, spec);
	/* otherwise the exact paths the scan could not reach: new files it skipped */
	for (size_t i = 0; spec && (collect || !given) && i < spec->count && rc == 0; i++) {
		char *path = util_path_join(h->root, spec->strings[i]);
		struct stat st;
		int ignored = 0;
		if (!under_odd(h, spec->strings[i]) && lstat(path, &st) == 0 &&
		    (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)) && !git_index_get_bypath(index, spec->strings[i], 0) &&
		    path_ignored(&ignored, h, spec->strings[i]) == 0 && !ignored)
			rc = take(h, spec->strings[i], sink);
		free(path);
	}
	if (collect && collect->n) {
		/* a path of spec may have been listed by the scan as well */
		size_t kept = 1;
		qsort(collect->v, collect->n, sizeof *collect->v, cmp_str);
		for (size_t i = 1; i < collect->n; i++) {
			if (strcmp(collect->v[i], collect->v[kept - 1]) == 0)
				free(collect->v[i]);
			else
				collect->v[kept++] = collect->v[i];
		}
		collect->n = kept;
	}
out:
	free_strv(c.nested.v, c.nested.n);
	free_strv(narrowed.v, narrowed.n);
	return rc;
}

/* ---------- open, init, free ---------- */

static history *history_alloc(const char *root, const char *git_dir)
{
	history *h = xcalloc(1, sizeof *h);
	h->root = xstrdup(root);
	h->git_dir = xstrdup(git_dir);
	return h;
}

void history_free(history *h)
{
	if (!h)
		return;
	git_repository_free(h->repo);
	for (size_t i = 0; i < h->nskipped; i++)
		free(h->skipped[i]);
	free(h->skipped);
	for (size_t i = 0; i < h->nspec; i++)
		free(h->spec[i]);
	free(h->spec);
	for (size_t i = 0; i < h->nrules; i++) {
		free(h->rules[i]);
		free(h->odd[i]);
	}
	free(h->rules);
	free(h->odd);
	free_strv(h->kept, h->nkept);
	free(h->client_index);
	free(h->client_prefix);
	free(h->own_git_dir);
	free(h->root);
	free(h->git_dir);
	free(h);
}

/* Writes path with exactly len bytes of text unless it holds them already. */
static int write_if_changed(const char *path, const char *text, size_t len)
{
	char *old = NULL;
	size_t oldlen = 0;
	int same = util_read_file(&old, &oldlen, path) == 0 && oldlen == len && memcmp(old, text, len) == 0;
	err_clear();
	free(old);
	return same ? 0 : util_write_atomic(path, text, len, 0644);
}

/* The rules that keep ferry's own files and Python's bytecode out of the history
 * (info/exclude) and turn content filters off (info/attributes). Written at init and
 * brought up to date by every handle that may write, so an engagement begun by an
 * older ferry gets the rules added since. */
static int write_info_files(history *h)
{
	/* .git may be a directory or a gitfile; .ferry holds this repository itself */
	static const char exclude[] = "# written by ferry: never part of the history\n/.git\n/.ferry\n"
	                               "# temporary files of an atomic write interrupted by a crash\n*.ferry-tmp.*\n"
	                               "# Python's bytecode caches: derived from the sources, rewritten by every run\n"
	                               "__pycache__/\n*.py[cod]\n";
	/* info/attributes outranks every .gitattributes: store and restore exact bytes */
	static const char attributes[] = "# written by ferry: no content filters, files kept byte-exact\n"
	                                 "* -text !eol -ident -filter\n";
	char *info = util_path_join(h->git_dir, "info");
	char *ex = util_path_join(info, "exclude");
	char *at = util_path_join(info, "attributes");
	sbuf b;
	sbuf_init(&b);
	sbuf_add(&b, exclude, sizeof exclude - 1);
	/* this repository itself, when it lives in the project */
	if (*own_git_dir(h))
		sbuf_addf(&b, "/%s\n", own_git_dir(h));
	int rc = util_mkdirs(info, 0755);
	if (rc == 0)
		rc = write_if_changed(ex, b.buf, b.len);
	if (rc == 0)
		rc = write_if_changed(at, attributes, sizeof attributes - 1);
	sbuf_done(&b);
	free(info);
	free(ex);
	free(at);
	return rc;
}

static int configure(history *h)
{
	git_config *cfg = NULL;
	int rc = 0;
	if (git_repository_config(&cfg, h->repo) < 0) {
		rc = hfail(h, _("git configuration"));
		goto out;
	}
	/* The user's global ignore and attribute files would silently drop or filter
	 * project files: only the project's own rules apply. */
	if (git_config_set_bool(cfg, "core.autocrlf", 0) < 0 ||
	    git_config_set_string(cfg, "core.excludesFile", "/dev/null") < 0 ||
	    git_config_set_string(cfg, "core.attributesFile", "/dev/null") < 0 ||
	    git_config_set_bool(cfg, "core.logAllRefUpdates", 1) < 0)
		rc = hfail(h, _("git configuration"));
out:
	git_config_free(cfg);
	return rc;
}

int history_open(history **out, const char *root, const char *git_dir)
{
	*out = NULL;
	git_ready();
	struct stat st;
	if (stat(git_dir, &st) < 0)
		return err_set(FERRY_ENOTFOUND, _("%s: no history repository: %s"), git_dir, strerror(errno));
	history *h = history_alloc(root, git_dir);
	int rc = 0;
	if (git_repository_open_bare(&h->repo, git_dir) < 0) {
		rc = hfail(h, _("damaged history repository"));
		goto out;
	}
	if (git_repository_set_workdir(h->repo, root, 0) < 0) {
		rc = hfail(h, _("setting work tree"));
		goto out;
	}
	/* an archived, read-only repository keeps its index and rules: readers use HEAD */
	if (access(git_dir, W_OK) == 0 && (rc = write_info_files(h)) == 0)
		rc = sync_index(h);
out:
	if (rc < 0)
		history_free(h);
	else
		*out = h;
	return rc;
}

static int commit_index(git_oid *out, int *made, history *h, git_index *index, const char *msg,
                        const git_signature *sig, git_commit *parent)
{
	git_oid tree_id;
	git_tree *tree = NULL;
	int rc = 0;
	*made = 0;
	if (git_index_write_tree(&tree_id, index) < 0) {
		rc = hfail(h, _("writing tree"));
		goto out;
	}
	if (parent && git_oid_equal(&tree_id, git_commit_tree_id(parent))) {
		git_oid_cpy(out, git_commit_id(parent));
		goto out;
	}
	if (git_tree_lookup(&tree, h->repo, &tree_id) < 0) {
		rc = hfail(h, _("reading tree"));
		goto out;
	}
	const git_commit *parents[1] = { parent };
	/* update_ref "HEAD" makes libgit2 check that HEAD still points at parent */
	if (git_commit_create(out, h->repo, "HEAD", sig, sig, NULL, msg, tree, parent ? 1 : 0, parents) < 0) {
		rc = hfail(h, _("creating commit"));
		goto out;
	}
	*made = 1;
out:
	git_tree_free(tree);
	return rc;
}

/* ---------- the baseline ----------
 * init records every project file at once. The paths come from the same scan as any
 * other staging (stage_all: add_all's, nested repositories and odd paths handled
 * alike), but libgit2 would then store one loose object per file, and creating those
 * files was most of init's time. blobpack reads, hashes and compresses the files on
 * worker threads into one pack instead, and each index entry gets the stat data
 * libgit2's own staging records (git_index_entry__init_from_stat), so the next scan
 * compares stat data and reads nothing. */

/* Stores a file too large for blobpack's memory bound through libgit2's streaming
 * blob writer, again while it changes under the read. */
static int store_big(git_oid *id, history *h, const char *rel, blobpack_file *f)
{
	for (int i = 0; i < ODD_RETRIES; i++) {
		struct stat after;
		if (git_blob_create_from_disk(id, h->repo, f->path) < 0) {
			if (lstat(f->path, &after) != 0) {
				f->err = errno;
				return 0;
			}
			return git_fail(FERRY_EGIT, rel, _("staging the file"));
		}
		if (lstat(f->path, &after) != 0) {
			f->err = errno;
			return 0;
		}
		if (blobpack_same_stat(&after, &f->st))
			break;
		f->st = after; /* changed while read: read again with the stat taken before */
	}
	return 0;
}

/* Adds f, found at rel by the scan, to the index as libgit2's staging would. */
static int add_baseline_entry(history *h, git_index *index, const char *rel, blobpack_file *f)
{
	git_index_entry e;
	memset(&e, 0, sizeof e);
	if (f->big) {
		int rc = store_big(&e.id, h, rel, f);
		if (rc < 0)
			return rc;
	} else if (!f->err) {
		git_oid_fromraw(&e.id, f->id);
	}
	if (f->err == ENOENT || f->err == ENOTDIR)
		return 0; /* gone since the scan, as if the scan had not seen it */
	if (f->err) {
		skip_unreadable(h, rel, 0, f->err);
		return 0;
	}
	const struct stat *st = &f->st;
	e.path = rel;
	e.mode = S_ISLNK(st->st_mode)      ? GIT_FILEMODE_LINK
	         : (st->st_mode & S_IXUSR) ? GIT_FILEMODE_BLOB_EXECUTABLE
	                                   : GIT_FILEMODE_BLOB;
	e.ctime.seconds = (int32_t)st->st_ctim.tv_sec;
	e.ctime.nanoseconds = (uint32_t)st->st_ctim.tv_nsec;
	e.mtime.seconds = (int32_t)st->st_mtim.tv_sec;
	e.mtime.nanoseconds = (uint32_t)st->st_mtim.tv_nsec;
	e.dev = (uint32_t)st->st_rdev; /* sic: libgit2 records st_rdev, and compares like with like */
	e.ino = (uint32_t)st->st_ino;
	e.uid = (uint32_t)st->st_uid;
	e.gid = (uint32_t)st->st_gid;
	e.file_size = (uint32_t)st->st_size;
	if (git_index_add(index, &e) < 0)
		return hfail(h, _("staging files"));
	return 0;
}

typedef struct tree_pack {
	git_packbuilder *pb;
	int failed;
} tree_pack;

static int add_subtree(const char *root, const git_tree_entry *entry, void *payload)
{
	tree_pack *t = payload;
	(void)root;
	if (git_tree_entry_type(entry) == GIT_OBJECT_TREE && git_packbuilder_insert(t->pb, git_tree_entry_id(entry), NULL) < 0) {
		t->failed = 1;
		return -1;
	}
	return 0;
}

/* Writes the index's trees as one more pack: written loose, each directory's tree
 * would be one more file (and often one more folder) created. A second handle on the
 * repository, whose object database writes to a mempack first, builds them in memory;
 * a packbuilder given only the trees (the blobs are packed already) writes them out. */
static int pack_trees(history *h, git_index *index)
{
	git_repository *mem_repo = NULL;
	git_odb *mem_odb = NULL, *odb = NULL;
	git_odb_backend *mempack = NULL;
	git_tree *tree = NULL;
	tree_pack t = { NULL, 0 };
	git_oid id;
	int rc = 0;
	if (git_repository_open_bare(&mem_repo, h->git_dir) < 0 || git_repository_odb(&mem_odb, mem_repo) < 0 ||
	    git_mempack_new(&mempack) < 0) {
		rc = hfail(h, _("writing tree"));
		goto out;
	}
	/* above every other backend, so it takes the writes; the database owns it now */
	if (git_odb_add_backend(mem_odb, mempack, 1000) < 0) {
		mempack->free(mempack);
		rc = hfail(h, _("writing tree"));
		goto out;
	}
	if (git_index_write_tree_to(&id, index, mem_repo) < 0 || git_tree_lookup(&tree, mem_repo, &id) < 0 ||
	    git_packbuilder_new(&t.pb, mem_repo) < 0 || git_packbuilder_insert(t.pb, &id, NULL) < 0 ||
	    git_tree_walk(tree, GIT_TREEWALK_PRE, add_subtree, &t) < 0 ||
	    git_packbuilder_write(t.pb, NULL, 0, NULL, NULL) < 0 || git_repository_odb(&odb, h->repo) < 0 ||
	    git_odb_refresh(odb) < 0)
		rc = hfail(h, _("writing tree"));
out:
	git_packbuilder_free(t.pb);
	git_tree_free(tree);
	git_odb_free(odb);
	git_odb_free(mem_odb);
	git_repository_free(mem_repo);
	return rc;
}

/* Stages every file of the project into the empty index. */
static int stage_baseline(history *h, git_index *index)
{
	strv rel = { NULL, 0, 0 };
	blobpack_file *files = NULL;
	git_odb *odb = NULL;
	char *pack_dir = NULL;
	int rc = 0;
	/* without trusted file modes or symlinks, libgit2's own rules decide the modes */
	if (git_index_caps(index) & (GIT_INDEX_CAPABILITY_NO_FILEMODE | GIT_INDEX_CAPABILITY_NO_SYMLINKS))
		return stage_all(h, index, NULL, NULL);
	if ((rc = stage_all(h, index, NULL, &rel)) < 0)
		goto out;
	files = xcalloc(rel.n ? rel.n : 1, sizeof *files);
	for (size_t i = 0; i < rel.n; i++)
		files[i].path = util_path_join(h->root, rel.v[i]);
	pack_dir = util_path_join(git_repository_path(h->repo), "objects/pack");
	if ((rc = blobpack_write(files, rel.n, pack_dir, 0)) < 0)
		goto out;
	if (git_repository_odb(&odb, h->repo) < 0 || git_odb_refresh(odb) < 0) {
		rc = hfail(h, _("reading the baseline's objects"));
		goto out;
	}
	for (size_t i = 0; i < rel.n && rc == 0; i++)
		rc = add_baseline_entry(h, index, rel.v[i], &files[i]);
	if (rc == 0)
		rc = pack_trees(h, index);
out:
	for (size_t i = 0; files && i < rel.n; i++)
		free((char *)files[i].path);
	free(files);
	free(pack_dir);
	git_odb_free(odb);
	free_strv(rel.v, rel.n);
	return rc;
}

int history_init(history **out, char baseline[41], const char *root, const char *git_dir,
                 const history_sig *sig)
{
	*out = NULL;
	git_ready();
	struct stat st;
	if (lstat(git_dir, &st) == 0)
		return err_set(FERRY_EEXISTS, _("%s: already exists"), git_dir);
	if (stat(root, &st) < 0 || !S_ISDIR(st.st_mode))
		return err_set(FERRY_EIO, _("%s: not a directory"), root);

	history *h = history_alloc(root, git_dir);
	git_index *index = NULL;
	git_signature *gsig = NULL;
	char *msg = NULL;
	int created = 0, rc = 0, made = 0;
	git_repository_init_options opts = GIT_REPOSITORY_INIT_OPTIONS_INIT;
	opts.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_NO_REINIT;
	opts.initial_head = "ferry";
	opts.description = "ferry engagement history\n";
	if (git_repository_init_ext(&h->repo, git_dir, &opts) < 0) {
		rc = hfail(h, _("cannot create repository"));
		goto out;
	}
	created = 1;
	if ((rc = write_info_files(h)) < 0 || (rc = configure(h)) < 0)
		goto out;
	if (git_repository_set_workdir(h->repo, root, 0) < 0) {
		rc = hfail(h, _("setting work tree"));
		goto out;
	}
	if ((rc = make_sig(&gsig, sig, git_dir)) < 0)
		goto out;
	if (git_repository_index(&index, h->repo) < 0) {
		rc = hfail(h, _("opening the index"));
		goto out;
	}
	if ((rc = stage_baseline(h, index)) < 0)
		goto out;
	char actor[512];
	snprintf(actor, sizeof actor, "%s <%s>", gsig->name, gsig->email);
	history_trailer tr = { "Actor", actor };
	msg = build_message(subject_baseline, &tr, 1);
	git_oid oid;
	if ((rc = commit_index(&oid, &made, h, index, msg, gsig, NULL)) < 0)
		goto out;
	if (git_index_write(index) < 0) {
		rc = hfail(h, _("writing index"));
		goto out;
	}
	oid_hex(baseline, &oid);
out:
	free(msg);
	git_signature_free(gsig);
	git_index_free(index);
	if (rc < 0) {
		history_free(h);
		if (created)
			remove_tree(git_dir);
	} else {
		*out = h;
	}
	return rc;
}

/* ---------- heads and the work tree ---------- */

int history_head(char out[41], history *h)
{
	git_oid oid;
	if (git_reference_name_to_id(&oid, h->repo, "HEAD") < 0)
		return hfail(h, _("HEAD does not resolve"));
	oid_hex(out, &oid);
	return 0;
}

int history_baseline(char out[41], history *h)
{
	if (!h->baseline[0]) {
		git_oid *chain = NULL;
		size_t n = 0;
		int rc = first_parent_chain(&chain, &n, h);
		if (rc == 0)
			oid_hex(h->baseline, &chain[0]);
		free(chain);
		if (rc)
			return rc;
	}
	memcpy(out, h->baseline, 41);
	return 0;
}

int history_changed_files(char ***out, size_t *n, history *h)
{
	git_status_list *list = NULL;
	git_status_options opts = GIT_STATUS_OPTIONS_INIT;
	char **v = NULL;
	size_t len = 0;
	int rc = 0;
	*out = NULL;
	*n = 0;
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	/* UPDATE_INDEX refreshes our private index's stat data so the next scan is cheap */
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_RECURSE_UNTRACKED_DIRS |
	             GIT_STATUS_OPT_EXCLUDE_SUBMODULES | GIT_STATUS_OPT_UPDATE_INDEX;
	for (int attempt = 0;; attempt++) {
		opts.pathspec.strings = h->spec;
		opts.pathspec.count = h->nspec;
		if (git_status_list_new(&list, h->repo, &opts) == 0)
			break;
		if (!retry_after_odd_paths(h, attempt)) {
			rc = hfail(h, _("scanning the work tree"));
			goto out;
		}
	}
	size_t count = git_status_list_entrycount(list);
	strv all = { NULL, 0, 0 };
	for (size_t i = 0; i < count && rc == 0; i++) {
		const git_status_entry *e = git_status_byindex(list, i);
		const char *path = NULL;
		if (e->status == GIT_STATUS_CURRENT || (e->status & GIT_STATUS_IGNORED))
			continue;
		if (e->index_to_workdir)
			path = e->index_to_workdir->old_file.path ? e->index_to_workdir->old_file.path
			                                           : e->index_to_workdir->new_file.path;
		else if (e->head_to_index)
			path = e->head_to_index->new_file.path ? e->head_to_index->new_file.path
			                                        : e->head_to_index->old_file.path;
		if (path && under_odd(h, path))
			continue;
		if (path && (e->status & GIT_STATUS_WT_DELETED) && !really_gone(h, path))
			continue;
		if (path && *path && path[strlen(path) - 1] == '/')
			rc = walk_nested(h, path, collect_file, &all);
		else if (path)
			strv_push(&all, xstrdup(path));
	}
	if (rc == 0) {
		/* files the client tracks that the scan passed over as ignored and new */
		git_index *index = NULL;
		if (git_repository_index(&index, h->repo) < 0)
			rc = hfail(h, _("opening the index"));
		else
			rc = take_kept(h, index, collect_file, &all);
		git_index_free(index);
	}
	v = all.v ? all.v : xcalloc(1, sizeof *v);
	len = all.n;
	if (rc < 0) {
		free_strv(v, len);
		v = NULL;
		goto out;
	}
	qsort(v, len, sizeof *v, cmp_str);
	size_t w = 0;
	for (size_t i = 0; i < len; i++) {
		if (w && strcmp(v[w - 1], v[i]) == 0)
			free(v[i]);
		else
			v[w++] = v[i];
	}
	*out = v;
	*n = w;
	v = NULL;
out:
	free(v);
	git_status_list_free(list);
	return rc;
}

int history_is_ignored(int *ignored, history *h, const char *relpath)
{
	int ig = 0, rc = 0;
	*ignored = 0;
	/* the rules hiding odd paths from the sync are not the project's: the checks still
	 * see (and report) those paths */
	int odd = h->nrules && under_odd(h, relpath);
	if (odd)
		git_ignore_clear_internal_rules(h->repo);
	rc = path_ignored(&ig, h, relpath);
	for (size_t i = 0; odd && i < h->nrules; i++)
		git_ignore_add_rule(h->repo, h->rules[i]);
	*ignored = ig;
	return rc;
}

int history_commit(char out[41], int *made, history *h, const char *const *paths, size_t npaths,
                   const char *message, const history_trailer *trailers, size_t ntrailers,
                   const history_sig *sig)
{
	git_index *index = NULL;
	git_commit *parent = NULL;
	git_signature *gsig = NULL;
	char *msg = NULL;
	git_oid oid;
	int rc = 0;
	*made = 0;
	git_strarray spec = { (char **)paths, npaths };
	const git_strarray *specp = paths && npaths ? &spec : NULL;

	if ((rc = head_commit(&parent, h)) < 0 || (rc = make_sig(&gsig, sig, h->git_dir)) < 0)
		goto out;
	if (git_repository_index(&index, h->repo) < 0) {
		rc = hfail(h, _("opening the index"));
		goto out;
	}
	if ((rc = stage_all(h, index, specp, NULL)) < 0)
		goto out;
	msg = build_message(message, trailers, ntrailers);
	if ((rc = commit_index(&oid, made, h, index, msg, gsig, parent)) < 0)
		goto out;
	if (git_index_write(index) < 0) {
		rc = hfail(h, _("writing index"));
		goto out;
	}
	oid_hex(out, &oid);
out:
	if (rc < 0 && index)
		git_index_read(index, 1); /* drop what was staged: the index follows HEAD */
	free(msg);
	git_signature_free(gsig);
	git_commit_free(parent);
	git_index_free(index);
	return rc;
}

/* ---------- commits ---------- */

static int is_hex(const char *s)
{
	for (; *s; s++)
		if (!isxdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Counts the commits reachable from HEAD whose id starts with prefix; *out is the
 * last one seen. The walk, not the object database, decides: a pack another writer
 * added after this history was opened is invisible to libgit2's prefix lookup until
 * a refresh, which would make a shared prefix look unique. */
static int commits_with_prefix(git_oid *out, size_t *found, history *h, const char *prefix)
{
	git_revwalk *walk = NULL;
	git_oid oid;
	char hex[41];
	size_t len = strlen(prefix);
	int rc = 0, grc;
	*found = 0;
	if (git_revwalk_new(&walk, h->repo) < 0 || git_revwalk_push_head(walk) < 0) {
		rc = hfail(h, _("walking history"));
		goto out;
	}
	while ((grc = git_revwalk_next(&oid, walk)) == 0) {
		oid_hex(hex, &oid);
		if (strncasecmp(hex, prefix, len) == 0) {
			(*found)++;
			git_oid_cpy(out, &oid);
		}
	}
	if (grc != GIT_ITEROVER)
		rc = hfail(h, _("walking history"));
out:
	git_revwalk_free(walk);
	return rc;
}

static int ambiguous(const char *prefix)
{
	return err_set(FERRY_EUSAGE, _("%s: ambiguous: several objects start with it"), prefix);
}

int history_resolve(char out[41], history *h, const char *rev)
{
	if (!rev || !*rev)
		return err_set(FERRY_EUSAGE, _("(empty): no such checkpoint or commit"));
	if (strcmp(rev, "HEAD") == 0)
		return history_head(out, h);
	if (strcmp(rev, "baseline") == 0)
		return history_baseline(out, h);
	size_t len = strlen(rev);
	if (len < 4 || len > 40 || !is_hex(rev))
		return len < 4 && is_hex(rev)
		               ? err_set(FERRY_ENOTFOUND, _("%s: no such checkpoint or commit (a commit prefix needs 4 hex digits or more)"), rev)
		               : err_set(FERRY_ENOTFOUND, _("%s: no such checkpoint or commit"), rev);
	git_oid oid;
	int rc = 0;
	if (len < 40) {
		/* a checkpoint first: the commits of the history, however they are stored */
		size_t found = 0;
		if ((rc = commits_with_prefix(&oid, &found, h, rev)) < 0)
			return rc;
		if (found > 1)
			return ambiguous(rev);
		if (found == 1) {
			oid_hex(out, &oid);
			return 0;
		}
	}
	/* then any commit of the repository (an exported branch's) */
	git_object *obj = NULL;
	git_odb *odb = NULL;
	if (git_oid_fromstrn(&oid, rev, len) < 0)
		return err_set(FERRY_ENOTFOUND, _("%s: no such checkpoint or commit"), rev);
	if (git_repository_odb(&odb, h->repo) == 0)
		git_odb_refresh(odb);
	git_odb_free(odb);
	int grc = git_object_lookup_prefix(&obj, h->repo, &oid, len, GIT_OBJECT_ANY);
	if (grc == GIT_EAMBIGUOUS)
		rc = ambiguous(rev);
	else if (grc == GIT_ENOTFOUND || (grc == 0 && git_object_type(obj) != GIT_OBJECT_COMMIT))
		rc = err_set(FERRY_ENOTFOUND, _("%s: no such checkpoint or commit"), rev);
	else if (grc < 0)
		rc = git_fail(FERRY_EGIT, rev, _("looking up commit"));
	else
		oid_hex(out, git_object_id(obj));
	git_object_free(obj);
	return rc;
}

int history_has_commit(history *h, const char *oid)
{
	git_oid id;
	git_commit *c = NULL;
	if (!oid || strlen(oid) != 40 || git_oid_fromstr(&id, oid) < 0)
		return 0;
	int found = git_commit_lookup(&c, h->repo, &id) == 0;
	git_commit_free(c);
	return found;
}

int history_commit_info_get(history_commit_info *out, history *h, const char *oid)
{
	git_commit *c = NULL;
	memset(out, 0, sizeof *out);
	int rc = lookup_commit(&c, h, oid);
	if (rc < 0)
		return rc;
	const git_signature *a = git_commit_author(c);
	oid_hex(out->oid, git_commit_id(c));
	out->message = xstrdup(git_commit_message(c));
	out->author = xasprintf("%s <%s>", a->name, a->email);
	out->time = (long long)git_commit_time(c);
	out->nparents = git_commit_parentcount(c);
	out->parents = xcalloc(out->nparents ? out->nparents : 1, sizeof *out->parents);
	for (size_t i = 0; i < out->nparents; i++) {
		out->parents[i] = xmalloc(41);
		oid_hex(out->parents[i], git_commit_parent_id(c, (unsigned)i));
	}
	git_commit_free(c);
	return 0;
}

void history_commit_info_done(history_commit_info *info)
{
	if (!info)
		return;
	free(info->message);
	free(info->author);
	free_strv(info->parents, info->nparents);
	memset(info, 0, sizeof *info);
}

char *history_trailer_value(const char *message, const char *key)
{
	git_message_trailer_array arr = { 0 };
	char *value = NULL;
	if (!message || !key)
		return NULL;
	git_ready();
	if (git_message_trailers(&arr, message) < 0)
		return NULL;
	for (size_t i = 0; i < arr.count && !value; i++)
		if (strcasecmp(arr.trailers[i].key, key) == 0)
			value = xstrdup(arr.trailers[i].value);
	git_message_trailer_array_free(&arr);
	return value;
}

/* ---------- diffs and contents ---------- */

/* Trees of a (and of b, or of a's first parent when b is NULL; the empty tree for the
 * baseline). Either tree may come back NULL, which libgit2 reads as empty. */
static int diff_pair(git_diff **out, history *h, const char *a, const char *b, int binary)
{
	git_commit *ca = NULL, *cb = NULL, *pa = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	int rc;
	if ((rc = lookup_commit(&ca, h, a)) < 0)
		goto out;
	if (b) {
		if ((rc = lookup_commit(&cb, h, b)) < 0)
			goto out;
		if (git_commit_tree(&ta, ca) < 0 || git_commit_tree(&tb, cb) < 0) {
			rc = hfail(h, _("reading tree"));
			goto out;
		}
	} else {
		if (git_commit_parentcount(ca) > 0 && git_commit_parent(&pa, ca, 0) < 0) {
			rc = hfail(h, _("parent commit"));
			goto out;
		}
		if ((pa && git_commit_tree(&ta, pa) < 0) || git_commit_tree(&tb, ca) < 0) {
			rc = hfail(h, _("reading tree"));
			goto out;
		}
	}
	if (binary)
		opts.flags |= GIT_DIFF_SHOW_BINARY;
	if (git_diff_tree_to_tree(out, h->repo, ta, tb, &opts) < 0)
		rc = hfail(h, _("computing diff"));
out:
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(ca);
	git_commit_free(cb);
	git_commit_free(pa);
	return rc;
}

int history_diff(char **out, history *h, const char *a, const char *b)
{
	git_diff *diff = NULL;
	git_buf buf = GIT_BUF_INIT;
	char ra[41], rb[41];
	int rc;
	*out = NULL;
	if ((rc = history_resolve(ra, h, a)) < 0 || (b && (rc = history_resolve(rb, h, b)) < 0))
		goto out;
	if ((rc = diff_pair(&diff, h, ra, b ? rb : NULL, 0)) < 0)
		goto out;
	if (git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH) < 0) {
		rc = hfail(h, _("formatting diff"));
		goto out;
	}
	*out = xstrndup(buf.ptr ? buf.ptr : "", buf.size);
out:
	git_buf_dispose(&buf);
	git_diff_free(diff);
	return rc;
}

/* A repository that exists only in memory: its one object database is a mempack, so
 * the blobs and trees written to it never reach a disk. */
static int mem_repo(git_repository **out)
{
	git_odb *odb = NULL;
	git_odb_backend *mempack = NULL;
	int rc = -1;
	*out = NULL;
	if (git_odb_new(&odb) < 0 || git_mempack_new(&mempack) < 0)
		goto out;
	if (git_odb_add_backend(odb, mempack, 1) < 0) {
		mempack->free(mempack);
		goto out;
	}
	rc = git_repository_wrap_odb(out, odb); /* the odb owns the backend, the repository the odb */
out:
	git_odb_free(odb);
	return rc;
}

/* The tree holding path alone, with data as a blob of the given mode, written to repo. */
static int tree_of_one(git_tree **out, git_repository *repo, const char *path, const char *data, size_t len,
                       git_filemode_t mode)
{
	git_index *index = NULL;
	git_index_entry e;
	git_oid id;
	int rc = -1;
	memset(&e, 0, sizeof e);
	e.path = path;
	e.mode = mode;
	if (git_blob_create_from_buffer(&e.id, repo, data, len) == 0 && git_index_new(&index) == 0 &&
	    git_index_add(index, &e) == 0 && git_index_write_tree_to(&id, index, repo) == 0)
		rc = git_tree_lookup(out, repo, &id);
	git_index_free(index);
	return rc;
}

int history_diff_buffers(char **out, const char *path, const char *old, size_t oldlen, const char *new_text,
                         size_t newlen, int exec)
{
	git_repository *repo = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	git_buf buf = GIT_BUF_INIT;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	git_filemode_t mode = exec ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	int rc = 0;
	*out = NULL;
	git_ready();
	if (oldlen == newlen && (oldlen == 0 || memcmp(old, new_text, oldlen) == 0)) {
		*out = xstrdup("");
		goto out;
	}
	/* two one-file trees, diffed as the checkpoints' own diffs are: the header carries
	 * the file's mode exactly as the commit will record it */
	if (mem_repo(&repo) < 0 || (old && tree_of_one(&ta, repo, path, old, oldlen, mode) < 0) ||
	    tree_of_one(&tb, repo, path, new_text, newlen, mode) < 0 ||
	    git_diff_tree_to_tree(&diff, repo, ta, tb, &opts) < 0 || git_diff_to_buf(&buf, diff, GIT_DIFF_FORMAT_PATCH) < 0) {
		rc = git_fail(FERRY_EGIT, path, _("computing diff"));
		goto out;
	}
	*out = xstrndup(buf.size ? buf.ptr : "", buf.size);
out:
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	git_repository_free(repo);
	return rc;
}

int history_commit_paths(char ***out, size_t *n, history *h, const char *oid)
{
	git_diff *diff = NULL;
	char **v = NULL;
	size_t len = 0;
	*out = NULL;
	*n = 0;
	int rc = diff_pair(&diff, h, oid, NULL, 0);
	if (rc < 0)
		goto out;
	size_t count = git_diff_num_deltas(diff);
	v = xcalloc(count ? count : 1, sizeof *v);
	for (size_t i = 0; i < count; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		v[len++] = xstrdup(d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path);
	}
	*out = v;
	*n = len;
out:
	git_diff_free(diff);
	return rc;
}

/* The blob at path in tree (NULL-safe message naming path): the tree of commit where, or
 * with where NULL the tree a revert computed. */
static int tree_blob(git_blob **out, git_filemode_t *mode, history *h, git_tree *tree, const char *path,
                     const char *where)
{
	git_tree_entry *e = NULL;
	int rc = 0;
	int grc = git_tree_entry_bypath(&e, tree, path);
	if (grc == GIT_ENOTFOUND || (grc == 0 && git_tree_entry_type(e) != GIT_OBJECT_BLOB)) {
		rc = where ? err_set(FERRY_ENOTFOUND, _("%s: not in commit %.12s"), path, where)
		           : err_set(FERRY_ENOTFOUND, _("%s: not in the result of the revert"), path);
		goto out;
	}
	if (grc < 0 || git_blob_lookup(out, h->repo, git_tree_entry_id(e)) < 0) {
		rc = git_fail(FERRY_EGIT, path, _("reading from history"));
		goto out;
	}
	if (mode)
		*mode = git_tree_entry_filemode(e);
out:
	git_tree_entry_free(e);
	return rc;
}

int history_read_at(char **out, size_t *len, history *h, const char *oid, const char *path)
{
	git_commit *c = NULL;
	git_tree *tree = NULL;
	git_blob *blob = NULL;
	*out = NULL;
	if (len)
		*len = 0;
	int rc = lookup_commit(&c, h, oid);
	if (rc < 0)
		goto out;
	if (git_commit_tree(&tree, c) < 0) {
		rc = hfail(h, _("reading tree"));
		goto out;
	}
	if ((rc = tree_blob(&blob, NULL, h, tree, path, oid)) < 0)
		goto out;
	size_t size = (size_t)git_blob_rawsize(blob);
	*out = xstrndup(size ? git_blob_rawcontent(blob) : "", size);
	if (len)
		*len = size;
out:
	git_blob_free(blob);
	git_tree_free(tree);
	git_commit_free(c);
	return rc;
}

/* ---------- revert ---------- */

/* Writes the blob at rel in tree into the work tree, as a symlink or a regular file
 * with the executable bit the tree records, through projfs (project sources only). */
static int restore_file(history *h, git_tree *tree, const char *rel)
{
	git_blob *blob = NULL;
	git_filemode_t mode = 0;
	int rc = tree_blob(&blob, &mode, h, tree, rel, NULL);
	if (rc < 0)
		return rc;
	const void *data = git_blob_rawsize(blob) ? git_blob_rawcontent(blob) : "";
	size_t size = (size_t)git_blob_rawsize(blob);
	if (mode == GIT_FILEMODE_LINK) {
		char *target = xstrndup(data, size);
		rc = projfs_symlink(h->root, rel, target);
		free(target);
	} else {
		int exec = mode == GIT_FILEMODE_BLOB_EXECUTABLE;
		rc = projfs_write(NULL, h->root, rel, data, size, exec ? 0755 : 0644, exec, NULL);
	}
	git_blob_free(blob);
	return rc;
}

/* What the revert will leave at a path: the SHA-256 of the blob (a link's target
 * text for a link), or "" for a deletion. */
static int planned_sum(char out[65], history *h, git_tree *tree, const git_diff_delta *d)
{
	out[0] = '\0';
	if (d->status == GIT_DELTA_DELETED)
		return 0;
	git_blob *blob = NULL;
	git_filemode_t mode = 0;
	int rc = tree_blob(&blob, &mode, h, tree, d->new_file.path, NULL);
	if (rc < 0)
		return rc;
	util_sha256_hex(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	git_blob_free(blob);
	return 0;
}

/* What the user calls commit oid: the hooks' name for it, else its hash's first 12 digits. */
static void commit_name(char *out, size_t cap, const history_revert_hooks *hooks, const char *oid)
{
	out[0] = '\0';
	if (hooks && hooks->name)
		hooks->name(out, cap, oid, hooks->payload);
	if (!out[0])
		snprintf(out, cap, "%.12s", oid);
}

#define LATER_MAX 256 /* later commits read for a refusal */

/* The commits after target (newest first, at most LATER_MAX) that still stand: a commit
 * reverted by a later one, and that revert, cancel out, so neither is in the way of
 * reverting target. Fills oids[] (hex), returns the count, or a git error. */
static int standing_commits(char (*oids)[41], history *h, git_commit *target)
{
	git_revwalk *walk = NULL;
	if (git_revwalk_new(&walk, h->repo) < 0 || git_revwalk_push_head(walk) < 0 ||
	    git_revwalk_hide(walk, git_commit_id(target)) < 0) {
		git_revwalk_free(walk);
		return hfail(h, _("walking history"));
	}
	char reverts[LATER_MAX][41]; /* what each later commit reverts, "" for none */
	int n = 0;
	git_oid oidv;
	while (n < LATER_MAX && git_revwalk_next(&oidv, walk) == 0) {
		oid_hex(oids[n], &oidv);
		history_commit_info info;
		reverts[n][0] = '\0';
		if (history_commit_info_get(&info, h, oids[n]) == 0) {
			subject_reverted(reverts[n], info.message);
			history_commit_info_done(&info);
		}
		n++;
	}
	git_revwalk_free(walk);
	unsigned char gone[LATER_MAX] = { 0 };
	for (int i = 0; i < n; i++) /* a revert (newer) of a commit also later than target */
		for (int j = i + 1; reverts[i][0] && !gone[i] && j < n; j++)
			if (!gone[j] && strcmp(oids[j], reverts[i]) == 0)
				gone[i] = gone[j] = 1;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!gone[i])
			memmove(oids[m++], oids[i], 41);
	return m;
}

/* The refusal of a revert whose result conflicts: names each later commit (newest
 * first) that changed a conflicting file and still stands (standing_commits), and the
 * files, so the user knows which checkpoints to revert first. Returns FERRY_EREFUSED (or
 * a git error). */
static int conflict_refusal(history *h, git_index *merged, git_commit *target, const char *oid,
                            const history_revert_hooks *hooks)
{
	sbuf paths, later;
	sbuf_init(&paths);
	sbuf_init(&later);
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *anc, *ours, *theirs;
	int rc = 0;
	size_t nlater = 0;
	char (*oids)[41] = xmalloc(LATER_MAX * sizeof *oids);
	if (git_index_conflict_iterator_new(&it, merged) < 0) {
		rc = hfail(h, _("listing conflicts"));
		goto out;
	}
	while (git_index_conflict_next(&anc, &ours, &theirs, it) == 0) {
		const git_index_entry *e = ours ? ours : theirs ? theirs : anc;
		sbuf_addf(&paths, "%s%s\n", paths.len ? "" : "\n", e->path); /* one per line, led by \n */
	}
	int nstanding = standing_commits(oids, h, target);
	if (nstanding < 0) {
		rc = nstanding;
		goto out;
	}
	for (int k = 0; k < nstanding && nlater < 8; k++) {
		const char *hex = oids[k];
		char **touched = NULL;
		size_t nt = 0, hit = 0;
		if ((rc = history_commit_paths(&touched, &nt, h, hex)) < 0)
			goto out;
		for (size_t i = 0; i < nt; i++) {
			char *needle = xasprintf("\n%s\n", touched[i]);
			if (strstr(paths.buf, needle)) {
				if (hit)
					sbuf_addf(&later, "%s%s", _(", "), touched[i]);
				else {
					char name[96];
					commit_name(name, sizeof name, hooks, hex);
					sbuf_addf(&later, _("%s%s changed %s"), nlater ? _("; ") : "", name, touched[i]);
				}
				hit++;
			}
			free(needle);
			free(touched[i]);
		}
		free(touched);
		nlater += hit > 0;
	}
	char name[96];
	commit_name(name, sizeof name, hooks, oid);
	rc = nlater ? err_set(FERRY_EREFUSED, _("%s: later changes conflict with reverting it: %s; revert those checkpoints first, or, where one is a "
	                        "hand edit (someone's own work, which a revert would undo), undo this change by hand"),
	                      name, later.buf)
	            : err_set(FERRY_EREFUSED, _("%s: later changes conflict with reverting it"), name);
out:
	git_index_conflict_iterator_free(it);
	free(oids);
	sbuf_done(&paths);
	sbuf_done(&later);
	return rc;
}

int history_revert(char out[41], history *h, const char *oid, const char *message,
                   const history_trailer *trailers, size_t ntrailers, const history_sig *sig,
                   const history_revert_hooks *hooks)
{
	git_commit *target = NULL, *head = NULL;
	git_index *merged = NULL;
	git_tree *head_tree = NULL, *new_tree = NULL;
	git_diff *diff = NULL;
	git_merge_options mopts = GIT_MERGE_OPTIONS_INIT;
	git_diff_options dopts = GIT_DIFF_OPTIONS_INIT;
	char **changed = NULL;
	const char **paths = NULL, **hashes = NULL;
	char (*sums)[65] = NULL;
	size_t nchanged = 0, npaths = 0;
	git_oid tree_id;
	int rc, made = 0;

	if ((rc = lookup_commit(&target, h, oid)) < 0 || (rc = head_commit(&head, h)) < 0)
		goto out;
	if (git_commit_parentcount(target) == 0) {
		rc = err_set(FERRY_EUSAGE, _("%.12s: the baseline cannot be reverted"), oid);
		goto out;
	}
	if (git_revert_commit(&merged, h->repo, target, head, 0, &mopts) < 0) {
		rc = git_fail(FERRY_EGIT, oid, _("computing the revert"));
		goto out;
	}
	if (git_index_has_conflicts(merged)) {
		rc = conflict_refusal(h, merged, target, oid, hooks);
		goto out;
	}
	if (git_index_write_tree_to(&tree_id, merged, h->repo) < 0) {
		rc = hfail(h, _("writing tree"));
		goto out;
	}
	if (git_oid_equal(&tree_id, git_commit_tree_id(head))) {
		char name[96];
		commit_name(name, sizeof name, hooks, oid);
		rc = err_set(FERRY_EREFUSED, _("%s: nothing to revert: its changes are already undone"), name);
		goto out;
	}
	if (git_commit_tree(&head_tree, head) < 0 || git_tree_lookup(&new_tree, h->repo, &tree_id) < 0 ||
	    git_diff_tree_to_tree(&diff, h->repo, head_tree, new_tree, &dopts) < 0) {
		rc = hfail(h, _("computing the revert"));
		goto out;
	}
	/* never overwrite an edit that is not in the history yet */
	if ((rc = history_changed_files(&changed, &nchanged, h)) < 0)
		goto out;
	size_t count = git_diff_num_deltas(diff);
	paths = xcalloc(count ? count : 1, sizeof *paths);
	hashes = xcalloc(count ? count : 1, sizeof *hashes);
	sums = xcalloc(count ? count : 1, sizeof *sums);
	for (size_t i = 0; i < count; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *p = d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
		if (bsearch(&p, changed, nchanged, sizeof *changed, cmp_str)) {
			rc = err_set(FERRY_EREFUSED, _("%s: has changes not in the history yet; record them first"), p);
			goto out;
		}
		/* the same rules as every write into the project, checked before the first */
		if ((rc = projfs_check_path(p)) < 0 || (rc = planned_sum(sums[npaths], h, new_tree, d)) < 0)
			goto out;
		hashes[npaths] = sums[npaths][0] ? sums[npaths] : NULL;
		paths[npaths++] = p;
	}
	if (hooks && hooks->planned && (rc = hooks->planned(paths, hashes, npaths, hooks->payload)) < 0)
		goto out;
	for (size_t i = 0; i < count; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		/* a tracked link that becomes a file again: the link itself goes first */
		if (d->status != GIT_DELTA_DELETED && d->old_file.mode == GIT_FILEMODE_LINK &&
		    d->new_file.mode != GIT_FILEMODE_LINK && (rc = projfs_remove(h->root, d->old_file.path)) < 0)
			goto out;
		rc = d->status == GIT_DELTA_DELETED ? projfs_remove(h->root, d->old_file.path)
		                                    : restore_file(h, new_tree, d->new_file.path);
		if (rc < 0)
			goto out;
	}
	rc = history_commit(out, &made, h, paths, npaths, message, trailers, ntrailers, sig);
out:
	free(paths);
	free(hashes);
	free(sums);
	free_strv(changed, nchanged);
	git_diff_free(diff);
	git_tree_free(head_tree);
	git_tree_free(new_tree);
	git_index_free(merged);
	git_commit_free(target);
	git_commit_free(head);
	return rc;
}

/* ---------- export ---------- */

/* "Fix the thing: now!" -> "Fix-the-thing-now", as git format-patch names files. */
static void subject_slug(char *out, size_t cap, const char *subject)
{
	size_t n = 0;
	int dash = 0;
	for (const char *s = subject; *s && *s != '\n' && n + 1 < cap && n < 52; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '.' || c == '_') {
			if (dash && n)
				out[n++] = '-';
			dash = 0;
			if (n + 1 < cap)
				out[n++] = (char)c;
		} else {
			dash = 1;
		}
	}
	while (n && (out[n - 1] == '.' || out[n - 1] == '-'))
		n--;
	out[n] = '\0';
	if (!n)
		snprintf(out, cap, "checkpoint");
}

static int is_ascii(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] >= 0x80)
			return 0;
	return 1;
}

/* Appends text as one RFC 2047 encoded word (=?UTF-8?B?...?=). */
static void add_encoded_word(sbuf *b, const char *text, size_t n)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	sbuf_adds(b, "=?UTF-8?B?");
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned char)text[i] << 16;
		if (i + 1 < n)
			v |= (unsigned char)text[i + 1] << 8;
		if (i + 2 < n)
			v |= (unsigned char)text[i + 2];
		sbuf_addc(b, b64[(v >> 18) & 63]);
		sbuf_addc(b, b64[(v >> 12) & 63]);
		sbuf_addc(b, i + 1 < n ? b64[(v >> 6) & 63] : '=');
		sbuf_addc(b, i + 2 < n ? b64[v & 63] : '=');
	}
	sbuf_adds(b, "?=");
}

/* The mail as mail readers and `git am` expect it: a non-ASCII author name in From:
 * and a non-ASCII Subject: RFC 2047 encoded, and, when the message holds non-ASCII
 * text, MIME headers declaring UTF-8. libgit2 writes both raw. */
static void mbox_encode(sbuf *out, const char *mail, size_t len)
{
	const char *end = mail + len, *p = mail;
	const char *hdr_end = strstr(mail, "\n\n");
	const char *body_end = hdr_end ? strstr(hdr_end, "\n---\n") : NULL;
	int utf8 = !is_ascii(mail, (size_t)((body_end ? body_end : end) - mail));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		int header = hdr_end && p <= hdr_end;
		if (header && n > 6 && strncmp(p, "From: ", 6) == 0 && !is_ascii(p, n)) {
			const char *lt = memchr(p, '<', n);
			const char *name = p + 6, *name_end = lt ? lt : p + n - 1;
			while (name_end > name && name_end[-1] == ' ')
				name_end--;
			sbuf_adds(out, "From: ");
			add_encoded_word(out, name, (size_t)(name_end - name));
			if (lt) {
				sbuf_addc(out, ' ');
				sbuf_add(out, lt, (size_t)(p + n - lt));
			} else {
				sbuf_addc(out, '\n');
			}
		} else if (header && n > 9 && strncmp(p, "Subject: ", 9) == 0 && !is_ascii(p, n)) {
			/* keep the [PATCH] prefix readable; encode the rest */
			const char *text = p + 9;
			const char *rb = strncmp(text, "[PATCH", 6) == 0 ? memchr(text, ']', n - 9) : NULL;
			if (rb)
				text = rb + 2 <= p + n ? rb + 2 : rb + 1;
			sbuf_add(out, p, (size_t)(text - p));
			add_encoded_word(out, text, (size_t)(p + n - 1 - text));
			sbuf_addc(out, '\n');
		} else {
			sbuf_add(out, p, n);
		}
		if (header && utf8 && n > 9 && strncmp(p, "Subject: ", 9) == 0)
			sbuf_adds(out, "MIME-Version: 1.0\nContent-Type: text/plain; charset=UTF-8\n"
			               "Content-Transfer-Encoding: 8bit\n");
		p += n;
	}
}

int history_export_patches(history *h, const char *dir, const char *signoff)
{
	git_oid *chain = NULL;
	git_commit *c = NULL;
	git_diff *diff = NULL;
	git_buf buf = GIT_BUF_INIT;
	char *path = NULL, *body = NULL;
	sbuf mail;
	sbuf_init(&mail);
	size_t len = 0;
	int rc = first_parent_chain(&chain, &len, h);
	if (rc < 0 || (rc = util_mkdirs(dir, 0755)) < 0)
		goto out;
	for (size_t i = 1; i < len; i++) {
		char hex[41], slug[64], name[128];
		git_email_create_options eopts = GIT_EMAIL_CREATE_OPTIONS_INIT;
		eopts.flags |= GIT_EMAIL_CREATE_NO_RENAMES;
		oid_hex(hex, &chain[i]);
		if ((rc = lookup_commit(&c, h, hex)) < 0 || (rc = diff_pair(&diff, h, hex, NULL, 1)) < 0)
			goto out;
		const char *summary = git_commit_summary(c), *orig = git_commit_body(c);
		/* the sign-off joins the message's trailer block (its last paragraph) */
		if (signoff && *signoff) {
			size_t ol = orig ? strlen(orig) : 0;
			while (ol && orig[ol - 1] == '\n')
				ol--;
			body = ol ? xasprintf("%.*s\nSigned-off-by: %s\n", (int)ol, orig, signoff)
			          : xasprintf("Signed-off-by: %s\n", signoff);
		}
		if (git_email_create_from_diff(&buf, diff, i, len - 1, &chain[i], summary ? summary : "",
		                               body ? body : orig, git_commit_author(c), &eopts) < 0) {
			rc = git_fail(FERRY_EGIT, hex, _("formatting patch"));
			goto out;
		}
		sbuf_reset(&mail);
		mbox_encode(&mail, buf.ptr, buf.size);
		subject_slug(slug, sizeof slug, summary ? summary : "");
		snprintf(name, sizeof name, "%04zu-%s.patch", i, slug);
		path = util_path_join(dir, name);
		if ((rc = util_write_atomic(path, mail.buf, mail.len, 0644)) < 0)
			goto out;
		free(body);
		body = NULL;
		free(path);
		path = NULL;
		git_buf_dispose(&buf);
		git_diff_free(diff);
		diff = NULL;
		git_commit_free(c);
		c = NULL;
	}
out:
	free(path);
	free(body);
	sbuf_done(&mail);
	git_buf_dispose(&buf);
	git_diff_free(diff);
	git_commit_free(c);
	free(chain);
	return rc;
}

struct overlay {
	history *h;            /* the shadow history (source of objects, ignore rules) */
	git_repository *dst;   /* the client repository */
	git_odb *src_odb;      /* our object database */
	git_odb *dst_odb;      /* the client's */
	git_index *index;      /* in-memory index holding the tree being built */
	const char *repo_path; /* for messages */
	const char *prefix;    /* the project's folder inside the client repository ("" or "dir/") */
};

/* Puts our blob id at the project's relpath in the index being built (copying the
 * object into the client's database) unless that entry is already there. */
static int overlay_put(struct overlay *o, const char *relpath, const git_oid *id, uint32_t mode)
{
	git_odb_object *obj = NULL;
	git_oid written;
	int rc = 0;
	char *path = xasprintf("%s%s", o->prefix, relpath);
	const git_index_entry *cur = git_index_get_bypath(o->index, path, 0);
	if (cur && git_oid_equal(&cur->id, id) && cur->mode == mode)
		goto out;
	if (git_odb_read(&obj, o->src_odb, id) < 0) {
		rc = hfail(o->h, relpath);
		goto out;
	}
	if (git_odb_write(&written, o->dst_odb, git_odb_object_data(obj), git_odb_object_size(obj),
	                  GIT_OBJECT_BLOB) < 0) {
		rc = git_fail(FERRY_EGIT, o->repo_path, _("writing objects"));
		goto out;
	}
	git_index_entry ie;
	memset(&ie, 0, sizeof ie);
	ie.mode = mode;
	ie.id = written;
	ie.path = path;
	if (git_index_add(o->index, &ie) < 0)
		rc = git_fail(FERRY_EGIT, o->repo_path, path);
out:
	git_odb_object_free(obj);
	free(path);
	return rc;
}

/* Removes the project's relpath from the index being built (absent: nothing to do). */
static int overlay_drop(struct overlay *o, const char *relpath)
{
	char *path = xasprintf("%s%s", o->prefix, relpath);
	int rc = 0;
	if (git_index_get_bypath(o->index, path, 0) && git_index_remove_bypath(o->index, path) < 0)
		rc = git_fail(FERRY_EGIT, o->repo_path, path);
	free(path);
	return rc;
}

/* Copies one blob of the baseline into the index being built. */
static int overlay_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct overlay *o = payload;
	if (git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
		return 0;
	char *rel = xasprintf("%s%s", root, git_tree_entry_name(entry));
	int rc = overlay_put(o, rel, git_tree_entry_id(entry), (uint32_t)git_tree_entry_filemode(entry));
	free(rel);
	return rc < 0 ? -1 : 0;
}

/* The project's folder of the tree being built made equal to our baseline: changed and
 * new files copied, files gone from the baseline removed unless our ignore rules kept
 * them out. Nothing outside the folder is touched. */
static int overlay_baseline(struct overlay *o, git_tree *baseline)
{
	char **gone = NULL;
	size_t ngone = 0, plen = strlen(o->prefix);
	int rc = 0;
	err_clear();
	if (git_tree_walk(baseline, GIT_TREEWALK_PRE, overlay_cb, o) < 0) {
		rc = err_code() ? err_code() : hfail(o->h, _("reading baseline"));
		goto out;
	}
	size_t count = git_index_entrycount(o->index);
	gone = xcalloc(count ? count : 1, sizeof *gone);
	for (size_t i = 0; i < count; i++) {
		const git_index_entry *e = git_index_get_byindex(o->index, i);
		git_tree_entry *te = NULL;
		int ignored = 0;
		if (e->mode == GIT_FILEMODE_COMMIT || strncmp(e->path, o->prefix, plen) != 0)
			continue;
		const char *rel = e->path + plen;
		if (git_tree_entry_bypath(&te, baseline, rel) == 0) {
			git_tree_entry_free(te);
			continue;
		}
		if ((rc = history_is_ignored(&ignored, o->h, rel)) < 0)
			goto out;
		if (!ignored)
			gone[ngone++] = xstrdup(rel);
	}
	for (size_t i = 0; i < ngone; i++)
		if ((rc = overlay_drop(o, gone[i])) < 0)
			goto out;
out:
	free_strv(gone, ngone);
	return rc;
}

/* Applies one checkpoint (its change against its first parent, in our history) to the
 * project's folder of the tree being built. */
static int overlay_checkpoint(struct overlay *o, git_commit *c)
{
	git_commit *parent = NULL;
	git_tree *old_tree = NULL, *new_tree = NULL;
	git_diff *diff = NULL;
	int rc = 0;
	if (git_commit_parent(&parent, c, 0) < 0 || git_commit_tree(&old_tree, parent) < 0 ||
	    git_commit_tree(&new_tree, c) < 0 || git_diff_tree_to_tree(&diff, o->h->repo, old_tree, new_tree, NULL) < 0) {
		rc = hfail(o->h, _("reading checkpoint"));
		goto out;
	}
	for (size_t i = 0; i < git_diff_num_deltas(diff) && !rc; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		int has_new = d->status != GIT_DELTA_DELETED && d->new_file.mode != GIT_FILEMODE_COMMIT &&
		              d->new_file.mode != 0;
		if (d->status == GIT_DELTA_DELETED || strcmp(d->old_file.path, d->new_file.path) != 0 || !has_new)
			rc = overlay_drop(o, d->old_file.path);
		if (!rc && has_new)
			rc = overlay_put(o, d->new_file.path, &d->new_file.id, d->new_file.mode);
	}
out:
	git_diff_free(diff);
	git_tree_free(old_tree);
	git_tree_free(new_tree);
	git_commit_free(parent);
	return rc;
}

/* *match = 1 when theirs (a folder of the client's commit) holds exactly our tree ours:
 * the same names, blob ids and modes, apart from entries our ignore rules keep out of
 * the history (.git, .ferry, the project's .gitignore). rel is the folder's path in the
 * project ("" or "dir/"). */
static int tree_matches(int *match, struct overlay *o, git_tree *ours, git_tree *theirs, const char *rel)
{
	int rc = 0;
	*match = git_oid_equal(git_tree_id(ours), git_tree_id(theirs));
	if (*match)
		return 0;
	size_t n = git_tree_entrycount(theirs), seen = 0;
	for (size_t i = 0; i < n; i++) {
		const git_tree_entry *t = git_tree_entry_byindex(theirs, i);
		const git_tree_entry *u = git_tree_entry_byname(ours, git_tree_entry_name(t));
		int tdir = git_tree_entry_type(t) == GIT_OBJECT_TREE;
		if (!u) {
			int ignored = 0;
			char *p = xasprintf("%s%s%s", rel, git_tree_entry_name(t), tdir ? "/" : "");
			rc = history_is_ignored(&ignored, o->h, p);
			free(p);
			if (rc < 0 || !ignored)
				return rc;
			continue;
		}
		seen++;
		if (git_tree_entry_type(u) != git_tree_entry_type(t))
			return 0;
		if (!tdir) {
			if (!git_oid_equal(git_tree_entry_id(t), git_tree_entry_id(u)) ||
			    git_tree_entry_filemode(t) != git_tree_entry_filemode(u))
				return 0;
			continue;
		}
		if (git_oid_equal(git_tree_entry_id(t), git_tree_entry_id(u)))
			continue;
		git_tree *a = NULL, *b = NULL;
		char *sub = xasprintf("%s%s/", rel, git_tree_entry_name(t));
		if (git_tree_lookup(&a, o->h->repo, git_tree_entry_id(u)) < 0 ||
		    git_tree_lookup(&b, o->dst, git_tree_entry_id(t)) < 0)
			rc = git_fail(FERRY_EGIT, o->repo_path, sub);
		else
			rc = tree_matches(match, o, a, b, sub);
		git_tree_free(a);
		git_tree_free(b);
		free(sub);
		if (rc < 0 || !*match)
			return rc;
		*match = 0;
	}
	/* every entry of ours must have been seen in theirs */
	*match = seen == git_tree_entrycount(ours);
	return 0;
}

/* The project's folder inside the client's tree as a tree (NULL when absent). */
static int project_subtree(git_tree **out, struct overlay *o, git_commit *c)
{
	git_tree *root = NULL;
	git_tree_entry *te = NULL;
	*out = NULL;
	if (git_commit_tree(&root, c) < 0)
		return git_fail(FERRY_EGIT, o->repo_path, _("reading tree"));
	if (!*o->prefix) {
		*out = root;
		return 0;
	}
	char *dir = xstrdup(o->prefix);
	dir[strlen(dir) - 1] = '\0';
	int rc = 0;
	if (git_tree_entry_bypath(&te, root, dir) == 0 && git_tree_entry_type(te) == GIT_OBJECT_TREE &&
	    git_tree_lookup(out, o->dst, git_tree_entry_id(te)) < 0)
		rc = git_fail(FERRY_EGIT, o->repo_path, dir);
	git_tree_entry_free(te);
	git_tree_free(root);
	free(dir);
	return rc;
}

/* The newest commit reachable from the client's HEAD whose project folder holds the
 * baseline; *out NULL when none does. */
static int find_base(git_commit **out, struct overlay *o, git_tree *baseline)
{
	git_revwalk *walk = NULL;
	git_oid id;
	int rc = 0, grc;
	*out = NULL;
	if (git_revwalk_new(&walk, o->dst) < 0 || git_revwalk_sorting(walk, GIT_SORT_TIME) < 0) {
		rc = git_fail(FERRY_EGIT, o->repo_path, _("walking history"));
		goto out;
	}
	grc = git_revwalk_push_head(walk);
	if (grc == GIT_ENOTFOUND || grc == GIT_EUNBORNBRANCH)
		goto out; /* an empty repository holds no base */
	if (grc < 0) {
		rc = git_fail(FERRY_EGIT, o->repo_path, "HEAD");
		goto out;
	}
	while (!*out && (grc = git_revwalk_next(&id, walk)) == 0) {
		git_commit *c = NULL;
		git_tree *sub = NULL;
		int match = 0;
		if (git_commit_lookup(&c, o->dst, &id) < 0) {
			rc = git_fail(FERRY_EGIT, o->repo_path, _("reading commit"));
			goto out;
		}
		if ((rc = project_subtree(&sub, o, c)) == 0 && sub)
			rc = tree_matches(&match, o, baseline, sub, "");
		git_tree_free(sub);
		if (rc < 0 || !match)
			git_commit_free(c);
		else
			*out = c;
		if (rc < 0)
			goto out;
	}
	if (grc < 0 && grc != GIT_ITEROVER)
		rc = git_fail(FERRY_EGIT, o->repo_path, _("walking history"));
out:
	git_revwalk_free(walk);
	return rc;
}

/* The project's folder inside the git work tree that holds it ("" when the project is
 * the work tree's root or in none), with a trailing slash; caller frees. */
static char *project_prefix(history *h)
{
	char *prefix = NULL;
	git_repository_free(client_repo(h->root, &prefix));
	return prefix ? prefix : xstrdup("");
}

/* One commit in the client repository copying src's message and signatures. */
static int copy_commit(git_commit **out, struct overlay *o, git_commit *src, git_index *index,
                       git_commit *parent)
{
	git_oid tree_id, id;
	git_tree *tree = NULL;
	int rc = 0;
	if (git_index_write_tree_to(&tree_id, index, o->dst) < 0 || git_tree_lookup(&tree, o->dst, &tree_id) < 0) {
		rc = git_fail(FERRY_EGIT, o->repo_path, _("writing tree"));
		goto out;
	}
	const git_commit *parents[1] = { parent };
	if (git_commit_create(&id, o->dst, NULL, git_commit_author(src), git_commit_committer(src),
	                      git_commit_message_encoding(src), git_commit_message(src), tree, parent ? 1 : 0,
	                      parents) < 0 ||
	    git_commit_lookup(out, o->dst, &id) < 0)
		rc = git_fail(FERRY_EGIT, o->repo_path, _("creating commit"));
out:
	git_tree_free(tree);
	return rc;
}

int history_export_branch(history *h, const char *name, const char *repo, const char *base_rev)
{
	struct overlay o = { h, NULL, NULL, NULL, NULL, repo, NULL };
	git_reference *ref = NULL;
	git_object *named = NULL;
	git_commit *tip = NULL, *c = NULL, *next = NULL, *base = NULL;
	git_tree *cur_tree = NULL, *base_tree = NULL;
	git_oid *chain = NULL;
	size_t len = 0;
	int rc = 0, valid = 0;
	char *refname = xasprintf("refs/heads/%s", name ? name : "");
	char *prefix = project_prefix(h);
	o.prefix = prefix;

	if (!name || git_reference_name_is_valid(&valid, refname) < 0 || !valid) {
		rc = err_set(FERRY_EUSAGE, _("%s: not a valid branch name"), name ? name : "(null)");
		goto out;
	}
	if (git_repository_open_ext(&o.dst, repo, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		rc = git_fail(FERRY_EGIT, repo, _("cannot open git repository"));
		goto out;
	}
	int grc = git_reference_lookup(&ref, o.dst, refname);
	if (grc == 0) {
		rc = err_set(FERRY_EEXISTS, _("%s: branch %s already exists"), repo, name);
		goto out;
	}
	if (grc != GIT_ENOTFOUND) {
		rc = git_fail(FERRY_EGIT, repo, refname);
		goto out;
	}
	if (git_repository_odb(&o.dst_odb, o.dst) < 0 || git_repository_odb(&o.src_odb, h->repo) < 0 ||
	    git_index_new(&o.index) < 0) {
		rc = git_fail(FERRY_EGIT, repo, _("object database"));
		goto out;
	}
	if ((rc = first_parent_chain(&chain, &len, h)) < 0)
		goto out;
	if (git_commit_lookup(&base, h->repo, &chain[0]) < 0 || git_commit_tree(&base_tree, base) < 0) {
		rc = hfail(h, _("reading baseline"));
		goto out;
	}
	/* The client's commit the code came from: named, or the newest whose project
	 * folder is the baseline. Building on it keeps the client's later work out of the
	 * branch, so a merge keeps both sides. */
	if (base_rev) {
		if (git_revparse_single(&named, o.dst, base_rev) < 0 ||
		    git_object_peel((git_object **)&tip, named, GIT_OBJECT_COMMIT) < 0) {
			rc = err_set(FERRY_EUSAGE, _("%s: --base %s: not a commit of this repository"), repo, base_rev);
			goto out;
		}
	} else {
		if ((rc = find_base(&tip, &o, base_tree)) < 0)
			goto out;
		if (!tip && *prefix)
			rc = err_set(FERRY_EREFUSED,
			             _("%s: no commit reachable from HEAD holds the project as received at %s; "
			             "name the commit the code came from with --base REV"),
			             repo, prefix);
		else if (!tip) /* a whole sentence: a translation places "the root" as its language needs */
			rc = err_set(FERRY_EREFUSED,
			             _("%s: no commit reachable from HEAD holds the project as received at the repository's "
			               "root; name the commit the code came from with --base REV"),
			             repo);
		if (!tip)
			goto out;
	}
	if (git_commit_tree(&cur_tree, tip) < 0 || git_index_read_tree(o.index, cur_tree) < 0) {
		rc = git_fail(FERRY_EGIT, repo, _("reading the base commit"));
		goto out;
	}
	/* A named base may differ from the project as received (work not committed when
	 * ferry started): that difference is one commit, inside the project's folder. */
	if ((rc = overlay_baseline(&o, base_tree)) < 0)
		goto out;
	git_oid probe;
	if (git_index_write_tree_to(&probe, o.index, o.dst) < 0) {
		rc = git_fail(FERRY_EGIT, repo, _("writing tree"));
		goto out;
	}
	if (!git_oid_equal(&probe, git_commit_tree_id(tip))) {
		if ((rc = copy_commit(&c, &o, base, o.index, tip)) < 0)
			goto out;
		git_commit_free(tip);
		tip = c;
		c = NULL;
	}
	/* Then each checkpoint, touching only the project's folder. */
	for (size_t i = 1; i < len; i++) {
		char hex[41];
		oid_hex(hex, &chain[i]);
		if ((rc = lookup_commit(&c, h, hex)) < 0 || (rc = overlay_checkpoint(&o, c)) < 0 ||
		    (rc = copy_commit(&next, &o, c, o.index, tip)) < 0)
			goto out;
		git_commit_free(tip);
		tip = next;
		next = NULL;
		git_commit_free(c);
		c = NULL;
	}
	/* force 0: refuses if the branch appeared meanwhile */
	if (git_branch_create(&ref, o.dst, name, tip, 0) < 0)
		rc = git_fail(FERRY_EGIT, repo, _("creating branch"));
out:
	free(refname);
	free(prefix);
	free(chain);
	git_object_free(named);
	git_tree_free(cur_tree);
	git_tree_free(base_tree);
	git_commit_free(base);
	git_commit_free(c);
	git_commit_free(next);
	git_commit_free(tip);
	git_reference_free(ref);
	git_index_free(o.index);
	git_odb_free(o.src_odb);
	git_odb_free(o.dst_odb);
	git_repository_free(o.dst);
	return rc;
}

/* ---------- identity ---------- */

static char *config_string(git_config *cfg, const char *key)
{
	git_buf buf = GIT_BUF_INIT;
	char *v = NULL;
	if (git_config_get_string_buf(&buf, cfg, key) == 0 && buf.size)
		v = xstrndup(buf.ptr, buf.size);
	git_buf_dispose(&buf);
	return v;
}

int history_user_identity(char **name, char **email)
{
	git_config *cfg = NULL;
	int rc = 0;
	*name = *email = NULL;
	git_ready();
	if (git_config_open_default(&cfg) < 0) {
		rc = git_fail(FERRY_EGIT, _("git configuration"), _("cannot read"));
		goto out;
	}
	*name = config_string(cfg, "user.name");
	*email = config_string(cfg, "user.email");
	if (!*name && !*email)
		rc = err_set(FERRY_ENOTFOUND, _("git configuration: no user.name or user.email"));
out:
	git_config_free(cfg);
	return rc;
}

/* ---------- check ---------- */

/* An open-addressing set of object ids, so shared trees and blobs are read once. */
typedef struct oidset {
	git_oid *keys;
	unsigned char *used;
	size_t cap, n;
} oidset;

static size_t oid_hash(const git_oid *id)
{
	size_t hv;
	memcpy(&hv, id->id, sizeof hv);
	return hv;
}

/* 1 when id was already present; otherwise adds it and returns 0. */
static int oidset_add(oidset *s, const git_oid *id)
{
	if (2 * (s->n + 1) > s->cap) {
		oidset bigger = { NULL, NULL, s->cap ? s->cap * 2 : 1024, 0 };
		bigger.keys = xmalloc(bigger.cap * sizeof *bigger.keys);
		bigger.used = xcalloc(bigger.cap, 1);
		for (size_t i = 0; i < s->cap; i++)
			if (s->used[i])
				oidset_add(&bigger, &s->keys[i]);
		free(s->keys);
		free(s->used);
		*s = bigger;
	}
	size_t i = oid_hash(id) & (s->cap - 1);
	while (s->used[i]) {
		if (git_oid_equal(&s->keys[i], id))
			return 1;
		i = (i + 1) & (s->cap - 1);
	}
	s->used[i] = 1;
	git_oid_cpy(&s->keys[i], id);
	s->n++;
	return 0;
}

static int check_tree(history *h, git_odb *odb, oidset *seen, const git_oid *id, const char *path)
{
	git_tree *tree = NULL;
	char hex[41];
	int rc = 0;
	if (oidset_add(seen, id))
		return 0;
	if (git_tree_lookup(&tree, h->repo, id) < 0) {
		oid_hex(hex, id);
		rc = git_fail(FERRY_ECORRUPT, h->git_dir, _("unreadable tree"));
		err_prefix("tree %s (%s)", hex, *path ? path : "/");
		goto out;
	}
	size_t count = git_tree_entrycount(tree);
	for (size_t i = 0; i < count && rc == 0; i++) {
		const git_tree_entry *e = git_tree_entry_byindex(tree, i);
		char *sub = *path ? xasprintf("%s/%s", path, git_tree_entry_name(e)) : xstrdup(git_tree_entry_name(e));
		if (git_tree_entry_type(e) == GIT_OBJECT_TREE) {
			rc = check_tree(h, odb, seen, git_tree_entry_id(e), sub);
		} else if (git_tree_entry_type(e) == GIT_OBJECT_BLOB && !oidset_add(seen, git_tree_entry_id(e))) {
			git_odb_object *obj = NULL;
			/* a full read: libgit2 verifies the content hashes to the id */
			if (git_odb_read(&obj, odb, git_tree_entry_id(e)) < 0) {
				oid_hex(hex, git_tree_entry_id(e));
				rc = git_fail(FERRY_ECORRUPT, h->git_dir, _("unreadable blob"));
				err_prefix("blob %s (%s)", hex, sub);
			}
			git_odb_object_free(obj);
		}
		free(sub);
	}
out:
	git_tree_free(tree);
	return rc;
}

int history_check(history *h)
{
	git_revwalk *walk = NULL;
	git_odb *odb = NULL;
	oidset seen = { NULL, NULL, 0, 0 };
	git_oid id;
	char hex[41];
	int rc = 0, grc;
	if (git_repository_odb(&odb, h->repo) < 0) {
		rc = hfail(h, _("object database"));
		goto out;
	}
	if (git_revwalk_new(&walk, h->repo) < 0 || git_revwalk_push_head(walk) < 0) {
		rc = git_fail(FERRY_ECORRUPT, h->git_dir, "HEAD");
		goto out;
	}
	while ((grc = git_revwalk_next(&id, walk)) == 0) {
		git_commit *c = NULL;
		if (git_commit_lookup(&c, h->repo, &id) < 0) {
			oid_hex(hex, &id);
			rc = git_fail(FERRY_ECORRUPT, h->git_dir, _("unreadable commit"));
			err_prefix("commit %s", hex);
			goto out;
		}
		rc = check_tree(h, odb, &seen, git_commit_tree_id(c), "");
		git_commit_free(c);
		if (rc < 0)
			goto out;
	}
	if (grc != GIT_ITEROVER)
		rc = git_fail(FERRY_ECORRUPT, h->git_dir, _("walking history"));
out:
	free(seen.keys);
	free(seen.used);
	git_revwalk_free(walk);
	git_odb_free(odb);
	return rc;
}

/* ---------- hunks (change lists) ---------- */

/* Calls cb once per hunk of one file's patch. */
static int patch_hunks(git_patch *patch, history_hunk_cb cb, void *payload)
{
	const git_diff_delta *d = git_patch_get_delta(patch);
	history_hunk hk = { 0 };
	sbuf olds, news;
	int rc = 0;
	sbuf_init(&olds);
	sbuf_init(&news);
	hk.path = d->status == GIT_DELTA_DELETED ? d->old_file.path : d->new_file.path;
	hk.status = d->status == GIT_DELTA_ADDED ? 'A' : d->status == GIT_DELTA_DELETED ? 'D'
	          : d->status == GIT_DELTA_RENAMED ? 'R' : 'M';
	hk.binary = (d->flags & GIT_DIFF_FLAG_BINARY) != 0;
	size_t nh = git_patch_num_hunks(patch);
	if (hk.binary || nh == 0) { /* a binary file, or an empty file added or deleted */
		hk.old_text = hk.new_text = "";
		rc = cb(&hk, payload);
		goto out;
	}
	for (size_t i = 0; i < nh && !rc; i++) {
		const git_diff_hunk *gh = NULL;
		size_t nlines = 0;
		if (git_patch_get_hunk(&gh, &nlines, patch, i) < 0) {
			rc = git_fail(FERRY_EGIT, hk.path, _("reading diff hunk"));
			goto out;
		}
		sbuf_reset(&olds);
		sbuf_reset(&news);
		for (size_t k = 0; k < nlines; k++) {
			const git_diff_line *ln = NULL;
			if (git_patch_get_line_in_hunk(&ln, patch, i, k) < 0) {
				rc = git_fail(FERRY_EGIT, hk.path, _("reading diff line"));
				goto out;
			}
			if (ln->origin == GIT_DIFF_LINE_DELETION)
				sbuf_add(&olds, ln->content, ln->content_len);
			else if (ln->origin == GIT_DIFF_LINE_ADDITION)
				sbuf_add(&news, ln->content, ln->content_len);
		}
		hk.old_start = gh->old_start;
		hk.old_lines = gh->old_lines;
		hk.new_start = gh->new_start;
		hk.new_lines = gh->new_lines;
		hk.old_text = olds.buf;
		hk.new_text = news.buf;
		rc = cb(&hk, payload);
	}
out:
	sbuf_done(&olds);
	sbuf_done(&news);
	return rc;
}

int history_diff_hunks(history *h, const char *oid, history_hunk_cb cb, void *payload)
{
	return history_diff_hunks_from(h, NULL, oid, NULL, cb, payload);
}

int history_diff_hunks_from(history *h, const char *from, const char *oid, const char *path, history_hunk_cb cb,
                            void *payload)
{
	git_commit *c = NULL, *parent = NULL;
	git_tree *ta = NULL, *tb = NULL;
	git_diff *diff = NULL;
	git_diff_options opts = GIT_DIFF_OPTIONS_INIT;
	int rc = lookup_commit(&c, h, oid);
	if (rc < 0 || (from && (rc = lookup_commit(&parent, h, from)) < 0))
		goto out;
	if (!from && git_commit_parentcount(c) > 0 && git_commit_parent(&parent, c, 0) < 0) {
		rc = hfail(h, _("parent commit"));
		goto out;
	}
	if ((parent && git_commit_tree(&ta, parent) < 0) || git_commit_tree(&tb, c) < 0) {
		rc = hfail(h, _("reading tree"));
		goto out;
	}
	opts.context_lines = 0;
	opts.interhunk_lines = 0;
	char *spec[1] = { (char *)path };
	if (path) {
		opts.pathspec.strings = spec;
		opts.pathspec.count = 1;
		opts.flags |= GIT_DIFF_DISABLE_PATHSPEC_MATCH; /* the path as it is, not a pattern */
	}
	if (git_diff_tree_to_tree(&diff, h->repo, ta, tb, &opts) < 0) {
		rc = hfail(h, _("computing diff"));
		goto out;
	}
	size_t n = git_diff_num_deltas(diff);
	for (size_t i = 0; i < n && !rc; i++) {
		git_patch *patch = NULL;
		if (git_patch_from_diff(&patch, diff, i) < 0) {
			rc = hfail(h, _("computing patch"));
			goto out;
		}
		if (patch)
			rc = patch_hunks(patch, cb, payload);
		git_patch_free(patch);
	}
out:
	git_diff_free(diff);
	git_tree_free(ta);
	git_tree_free(tb);
	git_commit_free(parent);
	git_commit_free(c);
	return rc;
}
