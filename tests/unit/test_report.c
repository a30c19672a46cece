/* Unit tests for the deliverables: the change list (hunks of fix checkpoints still in
 * effect, reverts excluded), the unsupported list, RFC 4180 CSV, and the report in each
 * format from one engagement fixture, including HTML escaping, and the Markdown and HTML
 * in Simplified Chinese (the engagement's language or an explicit one). */
#include "phase.h"
#include "testutil.h"

#include "assessment.h"

#include "audit.h"
#include "changes.h"
#include "err.h"
#include "intl.h"
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
	f.phase = phase_index("assess");
	f.severity = (finding_severity)severity_parse(severity);
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
	if (store_run_begin(&fx->run, fx->ws->db, "t", "{\"phases\":[\"assess\"]}", NULL))
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
	assert_int_equal(changes_list(&rows, &reverted, NULL, fx->ws->db, fx->ws->hist), 0);
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
	assert_int_equal(changes_list(&rows, &reverted, NULL, fx->ws->db, fx->ws->hist), 0);
	assert_int_equal(cJSON_GetArraySize(rows), 0);
	assert_int_equal(cJSON_GetArraySize(reverted), 1);
	assert_int_equal(num(cJSON_GetArrayItem(reverted, 0), "id"), fx->cp);
	assert_int_equal(num(cJSON_GetArrayItem(reverted, 0), "reverted_by"), rid);
	cJSON_Delete(rows);
	cJSON_Delete(reverted);
	/* reverting the revert puts the change back in effect */
	snprintf(rev, sizeof rev, "%lld", rid);
	assert_int_equal(ws_revert(&rid, oid, fx->ws, rev), 0);
	assert_int_equal(changes_list(&rows, NULL, NULL, fx->ws->db, fx->ws->hist), 0);
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

static char *render_in(const cJSON *doc, const char *format, const char *section, const char *lang)
{
	sbuf b;
	sbuf_init(&b);
	assert_int_equal(report_render(&b, doc, format, section, lang), 0);
	return sbuf_detach(&b);
}

static char *render(const cJSON *doc, const char *format, const char *section)
{
	return render_in(doc, format, section, NULL);
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
	char *shown = assessment_formula(as, 0); /* the categories by their titles */
	assert_non_null(strstr(md, shown));
	assert_non_null(strstr(shown, "custom kernels"));
	free(shown);
	assert_non_null(strstr(md, "## Phases"));
	assert_non_null(strstr(md, "### Phase assess"));
	assert_non_null(strstr(md, "#### custom kernels"));
	assert_non_null(strstr(md, "`csrc/k.cu:1`"));
	assert_non_null(strstr(md, "Advice: Rewrite it as an Ascend C operator."));
	assert_non_null(strstr(md, "&lt;b>reviewed&lt;/b>"));
	assert_non_null(strstr(md, "## Change list"));
	assert_non_null(strstr(md, "| train.py:3 | MODIFY |"));
	assert_non_null(strstr(md, "## Unsupported list"));
	assert_non_null(strstr(md, head));
	/* the verify command carries the anchor HASH:N the client keeps */
	assert_non_null(strstr(md, "`ferry verify --head "));
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
	assert_int_equal(report_render(&b, doc, "pdf", NULL, NULL), FERRY_EUSAGE);
	assert_int_equal(report_render(&b, doc, "md", "everything", NULL), FERRY_EUSAGE);
	assert_int_equal(report_render(&b, doc, "md", NULL, "fr"), FERRY_EUSAGE);
	sbuf_done(&b);
	cJSON_Delete(doc);
}

/* A tune comparison nobody made is in every format: the JSON report carries it as data
 * ("verdict": "not performed", no inputs) where the Markdown and HTML show a NOT
 * PERFORMED row, and the three agree kind by kind, in Chinese too. */
