/*
 * workspace — one engagement on disk: the project root, its .ferry/ folder, the
 * store, the shadow history, the writer lock and the acting person.
 *
 * A workspace owns its store and history handles and every string in it;
 * ws_close releases them (and the lock). Commands that change the engagement take
 * the lock (ws_lock) for their duration; two writers serialize, the loser waits
 * up to the busy timeout and then fails with one clear line. Every change of
 * project files goes through ws_checkpoint, which commits to the history and
 * records the checkpoint and its audit event in one database transaction.
 */
#ifndef FERRY_WORKSPACE_H
#define FERRY_WORKSPACE_H

#include "history.h"
#include "store.h"

#include <cjson/cJSON.h>

typedef struct workspace {
	char *root;        /* absolute project root */
	char *dir;         /* root/.ferry */
	store *db;         /* engagement.db */
	history *hist;     /* history.git */
	char *actor;       /* "Name <email>" or "name" */
	char *actor_name;
	char *actor_email; /* may be "" */
	int lock_fd;       /* held writer lock, or -1 */
	size_t warned;     /* odd paths of the history already warned about */
	int readonly;      /* opened with WS_READ on an engagement that cannot be written */
	/* where warnings go (one line each, no newline); NULL: stderr as "ferry: warning: …" */
	void (*warn)(const char *line, void *payload);
	void *warn_payload;
} workspace;

typedef struct ws_init_opts {
	const char *client;      /* may be NULL */
	const char *engagement;  /* id; NULL = derived from the project name and date */
	const char *target_soc;  /* may be NULL */
} ws_init_opts;

/* Creates .ferry/ in dir: database, history with the baseline commit, the first
 * audit events. Refused (FERRY_EEXISTS, nothing changed) when an engagement exists.
 * On failure nothing is left behind. */
int ws_init(workspace **out, const char *dir, const ws_init_opts *opts);

/* Opens the engagement at dir (or the nearest parent holding .ferry/) holding the
 * writer lock (a long-lived caller such as the workbench releases it with ws_unlock
 * and takes it again around each change). */
int ws_open(workspace **out, const char *dir);

/* ws_open for a command that only reads the record (flags WS_READ): when .ferry/ or
 * its database cannot be written (an archived delivery), the engagement is opened
 * without the lock, its store read-only, and ws->readonly set: ws_sync is not to be
 * called, and ws_event only notes on stderr that the event is not recorded. */
#define WS_READ 1
int ws_open_flags(workspace **out, const char *dir, int flags);
void ws_close(workspace *ws);

/* Takes / releases the writer lock (.ferry/lock). */
int ws_lock(workspace *ws);
void ws_unlock(workspace *ws);

/* Brings the record up to date before a command touches the project: records a
 * checkpoint committed by a process that crashed before recording it, and commits
 * edits made outside ferry as a "manual edit" checkpoint (or, after a crash in the
 * middle of a ferry edit, under that edit's own name). Needs the lock. *made is 1
 * when a checkpoint was made. */
int ws_sync(workspace *ws, int *made);

typedef struct ws_checkpoint_req {
	const char *kind;         /* fix, manual, revert, generated */
	const char *message;      /* first line and body */
	const char *phase;        /* trailer Phase; may be NULL */
	const char *check;        /* trailer Check (plugin id); may be NULL */
	const char *findings;     /* JSON array text of finding ids; may be NULL */
	const char *const *paths; /* files to commit; NULL = every change */
	size_t npaths;
	long long reverts;        /* checkpoint id this reverts, or 0 */
	cJSON *event_data;        /* extra audit data, consumed; may be NULL */
} ws_checkpoint_req;

/* Commits the request's files with trailers (Phase, Check, Findings, Actor, Audit),
 * records the checkpoint row and a "checkpoint" audit event in one transaction.
 * *cp_id is 0 when there was nothing to commit. */
int ws_checkpoint(long long *cp_id, char oid[41], workspace *ws, const ws_checkpoint_req *req);
/* A checkpoint kind (baseline, fix, manual, revert, generated, recovered) in the interface
 * language, translated in its own context: a "manual" checkpoint is a hand edit, not
 * the manual-porting strategy. Unknown kinds come back as they are. */
const char *ws_checkpoint_kind_word(const char *kind);

/* The engagement's cache folder, .ferry/cache (readings of artifacts, acache.h), malloc'd. */
char *ws_cache_dir(const workspace *ws);

/* Reverts the checkpoint or commit REV with a new commit (files written atomically)
 * and records it as a "revert" checkpoint. The baseline cannot be reverted (FERRY_EUSAGE:
 * bad input); a revert the history refuses now is FERRY_EREFUSED (history_revert). */
int ws_revert(long long *cp_id, char oid[41], workspace *ws, const char *rev);

/* Appends an audit event in its own transaction (data consumed). */
int ws_event(workspace *ws, const char *kind, cJSON *data);

/* 1 when the resolved absolute path dest lies in the client's code: in the project, outside
 * .ferry/, where a file ferry wrote would be recorded as a hand edit and exported. */
int ws_in_client_code(const workspace *ws, const char *dest);

/* Refuses (FERRY_EUSAGE, before anything is written) a file ferry is asked to write
 * (--output) inside the project but outside .ferry/: the next sync would record it as a
 * hand edit of the client's code, shipped by the next export, and it could overwrite a
 * client file. what names the command for the message; path NULL or "-" is stdout. */
int ws_output_outside(workspace *ws, const char *what, const char *path);

/* Writes a pending-edit journal (.ferry/pending.json) before ferry edits project
 * files: the request and, for each of req->paths, the SHA-256 the file will have
 * (sha256[i] NULL: the file will be deleted). After a crash, ws_sync records under the
 * edit's own name only the planned files holding exactly the planned content; any
 * other change is a manual edit. Cleared by ws_checkpoint and by a refused revert. */
int ws_pending_begin(workspace *ws, const ws_checkpoint_req *req, const char *const *sha256);
/* Removes the journal: for an edit refused before its first write. */
void ws_pending_clear(workspace *ws);

/* Resolves a REV (checkpoint id, "baseline", "HEAD" or commit prefix) to a commit oid. */
int ws_resolve(char oid[41], workspace *ws, const char *rev);

#endif
