/* Unit tests for store: migrations, schema guard, findings identity, checkpoints. */
#include "phase.h"
#include "testutil.h"

#include "err.h"
#include "store.h"

#include <sqlite3.h>

struct fixture {
	char *dir;
	char *path;
	store *s;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	fx->dir = tu_mkdtemp();
	fx->path = util_path_join(fx->dir, "engagement.db");
	if (store_open(&fx->s, fx->path, 1) != 0)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	store_close(fx->s);
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx->path);
	free(fx);
	return 0;
}

static void test_migrations_set_user_version(void **state)
{
	struct fixture *fx = *state;
	sqlite3 *db;
	assert_int_equal(sqlite3_open(fx->path, &db), SQLITE_OK);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(st, 0), store_schema_version());
	sqlite3_finalize(st);
	sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
	sqlite3_finalize(st);
	sqlite3_close(db);
	assert_int_equal(store_integrity(fx->s), 0);
}

static void test_newer_schema_refused(void **state)
{
	struct fixture *fx = *state;
	sqlite3 *db;
	sqlite3_open(fx->path, &db);
	sqlite3_exec(db, "PRAGMA user_version = 999", NULL, NULL, NULL);
	sqlite3_close(db);
	store *other = NULL;
	assert_int_equal(store_open(&other, fx->path, 0), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "newer"));
	assert_non_null(strstr(err_message(), fx->path));
	assert_null(other);
}

static void test_not_a_database(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->dir, "junk.db", "this is not an SQLite database, just text that is long enough to matter....");
	char *p = util_path_join(fx->dir, "junk.db");
	store *other = NULL;
	int rc = store_open(&other, p, 0);
	assert_true(rc == FERRY_ECORRUPT || rc == FERRY_EDB);
	assert_non_null(strstr(err_message(), p));
	free(p);
}

static finding make_finding(const char *fp, int line)
{
	finding f = { 0 };
	f.plugin = "assess.device_calls";
	f.phase = phase_index("assess");
	f.severity = SEVERITY_WARNING;
	f.file = "train.py";
	f.line = line;
	f.col = 5;
	f.message = "x.cuda() moves a tensor to a CUDA device";
	f.suggestion = "use .npu()";
	f.fingerprint = (char *)fp;
	return f;
}

static void test_finding_upsert_keeps_identity(void **state)
{
	struct fixture *fx = *state;
	long long run1, run2;
	assert_int_equal(store_run_begin(&run1, fx->s, "tester", "{\"phases\":[\"assess\"]}", NULL), 0);
	finding f = make_finding("abc", 10);
	assert_int_equal(store_finding_upsert(fx->s, run1, &f), 0);
	long long id = f.id;
	assert_true(id > 0);
	/* the same code moved down two lines: same identity, new line */
	assert_int_equal(store_run_begin(&run2, fx->s, "tester", "{\"phases\":[\"assess\"]}", NULL), 0);
	finding g = make_finding("abc", 12);
	assert_int_equal(store_finding_upsert(fx->s, run2, &g), 0);
	assert_int_equal(g.id, id);
	assert_int_equal(g.status, STATUS_OPEN);
	cJSON *rows = NULL;
	assert_int_equal(store_findings(&rows, fx->s, NULL), 0);
	assert_int_equal(cJSON_GetArraySize(rows), 1);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "line")->valueint, 12);
	cJSON_Delete(rows);
}

