/* Unit tests for the deliverables: the change list (hunks of fix checkpoints still in
 * effect, reverts excluded), the unsupported list, RFC 4180 CSV, and the report in each
 * format from one engagement fixture, including HTML escaping. */
#include "testutil.h"

#include "audit.h"
#include "changes.h"
#include "err.h"
#include "report.h"

struct fixture {
	char *dir;
	workspace *ws;
	long long run;
	long long kernel, script, comma, fixed; /* finding ids */
	long long cp;                           /* the fix checkpoint */
};

static const char train_py[] = "import torch\n"
                               "\n"
                               "model = Net().cuda()\n"
                               "x = torch.randn(4).cuda()\n"
                               "print('done')\n";

static long long add_finding(struct fixture *fx, const char *fp, const char *severity, const char *category,
                             const char *file, int line, const char *message, const char *suggestion, int fixable)
{
	finding f = { 0 };
	finding_edit e = { 0, 1, "x" };
	f.plugin = "assess.t";
	f.phase = "assess";
	f.severity = (char *)severity;
	f.category = (char *)category;
	f.file = (char *)file;
	f.line = line;
	f.col = 1;
	f.end_line = line;
	f.end_col = 5;
	f.message = (char *)message;
	f.suggestion = (char *)suggestion;
	f.fingerprint = (char *)fp;
	f.edits = fixable ? &e : NULL;
	f.nedits = fixable ? 1 : 0;
	assert_int_equal(store_finding_upsert(fx->ws->db, fx->run, &f), 0);
	free(f.status);
	return f.id;
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	setenv("FERRY_ACTOR", "Unit Test <unit@example.org>", 1);
	fx->dir = tu_mkdtemp();
	tu_write(fx->dir, "train.py", train_py);
	tu_write(fx->dir, "csrc/k.cu", "__global__ void k() {}\n");
	ws_init_opts o = { "Acme, \"Labs\"", "eng-1", "Ascend910B2" };
	if (ws_init(&fx->ws, fx->dir, &o) || ws_lock(fx->ws))
		return -1;
	if (store_run_begin(&fx->run, fx->ws->db, "t", "{\"phases\":[\"assess\"]}"))
		return -1;
	fx->kernel = add_finding(fx, "k", "error", "custom_kernel", "csrc/k.cu", 1, "`k.cu` is a custom CUDA kernel.",
	                         "Rewrite it as an Ascend C operator.", 0);
	fx->script = add_finding(fx, "s", "warning", "operators", "train.py", 5, "<script>alert(1)</script> & more",
	                         "Escape it.", 0);
	fx->comma = add_finding(fx, "c", "info", "notes", "train.py", 1, "a, \"quoted\"\nsecond line", "ok", 0);
	fx->fixed = add_finding(fx, "f", "warning", "device", "train.py", 3, "`Net().cuda()` moves the model to a GPU.",
	                        "Call .npu().", 1);
	if (store_run_finish(fx->ws->db, fx->run, 4, 0))
		return -1;
	assert_int_equal(store_waiver_add(fx->ws->db, fx->script, "accepted: <b>reviewed</b> by the client", "Reviewer"), 0);
	/* the fix: line 3 rewritten, a line inserted after line 4 */
	tu_write(fx->dir, "train.py",
	         "import torch\n\nmodel = Net().npu()\nx = torch.randn(4).cuda()\nimport torch_npu\nprint('done')\n");
	char findings[32];
	snprintf(findings, sizeof findings, "[%lld]", fx->fixed);
	const char *paths[] = { "train.py" };
	ws_checkpoint_req req = { "fix", "assess.t: fix 1 finding", "assess", "assess.t", findings, paths, 1, 0, NULL };
	char oid[41];
	if (ws_checkpoint(&fx->cp, oid, fx->ws, &req) || !fx->cp)
		return -1;
	if (store_finding_set_status(fx->ws->db, fx->fixed, "fixed", fx->cp))
		return -1;
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	ws_close(fx->ws);
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

static const char *str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

static long long num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? (long long)v->valuedouble : -1;
}

static void test_change_list_rows(void **state)
{
	struct fixture *fx = *state;
	cJSON *rows = NULL, *reverted = NULL;
	assert_int_equal(changes_list(&rows, &reverted, fx->ws->db, fx->ws->hist), 0);
	assert_int_equal(cJSON_GetArraySize(rows), 2);
	const cJSON *m = cJSON_GetArrayItem(rows, 0), *ins = cJSON_GetArrayItem(rows, 1);
	assert_string_equal(str(m, "operation"), "MODIFY");
	assert_string_equal(str(m, "file"), "train.py");
	assert_int_equal(num(m, "start_line"), 3);
	assert_int_equal(num(m, "end_line"), 3);
	assert_string_equal(str(m, "message"), "`Net().cuda()` moves the model to a GPU.");
	assert_string_equal(str(m, "plugin"), "assess.t");
	assert_int_equal(num(m, "checkpoint"), fx->cp);
	assert_int_equal((long long)cJSON_GetArrayItem(cJSON_GetObjectItem(m, "findings"), 0)->valuedouble, fx->fixed);
	assert_string_equal(str(m, "before"), "model = Net().cuda()\n");
	assert_string_equal(str(m, "after"), "model = Net().npu()\n");
	assert_string_equal(str(ins, "operation"), "INSERT");
	assert_int_equal(num(ins, "start_line"), 5);
	assert_int_equal(num(ins, "end_line"), 5);
	assert_int_equal(cJSON_GetArraySize(reverted), 0);
	cJSON_Delete(rows);
	cJSON_Delete(reverted);
}

