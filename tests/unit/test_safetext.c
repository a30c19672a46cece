/* Unit tests for safetext: plugin strings repaired to valid UTF-8 with control
 * characters made visible, and text escaped for a terminal. */
#include "testutil.h"

#include "safetext.h"

static void expect_clean(const char *in, size_t len, const char *want)
{
	char *got = safetext_clean(in, len);
	assert_string_equal(got, want);
	assert_true(util_utf8_valid(got, strlen(got)));
	free(got);
}

static void test_clean(void **state)
{
	(void)state;
	expect_clean("plain text, 中文, tab\tand\nnewline", strlen("plain text, 中文, tab\tand\nnewline"),
	             "plain text, 中文, tab\tand\nnewline");
	expect_clean("a\xff\xfe" "b", 4, "a\xEF\xBF\xBD\xEF\xBF\xBD" "b");
	expect_clean("over\xc0\x80long", 10, "over\xEF\xBF\xBD\xEF\xBF\xBDlong");
	expect_clean("cut \xe4\xb8", 6, "cut \xEF\xBF\xBD\xEF\xBF\xBD");
	expect_clean("nul\0x", 5, "nul\xEF\xBF\xBDx");
	expect_clean("\x1b[2Jred\x7f", 8, "\\x1b[2Jred\\x7f");
	expect_clean("c1 \xc2\x85 nbsp \xc2\xa0", 13, "c1 \\u0085 nbsp \xc2\xa0");
	expect_clean("", 0, "");
}

static void test_terminal(void **state)
{
	(void)state;
	char *got = safetext_terminal("evil\x1b]0;title\x07.py \xff ok 中");
	assert_string_equal(got, "evil\\x1b]0;title\\x07.py \\xff ok 中");
	free(got);
	sbuf b;
	sbuf_init(&b);
	safetext_add_terminal(&b, "line\r\n\tnext");
	safetext_add_terminal(&b, NULL);
	assert_string_equal(b.buf, "line\\x0d\n\tnext");
	sbuf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_clean), cmocka_unit_test(test_terminal) };
	return cmocka_run_group_tests_name("safetext", tests, NULL, NULL);
}
