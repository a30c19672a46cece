/* Whether a change ferry made still holds: by the text it put in, whatever else a person
 * did to its lines since. */
#include "testutil.h"

#include "hold.h"

static const char *const cuda = "x = torch.randn(8, 4).cuda()\n";
static const char *const npu = "x = torch.randn(8, 4).npu()\n";

static void test_a_line_built_on_holds(void **state)
{
	(void)state;
	assert_int_equal(hold_still(cuda, npu, npu), 1);
	assert_int_equal(hold_still(cuda, npu, "x = torch.randn(8, 4).npu(non_blocking=True)\n"), 1);
	assert_int_equal(hold_still(cuda, npu, "x = torch.randn(8, 4).npu()  # on the NPU\n"), 1);
	assert_int_equal(hold_still(cuda, npu, "y = torch.randn(8, 4).npu().half()\n"), 1);
	/* reindented and rewrapped: white space is not text */
	assert_int_equal(hold_still(cuda, npu, "    x = torch.randn(\n        8, 4\n    ).npu()\n"), 1);
}

static void test_a_line_put_back_is_undone(void **state)
{
	(void)state;
	assert_int_equal(hold_still(cuda, npu, cuda), 0);
	assert_int_equal(hold_still(cuda, npu, "x = torch.randn(8, 4).cuda(non_blocking=True)\n"), 0);
	/* the word alone, without the call it was, is not ferry's change */
	assert_int_equal(hold_still(cuda, npu, "x = torch.randn(8, 4).cuda()  # npu() hangs here\n"), 0);
	assert_int_equal(hold_still(cuda, npu, ""), 0); /* the line deleted */
}

static void test_one_line_of_several_is_enough(void **state)
{
	(void)state;
	const char *old = "model = net.cuda()\nx = x.cuda()\n", *nw = "model = net.npu()\nx = x.npu()\n";
	assert_int_equal(hold_still(old, nw, "model = net.npu()\nx = x.cuda()\n"), 1);
	assert_int_equal(hold_still(old, nw, old), 0);
}

static void test_an_inserted_line(void **state)
{
	(void)state;
	assert_int_equal(hold_still("", "import torch_npu\n", "import torch_npu  # noqa: F401\n"), 1);
	assert_int_equal(hold_still("", "import torch_npu\n", "import torch\n"), 0);
	assert_int_equal(hold_still("", "import torch_npu\n", ""), 0);
}

static void test_a_string_changed(void **state)
{
	(void)state;
	const char *old = "dist.init_process_group(backend=\"nccl\")\n";
	const char *nw = "dist.init_process_group(backend=\"hccl\")\n";
	assert_int_equal(hold_still(old, nw, "dist.init_process_group(backend=\"hccl\", timeout=t)\n"), 1);
	assert_int_equal(hold_still(old, nw, old), 0);
}

static void test_a_change_that_only_took_text_out(void **state)
{
	(void)state;
	const char *old = "x = x.npu(non_blocking=True)\n", *nw = "x = x.npu()\n";
	assert_int_equal(hold_still(old, nw, nw), 1);
	assert_int_equal(hold_still(old, nw, "x = x.npu()  # blocking\n"), 1);
	assert_int_equal(hold_still(old, nw, "x = x.npu(non_blocking = True)\n"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_line_built_on_holds),
		cmocka_unit_test(test_a_line_put_back_is_undone),
		cmocka_unit_test(test_one_line_of_several_is_enough),
		cmocka_unit_test(test_an_inserted_line),
		cmocka_unit_test(test_a_string_changed),
		cmocka_unit_test(test_a_change_that_only_took_text_out),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
