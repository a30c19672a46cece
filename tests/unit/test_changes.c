/* Unit tests for the change list's words for an edit: a row says what ferry did to the
 * code (the words that changed, a line added or removed), not only which finding it
 * settled. */
#include "testutil.h"

#include "changes.h"

static void expect_edit(const char *before, const char *after, const char *want)
{
	char *t = changes_edit_text(before, after);
	if (strcmp(t, want) != 0)
		fail_msg("edit of [%s] -> [%s]: got [%s], want [%s]", before, after, t, want);
	free(t);
}

static void test_changed_line_names_the_words_that_differ(void **state)
{
	(void)state;
	expect_edit("    torch.cuda.synchronize()\n", "    torch.npu.synchronize()\n",
	            "`torch.cuda.synchronize()` → `torch.npu.synchronize()`");
	expect_edit("    model = model.to(device).cuda(rank)\n", "    model = model.to(device).npu(rank)\n",
	            "`model.to(device).cuda(rank)` → `model.to(device).npu(rank)`");
	expect_edit("dist.init_process_group(backend=\"nccl\", init_method=url)\r\n",
	            "dist.init_process_group(backend=\"hccl\", init_method=url)\r\n",
	            "`dist.init_process_group(backend=\"nccl\",` → `dist.init_process_group(backend=\"hccl\",`");
}

static void test_added_and_removed_lines(void **state)
{
	(void)state;
	expect_edit("", "import torch_npu\n", "added `import torch_npu`");
	expect_edit("", "import torch_npu\nfrom torch_npu.contrib import transfer_to_npu\n",
	            "added 2 lines, with `import torch_npu`");
	/* the line that says most, not the `try:` of a guarded import */
	expect_edit("", "try:\n    # NPU first\n    import torch_npu\nexcept ImportError:\n    pass\n",
	            "added 5 lines, with `import torch_npu`");
	expect_edit("    torch.backends.cudnn.benchmark = True\n", "", "removed `torch.backends.cudnn.benchmark = True`");
	expect_edit("", "", "");
}

static void test_several_lines_and_long_code(void **state)
{
	(void)state;
	expect_edit("a = x.cuda()\nb = y.cuda()\nc = 1\nd = z.cuda()\ne = w.cuda()\n",
	            "a = x.npu()\nb = y.npu()\nc = 1\nd = z.npu()\ne = w.npu()\n",
	            "`x.cuda()` → `x.npu()`; `y.cuda()` → `y.npu()`; `z.cuda()` → `z.npu()`; and 1 more line changed");
	expect_edit("if torch.cuda.is_available():\n", "if torch.npu.is_available():\n    torch.npu.set_device(0)\n",
	            "`torch.cuda.is_available():` → `torch.npu.is_available():` (1 line became 2)");
	/* a change inside a long run of code without blanks is quoted whole, cut on a character */
	char before[300], after[300];
	memset(before, 'x', 200);
	memcpy(before + 60, "\xE5\xB1\x82", 3);
	strcpy(before + 200, ".cuda()\n");
	memcpy(after, before, 200);
	strcpy(after + 200, ".npu()\n");
	char *t = changes_edit_text(before, after);
	assert_true(util_starts_with(t, "`xxx"));
	assert_non_null(strstr(t, "…` → `"));
	assert_true(util_utf8_valid(t, strlen(t)));
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_changed_line_names_the_words_that_differ),
		cmocka_unit_test(test_added_and_removed_lines),
		cmocka_unit_test(test_several_lines_and_long_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
