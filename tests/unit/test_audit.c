/* Unit tests for the audit chain: canonical JSON, chaining, tamper detection. */
#include "testutil.h"

#include "audit.h"
#include "err.h"

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
	for (int i = 0; i < 5; i++) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddNumberToObject(d, "n", i);
		cJSON_AddStringToObject(d, "zeta", "last");
		cJSON_AddStringToObject(d, "alpha", "first");
		if (audit_append(NULL, fx->s, "check", "tester <t@example.org>", d) != 0)
			return -1;
	}
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

static void test_canonical_sorts_keys_recursively(void **state)
{
	(void)state;
	cJSON *v = cJSON_Parse("{\"b\":1,\"a\":{\"z\":[{\"y\":1,\"x\":2}],\"c\":\"s\"}}");
	char *text = audit_canonical(v);
	assert_string_equal(text, "{\"a\":{\"c\":\"s\",\"z\":[{\"x\":2,\"y\":1}]},\"b\":1}");
	free(text);
	cJSON_Delete(v);
}

static void test_intact_chain_verifies(void **state)
{
	struct fixture *fx = *state;
	long long bad = -1, n = 0;
	assert_int_equal(audit_verify(&bad, &n, fx->s, NULL), 0);
	assert_int_equal(n, 5);
	assert_int_equal(bad, 0);
	cJSON *evs = NULL;
	assert_int_equal(audit_events(&evs, fx->s), 0);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(evs, 0), "seq")->valueint, 5);
	cJSON_Delete(evs);
}

/* Runs SQL directly, dropping the append-only triggers first, as a tamperer would. */
static void tamper(struct fixture *fx, const char *sql)
{
	sqlite3 *db;
	assert_int_equal(sqlite3_open(fx->path, &db), SQLITE_OK);
	sqlite3_exec(db, "DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;", NULL, NULL, NULL);
	char *msg = NULL;
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, &msg), SQLITE_OK);
	sqlite3_close(db);
}

static void test_altered_event_named(void **state)
{
	struct fixture *fx = *state;
	tamper(fx, "UPDATE audit SET payload = replace(payload, 'first', 'forged') WHERE seq = 3");
	long long bad = 0;
	assert_int_equal(audit_verify(&bad, NULL, fx->s, NULL), FERRY_EFAIL);
	assert_int_equal(bad, 3);
	assert_non_null(strstr(err_message(), "audit event 3"));
}

static void test_removed_event_named(void **state)
{
	struct fixture *fx = *state;
	tamper(fx, "DELETE FROM audit WHERE seq = 2");
	long long bad = 0;
	assert_int_equal(audit_verify(&bad, NULL, fx->s, NULL), FERRY_EFAIL);
	assert_int_equal(bad, 2);
}

static void test_reordered_events_named(void **state)
{
	struct fixture *fx = *state;
	/* swap two rows' contents, keeping seq numbers */
	tamper(fx, "UPDATE audit SET seq = -4 WHERE seq = 4; UPDATE audit SET seq = 4 WHERE seq = 5;"
	           " UPDATE audit SET seq = 5 WHERE seq = -4;");
	long long bad = 0;
	assert_int_equal(audit_verify(&bad, NULL, fx->s, NULL), FERRY_EFAIL);
	assert_int_equal(bad, 4);
}

static void test_recomputed_hash_still_caught_by_next_link(void **state)
{
	struct fixture *fx = *state;
	/* alter event 2 and recompute its own hash: event 3 no longer follows it */
	char *payload = NULL;
	sqlite3 *db;
	sqlite3_open(fx->path, &db);
	sqlite3_stmt *st;
	sqlite3_prepare_v2(db, "SELECT prev_hash, payload FROM audit WHERE seq = 2", -1, &st, NULL);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	char *prev = xstrdup((const char *)sqlite3_column_text(st, 0));
	payload = xstrdup((const char *)sqlite3_column_text(st, 1));
	sqlite3_finalize(st);
	sqlite3_close(db);
	char *forged = xstrdup(payload);
	char *p = strstr(forged, "first");
	memcpy(p, "fir5t", 5);
	sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, "%s\n%s", prev, forged);
	char hash[65];
	util_sha256_hex(hash, b.buf, b.len);
	sbuf_done(&b);
	char *sql = xasprintf("UPDATE audit SET payload = '%s', hash = '%s' WHERE seq = 2", forged, hash);
	tamper(fx, sql);
	long long bad = 0;
	assert_int_equal(audit_verify(&bad, NULL, fx->s, NULL), FERRY_EFAIL);
	assert_int_equal(bad, 3);
	free(sql);
	free(forged);
	free(payload);
	free(prev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_canonical_sorts_keys_recursively, setup, teardown),
		cmocka_unit_test_setup_teardown(test_intact_chain_verifies, setup, teardown),
		cmocka_unit_test_setup_teardown(test_altered_event_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_removed_event_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reordered_events_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recomputed_hash_still_caught_by_next_link, setup, teardown),
	};
	return cmocka_run_group_tests_name("audit", tests, NULL, NULL);
}