static void test_not_performed_in_every_format(void **state)
{
	struct fixture *fx = *state;
	cJSON *doc = NULL;
	assert_int_equal(report_build(&doc, fx->ws, "9.9"), 0);
	char *json = render(doc, "json", NULL), *md = render(doc, "md", NULL), *html = render(doc, "html", NULL);
	char *zh = render_in(doc, "md", NULL, "zh");
	cJSON *parsed = cJSON_Parse(json);
	const cJSON *vs = cJSON_GetObjectItem(parsed, "verdicts");
	static const char *const kinds[][3] = { { "loss", "Loss curve", "loss 曲线" }, { "dump", "Tensor dump", "dump 数据" } };
	for (size_t k = 0; k < 2; k++) {
		const cJSON *v = cJSON_GetObjectItem(vs, kinds[k][0]);
		assert_non_null(v);
		assert_string_equal(str(v, "verdict"), "not performed");
		assert_null(cJSON_GetObjectItem(v, "a"));
		assert_null(cJSON_GetObjectItem(v, "b"));
		char *row = xasprintf("| %s | NOT PERFORMED |", kinds[k][1]);
		assert_non_null(strstr(md, row));
		free(row);
		row = xasprintf("<td>%s</td><td>NOT PERFORMED</td>", kinds[k][1]);
		assert_non_null(strstr(html, row));
		free(row);
		row = xasprintf("| %s | 未执行 |", kinds[k][2]);
		assert_non_null(strstr(zh, row));
		free(row);
	}
	/* nothing else is said to be not performed: no benchmark or profile is on record,
	 * and no criterion is set for them */
	const cJSON *v;
	size_t n = 0;
	cJSON_ArrayForEach(v, vs)
		n += strcmp(str(v, "verdict"), "not performed") == 0;
	assert_int_equal(n, 2);
	const char *at = md;
	size_t rows = 0;
	while ((at = strstr(at, "| NOT PERFORMED |")))
		rows++, at++;
	assert_int_equal(rows, n);
	cJSON_Delete(parsed);
	free(json);
	free(md);
	free(html);
	free(zh);
	cJSON_Delete(doc);
}

static void test_write_records_event(void **state)
{
	struct fixture *fx = *state;
	char *out = util_path_join(fx->dir, ".ferry/report.sarif");
	report_opts o = { "sarif", "all", out, "9.9", NULL, 0, NULL };
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
	/* the chain holds; the fixture wrote its findings and waiver straight into the tables,
	 * so the replay names those rows (and only those) as unrecorded */
	audit_report rep;
	assert_int_equal(audit_check(&rep, fx->ws->db, fx->ws->hist, NULL), 0);
	assert_int_equal(rep.bad_seq, 0);
	const cJSON *p;
	cJSON_ArrayForEach(p, rep.problems) {
		assert_true(strcmp(str(p, "table"), "findings") == 0 || strcmp(str(p, "table"), "waivers") == 0);
		assert_string_equal(str(p, "kind"), "unrecorded");
	}
	audit_report_done(&rep);
	report_opts nope = { "sarif", "changes", out, "9.9", NULL, 0, NULL };
	assert_int_equal(report_write(NULL, fx->ws, &nope), FERRY_EUSAGE);
	free(out);
}

/* Every text in list is in s (present) or none is (!present); names the first that is not so. */
static void assert_texts(const char *s, const char *const *list, int present, const char *what)
{
	for (size_t i = 0; list[i]; i++)
		if (!strstr(s, list[i]) != !present) {
			print_error("%s: %s %s\n", what, present ? "missing" : "still has", list[i]);
			fail();
		}
}

/* English fixed texts that a Chinese report must not show. */
static const char *const english_md[] = {
	"Migration assessment", "Executive summary", "Readiness", "Effort", "person-days", "Days per open finding",
	"The weights are", "Top risks", "### Strategy", "Recommended", "Chosen", "drove the recommendation", "## Phases",
	"| Phase |", "Phase assess", "Signed off", "## Findings", "Grouped by phase", "Advice", "fixable", "## Waivers",
	"| Reason |", "Change list", "still in effect", "was reverted", "Unsupported list", "| Location |", "| Operation |",
	"| MODIFY |", "| INSERT |", "**error**", "**warning**", ", open", "waived)", "Environment", "No environment probe",
	"GPU baseline", "Not recorded", "### Artifacts", "None ingested", "Audit record", "Audit chain head",
	"To check that", "| Client |", "| Prepared by |", "| Tool |", "not started", "| blocked |", "(project)", NULL,
};
static const char *const english_html[] = {
	"lang=\"en\"", "Migration assessment", "Executive summary", ">Readiness<", ">Effort<", "person-days",
	"estimate from the open", ">Strategy<", "recommended; not chosen yet", "Days per open finding", "Base ",
	"Top risks", "Recommended:", "Chosen:", "<h2>Phases</h2>", "<th>Status</th>", "<h3>Phase ", "Sign-off",
	"Grouped by phase", "Advice:", "fixable", "Waivers", "<th>Reason</th>", "Change list", "Unsupported list",
	"<th>Location</th>", "<th>Operation</th>", ">MODIFY<", ">INSERT<", ">error<", ">warning<", ">open<", ">waived<",
	"Environment", "GPU baseline", "Not recorded", "<h3>Artifacts</h3>", "None ingested", "Audit record",
	"Audit chain head", "Baseline commit", "To check that", "Generated by", ">Client<", ">Prepared by<",
	">not started<", ">blocked<", NULL,
};

