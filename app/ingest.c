/* ingest — see ingest.h. */
#include "ingest.h"
#include "artifact.h"
#include "audit.h"
#include "dump_input.h"
#include "err.h"
#include "intl.h"
#include "seal.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <openssl/evp.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Artifacts larger than this are recorded by reference (path + hash), not copied. */
#define COPY_LIMIT ((long long)ARTIFACT_JSON_LIMIT) /* so every JSON artifact copied is parsed whole */

static long long file_read_at(void *ctx, unsigned long long off, void *buf, size_t n)
{
	for (;;) {
		ssize_t r = pread(*(int *)ctx, buf, n, (off_t)off);
		if (r >= 0 || errno != EINTR)
			return r;
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Stores the artifact row and its audit event in one transaction. */
static int record(long long *id, workspace *ws, const char *kind, const char *label, const char *rel,
                  const char *source, const char *sha, long long size)
{
	int rc = store_begin(ws->db);
	if (rc)
		return rc;
	rc = store_artifact_add(id, ws->db, kind, label, rel, source, sha, size, ws->actor);
	if (!rc) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "artifact", (double)*id);
		cJSON_AddStringToObject(d, "kind", kind);
		cJSON_AddStringToObject(d, "label", label ? label : "");
		cJSON_AddStringToObject(d, "path", rel);
		cJSON_AddStringToObject(d, "sha256", sha);
		cJSON_AddNumberToObject(d, "size", (double)size);
		rc = audit_append(NULL, ws->db, "ingest", ws->actor, d);
	}
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}

/* Validates data (errors name `name`) and copies it into .ferry/artifacts/, recording
 * source as where it came from. */
static int ingest_copy(long long *id, workspace *ws, const char *kind, const char *name, const char *source,
                       const char *data, size_t len, const char *label)
{
	int rc = artifact_validate(kind, name, data, len);
	if (rc)
		return rc;
	char sha[65];
	util_sha256_hex(sha, data, len);
	char *rel = xasprintf("%s/%.12s-%s", kind, sha, base_name(name));
	char *dir = xasprintf("%s/artifacts/%s", ws->dir, kind);
	char *abs = xasprintf("%s/artifacts/%s", ws->dir, rel);
	rc = util_mkdirs(dir, 0755);
	if (!rc)
		rc = util_write_atomic(abs, data, len, 0644);
	if (!rc)
		rc = record(id, ws, kind, label, rel, source, sha, (long long)len);
	if (!rc) {
		char *cache = ws_cache_dir(ws); /* the copy is ours, just written: its hash is known */
		seal_keep(cache, abs, sha, NULL);
		free(cache);
	}
	free(rel);
	free(dir);
	free(abs);
	return rc;
}

/* A label names an artifact wherever an artifact id is accepted too (compare's A and B,
 * "#3" or "3"), so one that reads as an id would name another artifact there. */
static int check_label(const char *label)
{
	if (!label)
		return 0;
	const char *digits = label[0] == '#' ? label + 1 : label;
	if (!*label || (*digits && strspn(digits, "0123456789") == strlen(digits)))
		return err_set(FERRY_EUSAGE,
		               _("--label %s: a label may not be empty or read as an artifact id (a number, or # and a "
		                 "number); e.g. npu-%s"),
		               label, digits);
	return 0;
}

int ingest_bytes(long long *id, workspace *ws, const char *kind, const char *name, const char *data, size_t len,
                 const char *label)
{
	int rc = check_label(label);
	if (rc)
		return rc;
	return ingest_copy(id, ws, kind, name, name, data, len, label);
}

/* 1 when path starts like a zip archive (torch.save's format). */
/* Whether the file at path begins with the n bytes of magic. */
static int starts_with(const char *path, const char *magic, size_t n)
{
	unsigned char head[16] = { 0 };
	int fd = n <= sizeof head ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	ssize_t r = fd < 0 ? -1 : read(fd, head, n);
	if (fd >= 0)
		close(fd);
	return r == (ssize_t)n && memcmp(head, magic, n) == 0;
}

