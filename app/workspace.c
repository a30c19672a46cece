/* workspace — see workspace.h. */
#include "workspace.h"
#include "phase.h"
#include "subject.h"
#include "audit.h"
#include "replay.h"
#include "err.h"
#include "intl.h"
#include "projfs.h"
#include "soc.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_WAIT_MS 10000

/* --- actor --- */

static void actor_resolve(workspace *ws)
{
	const char *env = getenv("FERRY_ACTOR");
	char *name = NULL, *email = NULL;
	if (env && *env) {
		const char *lt = strchr(env, '<'), *gt = lt ? strchr(lt, '>') : NULL;
		if (lt && gt) {
			const char *end = lt;
			while (end > env && end[-1] == ' ')
				end--;
			name = xstrndup(env, (size_t)(end - env));
			email = xstrndup(lt + 1, (size_t)(gt - lt - 1));
		} else {
			name = xstrdup(env);
		}
	} else if (history_user_identity(&name, &email) != 0 || !name) {
		free(name);
		free(email);
		name = email = NULL;
		struct passwd *pw = getpwuid(getuid());
		const char *login = getenv("LOGNAME");
		name = xstrdup(pw && pw->pw_name ? pw->pw_name : login ? login : "unknown");
	}
	if (!email)
		email = xstrdup("");
	ws->actor_name = name;
	ws->actor_email = email;
	ws->actor = *email ? xasprintf("%s <%s>", name, email) : xstrdup(name);
}

static history_sig ws_sig(const workspace *ws)
{
	history_sig sig = { ws->actor_name, ws->actor_email };
	return sig;
}

/* --- open and close --- */

static workspace *ws_alloc(const char *root)
{
	workspace *ws = xcalloc(1, sizeof *ws);
	ws->root = xstrdup(root);
	ws->dir = util_path_join(root, ".ferry");
	ws->lock_fd = -1;
	actor_resolve(ws);
	return ws;
}

void ws_close(workspace *ws)
{
	if (!ws)
		return;
	ws_unlock(ws);
	history_free(ws->hist);
	store_close(ws->db);
	free(ws->root);
	free(ws->dir);
	free(ws->actor);
	free(ws->actor_name);
	free(ws->actor_email);
	free(ws);
}