static void test_report_in_chinese(void **state)
{
	struct fixture *fx = *state;
	cJSON *doc = NULL;
	assert_int_equal(report_build(&doc, fx->ws, "9.9"), 0);
	const cJSON *as = cJSON_GetObjectItem(doc, "assessment");
	const cJSON *st = cJSON_GetObjectItem(as, "strategy");
	const char *klass = str(as, "class"), *reason = str(st, "reason");
	intl_set_lang("zh");
	const char *klass_zh = _(klass), *reason_zh = _(reason);
	intl_set_lang("en");
	assert_string_not_equal(klass_zh, klass);   /* every readiness class has its Chinese */
	assert_string_not_equal(reason_zh, reason); /* and every strategy reason */
	char score[32], readiness[128];
	snprintf(score, sizeof score, "%lld/100", num(as, "score"));
	snprintf(readiness, sizeof readiness, "**就绪度：%lld/100（%s）。**", num(as, "score"), klass_zh);

	char *md = render_in(doc, "md", NULL, "zh");
	const char *const md_zh[] = { "# 迁移评估报告：", "| 客户 | Acme, \"Labs\" |", "| 迁移项目编号 | eng-1 |", "| 编制人 |",
		                          "## 执行摘要", readiness, "**工作量：", "人天（根据评估阶段未处理的问题估算）。**", "`工作量 = 基础 ", "| 类别 | 每个未处理问题的人天 |",
		                          "### 主要风险", "**错误** `csrc/k.cu:1`", "### 策略", "推荐：**人工迁移（manual）**。",
		                          reason_zh, "已选：尚未记录", "决定该推荐的问题", "## 阶段", "| # | 阶段 | 状态 |",
		                          "| 1 | 评估 | 受阻 |", "| 未开始 |", "### 评估阶段", "#### 自定义核函数",
		                          "  - 建议：Rewrite it as an Ascend C operator.", "**已豁免**", "## 豁免", "| 理由 |",
		                          "## 改动清单", "| train.py:3 | 修改 |", "| train.py:5 | 新增 |", "## 不支持清单",
		                          "| csrc/k.cu:1 | 错误 |", "## 环境", "尚未导入环境探测结果", "### GPU 基线", "### 产物",
		                          "尚未导入任何产物。", "## 审计记录", "| 审计链头 | ", "`ferry verify --head ", NULL };
	assert_texts(md, md_zh, 1, "md zh");
	assert_texts(md, english_md, 0, "md zh");
	assert_null(strstr(md, reason));
	assert_null(strstr(md, str(as, "formula")));
	/* what plugins wrote stays as written */
	assert_non_null(strstr(md, "`k.cu` is a custom CUDA kernel."));
	free(md);

	char *html = render_in(doc, "html", NULL, "zh");
	const char *const html_zh[] = { "<html lang=\"zh-CN\">", "<title>迁移评估报告：", "Noto Sans CJK SC", "Microsoft YaHei",
		                            ">执行摘要</h2>", "<div class=\"label\">就绪度</div>", score, klass_zh, "人天",
		                            "<div class=\"label\">策略</div><div class=\"big\">人工迁移</div>", "推荐；尚未选定",
		                            "<td>客户</td>", ">阶段</h2>", "<th>状态</th>", "badge ph-blocked\">受阻",
		                            ">评估阶段</h3>", "badge sev-error\">错误</span>",
		                            "badge st-waived\">已豁免</span>", "<div class=\"advice\">建议：",
		                            ">豁免</h2>", ">改动清单</h2>", "badge op-modify\">修改</span>",
		                            "badge op-insert\">新增</span>", ">不支持清单</h2>", ">环境</h2>",
		                            ">审计记录</h2>", "<td>审计链头</td>", "<footer>由 ferry 9.9 生成于 ", NULL };
	assert_texts(html, html_zh, 1, "html zh");
	assert_texts(html, english_html, 0, "html zh");
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "src="));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
	assert_true(util_ends_with(html, "</html>\n"));
	free(html);

	/* the English report is unchanged by the translation */
	char *en = render_in(doc, "html", NULL, "en");
	assert_non_null(strstr(en, "<html lang=\"en\">"));
	assert_non_null(strstr(en, "<div class=\"label\">Readiness</div>"));
	assert_non_null(strstr(en, "badge op-modify\">MODIFY</span>"));
	assert_null(strstr(en, "就绪"));
	free(en);

	/* JSON and CSV: tools read them, so keys and values stay English in either language */
	static const char *const machine[][2] = { { "json", NULL }, { "json", "changes" }, { "csv", NULL },
		                                      { "csv", "changes" }, { "csv", "unsupported" } };
	for (size_t i = 0; i < sizeof machine / sizeof machine[0]; i++) {
		char *a = render_in(doc, machine[i][0], machine[i][1], "en");
		char *z = render_in(doc, machine[i][0], machine[i][1], "zh");
		assert_string_equal(a, z);
		free(a);
		free(z);
	}
	char *json = render_in(doc, "json", NULL, "zh");
	cJSON *parsed = cJSON_Parse(json);
	static const char *const keys[] = { "schema", "title", "engagement", "config", "assessment", "phases", "findings",
		                                "waivers", "changes", "unsupported", "environment", "artifacts", "history", "audit", NULL };
	for (size_t i = 0; keys[i]; i++)
		assert_non_null(cJSON_GetObjectItem(parsed, keys[i]));
	const cJSON *pas = cJSON_GetObjectItem(parsed, "assessment");
	assert_string_equal(str(pas, "class"), klass);
	assert_string_equal(str(cJSON_GetObjectItem(pas, "strategy"), "reason"), reason);
	assert_string_equal(str(cJSON_GetArrayItem(cJSON_GetObjectItem(parsed, "changes"), 0), "operation"), "MODIFY");
	assert_null(strstr(json, "就绪"));
	cJSON_Delete(parsed);
	free(json);
	cJSON_Delete(doc);
}