/* ---- a dump folder: one artifact, its files stored once by content ----------------- */

typedef struct dump_entry {
	char *rel;        /* path inside the dump folder */
	char sha[65];
	long long size;
} dump_entry;

typedef struct dump_walk {
	const char *root; /* the folder given, for messages */
	dump_entry *files;
	size_t n, cap;
	int tensors;      /* .npy and .pt files */
	int dump_json;    /* dump.json files */
} dump_walk;

/* What a file of a dump folder may be: a tensor (.npy, .pt), or msprobe's JSON. Returns
 * the error for anything else, naming the file. */
static int dump_file_kind(dump_walk *w, const char *abs, const char *rel)
{
	unsigned char head[8] = { 0 };
	int fd = open(abs, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", abs, strerror(errno));
	ssize_t r = read(fd, head, sizeof head);
	close(fd);
	if (util_ends_with(rel, ".npy")) {
		if (r < 6 || memcmp(head, "\x93NUMPY", 6) != 0)
			return err_set(FERRY_ECORRUPT, _("%s: not a .npy array (no NUMPY magic)"), abs);
		w->tensors++;
	} else if (util_ends_with(rel, ".pt") || util_ends_with(rel, ".pth")) {
		if (r < 4 || memcmp(head, "PK\x03\x04", 4) != 0)
			return err_set(FERRY_ECORRUPT, _("%s: not a torch.save file (no zip header)"), abs);
		w->tensors++;
	} else if (util_ends_with(rel, ".json")) {
		const char *base = strrchr(rel, '/');
		if (strcmp(base ? base + 1 : rel, "dump.json") == 0)
			w->dump_json++;
	} else {
		return err_set(FERRY_ECORRUPT, _("%s: not part of a dump (.npy, .pt or msprobe's .json files expected)"), abs);
	}
	return 0;
}

/* Collects the regular files below dir (rel: their path inside the dump), refusing links
 * and anything that is not part of a dump. */
static int dump_collect(dump_walk *w, const char *dir, const char *rel)
{
	DIR *d = opendir(dir);
	if (!d)
		return err_set(FERRY_EIO, "%s: %s", dir, strerror(errno));
	int rc = 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *abs = util_path_join(dir, e->d_name);
		char *r = *rel ? util_path_join(rel, e->d_name) : xstrdup(e->d_name);
		struct stat st;
		if (lstat(abs, &st) < 0)
			rc = err_set(FERRY_EIO, "%s: %s", abs, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = dump_collect(w, abs, r);
		else if (!S_ISREG(st.st_mode))
			rc = err_set(FERRY_ECORRUPT, _("%s: a link or special file inside a dump is not followed"), abs);
		else if (!(rc = dump_file_kind(w, abs, r))) {
			if (w->n == w->cap) {
				w->cap = w->cap ? 2 * w->cap : 64;
				w->files = xrealloc(w->files, w->cap * sizeof *w->files);
			}
			w->files[w->n].rel = r;
			w->files[w->n].size = (long long)st.st_size;
			w->files[w->n++].sha[0] = '\0';
			r = NULL;
		}
		free(abs);
		free(r);
	}
	closedir(d);
	return rc;
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const dump_entry *)a)->rel, ((const dump_entry *)b)->rel);
}

/* Copies src into objects/<sha256> reading it once (hashing while copying); an object
 * already there is replaced by the copy (one altered since is so repaired). Writes the
 * hash. */
