/* Unit tests for the readiness verdict: score, class, effort formula with configured
 * weights, top risks and the strategy with its drivers. */
#include "phase.h"
#include "testutil.h"

#include "assessment.h"
#include "err.h"

#include <math.h>

struct fixture {
	char *dir;
	store *s;
	long long run;
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	fx->dir = tu_mkdtemp();
	char *path = util_path_join(fx->dir, "e.db");
	int rc = store_open(&fx->s, path, 1);
	free(path);
	if (rc || store_run_begin(&fx->run, fx->s, "t", "{\"phases\":[\"assess\"]}", NULL))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	store_close(fx->s);
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

static long long add_full(struct fixture *fx, const char *fp, const char *category, const char *severity,
                          int fixable, int automatic)
{
	finding f = { 0 };
	f.automatic = automatic;
	finding_edit e = { 0, 1, "x" };
	f.plugin = "assess.t";
	f.phase = phase_index("assess");
	f.severity = (finding_severity)severity_parse(severity);
	f.category = (char *)category;
	f.file = "a.py";
	f.line = 1;
	f.message = "m";
	f.fingerprint = (char *)fp;
	f.edits = fixable ? &e : NULL;
	f.nedits = fixable ? 1 : 0;
	assert_int_equal(store_finding_upsert(fx->s, fx->run, &f), 0);
	return f.id;
}

static long long add(struct fixture *fx, const char *fp, const char *category, const char *severity, int fixable)
{
	return add_full(fx, fp, category, severity, fixable, 0);
}

static double num(const cJSON *o, const char *k) { return cJSON_GetObjectItem(o, k)->valuedouble; }
static const char *str(const cJSON *o, const char *k) { return cJSON_GetObjectItem(o, k)->valuestring; }

static void test_not_run_yet(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp(), *path = util_path_join(dir, "e.db");
	store *s = NULL;
	assert_int_equal(store_open(&s, path, 1), 0);
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, s), 0);
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(a, "ran")));
	assert_null(cJSON_GetObjectItem(a, "score"));
	cJSON_Delete(a);
	store_close(s);
	tu_rmdir(dir);
	free(dir);
	free(path);
}

static void test_mechanical_only_is_ready_and_tool(void **state)
{
	struct fixture *fx = *state;
	for (int i = 0; i < 10; i++) {
		char fp[16];
		snprintf(fp, sizeof fp, "m%d", i);
		add(fx, fp, "device", "warning", 1);
	}
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	assert_true(num(a, "score") >= 85);
	assert_string_equal(str(a, "class"), "ready");
	assert_true(fabs(num(a, "effort_days") - 2.2) < 1e-9); /* 2 + 10 × 0.02 */
	assert_non_null(strstr(str(a, "formula"), "0.02 × 10 mechanical"));
	assert_string_equal(str(cJSON_GetObjectItem(a, "strategy"), "recommended"), "tool");
	cJSON_Delete(a);
}

static void test_kernels_drive_manual_and_risks(void **state)
{
	struct fixture *fx = *state;
	long long k1 = add(fx, "k1", "custom_kernel", "error", 0);
	long long k2 = add(fx, "k2", "custom_kernel", "error", 0);
	add(fx, "l1", "layout", "warning", 0);
	add(fx, "d1", "device", "warning", 1);
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	assert_int_equal((int)num(a, "score"), 100 - 20 - 3 - 0); /* 0.25 rounds away */
	assert_string_equal(str(a, "class"), "ready with conditions");
	const cJSON *st = cJSON_GetObjectItem(a, "strategy");
	assert_string_equal(str(st, "recommended"), "manual");
	const cJSON *drivers = cJSON_GetObjectItem(st, "drivers");
	assert_int_equal(cJSON_GetArraySize(drivers), 2);
	assert_int_equal((long long)cJSON_GetArrayItem(drivers, 0)->valuedouble, k1);
	assert_int_equal((long long)cJSON_GetArrayItem(drivers, 1)->valuedouble, k2);
	const cJSON *top = cJSON_GetObjectItem(a, "top_risks");
	assert_int_equal(cJSON_GetArraySize(top), 3);
	assert_string_equal(str(cJSON_GetArrayItem(top, 0), "severity"), "error");
	assert_string_equal(str(cJSON_GetArrayItem(top, 2), "category"), "layout");
	cJSON_Delete(a);
}

