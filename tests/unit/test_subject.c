/* Unit tests for subject: ferry's checkpoint subjects are English in the history and
 * read back into the reader's language, and nobody else's subject is touched. */
#include "testutil.h"

#include "intl.h"
#include "subject.h"

static void expect_show(const char *message, const char *want)
{
	char *got = subject_show(message);
	assert_string_equal(got, want);
	free(got);
}

static void test_english_record(void **state)
{
	(void)state;
	intl_set_lang("en");
	char *s = subject_fix("adapt.amp", 1, 1, 1);
	assert_string_equal(s, "adapt.amp: fix 1 finding (1 edit in 1 file)");
	free(s);
	s = subject_fix("adapt.cuda_apis", 9, 12, 2);
	assert_string_equal(s, "adapt.cuda_apis: fix 9 findings (12 edits in 2 files)");
	intl_set_lang("zh"); /* the record stays English whatever the reader's language */
	char *again = subject_fix("adapt.cuda_apis", 9, 12, 2);
	assert_string_equal(again, s);
	free(again);
	char *r = subject_revert(s, "0123456789abcdef");
	assert_string_equal(r, "Revert \"adapt.cuda_apis: fix 9 findings (12 edits in 2 files)\"\n\n"
	                       "This reverts commit 0123456789abcdef.");
	free(r);
	free(s);
	intl_set_lang("en");
}

static void test_shown_in_chinese(void **state)
{
	(void)state;
	intl_set_lang("zh");
	expect_show("adapt.amp: fix 2 findings (3 edits in 1 file)\n\nbody", "adapt.amp：修复 2 个问题（3 处修改，涉及 1 个文件）");
	expect_show("Revert \"Revert \"adapt.amp: fix 1 finding (1 edit in 1 file)\"\"\n\nThis reverts commit x.",
	            "回退“回退“adapt.amp：修复 1 个问题（1 处修改，涉及 1 个文件）””");
	expect_show(subject_baseline, "基线：接收时的项目");
	/* anybody else's subject, and near misses of ferry's own, stay as written */
	expect_show("fix: typo in README", "fix: typo in README");
	expect_show("x: fix 2 findings (oops)", "x: fix 2 findings (oops)");
	expect_show("x: fix two findings (1 edit in 1 file)", "x: fix two findings (1 edit in 1 file)");
	expect_show("phase", "phase"); /* a catalog word as a subject is not translated */
	expect_show("", "");
	intl_set_lang("en");
	expect_show("adapt.amp: fix 2 findings (3 edits in 1 file)", "adapt.amp: fix 2 findings (3 edits in 1 file)");
}

int main(void)
{
	/* the catalogs of the source tree (tests run from its top) */
	setenv("FERRY_LOCALEDIR", "build/locale", 0);
	setenv("FERRY_LANG", "en", 1);
	intl_init();
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_english_record), cmocka_unit_test(test_shown_in_chinese) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
