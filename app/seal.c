/* seal — see seal.h. */
#include "seal.h"
#include "acache.h"
#include "err.h"
#include "intl.h"
#include "json.h"
#include "replay.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

char *seal_file(const char *artdir, const char *path)
{
	if (util_starts_with(path, "ref:"))
		return xstrdup(path + 4);
	return util_path_join(artdir, path);
}

/* "artifact 2 (bench, npu)", malloc'd. */
static char *named(const seal_artifact *a)
{
	if (a->label && *a->label)
		return xasprintf(_("artifact %lld (%s, %s)"), a->id, a->kind, a->label);
	return xasprintf(_("artifact %lld (%s)"), a->id, a->kind);
}

/* What the user can do: a copy is rewritten by ingesting the same original again, a file
 * kept by reference is the user's own. */
static const char *remedy(const seal_artifact *a)
{
	if (a->by_reference)
		return _("put the original file back, or ingest the evidence again under a new label");
	return _("restore it by ingesting the original file again, or ingest the evidence again under a new label");
}

static int altered(const seal_artifact *a, const char *file, const char *recorded, const char *now)
{
	char *who = named(a);
	int rc = err_set(FERRY_ECORRUPT,
	                 _("%s no longer matches the SHA-256 recorded at ingest (recorded %.12s, now %.12s): %s; %s"),
	                 who, recorded, now, file, remedy(a));
	free(who);
	return rc;
}

static int unreadable(const seal_artifact *a, const char *file, const char *why)
{
	char *who = named(a);
	int rc = err_set(FERRY_EIO, _("%s: %s cannot be read (%s); %s"), who, file, why, remedy(a));
	free(who);
	return rc;
}

static int is_sha256(const char *s, size_t len)
{
	if (len != 64)
		return 0;
	for (size_t i = 0; i < len; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* The SHA-256 of the regular file at path, whose recorded hash is recorded: with
 * cache_dir, the one kept for the unchanged copy when there is one. Returns 0, or
 * FERRY_EIO with the reason in why. */
static int hash_file(char now[65], const char *path, const char *recorded, const char *cache_dir, char *why,
                     size_t whylen)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return FERRY_EIO;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "%s", _("not a regular file"));
		return FERRY_EIO;
	}
	acache_key key;
	int keep = cache_dir && acache_key_make(&key, cache_dir, recorded, "sha256", "", 0, path) == 0;
	size_t len = 0;
	char *kept = keep ? acache_load(&key, &len) : NULL;
	if (kept && is_sha256(kept, len)) {
		memcpy(now, kept, 64);
		now[64] = '\0';
		free(kept);
		return 0;
	}
	free(kept);
	if (util_sha256_file(now, path)) {
		snprintf(why, whylen, "%s", strerror(errno));
		err_clear();
		return FERRY_EIO;
	}
	if (keep)
		acache_store(&key, now, 64);
	return 0;
}

void seal_keep(const char *cache_dir, const char *path, const char *sha256, const struct stat *before)
{
	acache_key key;
	if (!cache_dir || acache_key_make(&key, cache_dir, sha256, "sha256", "", 0, path) != 0)
		return;
	if (before && !acache_key_matches(&key, before))
		return; /* changed while it was read: the next check hashes it */
	acache_store(&key, sha256, 64);
}

/* ---- a dump's view folder ------------------------------------------------------------ */

typedef struct walked {
	char **rel;      /* paths below the view, sorted */
	char *seen;      /* rel[i] is listed in the manifest */
	size_t n, cap;
} walked;

static void walked_add(walked *w, char *rel)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		w->rel = xrealloc(w->rel, w->cap * sizeof *w->rel);
	}
	w->rel[w->n++] = rel;
}

/* Every entry below dir that is not a folder (links and special files included: none
 * belongs in a view). Returns 0, or -1 with errno set when a folder cannot be read. */
static int walk(walked *w, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *abs = util_path_join(dir, e->d_name);
		char *r = *rel ? util_path_join(rel, e->d_name) : xstrdup(e->d_name);
		struct stat st;
		if (lstat(abs, &st) == 0 && S_ISDIR(st.st_mode)) {
			int rc = walk(w, abs, r);
			free(r);
			r = NULL;
			if (rc) {
				int saved = errno;
				free(abs);
				closedir(d);
				errno = saved;
				return rc;
			}
		}
		if (r)
			walked_add(w, r);
		free(abs);
	}
	closedir(d);
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The manifest's lines "<sha256>  <path>" checked against the view, then the view's
 * files against the manifest. */
