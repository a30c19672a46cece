/* store — see store.h. */
#include "store.h"
#include "embedded.h"
#include "err.h"
#include "json.h"
#include "intl.h"
#include "phase.h"
#include "util.h"

#include <sqlite3.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BUSY_TIMEOUT_MS 10000

/* Statements of db_exec and db_rows stay prepared, by their SQL text: recording a
 * finding runs the same dozen statements, and preparing them again for each finding was
 * half of handing Megatron-LM's 7,883 findings to the store. */
#define STMT_CACHE 48

typedef struct cached_stmt {
	char *sql;            /* its text (a copy: some callers build theirs) */
	unsigned long long hash; /* of the text */
	sqlite3_stmt *st;
	int busy;             /* taken by a caller now (a nested use prepares its own) */
} cached_stmt;

struct store {
	sqlite3 *db;   /* the connection */
	char *path;    /* for messages */
	cached_stmt stmts[STMT_CACHE];
	size_t nstmts;
};

static int db_fail(store *s, const char *what)
{
	int code = sqlite3_errcode(s->db);
	int ferr = (code == SQLITE_BUSY || code == SQLITE_LOCKED) ? FERRY_EBUSY
	         : (code == SQLITE_CORRUPT || code == SQLITE_NOTADB) ? FERRY_ECORRUPT : FERRY_EDB;
	return err_set(ferr, "%s: %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

/* Binds parameters described by types: s text, i long long, d double, n null,
 * S text or NULL. */
static int bind_args(store *s, sqlite3_stmt *st, const char *types, va_list ap)
{
	for (int i = 0; types && types[i]; i++) {
		int rc;
		switch (types[i]) {
		case 's':
		case 'S': {
			const char *v = va_arg(ap, const char *);
			rc = v ? sqlite3_bind_text(st, i + 1, v, -1, SQLITE_TRANSIENT)
			       : sqlite3_bind_null(st, i + 1);
			break;
		}
		case 'i':
			rc = sqlite3_bind_int64(st, i + 1, va_arg(ap, long long));
			break;
		case 'd':
			rc = sqlite3_bind_double(st, i + 1, va_arg(ap, double));
			break;
		default:
			rc = sqlite3_bind_null(st, i + 1);
			break;
		}
		if (rc != SQLITE_OK)
			return db_fail(s, "bind");
	}
	return 0;
}

static int prepare(sqlite3_stmt **st, store *s, const char *sql)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(s, "prepare");
	return 0;
}

/* A prepared statement for sql, from the cache when it holds one that is free; give it
 * back with stmt_give. */
static int stmt_take(sqlite3_stmt **st, store *s, const char *sql)
{
	size_t len = strlen(sql);
	unsigned long long hash = util_fnv1a(sql, len);
	for (size_t i = 0; i < s->nstmts; i++) {
		cached_stmt *c = &s->stmts[i];
		if (!c->busy && c->hash == hash && strcmp(c->sql, sql) == 0) {
			c->busy = 1;
			*st = c->st;
			return 0;
		}
	}
	int rc = prepare(st, s, sql);
	if (rc == 0 && s->nstmts < STMT_CACHE)
		s->stmts[s->nstmts++] = (cached_stmt){xstrndup(sql, len), hash, *st, 1};
	return rc;
}

/* Gives back a statement of stmt_take: reset for its next use, or finalised when the
 * cache did not keep it. */
static void stmt_give(store *s, sqlite3_stmt *st)
{
	for (size_t i = 0; i < s->nstmts; i++)
		if (s->stmts[i].st == st) {
			sqlite3_reset(st);
			sqlite3_clear_bindings(st);
			s->stmts[i].busy = 0;
			return;
		}
	sqlite3_finalize(st);
}

/* Binds parameters to a prepared statement, as bind_args. */
static int bind_all(store *s, sqlite3_stmt *st, const char *types, ...)
{
	va_list ap;
	va_start(ap, types);
	int rc = bind_args(s, st, types, ap);
	va_end(ap);
	return rc;
}

/* Runs one statement that returns no rows. */
static int db_exec(store *s, const char *sql, const char *types, ...)
{
	sqlite3_stmt *st = NULL;
	int rc = stmt_take(&st, s, sql);
	if (rc)
		return rc;
	va_list ap;
	va_start(ap, types);
	rc = bind_args(s, st, types, ap);
	va_end(ap);
	if (!rc) {
		int step = sqlite3_step(st);
		if (step != SQLITE_DONE && step != SQLITE_ROW)
			rc = db_fail(s, "write");
	}
	stmt_give(s, st);
	return rc;
}

/* Runs a query and returns its rows as an array of objects keyed by column name. */
static int db_rows(cJSON **out, store *s, const char *sql, const char *types, ...)
{
	*out = NULL;
	sqlite3_stmt *st = NULL;
	int rc = stmt_take(&st, s, sql);
	if (rc)
		return rc;
	va_list ap;
	va_start(ap, types);
	rc = bind_args(s, st, types, ap);
	va_end(ap);
	if (rc)
		goto out;
	cJSON *arr = cJSON_CreateArray();
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *row = cJSON_CreateObject();
		int n = sqlite3_column_count(st);
		for (int i = 0; i < n; i++) {
			const char *name = sqlite3_column_name(st, i);
			switch (sqlite3_column_type(st, i)) {
			case SQLITE_INTEGER:
				cJSON_AddNumberToObject(row, name, (double)sqlite3_column_int64(st, i));
				break;
			case SQLITE_FLOAT:
				cJSON_AddNumberToObject(row, name, sqlite3_column_double(st, i));
				break;
			case SQLITE_NULL:
				cJSON_AddNullToObject(row, name);
				break;
			default:
				cJSON_AddStringToObject(row, name, (const char *)sqlite3_column_text(st, i));
				break;
			}
		}
		cJSON_AddItemToArray(arr, row);
	}
	if (step != SQLITE_DONE) {
		cJSON_Delete(arr);
		rc = db_fail(s, "read");
		goto out;
	}
	*out = arr;
out:
	stmt_give(s, st);
	return rc;
}

/* --- opening and migrations --- */

static int migration_number(const char *path)
{
	const char *base = path + strlen("migrations/");
	return atoi(base);
}

int store_schema_version(void)
{
	int max = 0;
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (util_starts_with(f->path, "migrations/") && migration_number(f->path) > max)
			max = migration_number(f->path);
	return max;
}

