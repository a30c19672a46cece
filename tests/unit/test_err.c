/* Unit tests for err: the record keeps a message naming two of the longest paths whole,
 * context goes in front, and a message longer than the record is cut on a whole UTF-8
 * character and says so with "…". */
#include "testutil.h"

#include "err.h"

/* A path of n bytes made of a three-byte character and a slash, repeated. */
static char *long_path(size_t n)
{
	char *p = xcalloc(n + 1, 1);
	for (size_t i = 0; i + 4 <= n; i += 4)
		memcpy(p + i, "\xE5\xB1\x82/", 4); /* 层/ */
	return p;
}

static void test_two_longest_paths_kept_whole(void **state)
{
	(void)state;
	char *a = long_path(4096), *b = long_path(4092);
	assert_int_equal(err_set(FERRY_ECORRUPT, "%s: no loss values found", a), FERRY_ECORRUPT);
	err_prefix("compare %s and", b);
	const char *m = err_message();
	assert_true(util_starts_with(m, "compare \xE5\xB1\x82/"));
	assert_true(util_ends_with(m, ": no loss values found")); /* the reason is the end: never lost */
	assert_int_equal(strlen(m), strlen("compare  and: ") + 4096 + 4092 + strlen(": no loss values found"));
	assert_int_equal(err_code(), FERRY_ECORRUPT);
	free(a);
	free(b);
}

static void test_longer_message_cut_on_a_character(void **state)
{
	(void)state;
	for (size_t shift = 0; shift < 3; shift++) { /* the cut falls on each byte of a character */
		char *p = long_path(3 * ERR_MAX);
		err_set(FERRY_EIO, "%.*s%s: unreadable", (int)shift, "xyz", p);
		const char *m = err_message();
		size_t len = strlen(m);
		assert_true(len < ERR_MAX);
		assert_true(len > ERR_MAX - 8);
		assert_true(util_utf8_valid(m, len));
		assert_true(util_ends_with(m, "\xE2\x80\xA6"));
		free(p);
	}
}

static void test_prefix_cuts_the_old_message_on_a_character(void **state)
{
	(void)state;
	char *p = long_path(ERR_MAX - 2);
	err_set(FERRY_EIO, "%s", p);
	err_prefix("ingest loss-log");
	const char *m = err_message();
	assert_true(util_starts_with(m, "ingest loss-log: \xE5\xB1\x82/"));
	assert_true(util_utf8_valid(m, strlen(m)));
	assert_true(util_ends_with(m, "\xE2\x80\xA6"));
	free(p);
}

static void test_overlong_context_keeps_the_message(void **state)
{
	(void)state;
	char *p = long_path(ERR_MAX);
	err_set(FERRY_EUSAGE, "train.log: not a loss log");
	err_prefix("%s", p);
	assert_string_equal(err_message(), "train.log: not a loss log");
	assert_int_equal(err_code(), FERRY_EUSAGE);
	free(p);
}

static void test_one_line(void **state)
{
	(void)state;
	err_set(FERRY_EPLUGIN, "plugin failed:\nline 2\r\nline 3");
	assert_string_equal(err_message(), "plugin failed: line 2  line 3");
	err_clear();
	assert_string_equal(err_message(), "");
	assert_int_equal(err_code(), FERRY_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_longest_paths_kept_whole),
		cmocka_unit_test(test_longer_message_cut_on_a_character),
		cmocka_unit_test(test_prefix_cuts_the_old_message_on_a_character),
		cmocka_unit_test(test_overlong_context_keeps_the_message),
		cmocka_unit_test(test_one_line),
	};
	return cmocka_run_group_tests_name("err", tests, NULL, NULL);
}