/* Checks dir is an existing, readable directory and returns its absolute path. */
static int project_dir(char **out, const char *dir)
{
	struct stat st;
	*out = NULL;
	if (stat(dir, &st) < 0)
		return err_set(FERRY_EIO, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(FERRY_EIO, _("%s: not a directory"), dir);
	if (access(dir, R_OK | X_OK) < 0)
		return err_set(FERRY_EIO, "%s: %s", dir, strerror(errno));
	char buf[PATH_MAX];
	if (!realpath(dir, buf))
		return err_set(FERRY_EIO, "%s: %s", dir, strerror(errno));
	*out = xstrdup(buf);
	return 0;
}

static int exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* Removes git lock files a killed ferry left in history.git. Safe only while we
 * hold the workspace lock: no other ferry process can be inside git then. */
static void clear_stale_git_locks(workspace *ws)
{
	static const char *const locks[] = { "history.git/index.lock", "history.git/HEAD.lock",
		                                 "history.git/refs/heads/ferry.lock", "history.git/packed-refs.lock",
		                                 "history.git/config.lock", NULL };
	for (size_t i = 0; locks[i]; i++) {
		char *path = util_path_join(ws->dir, locks[i]);
		unlink(path);
		free(path);
	}
}

/* .ferry/.gitignore holding "*": the client's own git never lists the engagement record,
 * so a `git add -A` in the project cannot commit it. Written at init, and added to an
 * engagement opened for writing that has none (an older one); a failure to write it
 * loses nothing and is not reported. */
static void keep_out_of_client_git(const workspace *ws)
{
	char *path = util_path_join(ws->dir, ".gitignore");
	static const char text[] = "# ferry's engagement record (see `ferry help`): kept out of the project's own git\n*\n";
	if (!exists(path))
		util_write_atomic(path, text, sizeof text - 1, 0644);
	free(path);
}

int ws_open(workspace **out, const char *dir) { return ws_open_flags(out, dir, 0); }

int ws_open_flags(workspace **out, const char *dir, int flags)
{
	*out = NULL;
	char *root = NULL;
	int rc = project_dir(&root, dir);
	if (rc)
		return rc;
	/* the nearest folder holding .ferry/, like git finds .git/ (an engagement whose
	 * record is missing is still found there: store_open then says it is gone) */
	for (;;) {
		char *probe = util_path_join(root, ".ferry/engagement.db");
		char *hist = util_path_join(root, ".ferry/history.git");
		int found = exists(probe) || exists(hist);
		free(probe);
		free(hist);
		if (found)
			break;
		char *slash = strrchr(root, '/');
		if (!slash || slash == root) {
			free(root);
			return err_set(FERRY_ENOTFOUND, _("%s: no engagement here (run `ferry init` first)"), dir);
		}
		*slash = '\0';
	}
	workspace *ws = ws_alloc(root);
	free(root);
	char *db = util_path_join(ws->dir, "engagement.db");
	char *git = util_path_join(ws->dir, "history.git");
	if ((flags & WS_READ) && (access(ws->dir, W_OK) != 0 || access(db, W_OK) != 0)) {
		/* an archived engagement: read as it is, no lock, nothing written */
		ws->readonly = 1;
		rc = store_open_readonly(&ws->db, db);
	} else {
		/* the lock first: a killed writer may have left git lock files to clear */
		rc = ws_lock(ws);
		if (!rc) {
			clear_stale_git_locks(ws);
			keep_out_of_client_git(ws);
			rc = store_open(&ws->db, db, 0);
		}
	}
	if (!rc)
		rc = history_open(&ws->hist, ws->root, git);
	free(db);
	free(git);
	if (rc) {
		ws_close(ws);
		return rc;
	}
	*out = ws;
	return 0;
}

/* --- lock --- */

int ws_lock(workspace *ws)
{
	if (ws->lock_fd >= 0)
		return 0;
	char *path = util_path_join(ws->dir, "lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		int rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
		free(path);
		return rc;
	}
	const char *env = getenv("FERRY_LOCK_WAIT_MS");
	int wait_ms = env && *env ? atoi(env) : LOCK_WAIT_MS;
	for (int waited = 0;; waited += 50) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			break;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
			close(fd);
			free(path);
			return rc;
		}
		if (waited >= wait_ms) {
			int rc = err_set(FERRY_EBUSY, _("%s: another ferry process is changing this engagement; try again"),
			                 path);
			close(fd);
			free(path);
			return rc;
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	free(path);
	ws->lock_fd = fd;
	return 0;
}

void ws_unlock(workspace *ws)
{
	if (ws->lock_fd < 0)
		return;
	flock(ws->lock_fd, LOCK_UN);
	close(ws->lock_fd);
	ws->lock_fd = -1;
}

/* --- init --- */

static char *default_engagement_id(const char *root)
{
	const char *base = strrchr(root, '/');
	base = base && base[1] ? base + 1 : root;
	char date[32];
	util_now_iso(date);
	date[10] = '\0';
	sbuf b;
	sbuf_init(&b);
	for (const char *p = base; *p; p++)
		sbuf_addc(&b, isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-');
	sbuf_addf(&b, "-%s", date);
	return sbuf_detach(&b);
}

int ws_init(workspace **out, const char *dir, const ws_init_opts *opts)
{
	*out = NULL;
	char *root = NULL;
	int rc = opts && opts->target_soc ? soc_name_check("init --target", opts->target_soc) : 0;
	if (rc || (rc = project_dir(&root, dir)))
		return rc;
	workspace *ws = ws_alloc(root);
	free(root);
	char *db = util_path_join(ws->dir, "engagement.db");
	char *git = util_path_join(ws->dir, "history.git");
	char *eid = NULL;
	int created_dir = 0;
	if (exists(ws->dir)) {
		rc = err_set(FERRY_EEXISTS, _("%s: an engagement already exists here"), ws->dir);
		goto fail;
	}
	if (mkdir(ws->dir, 0755) < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", ws->dir, strerror(errno));
		goto fail;
	}
	created_dir = 1;
	keep_out_of_client_git(ws);
	char *artifacts = util_path_join(ws->dir, "artifacts");
	rc = util_mkdirs(artifacts, 0755);
	free(artifacts);
	if (rc || (rc = ws_lock(ws)) || (rc = store_open(&ws->db, db, 1)))
		goto fail;
	char baseline[41];
	history_sig sig = ws_sig(ws);
	if ((rc = history_init(&ws->hist, baseline, ws->root, git, &sig)))
		goto fail;
	const char *project = strrchr(ws->root, '/');
	project = project && project[1] ? project + 1 : ws->root;
	eid = opts && opts->engagement ? xstrdup(opts->engagement) : default_engagement_id(ws->root);
	if ((rc = store_begin(ws->db)))
		goto fail;
	rc = store_engagement_create(ws->db, eid, opts ? opts->client : NULL, project,
	                             opts ? opts->target_soc : NULL, ws->actor);
	if (!rc && opts && opts->target_soc)
		rc = store_config_set(ws->db, "target.soc", opts->target_soc);
	if (!rc) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "engagement", eid);
		cJSON_AddStringToObject(d, "client", opts && opts->client ? opts->client : "");
		cJSON_AddStringToObject(d, "project", project);
		rc = audit_append(NULL, ws->db, "init", ws->actor, d);
	}
	char head[65];
	if (!rc)
		rc = audit_head(head, ws->db);
	store_checkpoint cp = { baseline, "baseline", N_("Baseline: project as received"), ws->actor, NULL, NULL, NULL, 0 };
	if (!rc)
		rc = store_checkpoint_add(NULL, ws->db, &cp);
	if (!rc) {
		/* The baseline commit was made before the chain existed: it records an all-zero head. */
		cJSON *d = cJSON_CreateObject();
		char *trailer = NULL;
		history_commit_info info;
		if (history_commit_info_get(&info, ws->hist, baseline) == 0) {
			trailer = history_trailer_value(info.message, "Audit");
			history_commit_info_done(&info);
		}
		cJSON_AddStringToObject(d, "commit", baseline);
		cJSON_AddStringToObject(d, "kind", "baseline");
		cJSON_AddStringToObject(d, "audit", trailer ? trailer : "");
		replay_checkpoint_fields(d, &cp);
		free(trailer);
		rc = audit_append(NULL, ws->db, "checkpoint", ws->actor, d);
	}
	if (rc) {
		store_rollback(ws->db);
		goto fail;
	}
	if ((rc = store_commit(ws->db)))
		goto fail;
	free(db);
	free(git);
	free(eid);
	*out = ws;
	return 0;
fail:
	if (created_dir) {
		/* leave nothing behind: the project must look as it did */
		history_free(ws->hist);
		ws->hist = NULL;
		store_close(ws->db);
		ws->db = NULL;
		util_remove_tree(ws->dir); /* best effort: the error already names the cause */
	}
	free(db);
	free(git);
	free(eid);
	ws_close(ws);
	return rc;
}