static void test_unseen_findings_close_and_waivers_survive(void **state)
{
	struct fixture *fx = *state;
	long long run1, run2;
	store_run_begin(&run1, fx->s, "t", "{}", NULL);
	finding a = make_finding("a", 1), b = make_finding("b", 2);
	store_finding_upsert(fx->s, run1, &a);
	store_finding_upsert(fx->s, run1, &b);
	assert_int_equal(store_waiver_add(fx->s, b.id, "vendor kernel kept on purpose", "auditor"), 0);
	store_run_begin(&run2, fx->s, "t", "{}", NULL);
	finding b2 = make_finding("b", 5);
	store_finding_upsert(fx->s, run2, &b2);
	assert_int_equal(b2.status, STATUS_WAIVED);
	int closed = 0;
	assert_int_equal(store_findings_close_unseen(&closed, fx->s, run2, "[\"assess.device_calls\"]"), 0);
	assert_int_equal(closed, 1);
	store_finding_filter fl = { NULL, "fixed", NULL, NULL, 0, 0 };
	cJSON *rows = NULL;
	store_findings(&rows, fx->s, &fl);
	assert_int_equal(cJSON_GetArraySize(rows), 1);
	assert_int_equal((long long)cJSON_GetObjectItem(cJSON_GetArrayItem(rows, 0), "id")->valuedouble, a.id);
	cJSON_Delete(rows);
	/* a fixed finding seen again reopens */
	long long run3;
	store_run_begin(&run3, fx->s, "t", "{}", NULL);
	finding a2 = make_finding("a", 1);
	store_finding_upsert(fx->s, run3, &a2);
	assert_int_equal(a2.status, STATUS_OPEN);
	cJSON *w = NULL;
	store_waivers(&w, fx->s);
	assert_int_equal(cJSON_GetArraySize(w), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(w, 0), "reason")->valuestring,
	                    "vendor kernel kept on purpose");
	cJSON_Delete(w);
}

static void test_audit_rows_are_append_only(void **state)
{
	struct fixture *fx = *state;
	assert_int_equal(store_audit_insert(fx->s, 1, "0", "{}", "h1"), 0);
	sqlite3 *db;
	sqlite3_open(fx->path, &db);
	assert_int_not_equal(sqlite3_exec(db, "UPDATE audit SET payload = 'x'", NULL, NULL, NULL), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(db, "DELETE FROM audit", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
}

static void test_checkpoints_newest_first(void **state)
{
	struct fixture *fx = *state;
	store_checkpoint a = { "1111111111111111111111111111111111111111", "baseline", "Baseline", "t", NULL, NULL, NULL, 0 };
	store_checkpoint b = { "2222222222222222222222222222222222222222", "fix", "Fix", "t", "adapt", "adapt.cuda_calls",
		                   "[1,2]", 0 };
	long long ida, idb;
	assert_int_equal(store_checkpoint_add(&ida, fx->s, &a), 0);
	assert_int_equal(store_checkpoint_add(&idb, fx->s, &b), 0);
	cJSON *rows = NULL;
	assert_int_equal(store_checkpoints(&rows, fx->s), 0);
	cJSON *first = cJSON_GetArrayItem(rows, 0);
	assert_int_equal((long long)cJSON_GetObjectItem(first, "id")->valuedouble, idb);
	assert_string_equal(cJSON_GetObjectItem(first, "kind")->valuestring, "fix");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(first, "findings")), 2);
	cJSON_Delete(rows);
	/* a duplicate commit is refused by the schema */
	assert_int_not_equal(store_checkpoint_add(NULL, fx->s, &b), 0);
}

static void test_config_roundtrip(void **state)
{
	struct fixture *fx = *state;
	assert_int_equal(store_config_set(fx->s, "target.soc", "Ascend910B2"), 0);
	assert_int_equal(store_config_set(fx->s, "target.soc", "Ascend310P3"), 0);
	char *v = store_config_get(fx->s, "target.soc");
	assert_string_equal(v, "Ascend310P3");
	free(v);
	assert_null(store_config_get(fx->s, "nothing"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_migrations_set_user_version, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newer_schema_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
		cmocka_unit_test_setup_teardown(test_finding_upsert_keeps_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unseen_findings_close_and_waivers_survive, setup, teardown),
		cmocka_unit_test_setup_teardown(test_audit_rows_are_append_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoints_newest_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_config_roundtrip, setup, teardown),
	};
	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
