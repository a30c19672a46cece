/* Benchmarks are read and chosen one way for the checks and the report: ais_bench output
 * as a ferry-bench/1 document, the GPU baseline by what it names, each metric from the
 * newest NPU benchmark measuring it. */
#include "testutil.h"

#include "bench.h"

#include <math.h>

static void test_ais_summary_text(void **state)
{
	(void)state;
	const char text[] = "[INFO] -----------------Performance Summary------------------\n"
	                    "[INFO] NPU_compute_time (ms): min = 3.87, max = 4.02, mean = 3.928, median = 3.91\n"
	                    "[INFO] throughput 1000*batchsize.mean(4)/NPU_compute_time.mean(3.928): 1018.33\n";
	cJSON *d = bench_decode(text, sizeof text - 1);
	assert_non_null(d);
	const cJSON *m = cJSON_GetObjectItem(d, "metrics");
	assert_true(fabs(cJSON_GetObjectItem(m, "throughput")->valuedouble - 1018.33) < 1e-9);
	assert_true(fabs(cJSON_GetObjectItem(m, "latency_ms")->valuedouble - 3.928) < 1e-9);
	assert_int_equal((int)cJSON_GetObjectItem(m, "batch")->valuedouble, 4);
	assert_string_equal(cJSON_GetObjectItem(d, "schema")->valuestring, "ferry-bench/1");
	cJSON_Delete(d);
	assert_null(bench_decode("just a log\n", 11));
	const char json[] = "{\"NPU_compute_time\": {\"mean\": 2.5}, \"throughput\": 400}";
	d = bench_decode(json, sizeof json - 1);
	assert_non_null(d);
	assert_true(fabs(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "metrics"), "throughput")->valuedouble - 400) < 1e-9);
	cJSON_Delete(d);
}

static void test_choice(void **state)
{
	(void)state;
	cJSON *gpu = cJSON_Parse("{\"label\":\"a100-run\",\"hardware\":\"8x NVIDIA A100\",\"metrics\":{\"accuracy\":0.76,\"throughput\":1500}}");
	cJSON *npu = cJSON_Parse("{\"label\":\"npu\",\"hardware\":\"Atlas 300I\",\"metrics\":{\"accuracy\":0.75,\"throughput\":1400}}");
	const char ais[] = "{\"NPU_compute_time\": {\"mean\": 2.5}, \"throughput\": 900}";
	cJSON *tp = bench_decode(ais, sizeof ais - 1);
	cJSON *plain = cJSON_Parse("{\"label\":\"run\",\"metrics\":{\"accuracy\":0.7}}");
	bench_entry e[] = { { 1, "baseline", gpu }, { 2, "npu", npu }, { 3, "ais-run2", tp }, { 4, "x", NULL } };
	bench_choice c;
	bench_choose(&c, e, 4, BENCH_ANY);
	assert_int_equal(c.baseline, 0);   /* the hardware names a GPU */
	assert_int_equal(c.npu, 2);        /* the newest NPU benchmark */
	assert_int_equal(c.accuracy, 1);   /* ais_bench measures no accuracy */
	assert_int_equal(c.throughput, 2); /* the newest that measured throughput */
	/* an NPU benchmark alone is no GPU baseline; one naming neither is */
	bench_choose(&c, e + 1, 1, BENCH_ANY);
	assert_int_equal(c.baseline, -1);
	assert_int_equal(c.npu, 0);
	bench_entry f[] = { { 5, "npu", npu }, { 6, "run", plain } };
	bench_choose(&c, f, 2, BENCH_ANY);
	assert_int_equal(c.baseline, 1);
	assert_int_equal(c.accuracy, 0);
	/* a benchmark naming an NPU is never the baseline, even when it names CUDA too: the
	 * NPU would be measured against another NPU run */
	cJSON *both = cJSON_Parse("{\"label\":\"npu vs cuda\",\"hardware\":\"Ascend 910B\",\"metrics\":{\"accuracy\":0.8}}");
	bench_entry g[] = { { 7, "gpu", gpu }, { 8, "npu-old", npu }, { 9, "x", both } };
	bench_choose(&c, g, 3, BENCH_ANY);
	assert_int_equal(c.baseline, 0);
	assert_int_equal(c.npu, 2);
	assert_int_equal(c.accuracy, 2);
	/* any metric: the newest NPU benchmark measuring it, never the baseline */
	assert_int_equal(bench_measuring(e, 4, c.baseline < 0 ? -1 : 0, "latency_ms", BENCH_ANY), 2);
	assert_int_equal(bench_measuring(e, 4, 0, "accuracy", BENCH_ANY), 1);
	assert_int_equal(bench_measuring(e, 4, 0, "power_w", BENCH_ANY), -1);
	cJSON_Delete(both);
	cJSON_Delete(gpu);
	cJSON_Delete(npu);
	cJSON_Delete(tp);
	cJSON_Delete(plain);
}

