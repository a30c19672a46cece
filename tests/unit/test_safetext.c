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

static void expect_quote(const char *in, const char *want)
{
	char *got = safetext_quote_line(in);
	assert_string_equal(got, want);
	free(got);
}

/* Code a finding quotes spans lines in real projects (a constructor call with one argument
 * per line before `.cuda()`); inside a one-line message it is joined, and a long call
 * shows its callee only. */
static void test_quote_line(void **state)
{
	(void)state;
	expect_quote("model.cuda", "model.cuda"); /* one line: as it is, whatever its length */
	expect_quote("x" "0123456789012345678901234567890123456789012345678901234567890123456789",
	             "x" "0123456789012345678901234567890123456789012345678901234567890123456789");
	expect_quote("Net(\n    depth = 2,\n    heads = 8\n)", "Net(depth = 2, heads = 8)");
	expect_quote("LookViT(\n        image_size = 256,\n        num_classes = 1000,\n        dim = 512,\n"
	             "        depth = 2,\n        heads = 8,\n        dropout = 0.1\n    )",
	             "LookViT(…)");
	expect_quote("torch.cuda.is_available() and\r\n    args.gpu is not None", "torch.cuda.is_available() and args.gpu is not None");
	/* long and not one call: cut at a character boundary */
	expect_quote("msg = ('0123456789' +\n       '01234567890123456789012345678901' '中文')",
	             "msg = ('0123456789' + '01234567890123456789012345678901' '…"); /* 中 would end past 60 */
	expect_quote("f(a)\n.g(bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb)",
	             "f(a).g(" "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb…");
	expect_quote("trailing\n", "trailing");
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_clean), cmocka_unit_test(test_terminal),
		                            cmocka_unit_test(test_quote_line) };
	return cmocka_run_group_tests_name("safetext", tests, NULL, NULL);
}