/* --- checkpoints --- */

static char *pending_path(const workspace *ws) { return util_path_join(ws->dir, "pending.json"); }

int ws_pending_begin(workspace *ws, const ws_checkpoint_req *req, const char *const *sha256)
{
	cJSON *p = cJSON_CreateObject();
	/* what the edit will write: recovery claims only files that hold exactly this */
	cJSON *files = cJSON_AddObjectToObject(p, "files");
	for (size_t i = 0; i < req->npaths && req->paths; i++)
		cJSON_AddItemToObject(files, req->paths[i],
		                      sha256 && sha256[i] ? cJSON_CreateString(sha256[i]) : cJSON_CreateNull());
	cJSON_AddStringToObject(p, "kind", req->kind);
	cJSON_AddStringToObject(p, "message", req->message);
	if (req->phase)
		cJSON_AddStringToObject(p, "phase", req->phase);
	if (req->check)
		cJSON_AddStringToObject(p, "check", req->check);
	if (req->findings)
		cJSON_AddStringToObject(p, "findings", req->findings);
	char *text = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	char *path = pending_path(ws);
	int rc = util_write_atomic(path, text, strlen(text), 0644);
	free(path);
	free(text);
	return rc;
}

void ws_pending_clear(workspace *ws)
{
	char *path = pending_path(ws);
	unlink(path);
	free(path);
}

