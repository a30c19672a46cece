/* Unit tests for the artifact validators: good input accepted, malformed refused with
 * one line naming the file. */
#include "testutil.h"

#include "err.h"
#include "artifact.h"

static int valid(const char *kind, const char *text)
{
	return artifact_validate(kind, "art.x", text, strlen(text));
}

static void assert_refused(const char *kind, const char *data, size_t len, const char *why)
{
	assert_int_equal(artifact_validate(kind, "art.x", data, len), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "art.x"));
	assert_non_null(strstr(err_message(), why));
	assert_null(strchr(err_message(), '\n'));
}

static void test_env_probe(void **state)
{
	(void)state;
	assert_int_equal(valid("env-probe", "{\"schema\":\"ferry-env-probe/1\",\"host\":{},\"python\":{},\"npu\":{},\"env\":{}}"), 0);
	const char *truncated = "{\"schema\":\"ferry-env-probe/1\",\"host\":{\"os\":\"Ubu";
	assert_refused("env-probe", truncated, strlen(truncated), "not valid JSON");
	assert_refused("env-probe", "{\"schema\":\"other\"}", 18, "schema");
	const char *partial = "{\"schema\":\"ferry-env-probe/1\",\"host\":{}}";
	assert_refused("env-probe", partial, strlen(partial), "python");
	assert_refused("env-probe", "\x7f" "ELF\0\0\0", 7, "binary");
	/* the probe's optional parts, when present, must have the shape the checks read */
	const char *full = "{\"schema\":\"ferry-env-probe/1\",\"host\":{},\"python\":{\"packages\":{\"torch\":null}},"
	                   "\"cann\":{},\"driver\":{},\"npu\":{\"chips\":[{\"id\":0}]},\"env\":{},\"missing\":[\"npu-smi\"]}";
	assert_int_equal(valid("env-probe", full), 0);
	const char *chips = "{\"schema\":\"ferry-env-probe/1\",\"host\":{},\"python\":{},\"npu\":{\"chips\":{}},\"env\":{}}";
	assert_refused("env-probe", chips, strlen(chips), "chips");
	const char *chip = "{\"schema\":\"ferry-env-probe/1\",\"host\":{},\"python\":{},\"npu\":{\"chips\":[1]},\"env\":{}}";
	assert_refused("env-probe", chip, strlen(chip), "chip");
	const char *miss = "{\"schema\":\"ferry-env-probe/1\",\"host\":{},\"python\":{},\"npu\":{},\"env\":{},\"missing\":\"x\"}";
	assert_refused("env-probe", miss, strlen(miss), "missing");
	const char *cann = "{\"schema\":\"ferry-env-probe/1\",\"host\":{},\"python\":{},\"npu\":{},\"env\":{},\"cann\":\"8.0\"}";
	assert_refused("env-probe", cann, strlen(cann), "cann");
	const char *pk = "{\"schema\":\"ferry-env-probe/1\",\"host\":{},\"python\":{\"packages\":[]},\"npu\":{},\"env\":{}}";
	assert_refused("env-probe", pk, strlen(pk), "packages");
}

static void test_bench(void **state)
{
	(void)state;
	assert_int_equal(valid("bench", "{\"schema\":\"ferry-bench/1\",\"metrics\":{\"throughput\":1200.5,\"accuracy\":0.76}}"), 0);
	const char *bad = "{\"schema\":\"ferry-bench/1\",\"metrics\":{\"throughput\":\"fast\"}}";
	assert_refused("bench", bad, strlen(bad), "not a number");
	const char *none = "{\"schema\":\"ferry-bench/1\"}";
	assert_refused("bench", none, strlen(none), "metrics");
}

static void test_loss_log(void **state)
{
	(void)state;
	assert_int_equal(valid("loss-log", "epoch 1 step 10 loss 2.31\nstep 20 loss: 2.05\n"), 0);
	assert_int_equal(valid("loss-log", "{'loss': 0.5, 'step': 3}\n"), 0);
	const char *none = "training started\nno numbers here\n";
	assert_refused("loss-log", none, strlen(none), "no loss values");
	assert_refused("loss-log", "", 0, "empty");
}

static void test_dump_and_onnx(void **state)
{
	(void)state;
	static const char npy[] = "\x93NUMPY\x01\x00\x20\x00{'descr': '<f4', 'shape': (2,), }  \n\0\0\0\0\0\0\0\0";
	assert_int_equal(artifact_validate("dump", "a.npy", npy, sizeof npy - 1), 0);
	static const char cut[] = "\x93NUMPY\x01\x00\x7f\x00{'descr'";
	assert_refused("dump", cut, sizeof cut - 1, "truncated");
	assert_int_equal(valid("dump", "{\"task\":\"statistics\",\"data\":{}}"), 0);
	static const char onnx[] = "\x08\x07\x12\x07pytorch\x1a\x03" "2.1\x42\x02\x10\x0d\x3a\x02\x0a\x00";
	assert_int_equal(artifact_validate("onnx", "m.onnx", onnx, sizeof onnx - 1), 0);
	assert_refused("onnx", onnx, sizeof onnx - 3, "truncated");
	assert_refused("onnx", "hello, I am not a model", 23, "not an ONNX model");
	/* the same model without its opset_import: what a model cut before that field reads as */
	static const char no_opset[] = "\x08\x07\x12\x07pytorch\x1a\x03" "2.1\x3a\x02\x0a\x00";
	assert_refused("onnx", no_opset, sizeof no_opset - 1, "no opset_import");
}