static int store_object(char sha[65], const char *objects, const char *src)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return err_set(FERRY_EIO, "%s: %s", src, strerror(errno));
	char *tmp = xasprintf("%s/.incoming-XXXXXX", objects);
	int out = mkstemp(tmp);
	int rc = out < 0 ? err_set(FERRY_EIO, "%s: %s", objects, strerror(errno)) : 0;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	EVP_DigestInit_ex(md, EVP_sha256(), NULL);
	static __thread char buf[1 << 20];
	while (!rc) {
		ssize_t r = read(in, buf, sizeof buf);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			rc = err_set(FERRY_EIO, "%s: %s", src, strerror(errno));
		if (r <= 0)
			break;
		EVP_DigestUpdate(md, buf, (size_t)r);
		for (ssize_t off = 0; !rc && off < r;) {
			ssize_t w = write(out, buf + off, (size_t)(r - off));
			if (w < 0 && errno != EINTR)
				rc = err_set(FERRY_EIO, "%s: %s", tmp, strerror(errno));
			off += w > 0 ? w : 0;
		}
	}
	unsigned char digest[32];
	unsigned int dlen = 0;
	EVP_DigestFinal_ex(md, digest, &dlen);
	EVP_MD_CTX_free(md);
	close(in);
	for (unsigned i = 0; i < 32; i++)
		snprintf(sha + 2 * i, 3, "%02x", digest[i]);
	if (out >= 0 && !rc && fsync(out) < 0)
		rc = err_set(FERRY_EIO, "%s: %s", tmp, strerror(errno));
	if (out >= 0)
		close(out);
	if (!rc) {
		char *dest = xasprintf("%s/%s", objects, sha);
		if (rename(tmp, dest) < 0)
			rc = err_set(FERRY_EIO, "%s: %s", dest, strerror(errno));
		free(dest);
	}
	if (rc && out >= 0)
		unlink(tmp);
	free(tmp);
	return rc;
}

/* The folder view of a stored dump: view/<rel> linked to objects/<sha> (a copy where the
 * file system has no hard links), so the comparison reads it as it reads the original. */
static int dump_view(const char *view, const char *objects, const dump_walk *w)
{
	int rc = 0;
	for (size_t i = 0; i < w->n && !rc; i++) {
		char *dest = util_path_join(view, w->files[i].rel);
		char *obj = xasprintf("%s/%s", objects, w->files[i].sha);
		char *slash = strrchr(dest, '/');
		*slash = '\0';
		rc = util_mkdirs(dest, 0755);
		*slash = '/';
		if (!rc && link(obj, dest) < 0 && errno != EEXIST) {
			char *data = NULL;
			size_t len = 0;
			if (!(rc = util_read_file(&data, &len, obj)))
				rc = util_write_atomic(dest, data, len, 0644);
			free(data);
		}
		free(dest);
		free(obj);
	}
	return rc;
}

/* The view built afresh beside view and put in its place: ingesting the same dump again
 * repairs a view altered since (a file changed or added; seal.h). */
static int dump_view_fresh(const char *view, const char *objects, const dump_walk *w)
{
	char *fresh = xasprintf("%s.incoming-XXXXXX", view), *old = xasprintf("%s.old-XXXXXX", view);
	char *parent = xstrndup(view, (size_t)(strrchr(view, '/') - view));
	int rc = util_mkdirs(parent, 0755);
	free(parent);
	if (!rc && (!mkdtemp(fresh) || chmod(fresh, 0755) < 0))
		rc = err_set(FERRY_EIO, "%s: %s", fresh, strerror(errno));
	if (!rc)
		rc = dump_view(fresh, objects, w);
	struct stat st;
	int made_old = !rc && lstat(view, &st) == 0 && mkdtemp(old); /* the view there now goes to old */
	if (made_old && rename(view, old) < 0)
		rc = err_set(FERRY_EIO, "%s: %s", view, strerror(errno));
	if (!rc && rename(fresh, view) < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", view, strerror(errno));
		made_old = made_old && rename(old, view) < 0 ? 0 : made_old; /* put back, else keep it */
	}
	if (made_old)
		util_remove_tree(old);
	if (rc)
		util_remove_tree(fresh);
	free(fresh);
	free(old);
	return rc;
}

/* A dump folder (msprobe's step/rank tree with dump.json and dump_tensor_data/, or a folder
 * of .npy files) as one artifact: each file stored once by its hash under
 * artifacts/objects/, the folder view under artifacts/dump/, and the hash of its manifest
 * (sha256sum lines, sorted by path) as the artifact's hash. */