static int user_version(int *out, store *s)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(&st, s, "PRAGMA user_version");
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	else
		rc = db_fail(s, _("read schema version"));
	sqlite3_finalize(st);
	return rc;
}

static int migrate(store *s)
{
	int have = 0, rc = user_version(&have, s);
	if (rc)
		return rc;
	int want = store_schema_version();
	if (have > want)
		return err_set(FERRY_ECORRUPT,
		               _("%s: schema version %d is newer than this ferry understands (%d); upgrade ferry"),
		               s->path, have, want);
	for (int v = have + 1; v <= want; v++) {
		const struct embedded_file *mig = NULL;
		for (const struct embedded_file *f = embedded_files; f->path; f++)
			if (util_starts_with(f->path, "migrations/") && migration_number(f->path) == v)
				mig = f;
		if (!mig)
			return err_set(FERRY_ECORRUPT, _("migrations: number %d is missing"), v);
		char *sql = xasprintf("BEGIN IMMEDIATE;\n%s\nPRAGMA user_version = %d;\nCOMMIT;", mig->data, v);
		char *msg = NULL;
		if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
			rc = err_set(FERRY_EDB, _("%s: migration %s: %s"), s->path, mig->path, msg ? msg : "failed");
			sqlite3_free(msg);
			sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
			free(sql);
			return rc;
		}
		free(sql);
	}
	return 0;
}

/* The record's phases table holds every phase of plugins/data/phases.json (phase.h), in
 * its order: a new record gets them all, an older one the phases added since. One read
 * when nothing is missing. */
static int sync_phases(store *s)
{
	cJSON *names = cJSON_CreateArray();
	for (size_t i = 0; i < phase_count(); i++)
		cJSON_AddItemToArray(names, cJSON_CreateString(phase_name(i)));
	char *list = cJSON_PrintUnformatted(names);
	cJSON_Delete(names);
	cJSON *rows = NULL;
	int rc = db_rows(&rows, s, "SELECT count(*) AS n FROM phases WHERE name IN (SELECT value FROM json_each(?))", "s",
	                 list);
	int complete = !rc && json_int(cJSON_GetArrayItem(rows, 0), "n") == (long long)phase_count();
	cJSON_Delete(rows);
	if (!rc && !complete)
		rc = db_exec(s,
		             "INSERT INTO phases (name, ord) SELECT j.value, (SELECT coalesce(max(ord), 0) FROM phases) + j.key + 1"
		             " FROM json_each(?) j WHERE j.value NOT IN (SELECT name FROM phases) ORDER BY j.key",
		             "s", list);
	free(list);
	return rc;
}

/* An existing record must be a whole SQLite file: not missing, not empty, not shorter
 * than the size its header states. Only creating a database may start a new one. */
static int check_record(const char *path)
{
	const char *gone = _("the engagement record is gone");
	struct stat st;
	unsigned char h[100];
	if (stat(path, &st) < 0)
		return err_set(FERRY_ECORRUPT, _("%s: %s (%s); restore it from a backup"), path, gone, strerror(errno));
	if (st.st_size == 0)
		return err_set(FERRY_ECORRUPT, _("%s: %s (the file is empty); restore it from a backup"), path, gone);
	FILE *f = fopen(path, "rb");
	size_t n = f ? fread(h, 1, sizeof h, f) : 0;
	if (f)
		fclose(f);
	if (n < sizeof h || memcmp(h, "SQLite format 3", 16) != 0)
		return err_set(FERRY_ECORRUPT, _("%s: not an engagement record (no SQLite header)"), path);
	unsigned long page = (unsigned long)h[16] << 8 | h[17];
	unsigned long pages = (unsigned long)h[28] << 24 | (unsigned long)h[29] << 16 | (unsigned long)h[30] << 8 | h[31];
	int size_valid = memcmp(h + 24, h + 92, 4) == 0; /* the header's page count is current */
	if (page == 1)
		page = 65536;
	if (size_valid && pages && (unsigned long long)st.st_size < (unsigned long long)page * pages)
		return err_set(FERRY_ECORRUPT, _("%s: %s (truncated: %lld of %llu bytes); restore it from a backup"), path,
		               gone, (long long)st.st_size, (unsigned long long)page * pages);
	return 0;
}

int store_open(store **out, const char *path, int create)
{
	*out = NULL;
	store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
	int rc = create ? 0 : check_record(path);
	if (rc)
		goto fail;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		rc = err_set(FERRY_EDB, _("%s: cannot open database: %s"), path,
		             s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 0);
	char *msg = NULL;
	if (sqlite3_exec(s->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;",
	                 NULL, NULL, &msg) != SQLITE_OK) {
		rc = err_set(sqlite3_errcode(s->db) == SQLITE_NOTADB ? FERRY_ECORRUPT : FERRY_EDB,
		             "%s: %s", path, msg ? msg : "cannot configure database");
		sqlite3_free(msg);
		goto fail;
	}
	int version = 0;
	if (!create && !(rc = user_version(&version, s)) && version == 0)
		rc = err_set(FERRY_ECORRUPT, _("%s: not an engagement record (no schema); restore it from a backup"), path);
	if (rc || (rc = migrate(s)) || (rc = sync_phases(s)))
		goto fail;
	*out = s;
	return 0;
fail:
	store_close(s);
	return rc;
}