static void test_engagement_language(void **state)
{
	struct fixture *fx = *state;
	assert_int_equal(store_config_set(fx->ws->db, "language", "zh"), 0);
	cJSON *doc = NULL;
	assert_int_equal(report_build(&doc, fx->ws, "9.9"), 0);
	char *md = render(doc, "md", NULL); /* the engagement's setting */
	assert_true(util_starts_with(md, "# 迁移评估报告："));
	free(md);
	md = render_in(doc, "md", NULL, "en"); /* an explicit language wins */
	assert_true(util_starts_with(md, "# Migration assessment:"));
	assert_null(strstr(md, "执行摘要"));
	free(md);
	cJSON_Delete(doc);

	/* report_write: the setting by default, report_opts.lang over it; the event names the language */
	char *out = util_path_join(fx->dir, ".ferry/report.html");
	const char *langs[] = { NULL, "en" };
	const char *want[] = { "<html lang=\"zh-CN\">", "<html lang=\"en\">" };
	const char *event[] = { "zh", "en" };
	for (size_t i = 0; i < 2; i++) {
		report_opts o = { "html", "all", out, "9.9", langs[i], 0, NULL };
		assert_int_equal(report_write(NULL, fx->ws, &o), 0);
		char *text = NULL;
		size_t len = 0;
		assert_int_equal(util_read_file(&text, &len, out), 0);
		assert_non_null(strstr(text, want[i]));
		free(text);
		cJSON *events = NULL;
		assert_int_equal(audit_events(&events, fx->ws->db), 0);
		const cJSON *ev = cJSON_GetArrayItem(events, 0);
		assert_string_equal(str(ev, "kind"), "report");
		assert_string_equal(str(cJSON_GetObjectItem(ev, "data"), "lang"), event[i]);
		cJSON_Delete(events);
	}
	report_opts bad = { "html", "all", out, "9.9", "fr", 0, NULL };
	assert_int_equal(report_write(NULL, fx->ws, &bad), FERRY_EUSAGE);
	free(out);
}

int main(void)
{
	/* the catalogs of the source tree (tests run from its top), English unless asked */
	setenv("FERRY_LOCALEDIR", "build/locale", 0);
	setenv("FERRY_LANG", "en", 1);
	intl_init();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_change_list_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reverted_checkpoint_is_excluded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unsupported_list, setup, teardown),
		cmocka_unit_test(test_csv_quoting),
		cmocka_unit_test_setup_teardown(test_report_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_performed_in_every_format, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_records_event, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report_in_chinese, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engagement_language, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