/* Accelerator names are words of their own; a label merely containing one names none. */
static void test_whole_words(void **state)
{
	(void)state;
	const char *npu_docs[] = { "{\"label\":\"npu0\",\"metrics\":{\"accuracy\":1}}",
		                       "{\"label\":\"r\",\"hardware\":\"8 NPUs\",\"metrics\":{\"accuracy\":1}}",
		                       "{\"label\":\"r\",\"hardware\":\"Ascend910B\",\"metrics\":{\"accuracy\":1}}",
		                       "{\"label\":\"npu_run\",\"metrics\":{\"accuracy\":1}}",
		                       "{\"label\":\"r\",\"hardware\":\"8卡昇腾910B\",\"metrics\":{\"accuracy\":1}}" };
	const char *other_docs[] = { "{\"label\":\"gpu-input512\",\"metrics\":{\"accuracy\":1}}",
		                         "{\"label\":\"ascending-lr\",\"metrics\":{\"accuracy\":1}}",
		                         "{\"label\":\"throughput-run\",\"metrics\":{\"accuracy\":1}}" };
	for (size_t i = 0; i < sizeof npu_docs / sizeof *npu_docs; i++) {
		cJSON *d = cJSON_Parse(npu_docs[i]);
		bench_entry e[] = { { 1, "", d } };
		bench_choice c;
		bench_choose(&c, e, 1, BENCH_ANY);
		assert_int_equal(c.npu, 0);
		cJSON_Delete(d);
	}
	for (size_t i = 0; i < sizeof other_docs / sizeof *other_docs; i++) {
		cJSON *d = cJSON_Parse(other_docs[i]);
		bench_entry e[] = { { 1, "", d } };
		bench_choice c;
		bench_choose(&c, e, 1, BENCH_ANY);
		assert_int_equal(c.npu, -1);
		assert_int_equal(c.baseline, 0);
		cJSON_Delete(d);
	}
}

/* A choice for one workload leaves out the other's benchmarks; one stating none counts for
 * both; ais_bench output and a sweep are inference. */
static void test_workloads(void **state)
{
	(void)state;
	cJSON *gpu = cJSON_Parse("{\"label\":\"gpu\",\"metrics\":{\"accuracy\":0.76,\"throughput\":1500}}");
	cJSON *train = cJSON_Parse("{\"label\":\"npu\",\"workload\":\"training\",\"metrics\":{\"throughput\":700}}");
	const char ais[] = "{\"NPU_compute_time\": {\"mean\": 2.5}, \"throughput\": 900}";
	cJSON *tp = bench_decode(ais, sizeof ais - 1);
	cJSON *sweep = cJSON_Parse("{\"label\":\"npu\",\"metrics\":{\"accuracy\":0.7},\"sweep\":[]}");
	bench_entry e[] = { { 1, "gpu", gpu }, { 2, "npu", train }, { 3, "npu-om", tp }, { 4, "npu-sweep", sweep } };
	assert_int_equal(bench_workload_of(tp), BENCH_INFERENCE);
	assert_int_equal(bench_workload_of(sweep), BENCH_INFERENCE);
	assert_int_equal(bench_workload_of(gpu), BENCH_ANY);
	bench_choice c;
	bench_choose(&c, e, 4, BENCH_TRAINING);
	assert_int_equal(c.baseline, 0);
	assert_int_equal(c.throughput, 1);
	assert_int_equal(c.accuracy, -1);
	bench_choose(&c, e, 4, BENCH_INFERENCE);
	assert_int_equal(c.throughput, 2);
	assert_int_equal(c.accuracy, 3);
	bench_choose(&c, e, 4, BENCH_ANY);
	assert_int_equal(c.throughput, 2);
	assert_int_equal(bench_workload_parse("serving"), -1);
	cJSON_Delete(gpu);
	cJSON_Delete(train);
	cJSON_Delete(tp);
	cJSON_Delete(sweep);
}

/* A document written on a host set to GB18030 (zh_CN.GBK) reads as UTF-8. */
static void test_gb18030_document(void **state)
{
	(void)state;
	/* "英伟达 A100" in GB18030 */
	const char gbk[] = "{\"schema\":\"ferry-bench/1\",\"label\":\"gpu\",\"hardware\":\"\xd3\xa2\xce\xb0\xb4\xef A100\","
	                   "\"metrics\":{\"accuracy\":0.76}}\n";
	cJSON *d = bench_decode(gbk, sizeof gbk - 1);
	assert_non_null(d);
	assert_string_equal(cJSON_GetObjectItem(d, "hardware")->valuestring, "英伟达 A100");
	cJSON_Delete(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ais_summary_text),
		cmocka_unit_test(test_choice),
		cmocka_unit_test(test_whole_words),
		cmocka_unit_test(test_workloads),
		cmocka_unit_test(test_gb18030_document),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