static int check_view(const seal_artifact *a, const char *manifest, const char *cache_dir)
{
	walked w = { NULL, NULL, 0, 0 };
	char why[256];
	int rc = 0;
	if (walk(&w, a->file, "")) {
		rc = unreadable(a, a->file, strerror(errno));
		goto out;
	}
	qsort(w.rel, w.n, sizeof *w.rel, str_cmp);
	w.seen = xcalloc(w.n + 1, 1);
	for (const char *line = manifest; !rc && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *rel = len > 66 ? xstrndup(line + 66, len - 66) : xstrdup("");
		char *file = util_path_join(a->file, rel);
		char sha[65];
		snprintf(sha, sizeof sha, "%.64s", line);
		char now[65];
		char **hit = bsearch(&rel, w.rel, w.n, sizeof *w.rel, str_cmp);
		if (hit)
			w.seen[hit - w.rel] = 1;
		if (!hit)
			rc = unreadable(a, file, strerror(ENOENT));
		else if (hash_file(now, file, sha, cache_dir, why, sizeof why))
			rc = unreadable(a, file, why);
		else if (strcmp(now, sha) != 0)
			rc = altered(a, file, sha, now);
		free(rel);
		free(file);
		line = nl ? nl + 1 : line + len;
	}
	for (size_t i = 0; !rc && i < w.n; i++)
		if (!w.seen[i]) {
			char *who = named(a), *file = util_path_join(a->file, w.rel[i]);
			rc = err_set(FERRY_ECORRUPT, _("%s: %s was not in the dump recorded at ingest; %s"), who, file,
			             remedy(a));
			free(who);
			free(file);
		}
out:
	for (size_t i = 0; i < w.n; i++)
		free(w.rel[i]);
	free(w.rel);
	free(w.seen);
	return rc;
}

static int check_dump(const seal_artifact *a, const char *cache_dir)
{
	char *mpath = xasprintf("%s.sha256", a->file);
	char *manifest = NULL;
	size_t len = 0;
	int rc = util_read_file(&manifest, &len, mpath);
	if (rc) {
		int e = errno;
		err_clear();
		rc = unreadable(a, mpath, strerror(e));
		goto out;
	}
	char now[65];
	util_sha256_hex(now, manifest, len);
	if (strcmp(now, a->sha256) != 0)
		rc = altered(a, mpath, a->sha256, now);
	else
		rc = check_view(a, manifest, cache_dir);
out:
	free(manifest);
	free(mpath);
	return rc;
}

int seal_check(const seal_artifact *a, const char *cache_dir)
{
	struct stat st;
	if (strcmp(a->kind, "dump") == 0 && stat(a->file, &st) == 0 && S_ISDIR(st.st_mode))
		return check_dump(a, cache_dir);
	char now[65], why[256];
	if (hash_file(now, a->file, a->sha256, cache_dir, why, sizeof why))
		return unreadable(a, a->file, why);
	if (strcmp(now, a->sha256) != 0)
		return altered(a, a->file, a->sha256, now);
	return 0;
}

int seal_check_row(const cJSON *row, const char *artdir, const char *cache_dir)
{
	char *file = seal_file(artdir, json_str(row, "path"));
	seal_artifact a = { json_int(row, "id"), json_str(row, "kind"), json_str(row, "label"), file,
		            json_str(row, "sha256"), util_starts_with(json_str(row, "path"), "ref:") };
	int rc = seal_check(&a, cache_dir);
	free(file);
	return rc;
}

int seal_verify_all(cJSON *problems, const workspace *ws)
{
	cJSON *rows = NULL, *row;
	int rc = store_artifacts(&rows, ws->db, NULL);
	if (rc)
		return rc;
	char *artdir = util_path_join(ws->dir, "artifacts");
	cJSON_ArrayForEach(row, rows) {
		int bad = seal_check_row(row, artdir, NULL);
		if (!bad)
			continue;
		char id[32];
		snprintf(id, sizeof id, "%lld", json_int(row, "id"));
		replay_problem(problems, bad == FERRY_EIO ? "unreadable" : "altered", "artifacts", id, "sha256", "%s",
		               err_message());
		err_clear();
	}
	cJSON_Delete(rows);
	free(artdir);
	return 0;
}