static void test_configured_weights_change_effort(void **state)
{
	struct fixture *fx = *state;
	add(fx, "k1", "custom_kernel", "error", 0);
	assert_int_equal(store_config_set(fx->s, "effort.base_days", "1"), 0);
	assert_int_equal(store_config_set(fx->s, "effort.weight.custom_kernel", "7.5"), 0);
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	assert_true(fabs(num(a, "effort_days") - 8.5) < 1e-9);
	assert_true(fabs(num(cJSON_GetObjectItem(a, "weights"), "custom_kernel") - 7.5) < 1e-9);
	cJSON_Delete(a);
}

/* The executive summary's effort and the quote's total are the same figure: summed per
 * finding and per service line, 2.85 came out as 2.8500000000000005 and
 * 2.8499999999999996, which rounded to 2.9 and 2.8 in one client document. */
static void test_effort_and_quote_total_agree(void **state)
{
	struct fixture *fx = *state;
	static const char *const cats[] = { "device", "environment", "device", "amp", "environment", "device", "environment" };
	char fp[8];
	for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++) {
		snprintf(fp, sizeof fp, "q%zu", i);
		add(fx, fp, cats[i], "warning", 0);
	}
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	const cJSON *q = cJSON_GetObjectItem(a, "quote");
	assert_non_null(q);
	assert_true(fabs(num(a, "effort_days") - 2.9) < 1e-9); /* 2 + 6 × 0.1 + 0.25 = 2.85 */
	assert_true(fabs(num(q, "days") - num(a, "effort_days")) < 1e-9);
	cJSON_Delete(a);
}

static void test_jit_conflicts_with_auto(void **state)
{
	struct fixture *fx = *state;
	for (int i = 0; i < 60; i++) {
		char fp[16];
		snprintf(fp, sizeof fp, "m%d", i);
		add(fx, fp, "device", "warning", 1);
	}
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	assert_string_equal(str(cJSON_GetObjectItem(a, "strategy"), "recommended"), "auto");
	cJSON_Delete(a);
	long long j = add(fx, "j1", "jit", "warning", 0);
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	const cJSON *st = cJSON_GetObjectItem(a, "strategy");
	assert_string_equal(str(st, "recommended"), "tool");
	assert_int_equal((long long)cJSON_GetArrayItem(cJSON_GetObjectItem(st, "drivers"), 0)->valuedouble, j);
	cJSON_Delete(a);
}

/* An info finding of a conflicting category (scripting in test code) asks for no change:
 * it neither turns the strategy to tool nor drives the one recommended. */
static void test_info_jit_drives_nothing(void **state)
{
	struct fixture *fx = *state;
	for (int i = 0; i < 60; i++) {
		char fp[16];
		snprintf(fp, sizeof fp, "m%d", i);
		add(fx, fp, "device", "warning", 1);
	}
	long long j = add(fx, "j1", "jit", "info", 0);
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	const cJSON *st = cJSON_GetObjectItem(a, "strategy");
	assert_string_equal(str(st, "recommended"), "auto");
	const cJSON *d;
	cJSON_ArrayForEach(d, cJSON_GetObjectItem(st, "drivers"))
		assert_true((long long)d->valuedouble != j);
	cJSON_Delete(a);
}

/* The assess survey carries no edits, but marks what adapt rewrites automatically. */
static void test_automatic_counts_as_mechanical(void **state)
{
	struct fixture *fx = *state;
	for (int i = 0; i < 4; i++) {
		char fp[16];
		snprintf(fp, sizeof fp, "a%d", i);
		add_full(fx, fp, "device", "warning", 0, 1);
	}
	add(fx, "manual", "device", "warning", 0);
	cJSON *a = NULL;
	assert_int_equal(assessment_compute(&a, fx->s), 0);
	assert_int_equal((int)num(a, "mechanical"), 4);
	assert_int_equal((int)num(cJSON_GetObjectItem(a, "counts"), "mechanical"), 4);
	assert_int_equal((int)num(cJSON_GetObjectItem(a, "counts"), "device"), 1);
	assert_int_equal((int)num(a, "score"), 100 - 1 - 3); /* 4 × 0.25 and one manual warning */
	cJSON_Delete(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_not_run_yet),
		cmocka_unit_test_setup_teardown(test_mechanical_only_is_ready_and_tool, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kernels_drive_manual_and_risks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configured_weights_change_effort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_effort_and_quote_total_agree, setup, teardown),
		cmocka_unit_test_setup_teardown(test_jit_conflicts_with_auto, setup, teardown),
		cmocka_unit_test_setup_teardown(test_info_jit_drives_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_automatic_counts_as_mechanical, setup, teardown),
	};
	return cmocka_run_group_tests_name("assessment", tests, NULL, NULL);
}