static int ingest_dump_dir(long long *id, workspace *ws, const char *path, const char *label)
{
	dump_walk w = { path, NULL, 0, 0, 0, 0 };
	int rc = dump_collect(&w, path, "");
	if (!rc && !w.tensors && !w.dump_json)
		rc = err_set(FERRY_ECORRUPT, _("%s: no dump.json, .npy or .pt file in this folder"), path);
	if (!rc)
		rc = dump_input_verify(path);
	char *objects = xasprintf("%s/artifacts/objects", ws->dir);
	if (!rc)
		rc = util_mkdirs(objects, 0755);
	if (!rc)
		qsort(w.files, w.n, sizeof *w.files, entry_cmp);
	long long total = 0;
	sbuf manifest;
	sbuf_init(&manifest);
	for (size_t i = 0; i < w.n && !rc; i++) {
		char *abs = util_path_join(path, w.files[i].rel);
		rc = store_object(w.files[i].sha, objects, abs);
		free(abs);
		total += w.files[i].size;
		sbuf_addf(&manifest, "%s  %s\n", w.files[i].sha, w.files[i].rel);
	}
	char sha[65];
	util_sha256_hex(sha, manifest.buf ? manifest.buf : "", manifest.len);
	char real[PATH_MAX];
	const char *source = realpath(path, real) ? real : path;
	char *rel = xasprintf("dump/%.12s-%s", sha, base_name(source));
	char *view = xasprintf("%s/artifacts/%s", ws->dir, rel);
	if (!rc)
		rc = dump_view_fresh(view, objects, &w);
	if (!rc) {
		char *mpath = xasprintf("%s.sha256", view);
		rc = util_write_atomic(mpath, manifest.buf ? manifest.buf : "", manifest.len, 0644);
		free(mpath);
	}
	if (!rc)
		rc = record(id, ws, "dump", label, rel, source, sha, total);
	sbuf_done(&manifest);
	for (size_t i = 0; i < w.n; i++)
		free(w.files[i].rel);
	free(w.files);
	free(objects);
	free(rel);
	free(view);
	return rc;
}

int ingest_file(long long *id, workspace *ws, const char *kind, const char *path, const char *label)
{
	struct stat st;
	int bad_label = check_label(label);
	if (bad_label)
		return bad_label;
	if (stat(path, &st) < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode) && strcmp(kind, "dump") == 0)
		return ingest_dump_dir(id, ws, path, label);
	if (!S_ISREG(st.st_mode))
		return err_set(FERRY_EIO, _("%s: not a regular file"), path);
	/* a tensor file (a .pt archive, a .npy array) is read as compare reads it; the others
	 * are told and checked by their first bytes (artifact_validate) */
	if (strcmp(kind, "dump") == 0 && (starts_with(path, "PK\x03\x04", 4) || starts_with(path, "\x93NUMPY", 6))) {
		int rc = dump_input_verify(path);
		if (rc)
			return rc;
	}
	if ((long long)st.st_size <= COPY_LIMIT) {
		char *data = NULL;
		size_t len = 0;
		int rc = util_read_file(&data, &len, path);
		/* the absolute origin: an ONNX model's external data is looked for next to it */
		char real[PATH_MAX];
		if (!rc)
			rc = ingest_copy(id, ws, kind, path, realpath(path, real) ? real : path, data, len, label);
		free(data);
		return rc;
	}
	/* very large (a model, a full dump): validated whole by streaming over it, kept as
	 * a reference and the hash */
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	artifact_source src = { file_read_at, &fd, (unsigned long long)st.st_size };
	int rc = artifact_validate_source(kind, path, &src);
	close(fd);
	char sha[65];
	struct stat before;
	if (!rc && stat(path, &before) != 0)
		rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	if (!rc)
		rc = util_sha256_file(sha, path);
	if (!rc) {
		char *cache = ws_cache_dir(ws); /* the first check need not hash it again */
		seal_keep(cache, path, sha, &before);
		free(cache);
	}
	if (!rc) {
		char real[4096];
		const char *source = realpath(path, real) ? real : path;
		char *rel = xasprintf("ref:%s", source);
		rc = record(id, ws, kind, label, rel, source, sha, (long long)st.st_size);
		free(rel);
	}
	return rc;
}