int store_open_readonly(store **out, const char *path)
{
	*out = NULL;
	store *s = xcalloc(1, sizeof *s);
	s->path = xstrdup(path);
	/* WAL needs a writable -shm beside the database; a database whose folder cannot be
	 * written and that has no pending WAL is opened immutable (nothing can change it,
	 * so SQLite takes no locks and makes no side files) */
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *wal = xasprintf("%s-wal", path);
	struct stat st;
	int pending_wal = stat(wal, &st) == 0 && st.st_size > 0;
	int immutable = !pending_wal && access(slash ? dir : ".", W_OK) != 0;
	sbuf uri;
	sbuf_init(&uri);
	sbuf_addf(&uri, "file:");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if (*p == '?' || *p == '#' || *p == '%' || *p < 0x20 || *p >= 0x7f)
			sbuf_addf(&uri, "%%%02X", *p);
		else
			sbuf_addc(&uri, (char)*p);
	sbuf_addf(&uri, "?mode=ro%s", immutable ? "&immutable=1" : "");
	free(dir);
	free(wal);
	int rc = 0;
	if (sqlite3_open_v2(uri.buf, &s->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX, NULL) !=
	    SQLITE_OK) {
		rc = err_set(FERRY_EDB, _("%s: cannot open database: %s"), path, s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	sqlite3_extended_result_codes(s->db, 0);
	int have = 0;
	if ((rc = user_version(&have, s)))
		goto fail;
	if (have != store_schema_version()) {
		rc = have < store_schema_version()
		             ? err_set(FERRY_ECORRUPT, _("%s: schema version %d, this ferry reads %d; a read-only engagement cannot be upgraded"),
		                       path, have, store_schema_version())
		             : err_set(FERRY_ECORRUPT, _("%s: schema version %d, this ferry reads %d; a read-only engagement cannot be read by it"),
		                       path, have, store_schema_version());
		goto fail;
	}
	sbuf_done(&uri);
	*out = s;
	return 0;
fail:
	sbuf_done(&uri);
	store_close(s);
	return rc;
}

void store_close(store *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nstmts; i++) {
		sqlite3_finalize(s->stmts[i].st);
		free(s->stmts[i].sql);
	}
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

int store_begin(store *s) { return db_exec(s, "BEGIN IMMEDIATE", NULL); }
int store_commit(store *s) { return db_exec(s, "COMMIT", NULL); }

void store_rollback(store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

int store_integrity(store *s)
{
	cJSON *rows = NULL;
	int rc = db_rows(&rows, s, "PRAGMA integrity_check", NULL);
	if (rc)
		return rc;
	cJSON *first = cJSON_GetArrayItem(rows, 0);
	cJSON *v = first ? first->child : NULL;
	if (!v || !cJSON_IsString(v) || strcmp(v->valuestring, "ok") != 0)
		rc = err_set(FERRY_ECORRUPT, _("%s: integrity check failed: %s"), s->path,
		             v && cJSON_IsString(v) ? v->valuestring : "no answer");
	cJSON_Delete(rows);
	return rc;
}

int store_data_version(long long *out, store *s)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(&st, s, "PRAGMA data_version");
	if (rc)
		return rc;
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else
		rc = db_fail(s, "data_version");
	sqlite3_finalize(st);
	return rc;
}

/* --- engagement and settings --- */

int store_engagement_create(store *s, const char *engagement_id, const char *client,
                            const char *project, const char *target_soc, const char *actor)
{
	char now[32];
	util_now_iso(now);
	return db_exec(s,
	               "INSERT INTO engagement (id, engagement_id, client, project, target_soc, created_at, created_by)"
	               " VALUES (1, ?, ?, ?, ?, ?, ?)",
	               "ssssss", engagement_id, client ? client : "", project, target_soc ? target_soc : "",
	               now, actor);
}

static int single_row(cJSON **out, cJSON *rows)
{
	*out = NULL;
	if (cJSON_GetArraySize(rows) > 0)
		*out = cJSON_DetachItemFromArray(rows, 0);
	cJSON_Delete(rows);
	return 0;
}

int store_engagement_get(cJSON **out, store *s)
{
	cJSON *rows = NULL;
	int rc = db_rows(&rows, s,
	                 "SELECT engagement_id, client, project, target_soc, created_at, created_by FROM engagement",
	                 NULL);
	if (rc)
		return rc;
	single_row(out, rows);
	if (!*out)
		return err_set(FERRY_ECORRUPT, _("%s: no engagement recorded"), s->path);
	return 0;
}

int store_config_set(store *s, const char *key, const char *value)
{
	return db_exec(s, "INSERT INTO config (key, value) VALUES (?, ?)"
	                  " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
	               "ss", key, value);
}

int store_config_unset(store *s, const char *key)
{
	return db_exec(s, "DELETE FROM config WHERE key = ?", "s", key);
}

char *store_config_get(store *s, const char *key)
{
	cJSON *rows = NULL, *row = NULL;
	if (db_rows(&rows, s, "SELECT value FROM config WHERE key = ?", "s", key))
		return NULL;
	single_row(&row, rows);
	char *v = NULL;
	cJSON *val = row ? cJSON_GetObjectItem(row, "value") : NULL;
	if (val && cJSON_IsString(val))
		v = xstrdup(val->valuestring);
	cJSON_Delete(row);
	return v;
}

int store_config_all(cJSON **out, store *s)
{
	cJSON *rows = NULL;
	int rc = db_rows(&rows, s, "SELECT key, value FROM config ORDER BY key", NULL);
	if (rc)
		return rc;
	*out = cJSON_CreateObject();
	cJSON *row;
	cJSON_ArrayForEach(row, rows)
		cJSON_AddStringToObject(*out, cJSON_GetObjectItem(row, "key")->valuestring,
		                        cJSON_GetObjectItem(row, "value")->valuestring);
	cJSON_Delete(rows);
	return 0;
}

/* --- phases --- */

int store_phases(cJSON **out, store *s)
{
	return db_rows(out, s,
	               "WITH c AS (SELECT phase,"
	               " sum(status = 'open' AND severity = 'error') AS e, sum(status = 'open' AND severity = 'warning') AS w,"
	               " sum(status = 'open' AND severity = 'info') AS i, sum(status = 'fixed') AS x,"
	               " sum(status = 'waived') AS v FROM findings GROUP BY phase)"
	               " SELECT p.name, p.ord, p.signed_off_at, p.signed_off_by, p.note, coalesce(c.e, 0) AS open_errors,"
	               " coalesce(c.w, 0) AS open_warnings, coalesce(c.i, 0) AS open_info, coalesce(c.x, 0) AS fixed,"
	               " coalesce(c.v, 0) AS waived,"
	               /* the survey (assess) is one run of all its checks, which the assessment reads
	                * as a whole: a run of some of them (--plugin, the re-judging of new evidence)
	                * is not counted as one; in the other phases every run counts */
	               " (SELECT count(*) FROM runs r, json_each(r.scope, '$.phases') j WHERE j.value = p.name"
	               "  AND (p.name <> 'assess' OR coalesce(json_array_length(r.scope, '$.plugins'), 0) = 0)) AS runs"
	               " FROM phases p LEFT JOIN c ON c.phase = p.name ORDER BY p.ord",
	               NULL);
}

int store_phase_signoff(store *s, const char *phase, const char *actor, const char *note)
{
	char now[32];
	util_now_iso(now);
	return db_exec(s, "UPDATE phases SET signed_off_at = ?, signed_off_by = ?, note = ? WHERE name = ?",
	               "sssS", now, actor, note ? note : "", phase);
}

/* --- runs and findings --- */

int store_run_begin(long long *out, store *s, const char *actor, const char *scope_json, const char *head)
{
	char now[32];
	util_now_iso(now);
	int rc = db_exec(s, "INSERT INTO runs (started_at, actor, scope, head) VALUES (?, ?, ?, NULLIF(?, ''))", "ssss",
	                 now, actor, scope_json, head ? head : "");
	if (!rc)
		*out = sqlite3_last_insert_rowid(s->db);
	return rc;
}

int store_run_head(char out[41], store *s, long long run)
{
	cJSON *rows = NULL;
	out[0] = '\0';
	int rc = db_rows(&rows, s, "SELECT coalesce(head, '') AS head FROM runs WHERE id = ?", "i", run);
	if (!rc && cJSON_GetArraySize(rows) == 1)
		snprintf(out, 41, "%s", json_str(cJSON_GetArrayItem(rows, 0), "head"));
	cJSON_Delete(rows);
	return rc;
}

int store_run_finish(store *s, long long run, int nfindings, int nerrors)
{
	char now[32];
	util_now_iso(now);
	return db_exec(s, "UPDATE runs SET finished_at = ?, nfindings = ?, nerrors = ? WHERE id = ?", "siii",
	               now, (long long)nfindings, (long long)nerrors, run);
}

int store_plugin_error(store *s, long long run, const char *plugin, const char *message)
{
	return db_exec(s, "INSERT INTO plugin_errors (run_id, plugin, message) VALUES (?, ?, ?)", "iss", run,
	               plugin, message);
}

static char *edits_json(const finding *f)
{
	if (!f->nedits)
		return NULL;
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < f->nedits; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "start_byte", f->edits[i].start_byte);
		cJSON_AddNumberToObject(e, "end_byte", f->edits[i].end_byte);
		cJSON_AddStringToObject(e, "text", f->edits[i].text);
		cJSON_AddItemToArray(arr, e);
	}
	char *text = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	return text;
}

