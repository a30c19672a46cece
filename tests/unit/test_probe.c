/* Unit tests for probe: the embedded script is there and is the probe, and running it on
 * this machine returns one JSON document that the env-probe validator accepts. */
#include "testutil.h"

#include "artifact.h"
#include "err.h"
#include "probe.h"

#include <cjson/cJSON.h>
#include <sys/wait.h>

static void test_script_embedded(void **state)
{
	(void)state;
	const char *text = NULL;
	size_t len = 0;
	assert_int_equal(probe_script(&text, &len), 0);
	assert_non_null(text);
	assert_true(len > 1000);
	assert_int_equal(strlen(text), len);
	assert_true(util_starts_with(text, "#!/bin/sh\n"));
	assert_non_null(strstr(text, "ferry-env-probe/1"));
	assert_non_null(strstr(text, "npu-smi"));
}

static void test_run_local(void **state)
{
	(void)state;
	char *json = NULL;
	size_t len = 0;
	assert_int_equal(probe_run_local(&json, &len, 0), 0);
	assert_non_null(json);
	assert_int_equal(strlen(json), len);
	assert_int_equal(artifact_validate("env-probe", "local-probe.json", json, len), 0);
	cJSON *doc = cJSON_ParseWithLength(json, len);
	assert_non_null(doc);
	const cJSON *npu = cJSON_GetObjectItem(doc, "npu");
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(npu, "chips")));
	assert_true(cJSON_IsArray(cJSON_GetObjectItem(doc, "missing")));
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(doc, "cann")));
	cJSON_Delete(doc);
	free(json);
}

/* Two runs in a row: no descriptor or child left behind by the first. */
static void test_run_twice(void **state)
{
	(void)state;
	for (int i = 0; i < 2; i++) {
		char *json = NULL;
		size_t len = 0;
		assert_int_equal(probe_run_local(&json, &len, 0), 0);
		free(json);
	}
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* no children left */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_script_embedded),
		cmocka_unit_test(test_run_local),
		cmocka_unit_test(test_run_twice),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