static void test_reverted_checkpoint_is_excluded(void **state)
{
	struct fixture *fx = *state;
	long long rid = 0;
	char oid[41], rev[32];
	snprintf(rev, sizeof rev, "%lld", fx->cp);
	assert_int_equal(ws_revert(&rid, oid, fx->ws, rev), 0);
	cJSON *rows = NULL, *reverted = NULL;
	assert_int_equal(changes_list(&rows, &reverted, fx->ws->db, fx->ws->hist), 0);
	assert_int_equal(cJSON_GetArraySize(rows), 0);
	assert_int_equal(cJSON_GetArraySize(reverted), 1);
	assert_int_equal(num(cJSON_GetArrayItem(reverted, 0), "id"), fx->cp);
	assert_int_equal(num(cJSON_GetArrayItem(reverted, 0), "reverted_by"), rid);
	cJSON_Delete(rows);
	cJSON_Delete(reverted);
	/* reverting the revert puts the change back in effect */
	snprintf(rev, sizeof rev, "%lld", rid);
	assert_int_equal(ws_revert(&rid, oid, fx->ws, rev), 0);
	assert_int_equal(changes_list(&rows, NULL, fx->ws->db, fx->ws->hist), 0);
	assert_int_equal(cJSON_GetArraySize(rows), 2);
	cJSON_Delete(rows);
}

static void test_unsupported_list(void **state)
{
	struct fixture *fx = *state;
	cJSON *rows = NULL;
	assert_int_equal(changes_unsupported(&rows, fx->ws->db), 0);
	/* the kernel: open, error, no fix; the waived, the info and the fixed ones are not listed */
	assert_int_equal(cJSON_GetArraySize(rows), 1);
	const cJSON *r = cJSON_GetArrayItem(rows, 0);
	assert_string_equal(str(r, "operation"), "UNSUPPORTED");
	assert_string_equal(str(r, "file"), "csrc/k.cu");
	assert_int_equal(num(r, "start_line"), 1);
	assert_string_equal(str(r, "advice"), "Rewrite it as an Ascend C operator.");
	cJSON_Delete(rows);
}

static void test_csv_quoting(void **state)
{
	(void)state;
	sbuf b;
	sbuf_init(&b);
	sbuf_add_csv(&b, "plain");
	sbuf_addc(&b, ',');
	sbuf_add_csv(&b, "a,b");
	sbuf_addc(&b, ',');
	sbuf_add_csv(&b, "say \"hi\"");
	sbuf_addc(&b, ',');
	sbuf_add_csv(&b, "two\nlines");
	sbuf_addc(&b, ',');
	sbuf_add_csv(&b, "");
	assert_string_equal(b.buf, "plain,\"a,b\",\"say \"\"hi\"\"\",\"two\nlines\",");
	sbuf_done(&b);
}

static char *render(const cJSON *doc, const char *format, const char *section)
{
	sbuf b;
	sbuf_init(&b);
	assert_int_equal(report_render(&b, doc, format, section), 0);
	return sbuf_detach(&b);
}