int store_finding_upsert(store *s, long long run, finding *f)
{
	char *edits = edits_json(f);
	const char *file = f->file ? f->file : "";
	int rc = db_exec(s,
	                 "INSERT INTO findings (fingerprint, plugin, phase, severity, category, file, line, col,"
	                 " end_line, end_col, message, suggestion, edits, status, first_run, last_run, automatic,"
	                 " construct, i18n, anchor, unit, follows)"
	                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?)"
	                 " ON CONFLICT (plugin, file, fingerprint) DO UPDATE SET"
	                 " severity = excluded.severity, category = excluded.category, line = excluded.line,"
	                 " col = excluded.col, end_line = excluded.end_line, end_col = excluded.end_col,"
	                 " message = excluded.message, suggestion = excluded.suggestion, edits = excluded.edits,"
	                 " automatic = excluded.automatic, construct = excluded.construct, i18n = excluded.i18n,"
	                 " anchor = excluded.anchor, unit = excluded.unit, follows = excluded.follows,"
	                 " last_run = excluded.last_run,"
	                 " status = CASE WHEN findings.status = 'fixed' THEN 'open' ELSE findings.status END,"
	                 " fixed_by = CASE WHEN findings.status = 'fixed' THEN NULL ELSE findings.fixed_by END",
	                 "ssssSsiiiissSiiiSSSSS", f->fingerprint, f->plugin, phase_name((size_t)f->phase), severity_name(f->severity), f->category, file,
	                 (long long)f->line, (long long)f->col, (long long)f->end_line, (long long)f->end_col,
	                 f->message, f->suggestion ? f->suggestion : "", edits, run, run, (long long)f->automatic,
	                 f->construct, f->i18n, f->anchor, f->unit, f->follows);
	free(edits);
	if (rc)
		return rc;
	cJSON *rows = NULL, *row = NULL;
	rc = db_rows(&rows, s, "SELECT id, status FROM findings WHERE plugin = ? AND file = ? AND fingerprint = ?",
	             "sss", f->plugin, file, f->fingerprint);
	if (rc)
		return rc;
	single_row(&row, rows);
	if (row) {
		f->id = (long long)cJSON_GetObjectItem(row, "id")->valuedouble;
		int status = status_parse(cJSON_GetObjectItem(row, "status")->valuestring);
		f->status = status < 0 ? STATUS_OPEN : (finding_status)status;
	}
	cJSON_Delete(row);
	return 0;
}

/* Moves the new row onto the old one: the old id, status and waiver stay, everything the
 * run saw (fingerprint, position, texts, edits) comes from the new row, which goes. */
static int merge_finding(store *s, long long old_id, long long new_id)
{
	int rc = db_exec(s, "UPDATE findings SET fingerprint = '~' || fingerprint WHERE id = ?", "i", new_id);
	if (!rc)
		rc = db_exec(s,
		             "UPDATE findings SET (fingerprint, severity, category, line, col, end_line, end_col, message,"
		             " suggestion, edits, automatic, construct, i18n, anchor, unit, follows, last_run) ="
		             " (SELECT substr(fingerprint, 2), severity, category, line, col, end_line, end_col, message,"
		             " suggestion, edits, automatic, construct, i18n, anchor, unit, follows, last_run FROM findings"
		             " WHERE id = ?1)"
		             " WHERE id = ?2",
		             "ii", new_id, old_id);
	if (!rc)
		rc = db_exec(s, "DELETE FROM findings WHERE id = ?", "i", new_id);
	return rc;
}

int store_findings_reanchor(int *n, store *s, long long run, const char *plugins_json)
{
	cJSON *rows = NULL;
	/* every pair of a row first seen in this run and a row of the same anchor it did not
	 * see, nearest first; each row is taken once */
	int rc = db_rows(&rows, s,
	                 "SELECT n.id AS new_id, o.id AS old_id FROM findings n"
	                 " JOIN findings o ON o.plugin = n.plugin AND o.file = n.file AND o.anchor = n.anchor"
	                 " WHERE n.first_run = ?1 AND n.status = 'open' AND n.anchor IS NOT NULL AND o.id <> n.id"
	                 " AND o.status IN ('open', 'waived') AND (o.last_run IS NULL OR o.last_run <> ?1)"
	                 " AND o.plugin IN (SELECT value FROM json_each(?2))"
	                 " ORDER BY abs(n.line - o.line), n.id, o.id",
	                 "is", run, plugins_json);
	if (rc)
		return rc;
	cJSON *taken = cJSON_CreateObject();
	const cJSON *row;
	int merged = 0;
	cJSON_ArrayForEach(row, rows) {
		long long nid = (long long)cJSON_GetObjectItem(row, "new_id")->valuedouble;
		long long oid = (long long)cJSON_GetObjectItem(row, "old_id")->valuedouble;
		char kn[32], ko[32];
		snprintf(kn, sizeof kn, "%lld", nid);
		snprintf(ko, sizeof ko, "%lld", oid);
		if (cJSON_GetObjectItem(taken, kn) || cJSON_GetObjectItem(taken, ko))
			continue;
		cJSON_AddTrueToObject(taken, kn);
		cJSON_AddTrueToObject(taken, ko);
		if ((rc = merge_finding(s, oid, nid)))
			break;
		merged++;
	}
	cJSON_Delete(taken);
	cJSON_Delete(rows);
	if (!rc && n)
		*n = merged;
	return rc;
}