/* The trailers every checkpoint commit carries; values borrowed from req, ws, head. */
static size_t checkpoint_trailers(history_trailer tr[5], const workspace *ws, const ws_checkpoint_req *req,
                                  const char *head)
{
	size_t n = 0;
	if (req->phase)
		tr[n++] = (history_trailer){ "Phase", req->phase };
	if (req->check)
		tr[n++] = (history_trailer){ "Check", req->check };
	if (req->findings)
		tr[n++] = (history_trailer){ "Findings", req->findings };
	tr[n++] = (history_trailer){ "Actor", ws->actor };
	tr[n++] = (history_trailer){ "Audit", head };
	return n;
}

/* Records a commit just made as a checkpoint row and its audit event, in one
 * transaction. data is consumed. */
static int record_checkpoint(long long *cp_id, workspace *ws, const ws_checkpoint_req *req, const char *oid,
                             const char *head, cJSON *data)
{
	int rc = store_begin(ws->db);
	if (rc) {
		cJSON_Delete(data);
		return rc;
	}
	store_checkpoint cp = { oid, req->kind, req->message, ws->actor, req->phase, req->check, req->findings,
		                    req->reverts };
	long long id = 0;
	rc = store_checkpoint_add(&id, ws->db, &cp);
	if (!rc && req->reverts)
		rc = store_findings_reopen(ws->db, req->reverts);
	if (!rc) {
		if (!data)
			data = cJSON_CreateObject();
		cJSON_AddStringToObject(data, "commit", oid);
		cJSON_AddStringToObject(data, "kind", req->kind);
		cJSON_AddStringToObject(data, "audit", head);
		cJSON_AddNumberToObject(data, "checkpoint", (double)id);
		replay_checkpoint_fields(data, &cp);
		rc = audit_append(NULL, ws->db, "checkpoint", ws->actor, data);
		data = NULL;
	}
	cJSON_Delete(data);
	if (!rc)
		rc = store_commit(ws->db);
	if (rc) {
		store_rollback(ws->db);
		return rc;
	}
	ws_pending_clear(ws);
	if (cp_id)
		*cp_id = id;
	return 0;
}

int ws_checkpoint(long long *cp_id, char oid[41], workspace *ws, const ws_checkpoint_req *req)
{
	char head[65];
	int made = 0, rc;
	history_trailer tr[5];
	if (cp_id)
		*cp_id = 0;
	if ((rc = audit_head(head, ws->db))) {
		cJSON_Delete(req->event_data);
		return rc;
	}
	size_t ntr = checkpoint_trailers(tr, ws, req, head);
	history_sig sig = ws_sig(ws);
	rc = history_commit(oid, &made, ws->hist, req->paths, req->npaths, req->message, tr, ntr, &sig);
	if (rc || !made) {
		if (!rc)
			ws_pending_clear(ws);
		cJSON_Delete(req->event_data);
		return rc;
	}
	return record_checkpoint(cp_id, ws, req, oid, head, req->event_data);
}

struct revert_plan {
	workspace *ws;
	ws_checkpoint_req *req;
};

/* The journal of a revert, written once it has passed its checks, before its first write. */
static int revert_planned(const char *const *paths, const char *const *sha256, size_t n, void *payload)
{
	struct revert_plan *rp = payload;
	ws_checkpoint_req req = *rp->req;
	req.paths = paths;
	req.npaths = n;
	return ws_pending_begin(rp->ws, &req, sha256);
}

/* A checkpoint's commit as the user knows it: "checkpoint #5 (manual edit)"; "" for a
 * commit the record does not hold. */
