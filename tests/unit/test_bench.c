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
	bench_choose(&c, e, 4);
	assert_int_equal(c.baseline, 0);   /* the hardware names a GPU */
	assert_int_equal(c.npu, 2);        /* the newest NPU benchmark */
	assert_int_equal(c.accuracy, 1);   /* ais_bench measures no accuracy */
	assert_int_equal(c.throughput, 2); /* the newest that measured throughput */
	/* an NPU benchmark alone is no GPU baseline; one naming neither is */
	bench_choose(&c, e + 1, 1);
	assert_int_equal(c.baseline, -1);
	assert_int_equal(c.npu, 0);
	bench_entry f[] = { { 5, "npu", npu }, { 6, "run", plain } };
	bench_choose(&c, f, 2);
	assert_int_equal(c.baseline, 1);
	assert_int_equal(c.accuracy, 0);
	cJSON_Delete(gpu);
	cJSON_Delete(npu);
	cJSON_Delete(tp);
	cJSON_Delete(plain);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ais_summary_text),
		cmocka_unit_test(test_choice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