int store_findings_close_unseen(int *n, store *s, long long run, const char *plugins_json)
{
	int rc = db_exec(s,
	                 "UPDATE findings SET status = 'fixed', fixed_by = NULL"
	                 " WHERE status IN ('open', 'waived') AND (last_run IS NULL OR last_run <> ?)"
	                 " AND plugin IN (SELECT value FROM json_each(?))",
	                 "is", run, plugins_json);
	if (!rc && n)
		*n = sqlite3_changes(s->db);
	return rc;
}

int store_findings_close_unseen_in(int *n, store *s, long long run, const char *plugin, const char *phases_json)
{
	int rc = db_exec(s,
	                 "UPDATE findings SET status = 'fixed', fixed_by = NULL"
	                 " WHERE status IN ('open', 'waived') AND (last_run IS NULL OR last_run <> ?)"
	                 " AND plugin = ? AND phase IN (SELECT value FROM json_each(?))",
	                 "iss", run, plugin, phases_json);
	if (!rc && n)
		*n += sqlite3_changes(s->db);
	return rc;
}

/* The waiver in force on a waived finding: {reason, actor, at, carried_from} or NULL. */
/* A later-phase finding g that fixed or waived the survey finding a: the same problem at
 * the same code (file and construct), told by the same message or found by the same check
 * of the later phase (adapt.device_type_branches for assess.device_type_branches: a site
 * adapt leaves for a person says why in its own words). */
#define SETTLES(g, a)                                                                              \
	" " g ".file = " a ".file AND " g ".construct = " a ".construct AND (" g ".message = " a ".message" \
	" OR substr(" g ".plugin, instr(" g ".plugin, '.')) = substr(" a ".plugin, instr(" a ".plugin, '.')))" \
	" AND " g ".phase <> 'assess' AND " g ".status IN ('fixed', 'waived')"

/* The survey findings at the site x of a finding's follows list (x.value: [file, line,
 * col, end_line, end_col]): in its file, their range overlapping the site's. The sites
 * and the findings at them are found by the same run on the same text. */
#define AT_SITE(r, x)                                                                              \
	" " r ".file = " x ".value ->> 0 AND (" r ".line, " r ".col) <= (" x ".value ->> 3, " x ".value ->> 4)" \
	" AND (" r ".end_line, " r ".end_col) >= (" x ".value ->> 1, " x ".value ->> 2)"

/* Whether every site f follows has a finding of f's phase such that `cond` (on r) holds. */
#define EVERY_SITE(cond)                                                                           \
	" (f.follows IS NOT NULL AND NOT EXISTS (SELECT 1 FROM json_each(f.follows) x WHERE NOT EXISTS" \
	" (SELECT 1 FROM findings r WHERE" AT_SITE("r", "x") " AND r.phase = f.phase AND " cond ")))"

/* The finding columns in the order read_finding takes them, then the waiver in force,
 * then, for an open assess finding, what settled it (finding_settlement): the first
 * later-phase finding of the same problem at the same construct (SETTLES) that was fixed
 * or waived since — not another problem the same code has (a host sync in a loop stays
 * one after its torch.cuda call is renamed) — or, for a
 * finding that follows sites (a call of the project's CUDA helper follows the helper's
 * CUDA sites), the last of those that settled the survey findings at every one of them.
 * Such a finding is also automatic when every site has an automatic survey finding. */
#define FINDING_SELECT                                                                             \
	"SELECT f.id, f.plugin, f.phase, f.severity, f.category, f.file, f.line, f.col, f.end_line,"  \
	" f.end_col, f.message, f.suggestion, f.edits IS NOT NULL,"                                   \
	" f.automatic OR" EVERY_SITE("r.automatic") ", f.status,"                                     \
	" f.fingerprint, CASE WHEN ?5 THEN NULL ELSE f.edits END, f.last_run, f.construct, f.i18n,"   \
	" w.reason, w.actor, w.created_at, w.carried_from, f.unit,"                                   \
	" s.id, s.phase, s.status, s.fixed_by FROM findings f"                                        \
	" LEFT JOIN waivers w ON f.status = 'waived' AND w.id = (SELECT max(x.id) FROM waivers x"   \
	" WHERE x.finding_id = f.id AND x.withdrawn_at IS NULL)"                                      \
	" LEFT JOIN findings s ON f.phase = 'assess' AND f.status = 'open' AND f.construct IS NOT NULL" \
	" AND s.id = coalesce((SELECT min(g.id) FROM findings g WHERE" SETTLES("g", "f") "),"        \
	" CASE WHEN" EVERY_SITE("EXISTS (SELECT 1 FROM findings g WHERE" SETTLES("g", "r") ")")       \
	" THEN (SELECT max(g.id) FROM json_each(f.follows) x JOIN findings r ON" AT_SITE("r", "x")    \
	" AND r.phase = f.phase JOIN findings g ON" SETTLES("g", "r") ") END)"

static char *column_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? xstrdup((const char *)t) : NULL;
}

/* The proposed edits from their stored JSON text. */
static void read_edits(finding *f, const char *text)
{
	cJSON *arr = text ? cJSON_Parse(text) : NULL;
	int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : 0;
	if (n > 0) {
		f->edits = xcalloc((size_t)n, sizeof *f->edits);
		const cJSON *e;
		cJSON_ArrayForEach(e, arr) {
			finding_edit *d = &f->edits[f->nedits++];
			d->start_byte = (unsigned)json_int(e, "start_byte");
			d->end_byte = (unsigned)json_int(e, "end_byte");
			d->text = xstrdup(json_str(e, "text"));
		}
	}
	cJSON_Delete(arr);
}

