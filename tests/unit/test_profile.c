/* Unit tests for the profile reader: CSV tables in both header generations (quoted
 * fields, CRLF, BOM), Chrome traces (escapes, string timestamps, step markers), partial
 * files that keep what was read and say where they stopped, and input that is no
 * profile refused with one line naming the file. Reads go through a source that hands
 * out a few bytes at a time, so every token crosses chunk boundaries somewhere. */
#include "testutil.h"

#include "err.h"
#include "profile.h"

#include <math.h>

static int read_text(profile **out, const char *text, size_t step)
{
	artifact_mem m = { text, strlen(text), step };
	artifact_source src = { artifact_mem_read_at, &m, strlen(text) };
	return profile_read(out, "prof.x", &src);
}

static const profile_op *find(const profile_op *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].name, name) == 0)
			return &v[i];
	return NULL;
}

static void test_kernel_details(void **state)
{
	(void)state;
	const char *csv = "\xEF\xBB\xBF"
	                  "Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),OP State\r\n"
	                  "1,0,MatMul_1,MatMulV2,AI_CORE,100,50,dynamic\r\n"
	                  "1,0,\"Add, \"\"fused\"\"\",Add,AI_VECTOR_CORE,160,10,dynamic\r\n"
	                  "1,0,NonZero_3,NonZero,AI_CPU,200,30,dynamic\r\n"
	                  "1,0,hcom_allReduce__1,hcom_allReduce_,HCCL,230,20,dynamic\r\n"
	                  "1,1,MatMul_1,MatMulV2,AI_CORE,100,80,dynamic\r\n"
	                  "1,1,bad,Add,AI_CORE,190,notanumber,dynamic\r\n";
	for (size_t step = 0; step <= 7; step += 7) {
		profile *p = NULL;
		assert_int_equal(read_text(&p, csv, step), 0);
		assert_int_equal(p->form, PROFILE_KERNEL_DETAILS);
		assert_null(p->stopped);
		assert_int_equal(p->rows, 6);
		assert_int_equal(p->bad_rows, 1);
		assert_true(fabs(p->total_us - 190) < 1e-9);
		assert_true(fabs(p->comm_us - 20) < 1e-9);
		assert_true(fabs(p->aicpu_us - 30) < 1e-9);
		/* gaps on device 0: 150-160 and 170-200 */
		assert_true(fabs(p->idle_us - 40) < 1e-9);
		assert_string_equal(p->types[0].name, "MatMulV2");
		assert_int_equal(p->types[0].count, 2);
		const profile_op *add = find(p->ops, p->nops, "Add, \"fused\"");
		assert_non_null(add);
		assert_string_equal(add->type, "Add");
		const profile_op *nz = find(p->types, p->ntypes, "NonZero");
		assert_non_null(nz);
		assert_true(profile_is_aicpu(nz->core));
		assert_int_equal(p->nranks, 2);
		assert_string_equal(p->ranks[1].id, "1");
		assert_true(fabs(p->ranks[1].busy_us - 80) < 1e-9);
		assert_int_equal(p->dynamic_rows, 5); /* the unusable row is not counted */
		profile_free(p);
	}
}

static void test_other_tables(void **state)
{
	(void)state;
	profile *p = NULL;
	/* msprof's generation */
	assert_int_equal(read_text(&p, "Op Name,OP Type,Task Type,Task Duration(us)\nconv1,Conv2D,AI_CORE,12.5\n", 3), 0);
	assert_int_equal(p->form, PROFILE_KERNEL_DETAILS);
	assert_string_equal(p->ops[0].name, "conv1");
	assert_string_equal(p->types[0].name, "Conv2D");
	profile_free(p);
	/* op_statistic: a count that is not a whole number counts once; a bad max is the total */
	assert_int_equal(read_text(&p, "OP Type,Core Type,Count,Total Time(us),Max Time(us)\n"
	                               "NonZero,AI_CPU,4.5,900,1e999\nCast,AI_CPU,3,inf,2\n", 0), 0);
	assert_int_equal(p->form, PROFILE_OP_STATISTIC);
	assert_int_equal(p->ntypes, 1);
	assert_int_equal(p->types[0].count, 1);
	assert_true(fabs(p->types[0].max_us - 900) < 1e-9);
	assert_int_equal(p->bad_rows, 1);
	profile_free(p);
	/* step_trace_time */
	assert_int_equal(read_text(&p, "Device_id,Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free\n"
	                               "0,1,800,100,0,100,100\n1,1,900,100,0,100,200\n", 5), 0);
	assert_int_equal(p->form, PROFILE_STEP_TRACE);
	assert_true(p->has_breakdown);
	assert_true(fabs(p->free_us - 300) < 1e-9);
	assert_int_equal(p->nsteps, 2);
	assert_true(fabs(p->ranks[1].step_us - 1200) < 1e-9);
	profile_free(p);
}

