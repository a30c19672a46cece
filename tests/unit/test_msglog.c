/* The workbench's message log: newest first, each text whole and copied, the oldest
 * giving way once MSGLOG_MAX are held. */
#include "testutil.h"

#include "msglog.h"

static void test_newest_first_and_copied(void **state)
{
	(void)state;
	msglog *l = msglog_new();
	assert_int_equal(msglog_count(l), 0);
	assert_null(msglog_get(l, 0));
	char text[64] = "first";
	const char *kept = msglog_add(l, 3, text);
	snprintf(text, sizeof text, "changed after");
	assert_string_equal(kept, "first");
	msglog_add(l, 5, "second, a message longer than any line it was shown on");
	assert_int_equal(msglog_count(l), 2);
	assert_string_equal(msglog_get(l, 0)->text, "second, a message longer than any line it was shown on");
	assert_int_equal(msglog_get(l, 0)->attr, 5);
	assert_string_equal(msglog_get(l, 1)->text, "first");
	assert_true(msglog_get(l, 1)->at > 0);
	assert_null(msglog_get(l, 2));
	msglog_free(l);
	msglog_free(NULL);
}

static void test_oldest_give_way(void **state)
{
	(void)state;
	msglog *l = msglog_new();
	for (int i = 0; i < MSGLOG_MAX + 5; i++) {
		char text[32];
		snprintf(text, sizeof text, "message %d", i);
		msglog_add(l, 0, text);
	}
	assert_int_equal(msglog_count(l), MSGLOG_MAX);
	char want[32];
	snprintf(want, sizeof want, "message %d", MSGLOG_MAX + 4);
	assert_string_equal(msglog_get(l, 0)->text, want);
	assert_string_equal(msglog_get(l, MSGLOG_MAX - 1)->text, "message 5");
	assert_null(msglog_get(l, MSGLOG_MAX));
	msglog_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_newest_first_and_copied),
		cmocka_unit_test(test_oldest_give_way),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