static void test_report_formats(void **state)
{
	struct fixture *fx = *state;
	cJSON *doc = NULL;
	assert_int_equal(report_build(&doc, fx->ws, "9.9"), 0);
	const cJSON *as = cJSON_GetObjectItem(doc, "assessment");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(as, "ran")));
	char score[32];
	snprintf(score, sizeof score, "%lld/100", num(as, "score"));
	const char *klass = str(as, "class");
	char head[65];
	assert_int_equal(audit_head(head, fx->ws->db), 0);

	char *md = render(doc, "md", NULL);
	assert_non_null(strstr(md, "# Migration assessment:"));
	assert_non_null(strstr(md, "Acme, \"Labs\""));
	assert_non_null(strstr(md, "eng-1"));
	assert_non_null(strstr(md, score));
	assert_non_null(strstr(md, klass));
	assert_non_null(strstr(md, str(as, "formula")));
	assert_non_null(strstr(md, "## Phases"));
	assert_non_null(strstr(md, "### Phase assess"));
	assert_non_null(strstr(md, "#### custom_kernel"));
	assert_non_null(strstr(md, "`csrc/k.cu:1`"));
	assert_non_null(strstr(md, "Advice: Rewrite it as an Ascend C operator."));
	assert_non_null(strstr(md, "&lt;b>reviewed&lt;/b>"));
	assert_non_null(strstr(md, "## Change list"));
	assert_non_null(strstr(md, "| train.py | 3-3 | MODIFY |"));
	assert_non_null(strstr(md, "## Unsupported list"));
	assert_non_null(strstr(md, head));
	assert_non_null(strstr(md, "`ferry verify`"));
	assert_null(strstr(md, "<script>"));
	free(md);

	char *html = render(doc, "html", NULL);
	assert_true(util_starts_with(html, "<!DOCTYPE html>"));
	assert_non_null(strstr(html, "<style>"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "src="));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
	assert_non_null(strstr(html, "accepted: &lt;b&gt;reviewed&lt;/b&gt; by the client"));
	assert_non_null(strstr(html, "Acme, &quot;Labs&quot;"));
	assert_non_null(strstr(html, score));
	assert_non_null(strstr(html, "csrc/k.cu:1"));
	assert_non_null(strstr(html, "<code>k.cu</code>"));
	assert_non_null(strstr(html, "badge sev-error"));
	assert_non_null(strstr(html, "@media print"));
	assert_non_null(strstr(html, head));
	assert_true(util_ends_with(html, "</html>\n"));
	free(html);

	char *json = render(doc, "json", NULL);
	cJSON *parsed = cJSON_Parse(json);
	assert_non_null(parsed);
	static const char *const keys[] = { "engagement", "assessment", "phases", "findings", "waivers", "changes",
		                                "unsupported", "environment", "artifacts", "audit", NULL };
	for (size_t i = 0; keys[i]; i++)
		assert_non_null(cJSON_GetObjectItem(parsed, keys[i]));
	assert_string_equal(str(parsed, "schema"), "ferry-report/1");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(parsed, "changes")), 2);
	cJSON_Delete(parsed);
	free(json);

	char *only = render(doc, "json", "changes");
	parsed = cJSON_Parse(only);
	assert_non_null(cJSON_GetObjectItem(parsed, "changes"));
	assert_null(cJSON_GetObjectItem(parsed, "findings"));
	assert_null(cJSON_GetObjectItem(parsed, "unsupported"));
	cJSON_Delete(parsed);
	free(only);

	char *csv = render(doc, "csv", NULL);
	assert_true(util_starts_with(csv, "id,phase,category,severity,status,plugin,file,line,"));
	assert_non_null(strstr(csv, "\"a, \"\"quoted\"\"\nsecond line\""));
	assert_non_null(strstr(csv, "\r\n"));
	free(csv);
	char *ccsv = render(doc, "csv", "changes");
	assert_true(util_starts_with(ccsv, "file,start_line,end_line,operation,"));
	assert_non_null(strstr(ccsv, "train.py,3,3,MODIFY,"));
	assert_non_null(strstr(ccsv, "train.py,5,5,INSERT,"));
	free(ccsv);
	char *ucsv = render(doc, "csv", "unsupported");
	assert_non_null(strstr(ucsv, "csrc/k.cu,1,1,UNSUPPORTED,"));
	assert_null(strstr(ucsv, "MODIFY"));
	free(ucsv);

	sbuf b;
	sbuf_init(&b);
	assert_int_equal(report_render(&b, doc, "pdf", NULL), FERRY_EUSAGE);
	assert_int_equal(report_render(&b, doc, "md", "everything"), FERRY_EUSAGE);
	sbuf_done(&b);
	cJSON_Delete(doc);
}

static void test_write_records_event(void **state)
{
	struct fixture *fx = *state;
	char *out = util_path_join(fx->dir, "report.sarif");
	report_opts o = { "sarif", "all", out, "9.9" };
	char sha[65];
	assert_int_equal(report_write(sha, fx->ws, &o), 0);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(util_read_file(&text, &len, out), 0);
	char want[65];
	util_sha256_hex(want, text, len);
	assert_string_equal(sha, want);
	cJSON *log = cJSON_Parse(text);
	assert_string_equal(str(log, "version"), "2.1.0");
	const cJSON *results = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(log, "runs"), 0), "results");
	assert_int_equal(cJSON_GetArraySize(results), 3); /* the fixed finding is left out */
	cJSON_Delete(log);
	free(text);
	cJSON *events = NULL;
	assert_int_equal(audit_events(&events, fx->ws->db), 0);
	const cJSON *ev = cJSON_GetArrayItem(events, 0), *d = cJSON_GetObjectItem(ev, "data");
	assert_string_equal(str(ev, "kind"), "report");
	assert_string_equal(str(d, "format"), "sarif");
	assert_string_equal(str(d, "sha256"), sha);
	assert_string_equal(str(d, "path"), out);
	cJSON_Delete(events);
	long long bad = 0, n = 0;
	assert_int_equal(audit_verify(&bad, &n, fx->ws->db, fx->ws->hist), 0);
	report_opts nope = { "sarif", "changes", out, "9.9" };
	assert_int_equal(report_write(NULL, fx->ws, &nope), FERRY_EUSAGE);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_change_list_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverted_checkpoint_is_excluded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsupported_list, setup, teardown),
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test_setup_teardown(test_report_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_records_event, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
