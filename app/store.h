/*
 * store — the engagement database (.ferry/engagement.db, SQLite).
 *
 * The only module that includes sqlite3.h. Opens with WAL, synchronous=NORMAL,
 * foreign keys and a busy timeout; applies migrations/NNNN_*.sql in order under
 * PRAGMA user_version, each in one transaction; refuses a database newer than the
 * binary. Every logical write is one BEGIN IMMEDIATE … COMMIT (store_begin/commit).
 *
 * Rows come back as cJSON values the caller owns (cJSON_Delete); nothing returned
 * points into SQLite. Strings passed in are copied by SQLite.
 */
#ifndef FERRY_STORE_H
#define FERRY_STORE_H

#include "finding.h"

#include <cjson/cJSON.h>

typedef struct store store;

/* Opens (create=1: creates) the database at path and migrates it. Fails with
 * FERRY_ECORRUPT naming path for a file that is not a database or is newer. */
int store_open(store **out, const char *path, int create);

/* Opens the database at path for reading only, never migrating or writing anything
 * beside it (an archived engagement whose folder cannot be written is opened
 * immutable). Refused (FERRY_ECORRUPT) when its schema is not this ferry's. */
int store_open_readonly(store **out, const char *path);
void store_close(store *s);
/* The schema version the binary knows (highest migration number). */
int store_schema_version(void);

int store_begin(store *s);    /* BEGIN IMMEDIATE (waits on the busy timeout) */
int store_commit(store *s);
void store_rollback(store *s);

/* PRAGMA integrity_check; FERRY_ECORRUPT when not "ok". */
int store_integrity(store *s);
/* SQLite's data_version: it changes when another connection (another ferry process)
 * commits, so a long-lived reader knows to reload. */
int store_data_version(long long *out, store *s);

/* --- engagement and settings --- */
int store_engagement_create(store *s, const char *engagement_id, const char *client,
                            const char *project, const char *target_soc, const char *actor);
/* {engagement_id, client, project, target_soc, created_at, created_by} */
int store_engagement_get(cJSON **out, store *s);
int store_config_set(store *s, const char *key, const char *value);
/* Removes key's row; none is no error. */
int store_config_unset(store *s, const char *key);
/* malloc'd value or NULL when unset */
char *store_config_get(store *s, const char *key);
/* object key → value */
int store_config_all(cJSON **out, store *s);

/* --- phases --- */
/* [{name, ord, signed_off_at, signed_off_by, note, open_errors, open_warnings,
 *   open_info, fixed, waived, runs}] in phase order */
int store_phases(cJSON **out, store *s);
int store_phase_signoff(store *s, const char *phase, const char *actor, const char *note);

/* --- runs and findings --- */
/* head: the history's head commit the run checks (NULL when unknown). */
int store_run_begin(long long *out, store *s, const char *actor, const char *scope_json, const char *head);
/* The head commit run checked, into out ("" when the run was recorded without it or does
 * not exist). */
int store_run_head(char out[41], store *s, long long run);
int store_run_finish(store *s, long long run, int nfindings, int nerrors);
int store_plugin_error(store *s, long long run, const char *plugin, const char *message);
/* Inserts or updates a finding by (plugin, file, fingerprint); a fixed finding seen
 * again reopens; a waived one stays waived. Writes its id into f->id and its status. */
int store_finding_upsert(store *s, long long run, finding *f);
/* Pairs each finding first seen in run with a finding of the same plugin, file and anchor
 * that the run did not see (open or waived, of plugins_json, a JSON array of ids), nearest
 * line first, and keeps the old one with what the run saw: a finding whose surrounding
 * lines changed keeps its id, status and waiver. n: how many were paired (may be NULL). */
int store_findings_reanchor(int *n, store *s, long long run, const char *plugins_json);
/* Marks open or waived findings of the given plugins that this run did not see as
 * fixed (the code they pointed at is gone).
 * plugins is a JSON array text of plugin ids. Returns the count in *n. */
int store_findings_close_unseen(int *n, store *s, long long run, const char *plugins_json);
/* The same for the findings of one plugin in the given phases only (phases_json, a JSON
 * array text of names): the host's source problems, which each phase has its own of.
 * Adds the count to *n. */
int store_findings_close_unseen_in(int *n, store *s, long long run, const char *plugin, const char *phases_json);
/* Filter (any may be NULL/0): phase, status, plugin, id list. Ordered by phase, file, line. */
typedef struct store_finding_filter {
	const char *phase;
	const char *status;
	const char *plugin;
	const long long *ids;
	size_t nids;
	int brief;        /* only id, plugin, phase, severity, category, file, line, message,
	                   * fixable, automatic and status: for summaries over many findings */
} store_finding_filter;
/* The findings the filter selects, in phase order and then by file, line and column (its
 * category and file are "" when it has none, never NULL), with
 * message and advice in the reader's language and the waiver in force; a brief filter
 * leaves the edits out (fixable still says whether there are some). The caller frees the
 * array with finding_list_free. */
int store_finding_list(finding **out, size_t *n, store *s, const store_finding_filter *filter);
/* The same as an array of finding objects in DESIGN §7 form (+ category, fingerprint,
 * edits, last_run: the check run that last saw it), by finding_json: for the edges. */