static void checkpoint_name(char *out, size_t cap, const char *oid, void *payload)
{
	struct revert_plan *rp = payload;
	cJSON *cp = NULL;
	out[0] = '\0';
	if (store_checkpoint_by_commit(&cp, rp->ws->db, oid) == 0 && cp) {
		const cJSON *id = cJSON_GetObjectItem(cp, "id"), *kind = cJSON_GetObjectItem(cp, "kind");
		if (cJSON_IsNumber(id) && cJSON_IsString(kind))
			snprintf(out, cap, _("checkpoint #%lld (%s)"), (long long)id->valuedouble, ws_checkpoint_kind_word(kind->valuestring));
		else if (cJSON_IsNumber(id))
			snprintf(out, cap, _("checkpoint #%lld"), (long long)id->valuedouble);
	}
	cJSON_Delete(cp);
}

int ws_revert(long long *cp_id, char oid[41], workspace *ws, const char *rev)
{
	char target[41], head[65];
	cJSON *cp = NULL;
	int rc = ws_resolve(target, ws, rev);
	if (rc || (rc = store_checkpoint_by_commit(&cp, ws->db, target)))
		return rc;
	char baseline[41];
	if ((rc = history_baseline(baseline, ws->hist)))
		goto out;
	if (strcmp(baseline, target) == 0) {
		rc = err_set(FERRY_EUSAGE, _("%s: the baseline is the code as received and cannot be reverted"), rev);
		goto out;
	}
	long long target_id = cp ? (long long)cJSON_GetObjectItem(cp, "id")->valuedouble : 0;
	history_commit_info info;
	if ((rc = history_commit_info_get(&info, ws->hist, target)))
		goto out;
	char *subject = xstrndup(info.message, strcspn(info.message, "\n"));
	char *message = subject_revert(subject, target);
	history_commit_info_done(&info);
	free(subject);
	const cJSON *f = cp ? cJSON_GetObjectItem(cp, "findings") : NULL;
	char *findings = f && cJSON_GetArraySize(f) ? cJSON_PrintUnformatted(f) : NULL;
	const cJSON *ph = cp ? cJSON_GetObjectItem(cp, "phase") : NULL, *pl = cp ? cJSON_GetObjectItem(cp, "plugin") : NULL;
	ws_checkpoint_req req = { "revert", message, cJSON_IsString(ph) ? ph->valuestring : NULL,
		                      cJSON_IsString(pl) ? pl->valuestring : NULL, findings, NULL, 0, target_id, NULL };
	history_trailer tr[5];
	if (!(rc = audit_head(head, ws->db))) {
		size_t ntr = checkpoint_trailers(tr, ws, &req, head);
		history_sig sig = ws_sig(ws);
		struct revert_plan rp = { ws, &req };
		history_revert_hooks hooks = { revert_planned, checkpoint_name, &rp };
		rc = history_revert(oid, ws->hist, target, message, tr, ntr, &sig, &hooks);
		if (rc == FERRY_EREFUSED)
			ws_pending_clear(ws); /* refused before its first write: nothing to recover */
	}
	if (!rc) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "reverted_commit", target);
		rc = record_checkpoint(cp_id, ws, &req, oid, head, d);
	}
	free(message);
	free(findings);
out:
	cJSON_Delete(cp);
	return rc;
}

int ws_in_client_code(const workspace *ws, const char *dest)
{
	return util_path_under(dest, ws->root) && !util_path_under(dest, ws->dir);
}

int ws_output_outside(workspace *ws, const char *what, const char *path)
{
	if (!path || strcmp(path, "-") == 0)
		return 0;
	char *dest = util_resolve_dest(path);
	int rc = 0;
	if (dest && ws_in_client_code(ws, dest))
		rc = err_set(FERRY_EUSAGE,
		             _("%s --output %s: inside the project (%s), where it would be recorded as a change to the "
		               "client's code; write it outside the project or under .ferry/"),
		             what, path, ws->root);
	free(dest);
	return rc;
}

int ws_event(workspace *ws, const char *kind, cJSON *data)
{
	if (ws->readonly) {
		fprintf(stderr, _("ferry: note: the engagement is read-only; this %s is not recorded in its audit chain\n"),
		        kind);
		cJSON_Delete(data);
		return 0;
	}
	int rc = store_begin(ws->db);
	if (rc) {
		cJSON_Delete(data);
		return rc;
	}
	rc = audit_append(NULL, ws->db, kind, ws->actor, data);
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}

