/* Unit tests for workspace: init refusal, checkpoints with trailers, outside edits,
 * and recovery from a crash between the git commit and its record, or mid-edit. */
#include "testutil.h"

#include "audit.h"
#include "err.h"
#include "workspace.h"

struct fixture {
	char *dir;
	workspace *ws;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	fx->dir = tu_mkdtemp();
	tu_write(fx->dir, "train.py", "import torch\nx = torch.zeros(1).cuda()\n");
	setenv("FERRY_ACTOR", "Unit Test <unit@example.org>", 1);
	ws_init_opts o = { "Client", "eng-1", "Ascend910B2" };
	if (ws_init(&fx->ws, fx->dir, &o) != 0)
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	ws_close(fx->ws);
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

static long long count_checkpoints(workspace *ws)
{
	cJSON *cps = NULL;
	assert_int_equal(store_checkpoints(&cps, ws->db), 0);
	long long n = cJSON_GetArraySize(cps);
	cJSON_Delete(cps);
	return n;
}

static void test_second_init_refused(void **state)
{
	struct fixture *fx = *state;
	workspace *again = NULL;
	assert_int_equal(ws_init(&again, fx->dir, NULL), FERRY_EEXISTS);
	assert_non_null(strstr(err_message(), "already exists"));
	assert_null(again);
}

static void test_checkpoint_trailers_and_audit(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->dir, "train.py", "import torch\nx = torch.zeros(1).npu()\n");
	const char *paths[] = { "train.py" };
	ws_checkpoint_req req = { "fix", "adapt.device: fix 1 finding", "adapt", "adapt.device", "[7]", paths, 1, 0, NULL };
	long long id = 0;
	char oid[41];
	assert_int_equal(ws_checkpoint(&id, oid, fx->ws, &req), 0);
	assert_true(id > 0);
	history_commit_info info;
	assert_int_equal(history_commit_info_get(&info, fx->ws->hist, oid), 0);
	char *phase = history_trailer_value(info.message, "Phase"), *check = history_trailer_value(info.message, "Check");
	char *findings = history_trailer_value(info.message, "Findings"), *actor = history_trailer_value(info.message, "Actor");
	char *audit = history_trailer_value(info.message, "Audit");
	assert_string_equal(phase, "adapt");
	assert_string_equal(check, "adapt.device");
	assert_string_equal(findings, "[7]");
	assert_string_equal(actor, "Unit Test <unit@example.org>");
	assert_int_equal(strlen(audit), 64);
	free(phase), free(check), free(findings), free(actor), free(audit);
	history_commit_info_done(&info);
	long long bad = 0, n = 0;
	assert_int_equal(audit_verify(&bad, &n, fx->ws->db, fx->ws->hist), 0);
}

static void test_outside_edit_becomes_manual_checkpoint(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->dir, "notes.py", "print('hello')\n");
	int made = 0;
	assert_int_equal(ws_sync(fx->ws, &made), 0);
	assert_int_equal(made, 1);
	cJSON *cps = NULL;
	store_checkpoints(&cps, fx->ws->db);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cps, 0), "kind")->valuestring, "manual");
	cJSON_Delete(cps);
	assert_int_equal(ws_sync(fx->ws, &made), 0);
	assert_int_equal(made, 0); /* nothing new: no empty checkpoint */
}

static void test_commit_without_record_is_recovered(void **state)
{
	struct fixture *fx = *state;
	/* a process committed, then died before recording the checkpoint */
	tu_write(fx->dir, "train.py", "import torch\n");
	char head[65], oid[41];
	audit_head(head, fx->ws->db);
	history_trailer tr[] = { { "Check", "adapt.device" }, { "Audit", head } };
	history_sig sig = { "Unit Test", "unit@example.org" };
	int made = 0;
	assert_int_equal(history_commit(oid, &made, fx->ws->hist, NULL, 0, "adapt.device: fix", tr, 2, &sig), 0);
	long long before = count_checkpoints(fx->ws);
	assert_int_equal(ws_sync(fx->ws, NULL), 0);
	assert_int_equal(count_checkpoints(fx->ws), before + 1);
	cJSON *cp = NULL;
	store_checkpoint_by_commit(&cp, fx->ws->db, oid);
	assert_non_null(cp);
	assert_string_equal(cJSON_GetObjectItem(cp, "kind")->valuestring, "recovered");
	assert_string_equal(cJSON_GetObjectItem(cp, "plugin")->valuestring, "adapt.device");
	cJSON_Delete(cp);
	long long bad = 0;
	assert_int_equal(audit_verify(&bad, NULL, fx->ws->db, fx->ws->hist), 0);
}

