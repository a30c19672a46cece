/* ingest — see ingest.h. */
#include "ingest.h"
#include "artifact.h"
#include "audit.h"
#include "err.h"
#include "util.h"

#include <cjson/cJSON.h>
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
	free(rel);
	free(dir);
	free(abs);
	return rc;
}

int ingest_bytes(long long *id, workspace *ws, const char *kind, const char *name, const char *data, size_t len,
                 const char *label)
{
	return ingest_copy(id, ws, kind, name, name, data, len, label);
}

int ingest_file(long long *id, workspace *ws, const char *kind, const char *path, const char *label)
{
	struct stat st;
	if (stat(path, &st) < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return err_set(FERRY_EIO, "%s: not a regular file", path);
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
	if (!rc)
		rc = util_sha256_file(sha, path);
	if (!rc) {
		char real[4096];
		const char *source = realpath(path, real) ? real : path;
		char *rel = xasprintf("ref:%s", source);
		rc = record(id, ws, kind, label, rel, source, sha, (long long)st.st_size);
		free(rel);
	}
	return rc;
}