/* Records HEAD as a checkpoint when a crashed process committed it but never
 * recorded it: the commit's own trailers say what it was. */
static int recover_unrecorded_head(workspace *ws)
{
	char head[41];
	cJSON *cp = NULL;
	int rc = history_head(head, ws->hist);
	if (rc || (rc = store_checkpoint_by_commit(&cp, ws->db, head)))
		return rc;
	if (cp) {
		cJSON_Delete(cp);
		return 0;
	}
	history_commit_info info;
	if ((rc = history_commit_info_get(&info, ws->hist, head)))
		return rc;
	char *audit = history_trailer_value(info.message, "Audit");
	char *check = history_trailer_value(info.message, "Check");
	char *phase = history_trailer_value(info.message, "Phase");
	char *findings = history_trailer_value(info.message, "Findings");
	char *subject = xstrndup(info.message, strcspn(info.message, "\n"));
	if ((rc = store_begin(ws->db)))
		goto out;
	store_checkpoint c = { head, "recovered", subject, ws->actor, phase, check, findings, 0 };
	long long id = 0;
	rc = store_checkpoint_add(&id, ws->db, &c);
	if (!rc) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "commit", head);
		cJSON_AddStringToObject(d, "kind", "recovered");
		cJSON_AddStringToObject(d, "audit", audit ? audit : "");
		cJSON_AddNumberToObject(d, "checkpoint", (double)id);
		replay_checkpoint_fields(d, &c);
		rc = audit_append(NULL, ws->db, "checkpoint", ws->actor, d);
	}
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
out:
	free(audit);
	free(check);
	free(phase);
	free(findings);
	free(subject);
	history_commit_info_done(&info);
	return rc;
}