/* One FINDING_SELECT row, with message and advice in the reader's language. */
static void read_finding(finding *f, sqlite3_stmt *st)
{
	memset(f, 0, sizeof *f);
	f->id = sqlite3_column_int64(st, 0);
	f->plugin = column_dup(st, 1);
	f->phase = phase_index((const char *)sqlite3_column_text(st, 2));
	f->severity = (finding_severity)severity_parse((const char *)sqlite3_column_text(st, 3));
	f->category = column_dup(st, 4);
	if (!f->category)
		f->category = xstrdup(""); /* no category: "" as in JSON */
	f->file = column_dup(st, 5);
	f->line = sqlite3_column_int(st, 6);
	f->col = sqlite3_column_int(st, 7);
	f->end_line = sqlite3_column_int(st, 8);
	f->end_col = sqlite3_column_int(st, 9);
	f->message = column_dup(st, 10);
	f->suggestion = column_dup(st, 11);
	f->fixable = sqlite3_column_int(st, 12) != 0;
	f->automatic = sqlite3_column_int(st, 13) != 0;
	int status = status_parse((const char *)sqlite3_column_text(st, 14));
	f->status = status < 0 ? STATUS_OPEN : (finding_status)status;
	f->fingerprint = column_dup(st, 15);
	read_edits(f, (const char *)sqlite3_column_text(st, 16));
	f->last_run = sqlite3_column_int64(st, 17);
	f->construct = column_dup(st, 18);
	f->i18n = column_dup(st, 19);
	if (sqlite3_column_type(st, 20) != SQLITE_NULL) {
		f->waiver = xcalloc(1, sizeof *f->waiver);
		f->waiver->reason = column_dup(st, 20);
		f->waiver->actor = column_dup(st, 21);
		f->waiver->at = column_dup(st, 22);
		f->waiver->carried_from = sqlite3_column_int64(st, 23);
	}
	f->unit = column_dup(st, 24);
	if (sqlite3_column_type(st, 25) != SQLITE_NULL) {
		int later = status_parse((const char *)sqlite3_column_text(st, 27));
		f->settled.finding = sqlite3_column_int64(st, 25);
		f->settled.phase = phase_index((const char *)sqlite3_column_text(st, 26));
		f->settled.status = later < 0 ? STATUS_FIXED : (finding_status)later;
		f->settled.checkpoint = sqlite3_column_int64(st, 28);
	}
	intl_localize_texts(&f->message, &f->suggestion, f->i18n);
}

/* Sorting in C rather than with ORDER BY keeps sqlite's sorter from copying every row's
 * texts: the order is the phases' (phase.h; a phase the table no longer has goes last),
 * then file, line, column and id. */