static void test_trace(void **state)
{
	(void)state;
	const char *trace =
		"{\"otherData\": {\"x\": [1, 2, {\"y\": null}]}, \"traceEvents\": [\n"
		" {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 7, \"args\": {\"name\": \"NPU 0\"}},\n"
		" {\"ph\": \"X\", \"name\": \"ProfilerStep#1\", \"pid\": 1, \"tid\": 1, \"ts\": 0, \"dur\": 1000},\n"
		" {\"ph\": \"X\", \"name\": \"Mat\\u004dul\", \"pid\": 7, \"tid\": 2, \"ts\": \"100.5\", \"dur\": 300,"
		"   \"args\": {\"Task Type\": \"AI_CORE\", \"Op Type\": \"MatMulV2\", \"shape\": [[1, 2], [3]]}},\n"
		" {\"ph\": \"X\", \"name\": \"hcom_broadcast_\", \"pid\": 7, \"tid\": 2, \"ts\": 500.5, \"dur\": 100,"
		"   \"args\": {\"Task Type\": \"HCCL\"}},\n"
		" {\"ph\": \"X\", \"name\": \"Computing\", \"pid\": 9, \"tid\": 1, \"ts\": 0, \"dur\": 400},\n"
		" {\"ph\": \"X\", \"name\": \"Free\", \"pid\": 9, \"tid\": 1, \"ts\": 400, \"dur\": 600},\n"
		" {\"ph\": \"X\", \"name\": \"aten::mm\", \"cat\": \"cpu_op\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 20},\n"
		" 42, {\"ph\": \"X\", \"name\": \"nodur\"}\n"
		"]}";
	for (size_t step = 0; step <= 5; step += 5) {
		profile *p = NULL;
		assert_int_equal(read_text(&p, trace, step), 0);
		assert_int_equal(p->form, PROFILE_TRACE);
		assert_true(p->device);
		assert_null(p->stopped);
		assert_int_equal(p->nops, 2);
		const profile_op *mm = find(p->ops, p->nops, "MatMul");
		assert_non_null(mm);
		assert_string_equal(mm->type, "MatMulV2");
		assert_true(fabs(p->comm_us - 100) < 1e-9);
		assert_true(fabs(p->idle_us - 100) < 1e-9);
		assert_true(p->has_breakdown);
		assert_true(fabs(p->free_us - 600) < 1e-9);
		assert_int_equal(p->nranks, 1);
		assert_string_equal(p->ranks[0].id, "NPU 0");
		assert_int_equal(p->nsteps, 1);
		assert_true(fabs(p->steps[0].busy_us - 400) < 1e-9);
		assert_true(fabs(p->steps[0].free_us - 600) < 1e-9);
		assert_int_equal(p->bad_rows, 2);
		profile_free(p);
	}
}

static void test_partial_and_refused(void **state)
{
	(void)state;
	profile *p = NULL;
	/* a trace cut inside its third event keeps the first two */
	const char *cut = "[{\"ph\":\"X\",\"name\":\"A\",\"dur\":5,\"args\":{\"Task Type\":\"AI_CORE\"}},"
	                  "{\"ph\":\"X\",\"name\":\"B\",\"dur\":7,\"args\":{\"Task Type\":\"AI_CORE\"}},{\"ph\":\"X\",\"na";
	assert_int_equal(read_text(&p, cut, 4), 0);
	assert_int_equal(p->nops, 2);
	assert_non_null(p->stopped);
	assert_non_null(strstr(p->stopped, "truncated"));
	assert_non_null(strstr(p->stopped, "byte 1"));
	profile_free(p);
	/* a CSV cut inside its last row: that row is dropped */
	assert_int_equal(read_text(&p, "Name,Type,Duration(us),Accelerator Core\nA,A,5,AI_CORE\nB,B,1", 0), 0);
	assert_int_equal(p->nops, 1);
	assert_non_null(strstr(p->stopped, "incomplete"));
	profile_free(p);
	/* a NUL byte after the header stops reading there */
	const char bin[] = "Name,Type,Duration(us)\nA,A,5\n\0junk";
	artifact_mem m = { bin, sizeof bin - 1, 0 };
	artifact_source src = { artifact_mem_read_at, &m, sizeof bin - 1 };
	assert_int_equal(profile_read(&p, "prof.x", &src), 0);
	assert_int_equal(p->nops, 1);
	assert_non_null(strstr(p->stopped, "NUL"));
	profile_free(p);
	/* no profile at all: one line naming the file */
	static const char *const bad[] = { "", "   ", "just,words\n1,2\n", "{\"a\": 1}", "true", "[oops" };
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		int rc = read_text(&p, bad[i], 0);
		if (rc == 0) {
			/* "[oops": a list that breaks before its first event */
			assert_int_equal(p->rows, 0);
			assert_non_null(p->stopped);
			profile_free(p);
			continue;
		}
		assert_int_equal(rc, FERRY_ECORRUPT);
		assert_null(p);
		assert_non_null(strstr(err_message(), "prof.x"));
		assert_null(strchr(err_message(), '\n'));
	}
}

static void test_deep_and_long(void **state)
{
	(void)state;
	/* deep nesting is refused at a bound, not by the stack */
	size_t n = 10000;
	char *deep = xmalloc(2 * n + 64);
	strcpy(deep, "[{\"ph\":\"X\",\"args\":");
	size_t k = strlen(deep);
	for (size_t i = 0; i < n; i++)
		deep[k++] = '[';
	deep[k] = '\0';
	profile *p = NULL;
	assert_int_equal(read_text(&p, deep, 0), 0);
	assert_non_null(strstr(p->stopped, "nested too deeply"));
	profile_free(p);
	free(deep);
	/* a name far longer than PROFILE_MAX_TOKEN is cut, not kept whole */
	size_t len = 3 * PROFILE_MAX_TOKEN;
	char *csv = xmalloc(len + 64);
	strcpy(csv, "Name,Type,Duration(us)\n");
	k = strlen(csv);
	memset(csv + k, 'x', len);
	strcpy(csv + k + len, ",T,4\n");
	assert_int_equal(read_text(&p, csv, 0), 0);
	assert_int_equal(p->nops, 1);
	assert_true(strlen(p->ops[0].name) <= PROFILE_MAX_TOKEN);
	profile_free(p);
	free(csv);
	profile_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kernel_details), cmocka_unit_test(test_other_tables),
		cmocka_unit_test(test_trace),          cmocka_unit_test(test_partial_and_refused),
		cmocka_unit_test(test_deep_and_long),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