static char *json_string_field(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* 1 when rel holds exactly what the pending edit planned for it: the SHA-256 of its
 * content (of a link's target text), or absence for a planned deletion. */
static int holds_planned(const workspace *ws, const char *rel, const cJSON *planned)
{
	char *full = util_path_join(ws->root, rel), sum[65] = "";
	struct stat st;
	int ok = 0;
	if (lstat(full, &st) < 0) {
		ok = cJSON_IsNull(planned);
	} else if (cJSON_IsString(planned) && S_ISLNK(st.st_mode)) {
		char target[PATH_MAX];
		ssize_t n = readlink(full, target, sizeof target);
		if (n >= 0) {
			util_sha256_hex(sum, target, (size_t)n);
			ok = strcmp(sum, planned->valuestring) == 0;
		}
	} else if (cJSON_IsString(planned) && S_ISREG(st.st_mode)) {
		ok = util_sha256_file(sum, full) == 0 && strcmp(sum, planned->valuestring) == 0;
		err_clear();
	}
	free(full);
	return ok;
}

/* After an interrupted ferry edit: records, under the edit's own name, the changed
 * files the journal planned that hold exactly the planned content. *claimed says
 * which entries of changed were taken. */
static int recover_pending(workspace *ws, const cJSON *pending, char **changed, size_t n, int *claimed, int *made)
{
	const cJSON *files = cJSON_GetObjectItem(pending, "files");
	const char **paths = xcalloc(n ? n : 1, sizeof *paths);
	size_t npaths = 0;
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		const cJSON *planned = cJSON_IsObject(files) ? cJSON_GetObjectItem(files, changed[i]) : NULL;
		claimed[i] = planned && holds_planned(ws, changed[i], planned);
		if (claimed[i])
			paths[npaths++] = changed[i];
	}
	if (npaths) {
		char *msg = xasprintf("%s (recovered after an interruption)", json_string_field(pending, "message"));
		ws_checkpoint_req req = { "recovered", msg, json_string_field(pending, "phase"),
			                      json_string_field(pending, "check"), json_string_field(pending, "findings"),
			                      paths, npaths, 0, NULL };
		char oid[41];
		long long id = 0;
		rc = ws_checkpoint(&id, oid, ws, &req);
		if (!rc && made)
			*made |= id != 0;
		free(msg);
	}
	free(paths);
	return rc;
}

/* One warning line per odd path the history's scans left out (once per path). */
static void warn_skipped(workspace *ws)
{
	const char *const *skipped = NULL;
	size_t n = history_skipped(&skipped, ws->hist);
	for (; ws->warned < n; ws->warned++) {
		if (ws->warn)
			ws->warn(skipped[ws->warned], ws->warn_payload);
		else
			fprintf(stderr, _("ferry: warning: %s\n"), skipped[ws->warned]);
	}
}

int ws_sync(workspace *ws, int *made)
{
	char **changed = NULL;
	size_t n = 0;
	int rc;
	if (made)
		*made = 0;
	if (ws->lock_fd < 0)
		return err_set(FERRY_EBUSY, _("%s: internal: sync without the workspace lock"), ws->dir);
	/* temporary files of writes a killed process never finished; we hold the lock */
	projfs_sweep_tmp(NULL, ws->root);
	projfs_sweep_tmp(NULL, ws->dir);
	if ((rc = recover_unrecorded_head(ws)))
		return rc;
	if ((rc = history_changed_files(&changed, &n, ws->hist)))
		return rc;
	char *ppath = pending_path(ws), *ptext = NULL;
	cJSON *pending = NULL;
	if (util_read_file(&ptext, NULL, ppath) == 0)
		pending = cJSON_Parse(ptext);
	err_clear();
	int *claimed = xcalloc(n ? n : 1, sizeof *claimed);
	size_t left = n;
	if (n && pending && json_string_field(pending, "message")) {
		/* a ferry edit that crashed before its checkpoint: only what it planned keeps its name */
		rc = recover_pending(ws, pending, changed, n, claimed, made);
		for (size_t i = 0; i < n; i++)
			left -= (size_t)claimed[i];
	}
	if (!rc && left) {
		cJSON *d = cJSON_CreateObject();
		cJSON *files = cJSON_AddArrayToObject(d, "files");
		for (size_t i = 0; i < n; i++)
			if (!claimed[i])
				cJSON_AddItemToArray(files, cJSON_CreateString(changed[i]));
		ws_checkpoint_req req = { "manual", subject_manual, NULL, NULL, NULL,
			                      NULL, 0, 0, d };
		char oid[41];
		long long id = 0;
		rc = ws_checkpoint(&id, oid, ws, &req);
		if (!rc && made)
			*made |= id != 0;
	}
	if (!rc && pending)
		ws_pending_clear(ws);
	free(claimed);
	cJSON_Delete(pending);
	free(ptext);
	free(ppath);
	for (size_t i = 0; i < n; i++)
		free(changed[i]);
	free(changed);
	warn_skipped(ws);
	return rc;
}

int ws_resolve(char oid[41], workspace *ws, const char *rev)
{
	int digits = *rev != '\0';
	for (const char *p = rev; *p; p++)
		digits &= isdigit((unsigned char)*p) != 0;
	if (digits) {
		cJSON *cp = NULL;
		int rc = store_checkpoint_get(&cp, ws->db, atoll(rev));
		if (rc)
			return rc;
		if (cp) {
			snprintf(oid, 41, "%s", cJSON_GetObjectItem(cp, "commit")->valuestring);
			cJSON_Delete(cp);
			return 0;
		}
		if (strlen(rev) < 4)
			return err_set(FERRY_ENOTFOUND, _("%s: no such checkpoint"), rev);
	}
	return history_resolve(oid, ws->hist, rev);
}

char *ws_cache_dir(const workspace *ws)
{
	return util_path_join(ws->dir, "cache");
}

const char *ws_checkpoint_kind_word(const char *kind)
{
	static const struct {
		const char *kind, *ctx_word;
	} kinds[] = {
		{ "baseline", NC_("checkpoint", "baseline") }, { "fix", NC_("checkpoint", "fix") },
		{ "manual", NC_("checkpoint", "manual") },     { "revert", NC_("checkpoint", "revert") },
		{ "generated", NC_("checkpoint", "generated") }, { "recovered", NC_("checkpoint", "recovered") },
	};
	for (size_t i = 0; kind && i < sizeof kinds / sizeof kinds[0]; i++)
		if (strcmp(kinds[i].kind, kind) == 0)
			return intl_ctext(kinds[i].ctx_word);
	return kind ? kind : "";
}