static void test_profile(void **state)
{
	(void)state;
	assert_int_equal(valid("profile", "{\"traceEvents\":[{\"name\":\"MatMul\",\"dur\":10}]}"), 0);
	assert_int_equal(valid("profile", "Name,Count,Total Time(us)\nMatMul,10,100\n"), 0);
	assert_refused("profile", "just words", 10, "CSV");
}

static void test_unknown_kind_is_usage(void **state)
{
	(void)state;
	assert_int_equal(artifact_validate("pictures", "x", "", 0), FERRY_EUSAGE);
}

/* A virtual artifact: head bytes, then zeros (or a NUL-free filler) up to size. */
typedef struct virt {
	const char *head;
	size_t head_len;
	char fill;
} virt;

static long long virt_read_at(void *ctx, unsigned long long off, void *buf, size_t n)
{
	const virt *v = ctx;
	for (size_t i = 0; i < n; i++)
		((char *)buf)[i] = off + i < v->head_len ? v->head[off + i] : v->fill;
	return (long long)n;
}

static unsigned long long varint_len(unsigned long long v)
{
	unsigned long long n = 1;
	while (v >>= 7)
		n++;
	return n;
}

static void test_any_size(void **state)
{
	(void)state;
	/* a 10 GiB model: ir_version 7, opset 13, a graph whose one initializer holds 10 GiB of
	 * raw_data; walked, not read */
	unsigned long long raw = 10ULL << 30;
	char head[64] = { 0x08, 0x07, 0x42, 0x02, 0x10, 0x0d }; /* ir_version, opset_import { version: 13 } */
	size_t h = 6;
	unsigned long long lens[3], tags[3] = { 0x3a, 0x2a, 0x4a }; /* graph, initializer, raw_data */
	lens[2] = raw;
	lens[1] = 1 + varint_len(lens[2]) + lens[2];
	lens[0] = 1 + varint_len(lens[1]) + lens[1];
	for (int i = 0; i < 3; i++) {
		head[h++] = (char)tags[i];
		for (unsigned long long v = lens[i]; v; v >>= 7)
			head[h++] = (char)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
	}
	virt m = { head, h, 0 };
	artifact_source src = { virt_read_at, &m, h + raw };
	assert_int_equal(artifact_validate_source("onnx", "big.onnx", &src), 0);
	src.size--;
	assert_int_equal(artifact_validate_source("onnx", "big.onnx", &src), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "truncated"));
	/* text: 1 GiB of a log whose only NUL is at its very end */
	virt t = { "step 1 loss 2.5\n", 16, 'a' };
	artifact_source log = { virt_read_at, &t, 1ULL << 30 };
	assert_int_equal(artifact_validate_source("loss-log", "big.log", &log), 0);
	virt tn = { "no numbers here\n", 16, 'a' };
	artifact_source nolo = { virt_read_at, &tn, 3u << 20 };
	assert_int_equal(artifact_validate_source("loss-log", "big.log", &nolo), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "no loss values"));
	virt z = { "step 1 loss 2.5\n", 16, 0 };
	artifact_source bin = { virt_read_at, &z, 3u << 20 };
	assert_int_equal(artifact_validate_source("atc-log", "big.log", &bin), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "binary"));
	/* JSON kinds over the limit: refused with the limit, never accepted unread */
	virt j = { "{\"schema\":\"ferry-env-probe/1\"", 30, ' ' };
	artifact_source js = { virt_read_at, &j, ARTIFACT_JSON_LIMIT + 1 };
	assert_int_equal(artifact_validate_source("env-probe", "big.json", &js), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "256 MiB"));
	/* a small one goes through the in-memory validator */
	const char *bench = "{\"schema\":\"ferry-bench/1\",\"metrics\":{\"throughput\":1}}";
	virt b = { bench, strlen(bench), ' ' };
	artifact_source bs = { virt_read_at, &b, strlen(bench) + 100 };
	assert_int_equal(artifact_validate_source("bench", "b.json", &bs), 0);
	/* a large CSV profile: its header counts */
	virt csv = { "Op Type,Count\n", 14, 'x' };
	artifact_source cs = { virt_read_at, &csv, 5u << 20 };
	assert_int_equal(artifact_validate_source("profile", "op.csv", &cs), 0);
	virt nocsv = { "plain words\n", 12, 'x' };
	cs.ctx = &nocsv;
	assert_int_equal(artifact_validate_source("profile", "op.csv", &cs), FERRY_ECORRUPT);
	/* a header and then only blank lines measured nothing: refused, however large */
	virt header_only = { "Op Type,Count\n", 14, '\n' };
	cs.ctx = &header_only;
	assert_int_equal(artifact_validate_source("profile", "op.csv", &cs), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "without data rows"));
	const char *small = "Name,Duration(us)\n\n";
	assert_int_equal(artifact_validate("profile", "k.csv", small, strlen(small)), FERRY_ECORRUPT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env_probe),   cmocka_unit_test(test_bench),   cmocka_unit_test(test_loss_log),
		cmocka_unit_test(test_dump_and_onnx), cmocka_unit_test(test_profile), cmocka_unit_test(test_unknown_kind_is_usage), cmocka_unit_test(test_any_size),
	};
	return cmocka_run_group_tests_name("ingest", tests, NULL, NULL);
}