static void test_interrupted_edit_is_recovered_under_its_name(void **state)
{
	struct fixture *fx = *state;
	static const char planned[] = "import torch\nx = torch.zeros(1).npu()\n";
	const char *paths[] = { "train.py" };
	char sum[65];
	util_sha256_hex(sum, planned, sizeof planned - 1);
	const char *sums[] = { sum };
	ws_checkpoint_req req = { "fix", "adapt.device: fix 1 finding", "adapt", "adapt.device", "[3]", paths, 1, 0, NULL };
	assert_int_equal(ws_pending_begin(fx->ws, &req, sums), 0);
	tu_write(fx->dir, "train.py", planned); /* ... and the process dies */
	tu_write(fx->dir, "notes.txt", "the user's own edit\n");
	assert_int_equal(ws_sync(fx->ws, NULL), 0);
	cJSON *cps = NULL;
	store_checkpoints(&cps, fx->ws->db);
	/* the planned file under the edit's name, then the user's edit as a manual one */
	cJSON *newest = cJSON_GetArrayItem(cps, 0), *recovered = cJSON_GetArrayItem(cps, 1);
	assert_string_equal(cJSON_GetObjectItem(newest, "kind")->valuestring, "manual");
	assert_string_equal(cJSON_GetObjectItem(recovered, "kind")->valuestring, "recovered");
	assert_non_null(strstr(cJSON_GetObjectItem(recovered, "message")->valuestring, "adapt.device: fix 1 finding"));
	assert_string_equal(cJSON_GetObjectItem(recovered, "plugin")->valuestring, "adapt.device");
	cJSON_Delete(cps);
	char *pending = tu_read(fx->dir, ".ferry/pending.json");
	assert_null(pending);
}

/* A journal whose edit never wrote (killed at its first write): a change the user made
 * to the planned file is not what was planned, so it is the user's, not ferry's. */
static void test_unplanned_content_is_a_manual_edit(void **state)
{
	struct fixture *fx = *state;
	const char *paths[] = { "train.py" };
	char sum[65];
	util_sha256_hex(sum, "planned\n", 8);
	const char *sums[] = { sum };
	ws_checkpoint_req req = { "revert", "Revert \"x\"", NULL, NULL, NULL, paths, 1, 0, NULL };
	assert_int_equal(ws_pending_begin(fx->ws, &req, sums), 0);
	tu_write(fx->dir, "train.py", "import torch\n# the user's own line\n");
	assert_int_equal(ws_sync(fx->ws, NULL), 0);
	cJSON *cps = NULL;
	store_checkpoints(&cps, fx->ws->db);
	cJSON *newest = cJSON_GetArrayItem(cps, 0);
	assert_string_equal(cJSON_GetObjectItem(newest, "kind")->valuestring, "manual");
	assert_null(strstr(cJSON_GetObjectItem(newest, "message")->valuestring, "Revert"));
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(cps, 1), "kind")->valuestring, "baseline");
	cJSON_Delete(cps);
	assert_null(tu_read(fx->dir, ".ferry/pending.json"));
}

static void test_resolve_ids_and_baseline(void **state)
{
	struct fixture *fx = *state;
	char a[41], b[41];
	assert_int_equal(ws_resolve(a, fx->ws, "1"), 0);
	assert_int_equal(ws_resolve(b, fx->ws, "baseline"), 0);
	assert_string_equal(a, b);
	assert_int_equal(ws_resolve(a, fx->ws, "42"), FERRY_ENOTFOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_second_init_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checkpoint_trailers_and_audit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_outside_edit_becomes_manual_checkpoint, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_without_record_is_recovered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_edit_is_recovered_under_its_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unplanned_content_is_a_manual_edit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve_ids_and_baseline, setup, teardown),
	};
	return cmocka_run_group_tests_name("workspace", tests, NULL, NULL);
}
