/* Unit tests for the replay of the audit chain against the state tables: events written
 * by this version, events from before the payloads were extended, an unwaive event, a
 * kind the replay does not know. */
#include "phase.h"
#include "testutil.h"

#include "audit.h"
#include "replay.h"
#include "err.h"

struct fixture {
	char *dir;
	store *s;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	fx->dir = tu_mkdtemp();
	char *path = util_path_join(fx->dir, "engagement.db");
	int rc = store_open(&fx->s, path, 1);
	free(path);
	*state = fx;
	return rc ? -1 : 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	store_close(fx->s);
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

static void event(struct fixture *fx, const char *kind, const char *actor, const char *data)
{
	assert_int_equal(audit_append(NULL, fx->s, kind, actor, cJSON_Parse(data)), 0);
}

static long long add_finding(struct fixture *fx, const char *fp)
{
	finding f = { 0 };
	f.plugin = "assess.p";
	f.phase = phase_index("assess");
	f.severity = SEVERITY_WARNING;
	f.file = "a.py";
	f.message = "m";
	f.fingerprint = (char *)fp;
	long long run = 0;
	assert_int_equal(store_run_begin(&run, fx->s, "t", "{}", NULL), 0);
	assert_int_equal(store_finding_upsert(fx->s, run, &f), 0);
	return f.id;
}

/* The problems audit_check reports, as one string of "table id field" lines. */
static char *problems(struct fixture *fx)
{
	audit_report rep;
	assert_int_equal(audit_check(&rep, fx->s, NULL, NULL), 0);
	sbuf b;
	sbuf_init(&b);
	const cJSON *p;
	cJSON_ArrayForEach(p, rep.problems) {
		const cJSON *id = cJSON_GetObjectItem(p, "id"), *field = cJSON_GetObjectItem(p, "field");
		sbuf_addf(&b, "%s %s %s\n", cJSON_GetObjectItem(p, "table")->valuestring,
		          cJSON_IsNumber(id) ? "#" : (cJSON_IsString(id) ? id->valuestring : "-"),
		          cJSON_IsString(field) ? field->valuestring : "-");
	}
	audit_report_done(&rep);
	char *out = sbuf_detach(&b);
	return out ? out : xstrdup("");
}

static void test_older_events_checked_for_what_they_carry(void **state)
{
	struct fixture *fx = *state;
	/* a check event without "changes" and a waive event without a waiver id, as
	 * recorded before the payloads were extended */
	long long id = add_finding(fx, "fp1");
	event(fx, "check", "a <a@x>", "{\"run\":1,\"findings\":1}");
	assert_int_equal(store_waiver_add(fx->s, id, "kept", "a <a@x>"), 0);
	event(fx, "waive", "a <a@x>", "{\"finding\":1,\"reason\":\"kept\"}");
	char *p = problems(fx);
	assert_string_equal(p, "");
	free(p);
	/* the old waive event still says the finding is waived, and what the waiver says */
	assert_int_equal(store_finding_set_status(fx->s, id, "open", 0), 0);
	p = problems(fx);
	assert_string_equal(p, "findings # status\n");
	free(p);
}

static void test_new_events_account_for_every_row(void **state)
{
	struct fixture *fx = *state;
	long long a = add_finding(fx, "fa"), b = add_finding(fx, "fb");
	(void)b;
	event(fx, "check", "a <a@x>", "{\"changes\":[[1,\"fa\",\"open\"]]}");
	char *p = problems(fx);
	assert_string_equal(p, "findings # -\n"); /* finding 2 was never recorded */
	free(p);
	event(fx, "check", "a <a@x>", "{\"changes\":[[2,\"fb\",\"open\"]]}");
	assert_int_equal(store_waiver_add(fx->s, a, "r", "a <a@x>"), 0);
	event(fx, "waive", "a <a@x>", "{\"finding\":1,\"waiver\":1,\"reason\":\"r\"}");
	p = problems(fx);
	assert_string_equal(p, "");
	free(p);
	/* another engineer's unwaive event: the finding reopens, its waiver row may stay */
	assert_int_equal(store_finding_set_status(fx->s, a, "open", 0), 0);
	event(fx, "unwaive", "a <a@x>", "{\"finding_ids\":[1],\"reason\":\"client changed its mind\"}");
	/* a kind this version does not know changes nothing */
	event(fx, "telepathy", "a <a@x>", "{\"finding\":2}");
	p = problems(fx);
	assert_string_equal(p, "");
	free(p);
}

static void test_changes_name_new_and_moved_findings(void **state)
{
	(void)state;
	cJSON *before = cJSON_Parse("[{\"id\":1,\"fingerprint\":\"a\",\"status\":\"open\",\"fixed_by\":null},"
	                            "{\"id\":2,\"fingerprint\":\"b\",\"status\":\"fixed\",\"fixed_by\":3}]");
	cJSON *after = cJSON_Parse("[{\"id\":1,\"fingerprint\":\"a\",\"status\":\"open\",\"fixed_by\":null},"
	                           "{\"id\":2,\"fingerprint\":\"b\",\"status\":\"open\",\"fixed_by\":null},"
	                           "{\"id\":3,\"fingerprint\":\"c\",\"status\":\"open\",\"fixed_by\":null}]");
	cJSON *ch = replay_finding_changes(before, after);
	char *text = cJSON_PrintUnformatted(ch);
	assert_string_equal(text, "[[2,\"b\",\"open\"],[3,\"c\",\"open\"]]");
	free(text);
	cJSON_Delete(ch);
	cJSON_Delete(before);
	cJSON_Delete(after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_older_events_checked_for_what_they_carry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_events_account_for_every_row, setup, teardown),
		cmocka_unit_test(test_changes_name_new_and_moved_findings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