static int finding_order(const void *x, const void *y)
{
	const finding *a = x, *b = y;
	unsigned pa = (unsigned)a->phase, pb = (unsigned)b->phase; /* -1 sorts last */
	if (pa != pb)
		return pa < pb ? -1 : 1;
	int c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	if (a->col != b->col)
		return a->col < b->col ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

int store_finding_list(finding **out, size_t *n, store *s, const store_finding_filter *fl)
{
	*out = NULL;
	*n = 0;
	char *ids = NULL;
	if (fl && fl->nids) {
		sbuf b;
		sbuf_init(&b);
		sbuf_addc(&b, '[');
		for (size_t i = 0; i < fl->nids; i++)
			sbuf_addf(&b, "%s%lld", i ? "," : "", fl->ids[i]);
		sbuf_addc(&b, ']');
		ids = sbuf_detach(&b);
		sbuf_done(&b);
	}
	sqlite3_stmt *st = NULL;
	int rc = prepare(&st, s,
	                 FINDING_SELECT
	                 " WHERE (?1 IS NULL OR f.phase = ?1) AND (?2 IS NULL OR f.status = ?2)"
	                 " AND (?3 IS NULL OR f.plugin = ?3) AND (?4 IS NULL OR f.id IN (SELECT value FROM json_each(?4)))");
	if (!rc)
		rc = bind_all(s, st, "SSSSi", fl ? fl->phase : NULL, fl ? fl->status : NULL, fl ? fl->plugin : NULL, ids,
		              (long long)(fl && fl->brief));
	free(ids);
	finding *list = NULL;
	size_t count = 0, cap = 0;
	int step = SQLITE_DONE;
	while (!rc && (step = sqlite3_step(st)) == SQLITE_ROW) {
		if (count == cap) {
			cap = cap ? cap * 2 : 64;
			list = xrealloc(list, cap * sizeof *list);
		}
		read_finding(&list[count++], st);
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(s, "read");
	sqlite3_finalize(st);
	if (!rc && count > 1) /* no list at all when nothing matched */
		qsort(list, count, sizeof *list, finding_order);
	if (rc) {
		finding_list_free(list, count);
		return rc;
	}
	*out = list;
	*n = count;
	return 0;
}

int store_findings(cJSON **out, store *s, const store_finding_filter *fl)
{
	finding *list = NULL;
	size_t n = 0;
	int rc = store_finding_list(&list, &n, s, fl);
	if (rc)
		return rc;
	*out = cJSON_CreateArray();
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(*out, finding_json(&list[i], fl && fl->brief));
	finding_list_free(list, n);
	return 0;
}

/* A row's finding message (and advice) in the reader's language, from the stored "i18n"
 * text, which it drops; the record keeps English. */
static void localize_row(cJSON *row)
{
	cJSON *i18n = cJSON_GetObjectItem(row, "i18n");
	if (i18n && cJSON_IsString(i18n)) {
		cJSON *parsed = cJSON_Parse(i18n->valuestring);
		cJSON_ReplaceItemInObject(row, "i18n", parsed ? parsed : cJSON_CreateNull());
	}
	intl_localize_finding(row);
}

int store_finding_set_status(store *s, long long id, const char *status, long long fixed_by)
{
	return db_exec(s, "UPDATE findings SET status = ?, fixed_by = nullif(?, 0) WHERE id = ?", "sii", status,
	               fixed_by, id);
}

int store_findings_reopen(store *s, long long cp)
{
	return db_exec(s, "UPDATE findings SET status = 'open', fixed_by = NULL WHERE fixed_by = ?", "i", cp);
}

int store_waiver_add(store *s, long long finding_id, const char *reason, const char *actor)
{
	char now[32];
	util_now_iso(now);
	int rc = db_exec(s, "INSERT INTO waivers (finding_id, reason, actor, created_at) VALUES (?, ?, ?, ?)",
	                 "isss", finding_id, reason, actor, now);
	if (!rc)
		rc = store_finding_set_status(s, finding_id, "waived", 0);
	return rc;
}

int store_waiver_carry(long long *from, store *s, long long finding_id)
{
	*from = 0;
	cJSON *rows = NULL, *row = NULL;
	int rc = db_rows(&rows, s,
	                 "SELECT g.id AS from_id, w.reason, w.actor FROM findings f"
	                 " JOIN findings g ON g.file = f.file AND g.construct = f.construct AND g.id <> f.id"
	                 " AND g.status = 'waived'"
	                 " AND (SELECT ord FROM phases WHERE name = g.phase) < (SELECT ord FROM phases WHERE name = f.phase)"
	                 " JOIN waivers w ON w.finding_id = g.id AND w.withdrawn_at IS NULL"
	                 " WHERE f.id = ? AND f.status = 'open' AND f.construct IS NOT NULL"
	                 " AND NOT EXISTS (SELECT 1 FROM waivers x WHERE x.finding_id = f.id)"
	                 " ORDER BY w.id DESC LIMIT 1",
	                 "i", finding_id);
	if (rc)
		return rc;
	single_row(&row, rows);
	if (!row)
		return 0;
	char now[32];
	util_now_iso(now);
	long long g = json_int(row, "from_id");
	rc = db_exec(s,
	             "INSERT INTO waivers (finding_id, reason, actor, created_at, carried_from) VALUES (?, ?, ?, ?, ?)",
	             "isssi", finding_id, json_str(row, "reason"), json_str(row, "actor"), now, g);
	if (!rc)
		rc = store_finding_set_status(s, finding_id, "waived", 0);
	if (!rc)
		*from = g;
	cJSON_Delete(row);
	return rc;
}

int store_findings_declined(cJSON **out, store *s)
{
	return db_rows(out, s,
	               "SELECT f.id, c.id AS fixed_by, r.id AS reverted_by FROM findings f"
	               " JOIN checkpoints c ON c.id = (SELECT max(k.id) FROM checkpoints k, json_each(k.findings) j"
	               " WHERE k.kind = 'fix' AND j.value = f.id)"
	               " JOIN checkpoints r ON r.reverts = c.id AND r.kind = 'revert'"
	               " AND NOT EXISTS (SELECT 1 FROM checkpoints u WHERE u.reverts = r.id)"
	               " WHERE f.status = 'open' ORDER BY f.id",
	               NULL);
}

int store_waiver_withdraw(store *s, long long finding_id, const char *reason, const char *actor)
{
	char now[32];
	util_now_iso(now);
	int rc = db_exec(s,
	                 "UPDATE waivers SET withdrawn_at = ?, withdrawn_by = ?, withdrawn_reason = ?"
	                 " WHERE finding_id = ? AND withdrawn_at IS NULL",
	                 "sssi", now, actor, reason, finding_id);
	if (!rc)
		rc = store_finding_set_status(s, finding_id, "open", 0);
	return rc;
}

int store_waivers_carried_from(cJSON **out, store *s, long long finding_id)
{
	return db_rows(out, s,
	               "SELECT w.finding_id FROM waivers w JOIN findings f ON f.id = w.finding_id"
	               " WHERE w.carried_from = ? AND w.withdrawn_at IS NULL AND f.status = 'waived' ORDER BY w.finding_id",
	               "i", finding_id);
}

int store_waivers(cJSON **out, store *s)
{
	int rc = db_rows(out, s,
	                 "SELECT w.id, w.finding_id, w.reason, w.actor, w.created_at, w.carried_from, w.withdrawn_at,"
	                 " w.withdrawn_by, w.withdrawn_reason, f.plugin, f.phase, f.file,"
	                 " f.line, f.message, f.i18n FROM waivers w JOIN findings f ON f.id = w.finding_id ORDER BY w.id",
	                 NULL);
	cJSON *row;
	if (!rc)
		cJSON_ArrayForEach(row, *out)
			localize_row(row);
	return rc;
}

int store_metric_add(store *s, long long run, const char *plugin, const char *name, double value,
                     const char *unit)
{
	return db_exec(s, "INSERT INTO metrics (run_id, plugin, name, value, unit) VALUES (nullif(?, 0), ?, ?, ?, ?)",
	               "issds", run, plugin, name, value, unit ? unit : "");
}

int store_metrics_latest(cJSON **out, store *s)
{
	return db_rows(out, s,
	               "SELECT plugin, name, value, unit FROM metrics m WHERE id ="
	               " (SELECT max(id) FROM metrics m2 WHERE m2.plugin = m.plugin AND m2.name = m.name)"
	               " ORDER BY plugin, name",
	               NULL);
}

int store_run_count(long long *n, store *s)
{
	cJSON *rows = NULL, *row = NULL;
	int rc = db_rows(&rows, s, "SELECT count(*) AS n FROM runs", NULL);
	if (rc)
		return rc;
	single_row(&row, rows);
	*n = row ? (long long)cJSON_GetObjectItem(row, "n")->valuedouble : 0;
	cJSON_Delete(row);
	return 0;
}

int store_plugin_errors_standing(cJSON **out, store *s)
{
	/* a run included a plugin when its scope lists the plugin's phase (the id's prefix) and
	 * either names no plugins or names this one; a load error ("load") names no phase */
	return db_rows(out, s,
	               "SELECT e.run_id AS run, e.plugin, e.message FROM plugin_errors e"
	               " WHERE e.id = (SELECT max(x.id) FROM plugin_errors x WHERE x.plugin = e.plugin)"
	               " AND NOT EXISTS (SELECT 1 FROM runs r WHERE r.id > e.run_id"
	               "  AND EXISTS (SELECT 1 FROM json_each(r.scope, '$.phases') ph"
	               "   WHERE ph.value = substr(e.plugin, 1, instr(e.plugin, '.') - 1))"
	               "  AND (coalesce(json_array_length(r.scope, '$.plugins'), 0) = 0"
	               "   OR EXISTS (SELECT 1 FROM json_each(r.scope, '$.plugins') pl WHERE pl.value = e.plugin))"
	               "  AND NOT EXISTS (SELECT 1 FROM plugin_errors y WHERE y.run_id = r.id AND y.plugin = e.plugin))"
	               " ORDER BY e.id",
	               NULL);
}

/* --- checkpoints --- */

int store_checkpoint_add(long long *out, store *s, const store_checkpoint *c)
{
	char now[32];
	util_now_iso(now);
	int rc = db_exec(s,
	                 "INSERT INTO checkpoints (commit_oid, kind, message, actor, created_at, phase, plugin,"
	                 " findings, reverts) VALUES (?, ?, ?, ?, ?, ?, ?, ?, nullif(?, 0))",
	                 "sssssSSSi", c->commit_oid, c->kind, c->message, c->actor, now, c->phase, c->plugin,
	                 c->findings, c->reverts);
	if (!rc && out)
		*out = sqlite3_last_insert_rowid(s->db);
	return rc;
}

#define CHECKPOINT_COLUMNS                                                                         \
	"SELECT id, commit_oid AS \"commit\", kind, message, actor, created_at AS time, phase, plugin," \
	" json(coalesce(findings, '[]')) AS findings, reverts FROM checkpoints"

static void checkpoint_row_fixup(cJSON *row)
{
	cJSON *f = cJSON_GetObjectItem(row, "findings");
	if (f && cJSON_IsString(f)) {
		cJSON *parsed = cJSON_Parse(f->valuestring);
		cJSON_ReplaceItemInObject(row, "findings", parsed ? parsed : cJSON_CreateArray());
	}
}

int store_checkpoints(cJSON **out, store *s)
{
	int rc = db_rows(out, s, CHECKPOINT_COLUMNS " ORDER BY id DESC", NULL);
	cJSON *row;
	if (!rc)
		cJSON_ArrayForEach(row, *out) checkpoint_row_fixup(row);
	return rc;
}

int store_checkpoint_get(cJSON **out, store *s, long long id)
{
	cJSON *rows = NULL;
	int rc = db_rows(&rows, s, CHECKPOINT_COLUMNS " WHERE id = ?", "i", id);
	if (rc)
		return rc;
	single_row(out, rows);
	if (*out)
		checkpoint_row_fixup(*out);
	return 0;
}

int store_checkpoint_by_commit(cJSON **out, store *s, const char *oid)
{
	cJSON *rows = NULL;
	int rc = db_rows(&rows, s, CHECKPOINT_COLUMNS " WHERE commit_oid = ?", "s", oid);
	if (rc)
		return rc;
	single_row(out, rows);
	if (*out)
		checkpoint_row_fixup(*out);
	return 0;
}

/* --- artifacts --- */

int store_artifact_add(long long *out, store *s, const char *kind, const char *label, const char *path,
                       const char *source, const char *sha256, long long size, const char *actor)
{
	char now[32];
	util_now_iso(now);
	int rc = db_exec(s,
	                 "INSERT INTO artifacts (kind, label, path, source, sha256, size, ingested_at, actor)"
	                 " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
	                 "sssssiss", kind, label ? label : "", path, source, sha256, size, now, actor);
	if (!rc && out)
		*out = sqlite3_last_insert_rowid(s->db);
	return rc;
}

#define ARTIFACT_COLUMNS "SELECT id, kind, label, path, source, sha256, size, ingested_at, actor FROM artifacts"

int store_artifacts(cJSON **out, store *s, const char *kind)
{
	return db_rows(out, s, ARTIFACT_COLUMNS " WHERE ?1 IS NULL OR kind = ?1 ORDER BY id", "S", kind);
}

int store_artifact_get(cJSON **out, store *s, long long id)
{
	cJSON *rows = NULL;
	int rc = db_rows(&rows, s, ARTIFACT_COLUMNS " WHERE id = ?", "i", id);
	if (!rc)
		single_row(out, rows);
	return rc;
}

/* --- state rows for the chain replay --- */

long long store_last_insert_id(store *s) { return (long long)sqlite3_last_insert_rowid(s->db); }

int store_state_rows(cJSON **out, store *s, store_state_table table)
{
	static const char *const sql[] = {
		[STORE_STATE_FINDINGS] = "SELECT id, fingerprint, status, fixed_by FROM findings ORDER BY id",
		[STORE_STATE_WAIVERS] = "SELECT id, finding_id, reason, actor FROM waivers ORDER BY id",
		[STORE_STATE_SIGNOFFS] = "SELECT name, signed_off_by, note FROM phases WHERE signed_off_at IS NOT NULL"
		                         " OR signed_off_by IS NOT NULL ORDER BY ord",
		[STORE_STATE_CHECKPOINTS] = "SELECT id, commit_oid AS \"commit\", kind, message, actor, phase, plugin,"
		                            " findings, reverts FROM checkpoints ORDER BY id",
		[STORE_STATE_ARTIFACTS] = "SELECT id, kind, label, path, sha256, size, actor FROM artifacts ORDER BY id",
	};
	return db_rows(out, s, sql[table], NULL);
}

/* --- audit rows --- */

int store_audit_last(long long *seq, char hash[65], store *s)
{
	cJSON *rows = NULL, *row = NULL;
	int rc = db_rows(&rows, s, "SELECT seq, hash FROM audit ORDER BY seq DESC LIMIT 1", NULL);
	if (rc)
		return rc;
	single_row(&row, rows);
	*seq = 0;
	memset(hash, '0', 64);
	hash[64] = '\0';
	if (row) {
		*seq = (long long)cJSON_GetObjectItem(row, "seq")->valuedouble;
		cJSON *h = cJSON_GetObjectItem(row, "hash");
		if (cJSON_IsString(h))
			snprintf(hash, 65, "%s", h->valuestring);
	}
	cJSON_Delete(row);
	return 0;
}

int store_audit_insert(store *s, long long seq, const char *prev_hash, const char *payload, const char *hash)
{
	return db_exec(s, "INSERT INTO audit (seq, prev_hash, payload, hash) VALUES (?, ?, ?, ?)", "isss", seq,
	               prev_hash, payload, hash);
}

int store_audit_each(store *s, store_audit_cb cb, void *arg)
{
	sqlite3_stmt *st = NULL;
	int rc = prepare(&st, s, "SELECT seq, prev_hash, payload, hash FROM audit ORDER BY seq");
	if (rc)
		return rc;
	int step;
	while ((step = sqlite3_step(st)) == SQLITE_ROW) {
		rc = cb(sqlite3_column_int64(st, 0), (const char *)sqlite3_column_text(st, 1),
		        (const char *)sqlite3_column_text(st, 2), (const char *)sqlite3_column_text(st, 3), arg);
		if (rc)
			break;
	}
	if (!rc && step != SQLITE_DONE)
		rc = db_fail(s, _("read audit"));
	sqlite3_finalize(st);
	return rc;
}