int store_findings(cJSON **out, store *s, const store_finding_filter *filter);
int store_finding_set_status(store *s, long long id, const char *status, long long fixed_by);
/* Reopens the findings that checkpoint cp fixed (its revert undoes the fix). */
int store_findings_reopen(store *s, long long cp);
/* The open findings whose fix someone undid: the last fix checkpoint naming each was
 * reverted (and the revert stands). [{id, fixed_by, reverted_by}] by id. */
int store_findings_declined(cJSON **out, store *s);
int store_waiver_add(store *s, long long finding, const char *reason, const char *actor);
/* When open finding finding_id was never waived and a finding of an earlier phase about
 * the same construct (same file and construct key) is waived, gives it a copy of that
 * waiver (same reason and actor, carried_from naming the source) and marks it waived;
 * *from is the source finding's id, 0 when nothing was carried. */
int store_waiver_carry(long long *from, store *s, long long finding_id);
/* Withdraws the waiver in force on finding_id (who, when, why kept on the row) and opens
 * the finding again. */
int store_waiver_withdraw(store *s, long long finding_id, const char *reason, const char *actor);
/* The findings whose waiver in force was carried from finding_id's (an assess waiver
 * carried to the adapt finding of the same construct): [{finding_id}] */
int store_waivers_carried_from(cJSON **out, store *s, long long finding_id);
/* Every waiver ever given, withdrawn ones included: [{id, finding_id, reason, actor,
 * created_at, carried_from, withdrawn_at, withdrawn_by, withdrawn_reason, plugin, phase,
 * file, line, message}] */
int store_waivers(cJSON **out, store *s);
int store_metric_add(store *s, long long run, const char *plugin, const char *name,
                     double value, const char *unit);
/* Latest value of each (plugin, name): [{plugin, name, value, unit}] */
int store_metrics_latest(cJSON **out, store *s);
/* Each plugin's latest error that no later run including that plugin has cleared (a run
 * of other checks only, such as `fix --finding`'s, does not): {run, plugin, message}. */
int store_plugin_errors_standing(cJSON **out, store *s);
/* How many check runs the record holds. */
int store_run_count(long long *n, store *s);

/* --- checkpoints --- */
typedef struct store_checkpoint {
	const char *commit_oid;
	const char *kind;     /* baseline, fix, manual, revert, generated, recovered */
	const char *message;
	const char *actor;
	const char *phase;    /* may be NULL */
	const char *plugin;   /* may be NULL */
	const char *findings; /* JSON array text or NULL */
	long long reverts;    /* checkpoint id or 0 */
} store_checkpoint;
int store_checkpoint_add(long long *out, store *s, const store_checkpoint *c);
/* Newest first: [{id, commit, kind, message, actor, time, phase, plugin, findings, reverts}] */
int store_checkpoints(cJSON **out, store *s);
/* One by id; NULL in *out when none. */
int store_checkpoint_get(cJSON **out, store *s, long long id);
int store_checkpoint_by_commit(cJSON **out, store *s, const char *oid);

/* --- artifacts --- */
int store_artifact_add(long long *out, store *s, const char *kind, const char *label,
                       const char *path, const char *source, const char *sha256,
                       long long size, const char *actor);
/* kind NULL = all: [{id, kind, label, path, source, sha256, size, ingested_at, actor}] */
int store_artifacts(cJSON **out, store *s, const char *kind);
/* One by id, the same fields; NULL in *out when none. */
int store_artifact_get(cJSON **out, store *s, long long id);

/* --- the state the audit chain is replayed against (replay.c) --- */
/* The rowid of the last row this connection inserted (a waiver's id, say). */
long long store_last_insert_id(store *s);
typedef enum store_state_table {
	STORE_STATE_FINDINGS,    /* [{id, fingerprint, status, fixed_by}] by id */
	STORE_STATE_WAIVERS,     /* [{id, finding_id, reason, actor}] by id */
	STORE_STATE_SIGNOFFS,    /* [{name, signed_off_by, note}] of signed-off phases, by ord */
	STORE_STATE_CHECKPOINTS, /* [{id, commit, kind, message, actor, phase, plugin, findings (text), reverts}] by id */
	STORE_STATE_ARTIFACTS,   /* [{id, kind, label, path, sha256, size, actor}] by id */
} store_state_table;
/* Every row of one state table as the chain replay compares it (NULL columns as null). */
int store_state_rows(cJSON **out, store *s, store_state_table table);

/* --- audit rows (the chain logic lives in audit.c) --- */
/* The last row's seq and hash; seq 0 and an all-zero hash when empty. */
int store_audit_last(long long *seq, char hash[65], store *s);
int store_audit_insert(store *s, long long seq, const char *prev_hash, const char *payload,
                       const char *hash);
/* Calls cb for every row in seq order; a non-zero return stops and is returned. */
typedef int (*store_audit_cb)(long long seq, const char *prev_hash, const char *payload,
                              const char *hash, void *payload_arg);
int store_audit_each(store *s, store_audit_cb cb, void *arg);

#endif
