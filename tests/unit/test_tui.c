/*
 * test_tui — headless screen tests of the workbench: each test builds a small
 * engagement in a temporary directory (ws_init plus stored findings), runs
 * tui_main with FERRY_HEADLESS and a FERRY_KEYS script that ends with a
 * <Save:FILE>, and compares the saved screen with text written here.
 */
#include "testutil.h"
#include "phase.h"

#include "check.h"
#include "compare.h"
#include "config.h"
#include "diffview.h"
#include "keymap.h"
#include "review.h"
#include "err.h"
#include "intl.h"
#include "store.h"
#include "text.h"
#include "tui.h"
#include "workspace.h"

#include <dirent.h>
#include <locale.h>
#include <time.h>

#define TRAIN_PY                                                                                            \
	"import torch\n"                                                                                        \
	"import torch.distributed as dist\n"                                                                    \
	"\n"                                                                                                    \
	"def main():\n"                                                                                         \
	"    model = Net().cuda()\n"                                                                            \
	"    dist.init_process_group(backend='nccl')\n"                                                        \
	"    torch.cuda.synchronize()\n"                                                                        \
	"    return model\n"

struct fx {
	char *dir;
	long long ids[8]; /* stored finding ids in insertion order */
	const char *suggestion; /* the suggestion of findings added from now on; NULL: a short one */
};

static void add(store *s, long long run, struct fx *fx, int k, const char *phase, const char *plugin,
                const char *sev, const char *category, int line, int col, int end_col, const char *msg,
                const char *fp, finding_edit *edits, size_t nedits)
{
	finding f = { 0 };
	f.plugin = (char *)plugin;
	f.phase = phase_index(phase);
	f.severity = (finding_severity)severity_parse(sev);
	f.category = (char *)category;
	f.file = "train.py";
	f.line = f.end_line = line;
	f.col = col;
	f.end_col = end_col;
	f.message = (char *)msg;
	f.suggestion = fx->suggestion ? (char *)fx->suggestion : "Use the NPU equivalent.";
	f.fingerprint = (char *)fp;
	f.edits = edits;
	f.nedits = nedits;
	assert_int_equal(store_finding_upsert(s, run, &f), 0);
	fx->ids[k] = f.id;
}

/* One more finding (the fifth, fingerprint fp5) of a run of its phase, stored after setup. */
static void add_later(struct fx *fx, const char *phase, const char *plugin, const char *sev, const char *category,
                      int line, int col, int end_col, const char *msg)
{
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	long long run = 0;
	char *scope = xasprintf("{\"phases\":[\"%s\"]}", phase);
	assert_int_equal(store_begin(ws->db), 0);
	assert_int_equal(store_run_begin(&run, ws->db, ws->actor, scope, NULL), 0);
	add(ws->db, run, fx, 4, phase, plugin, sev, category, line, col, end_col, msg, "fp5", NULL, 0);
	assert_int_equal(store_commit(ws->db), 0);
	ws_close(ws);
	free(scope);
}

#define DIST_PY                                                                                             \
	"import torch\n"                                                                                        \
	"import torch.distributed as dist\n"                                                                    \
	"\n"                                                                                                    \
	"def setup():\n"                                                                                        \
	"    dist.init_process_group(backend='nccl')\n"                                                        \
	"    torch.cuda.synchronize()\n"

/* Two checks of the engagement's own (.ferry/plugins/): one whose fix turns 'nccl'
 * into 'hccl' in dist.py, one whose fix would break the parse (so it is refused). */
#define PLUGIN_BACKEND                                                                                      \
	"return {\n"                                                                                            \
	"  id = 'adapt.test_backend', phase = 'adapt', title = 'test backend', severity = 'error',\n"          \
	"  category = 'distributed',\n"                                                                         \
	"  run = function(ctx)\n"                                                                               \
	"    local text = ctx.read('dist.py')\n"                                                                \
	"    local s, e = string.find(text, \"'nccl'\", 1, true)\n"                                            \
	"    ctx.report{ file = 'dist.py', line = 5, col = 37, end_line = 5, end_col = 43,\n"                   \
	"      message = 'NCCL backend.', suggestion = 'Use hccl.',\n"                                          \
	"      edits = { { start_byte = s - 1, end_byte = e, text = \"'hccl'\" } } }\n"                         \
	"  end,\n"                                                                                              \
	"}\n"
#define PLUGIN_BADFIX                                                                                       \
	"return {\n"                                                                                            \
	"  id = 'adapt.test_badfix', phase = 'adapt', title = 'test bad fix', severity = 'warning',\n"         \
	"  category = 'device',\n"                                                                              \
	"  run = function(ctx)\n"                                                                               \
	"    local text = ctx.read('dist.py')\n"                                                                \
	"    local s, e = string.find(text, 'synchronize()', 1, true)\n"                                        \
	"    ctx.report{ file = 'dist.py', line = 6, col = 16, end_line = 6, end_col = 29,\n"                   \
	"      message = 'A sync.', suggestion = 'Drop it.',\n"                                                 \
	"      edits = { { start_byte = s - 1, end_byte = e, text = 'synchronize(' } } }\n"                     \
	"  end,\n"                                                                                              \
	"}\n"

static int setup_with(void **state, int with_fixes)
{
	struct fx *fx = xcalloc(1, sizeof *fx);
	fx->dir = tu_mkdtemp();
	tu_write(fx->dir, "train.py", TRAIN_PY);
	if (with_fixes)
		tu_write(fx->dir, "dist.py", DIST_PY);
	setenv("FERRY_ACTOR", "Ada Tester <ada@example.com>", 1);
	setenv("FERRY_LANG", "en", 1);
	unsetenv("FERRY_KEYS");
	workspace *ws = NULL;
	ws_init_opts o = { "acme", "demo", NULL };
	assert_int_equal(ws_init(&ws, fx->dir, &o), 0);
	long long run = 0;
	assert_int_equal(store_begin(ws->db), 0);
	assert_int_equal(store_run_begin(&run, ws->db, ws->actor, "{\"phases\":[\"assess\",\"adapt\"]}", NULL), 0);
	/* the fix replaces 'nccl' (line 6, columns 37..43) */
	unsigned at = (unsigned)(strstr(TRAIN_PY, "'nccl'") - TRAIN_PY);
	finding_edit e = { at, at + 6, "'hccl'" };
	add(ws->db, run, fx, 0, "adapt", "adapt.distributed_backend", "error", "distributed", 6, 37, 43,
	    "The distributed backend 'nccl' is NVIDIA's NCCL.", "fp1", &e, 1);
	add(ws->db, run, fx, 1, "adapt", "adapt.device_calls", "warning", "device", 5, 13, 24,
	    "`Net().cuda()` moves this object to an NVIDIA GPU.", "fp2", NULL, 0);
	add(ws->db, run, fx, 2, "adapt", "adapt.cuda_apis", "info", "cuda_api", 7, 5, 27,
	    "`torch.cuda.synchronize` is a CUDA API.", "fp3", NULL, 0);
	add(ws->db, run, fx, 3, "assess", "assess.cuda_apis", "warning", "cuda_api", 7, 5, 27,
	    "CUDA API in use.", "fp4", NULL, 0);
	assert_int_equal(store_run_finish(ws->db, run, 4, 0), 0);
	assert_int_equal(store_commit(ws->db), 0);
	if (with_fixes) {
		tu_write(fx->dir, ".ferry/plugins/adapt/test_backend.lua", PLUGIN_BACKEND);
		tu_write(fx->dir, ".ferry/plugins/adapt/test_badfix.lua", PLUGIN_BADFIX);
		const char *ids[] = { "adapt.test_backend", "adapt.test_badfix" };
		check_opts co = { NULL, 0, ids, 2, NULL, NULL, NULL, NULL, NULL, 0 };
		check_result res;
		int rc = check_run(&res, ws, &co);
		if (rc || res.nerrors)
			fprintf(stderr, "check_run: %s %s\n", err_message(), res.nerrors ? res.errors[0] : "");
		assert_int_equal(rc, 0);
		assert_int_equal(res.nfindings, 2);
		check_result_done(&res);
	}
	ws_close(ws);
	*state = fx;
	return 0;
}

static int setup(void **state)
{
	return setup_with(state, 0);
}

static int setup_fixes(void **state)
{
	return setup_with(state, 1);
}

static int teardown(void **state)
{
	struct fx *fx = *state;
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx);
	return 0;
}

/* Runs the workbench on dir at size with the key script, saving the screen at
 * the end; returns the saved text (caller frees). */
static char *screen_of(const char *dir, const char *size, const char *keys)
{
	char *out = util_path_join(dir, ".ferry/screen.txt");
	char *script = xasprintf("%s<Save:%s>", keys, out);
	setenv("FERRY_HEADLESS", size, 1);
	setenv("FERRY_KEYS", script, 1);
	intl_init(); /* as main does: the language from FERRY_LANG */
	int rc = tui_main(dir);
	if (rc)
		fprintf(stderr, "tui_main: %s\n", err_message());
	assert_int_equal(rc, 0);
	char *text = NULL;
	size_t len;
	assert_int_equal(util_read_file(&text, &len, out), 0);
	unsetenv("FERRY_KEYS");
	free(script);
	free(out);
	return text;
}

/* Row n (0-based) of a saved screen, in a static buffer. */
static const char *row(const char *screen, int n)
{
	static char buf[4096];
	const char *s = screen;
	for (int i = 0; i < n && s; i++) {
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	if (!s)
		return "";
	snprintf(buf, sizeof buf, "%.*s", (int)strcspn(s, "\n"), s);
	return buf;
}

/* Asserts the screen's rows from first on equal expected ("" rows included). */
static void assert_rows(const char *screen, int first, const char *const *expected, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *got = row(screen, first + (int)i);
		if (strcmp(got, expected[i]) != 0) {
			fprintf(stderr, "row %zu differs:\n  got:      [%s]\n  expected: [%s]\n--- screen ---\n%s", first + i,
			        got, expected[i], screen);
			fail();
		}
	}
}

/* The message line of a screen rows high as one text: a message longer than the window
 * grows it upwards, by a quarter of the screen at most, so those rows are joined with the
 * blank each was wrapped at (the panes' rows above a shorter message come along: harmless
 * to look for a text in). In a static buffer. */
static const char *message(const char *screen, int rows)
{
	static char buf[8192];
	buf[0] = '\0';
	for (int y = rows - 1 - rows / 4; y <= rows - 2; y++) {
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", row(screen, y));
	}
	return buf;
}

static void assert_has(const char *screen, const char *needle)
{
	if (!strstr(screen, needle)) {
		fprintf(stderr, "screen lacks [%s]:\n%s", needle, screen);
		fail();
	}
}

static void test_findings_screen(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "80x24", "4");
	static const char *const expected[] = {
		" Phases                Findings · adapt  3/3  sort:file  show:active",
		" ◐ 1 assess            • WARN train.py:5             `Net().cuda()` moves this",
		"   in progress E0 W1   • ERR  train.py:6             The distributed backend 'n",
		" ○ 2 design            • INFO train.py:7             `torch.cuda.synchronize` i",
		"   not started",
		" ○ 3 environment",
		"   not started",
		" ✖ 4 adapt",
		"   blocked E1 W1",
		" ○ 5 tune              #2  warning  adapt.device_calls  [open]",
		"   not started         `Net().cuda()` moves this object to an NVIDIA GPU.",
		" ○ 6 infer-convert     train.py:5:13",
		"   not started            2   import torch.distributed as dist",
		" ○ 7 infer-optimize       3",
		"   not started            4   def main():",
		"                          5 ▶     model = Net().cuda()",
	};
	assert_rows(s, 1, expected, sizeof expected / sizeof expected[0]);
	assert_has(row(s, 0), " ferry · demo / acme · #1 · "); /* the commit gives way at 80 columns */
	assert_has(row(s, 0), "open 4 (E1 W2 I1) fixed 0 waived 0");
	assert_has(row(s, 23), "r run  w waive  S sign off  e edit  / filter");
	/* C copies the finding's place, or in the timeline the checkpoint's commit */
	free(s);
	s = screen_of(fx->dir, "80x24", "4jC");
	assert_string_equal(row(s, 22), "Copied train.py:6 to the clipboard.");
	free(s);
	s = screen_of(fx->dir, "80x24", "tC");
	assert_has(row(s, 22), "Copied ");
	assert_has(row(s, 22), " to the clipboard.");
	free(s);
	s = screen_of(fx->dir, "80x24", "4");
	/* at 80 columns the key bar still ends with help and quit */
	const char *bar = row(s, 23);
	if (!util_ends_with(bar, "? help  q back/quit"))
		fail_msg("the key bar lost help or quit: [%s]", bar);
	free(s);
}

static void test_detail_shows_fix_as_diff(void **state)
{
	struct fx *fx = *state;
	/* the error row is second in file order; Enter zooms the detail */
	char *s = screen_of(fx->dir, "100x30", "4j<Enter>");
	/* the detail fills the main area, right of the rail */
	static const char *const expected[] = {
		"   5       model = Net().cuda()",
		"   6 ▶     dist.init_process_group(backend='nccl')",
		"   7       torch.cuda.synchronize()",
		"   8       return model",
		"Suggestion",
		" Use the NPU equivalent.",
		"Proposed fix",
		" @@ train.py:6 @@",
		" -     dist.init_process_group(backend='nccl')",
		" +     dist.init_process_group(backend='hccl')",
	};
	assert_has(row(s, 1), "#1  error  adapt.distributed_backend  [open]");
	for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
		const char *r = row(s, 6 + (int)i);
		size_t lr = strlen(r), le = strlen(expected[i]);
		if (lr < le || strcmp(r + lr - le, expected[i]) != 0) {
			fprintf(stderr, "row %zu: [%s] does not end with [%s]\n%s", 6 + i, r, expected[i], s);
			fail();
		}
	}
	free(s);
}

/* The attribute letter at (r, c) of the screen saved last (FERRY_SAVE_ATTRS). */
static char attr_at(const char *dir, int r, int c)
{
	char *a = tu_read(dir, ".ferry/screen.txt.attr");
	assert_non_null(a);
	char ch = row(a, r)[c];
	free(a);
	return ch;
}

static void test_cursor_and_highlights(void **state)
{
	struct fx *fx = *state;
	setenv("FERRY_SAVE_ATTRS", "1", 1);
	/* cursor on the second row: only that row is selected, even after moves that
	 * repaint just the rows that changed */
	char *s = screen_of(fx->dir, "100x30", "4jjk");
	free(s);
	assert_int_equal(attr_at(fx->dir, 2, 40), '.');
	assert_int_equal(attr_at(fx->dir, 3, 40), 'S');
	assert_int_equal(attr_at(fx->dir, 4, 40), '.');
	/* the error's severity is red; in the detail the matched 'nccl' is highlighted */
	s = screen_of(fx->dir, "100x30", "4j<Enter>");
	const char *r = row(s, 7);
	assert_non_null(strstr(r, "6 ▶"));
	free(s);
	char *a = tu_read(fx->dir, ".ferry/screen.txt.attr");
	assert_non_null(strstr(row(a, 7), "MMMMMM"));
	assert_non_null(strstr(row(a, 14), "------"));
	assert_non_null(strstr(row(a, 15), "++++++"));
	free(a);
	unsetenv("FERRY_SAVE_ATTRS");
}

/* A file that starts with a byte-order mark: the finding's columns on line 1 leave the mark
 * out (as Python does), and the detail highlights exactly the code they name. */
static void test_highlight_after_byte_order_mark(void **state)
{
	struct fx *fx = *state;
	tu_write(fx->dir, "train.py", "\xEF\xBB\xBF" TRAIN_PY);
	add_later(fx, "infer-convert", "infer-convert.test", "warning", "device", 1, 1, 13, "`import torch` on line 1.");
	setenv("FERRY_SAVE_ATTRS", "1", 1);
	char *s = screen_of(fx->dir, "100x30", "6<Enter>");
	int r = 0;
	while (r < 30 && !strstr(row(s, r), "1 ▶"))
		r++;
	const char *line = row(s, r);
	const char *code = strstr(line, "import torch");
	if (!code)
		fail_msg("no line 1 with its code in the detail:\n%s", s);
	size_t at = 0; /* the screen column of "import": characters before it */
	for (const char *c = line; c < code; c++)
		at += ((unsigned char)*c & 0xC0) != 0x80;
	free(s);
	char *a = tu_read(fx->dir, ".ferry/screen.txt.attr");
	const char *attrs = row(a, r);
	for (size_t i = 0; i < 12; i++)
		if (attrs[at + i] != 'M')
			fail_msg("column %zu of `import torch` is not highlighted: [%s]", i, attrs);
	assert_int_not_equal(attrs[at + 12], 'M');
	assert_int_not_equal(attrs[at - 1], 'M');
	free(a);
	unsetenv("FERRY_SAVE_ATTRS");
}

/* Code quoted in a message may span lines: in the list's one row its line breaks are
 * blanks, not question marks. */
static void test_message_line_breaks_are_blanks(void **state)
{
	struct fx *fx = *state;
	add_later(fx, "infer-convert", "infer-convert.test", "warning", "device", 1, 1, 13, "`Net(\n    size=256,\n)` is built.");
	char *s = screen_of(fx->dir, "160x30", "6");
	assert_has(s, "`Net(     size=256, )` is built.");
	assert_true(strstr(s, "Net(?") == NULL);
	free(s);
}

static void test_filter_sort_and_status_cycle(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "4/sev:error<Enter>");
	assert_has(row(s, 1), "Findings · adapt  1/3");
	assert_has(row(s, 1), "/sev:error");
	assert_has(row(s, 2), "ERR  train.py:6");
	free(s);
	s = screen_of(fx->dir, "100x30", "4s");
	assert_has(row(s, 1), "sort:severity");
	assert_has(row(s, 2), "ERR  train.py:6");
	assert_has(row(s, 3), "WARN train.py:5");
	free(s);
	s = screen_of(fx->dir, "100x30", "4/nothing-matches<Enter>");
	assert_has(s, "No findings match the filter");
	free(s);
}

/* #ID and PATH:LINE in the filter; n and N step through the matches of a search. */
static void test_filter_by_id_and_place_search_repeat(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "4/#2<Enter>");
	assert_has(row(s, 1), "Findings · adapt  1/3");
	assert_has(row(s, 2), "WARN train.py:5");
	free(s);
	s = screen_of(fx->dir, "100x30", "4/train.py:6<Enter>");
	assert_has(row(s, 1), "Findings · adapt  1/3");
	assert_has(row(s, 2), "ERR  train.py:6");
	free(s);
	s = screen_of(fx->dir, "100x30", "4/src/train.py:6<Enter>"); /* another file that ends alike is not it */
	assert_has(row(s, 1), "Findings · adapt  0/3");
	free(s);
	/* a search moves the cursor, n goes on (wrapping), N goes back */
	s = screen_of(fx->dir, "100x30", "4:search torch.cuda<Enter>");
	assert_has(row(s, 1), "row 3 of 3");
	free(s);
	s = screen_of(fx->dir, "100x30", "4:search train.py<Enter>n");
	assert_has(row(s, 1), "row 3 of 3");
	free(s);
	s = screen_of(fx->dir, "100x30", "4:search train.py<Enter>nN");
	assert_has(row(s, 1), "row 2 of 3");
	free(s);
	s = screen_of(fx->dir, "100x30", "4:search no-such-thing<Enter>");
	assert_has(s, "No match for \u201cno-such-thing\u201d here.");
	free(s);
	s = screen_of(fx->dir, "100x30", "4n");
	assert_has(s, "Nothing to search for yet: / searches.");
	free(s);
	/* outside the findings list / searches: the timeline's checkpoints */
	s = screen_of(fx->dir, "100x30", "t/baseline<Enter>");
	assert_has(s, "Checkpoint timeline");
	free(s);
}

/* > and < scroll long lines sideways in the detail; the line numbers stay. */
static void test_detail_scrolls_sideways(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "80x30", "4j<Enter>>");
	const char *r = row(s, 7);
	assert_non_null(strstr(r, "6 ▶"));
	assert_non_null(strstr(r, "6 ▶ ocess_group(backend='nccl')"));
	assert_null(strstr(r, "dist.init"));
	free(s);
	s = screen_of(fx->dir, "80x30", "4j<Enter>><");
	assert_non_null(strstr(row(s, 7), "dist.init_process_group"));
	free(s);
}

/* Where display column col of a saved row starts (its end when the row is narrower). */
static const char *at_col(const char *r, int col)
{
	int used = 0;
	while (*r && used < col) {
		unsigned cp;
		int w;
		r += text_next(r, strlen(r), &cp, &w);
		used += w;
	}
	return r;
}

/* 1 when s is fmt with its one %d standing for a number of at least 1 (sscanf would
 * not do: glibc's does not match a format's CJK characters in a UTF-8 locale). */
static int is_count_of(const char *s, const char *fmt)
{
	const char *d = strstr(fmt, "%d");
	size_t pre = (size_t)(d - fmt);
	if (strncmp(s, fmt, pre) != 0)
		return 0;
	char *end;
	long n = strtol(s + pre, &end, 10);
	return end > s + pre && n >= 1 && strcmp(end, d + 2) == 0;
}

/* Every row of a screen showing a scroll marker (↓ or ↑) right of column x shows nothing
 * else there: the marker, in the language's words (fmt's one %d), stands on a row of its
 * own and never covers the text. Returns how many markers there were. */
static int markers_alone(const char *screen, int x, int rows, const char *down_fmt, const char *up_fmt)
{
	int found = 0;
	for (int y = 0; y < rows; y++) {
		const char *r = at_col(row(screen, y), x);
		if (!strstr(r, "↓") && !strstr(r, "↑"))
			continue;
		found++;
		r += strspn(r, " ");
		if (!is_count_of(r, strncmp(r, "↓", 3) == 0 ? down_fmt : up_fmt))
			fail_msg("row %d: the scroll marker shares its row with text: [%s]\n--- screen ---\n%s", y, r, screen);
	}
	return found;
}

/* A finding whose detail is longer than the pane, at 80x24 in English and in Chinese:
 * the scroll marker has a row of its own below the text at every scroll position, so the
 * suggestion (wrapped to the pane's edge, as Chinese always is) is never drawn over, and
 * the end of the text is reached with J. */
static void test_detail_scroll_marker_beside_text(void **state)
{
	struct fx *fx = *state;
	static const struct {
		const char *lang, *suggestion, *down, *up;
	} cases[] = {
		{ "en",
		  "Replace the CUDA kernel with an equivalent composed of torch operators that the NPU supports, "
		  "or port it to an Ascend C custom operator; keep the Python signature so the callers do not change, "
		  "and compare its outputs on the GPU and the NPU before you sign the phase off. THE-END.",
		  "↓ %d more lines", "↑ %d lines above" },
		{ "zh",
		  "将这个 CUDA 核函数替换为由昇腾支持的 torch 算子组合而成的等价实现，或者把它移植为 Ascend C "
		  "自定义算子；保持原有的 Python 接口不变，这样调用方无需修改；在签署确认本阶段之前，请在 GPU "
		  "和 NPU 上分别运行并比对它的输出结果，确认两者在容差范围之内一致。全文结束。",
		  "↓ 还有 %d 行", "↑ 上方还有 %d 行" },
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		fx->suggestion = cases[c].suggestion;
		add_later(fx, "infer-convert", "infer-convert.test", "warning", "device", 5, 13, 24, "A custom kernel.");
		setenv("FERRY_LANG", cases[c].lang, 1);
		int markers = 0;
		const char *presses[] = { "", "J", "JJ", "JJJ", "JJJJJJJJ" };
		for (size_t k = 0; k < sizeof presses / sizeof presses[0]; k++) {
			char keys[32];
			snprintf(keys, sizeof keys, "6%s", presses[k]);
			char *s = screen_of(fx->dir, "80x24", keys);
			markers += markers_alone(s, 22, 22, cases[c].down, cases[c].up);
			if (k == sizeof presses / sizeof presses[0] - 1)
				assert_has(s, c ? "全文结束。" : "THE-END.");
			free(s);
		}
		assert_true(markers >= 4); /* the text was longer than the pane */
		/* zoomed (Enter), the detail takes the whole main area and marks it the same way */
		char *s = screen_of(fx->dir, "80x24", "6<Enter>");
		markers_alone(s, 22, 22, cases[c].down, cases[c].up);
		free(s);
	}
	fx->suggestion = NULL;
	setenv("FERRY_LANG", "en", 1);
}

/* The diff viewer (timeline, fix preview, artifacts) marks what follows on a row of its
 * own too: lines that reach the window's edge keep every cell. */
static void test_diffview_marker_beside_text(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	char *out = util_path_join(dir, "screen.txt");
	setenv("FERRY_HEADLESS", "40x6", 1);
	setenv("FERRY_LANG", "zh", 1);
	intl_init();
	/* drawn at the top and at the end, the screens kept to be judged once the grid is closed */
	char *screens[2] = { NULL, NULL };
	int rows[2] = { 0, 0 };
	assert_int_equal(ui_open(), 0);
	ui_win *w = ui_win_new(0, 0, 6, 40);
	diffview d = { 0 };
	sbuf b;
	sbuf_init(&b);
	for (int i = 0; i < 10; i++)
		sbuf_addf(&b, "+第%d行：这一行很长，一直写到窗口的右边缘还不停止，继续写下去\n", i);
	diffview_set(&d, b.buf);
	for (int k = 0; k < 2; k++) {
		if (k)
			diffview_scroll(&d, CMD_BOTTOM);
		ui_erase(w);
		diffview_draw(&d, w, 0, 1, 6);
		rows[k] = d.h;
		size_t len;
		if (ui_save(out) != 0 || util_read_file(&screens[k], &len, out) != 0)
			screens[k] = NULL;
	}
	sbuf_done(&b);
	diffview_clear(&d);
	ui_win_free(w);
	ui_close();
	unsetenv("FERRY_HEADLESS");
	setenv("FERRY_LANG", "en", 1);
	tu_rmdir(dir);
	free(dir);
	free(out);
	for (int k = 0; k < 2; k++) {
		assert_non_null(screens[k]);
		assert_int_equal(markers_alone(screens[k], 0, 6, "↓ 还有 %d 行", "↑ 上方还有 %d 行"), 1);
		assert_has(row(screens[k], 4), k ? "第9行" : "第4行");
		assert_int_equal(rows[k], 5); /* the sixth row is the marker's: scrolling counts five */
		free(screens[k]);
	}
}

/* Rows [first, last] of a screen joined without separators, each trimmed of the blanks
 * that lead it (a wrapped text read back whole when it broke inside words); caller frees. */
static char *rows_joined(const char *screen, int first, int last)
{
	sbuf b;
	sbuf_init(&b);
	for (int y = first; y <= last; y++) {
		const char *r = row(screen, y);
		sbuf_adds(&b, r + strspn(r, " "));
	}
	return sbuf_detach(&b);
}

/* A label of n "-runK" parts between "gpu-" and "-END", no blank in it: wrapped, it breaks
 * inside. Caller frees. */
static char *long_label(int n)
{
	sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, "gpu");
	for (int i = 0; i < n; i++)
		sbuf_addf(&b, "-run%d", i);
	sbuf_adds(&b, "-END");
	return sbuf_detach(&b);
}

/* The 80x24 screen in lang after :compare loss was refused for a label no artifact has,
 * then the keys after; caller frees. */
static char *refused_label(const char *dir, const char *lang, const char *label, const char *after)
{
	char *keys = xasprintf("4:compare loss %s npu<Enter>%s", label, after);
	setenv("FERRY_LANG", lang, 1);
	char *s = screen_of(dir, "80x24", keys);
	setenv("FERRY_LANG", "en", 1);
	free(keys);
	return s;
}

/* A refusal wider than the window at 80x24, in English and in Chinese: the message line
 * grows upwards to the rows the message needs and shows it whole; the next key gives the
 * rows back to the panes. */
static void test_long_message_grows_the_line(void **state)
{
	struct fx *fx = *state;
	char *label = long_label(30);
	static const struct {
		const char *lang, *why;
	} cases[] = { { "en", ": no such artifact id, artifact label or file" }, { "zh", "：没有这个产物编号、产物标签或文件" } };
	for (size_t c = 0; c < 2; c++) {
		char *s = refused_label(fx->dir, cases[c].lang, label, "");
		char *want = xasprintf("%s%s", label, cases[c].why), *got = rows_joined(s, 20, 22);
		if (strcmp(got, want) != 0)
			fail_msg("the message is not shown whole on rows 20-22:\n  got:  [%s]\n  want: [%s]\n%s", got, want, s);
		assert_null(strstr(row(s, 19), "run")); /* the rows above it are the panes' */
		assert_has(row(s, 19), "return model");
		free(got);
		free(want);
		free(s);
		/* the next key clears it, and the panes have their rows again */
		s = refused_label(fx->dir, cases[c].lang, label, "j");
		assert_null(strstr(s, "-END"));
		assert_int_equal(strlen(row(s, 22)), 0);
		free(s);
	}
	free(label);
}

/* A message longer than a quarter of the screen shows what fits, the last row saying how
 * much is left and which key shows it: M, where it is whole. */
static void test_message_too_long_names_its_key(void **state)
{
	struct fx *fx = *state;
	char *label = long_label(75);
	for (int zh = 0; zh < 2; zh++) {
		char *s = refused_label(fx->dir, zh ? "zh" : "en", label, "");
		/* six rows: five of text, then the marker's */
		char *got = rows_joined(s, 17, 21);
		if (strncmp(got, label, 5 * 79) != 0)
			fail_msg("rows 17-21 are not the message's first five rows:\n%s", s);
		const char *mark = row(s, 22);
		if (!is_count_of(mark + strspn(mark, " "), zh ? "↓ 还有 %d 行 · 按 M 查看全文" : "↓ %d more lines · M shows it whole"))
			fail_msg("no marker on row 22:\n%s", s);
		free(got);
		free(s);
		s = refused_label(fx->dir, zh ? "zh" : "en", label, "M");
		assert_has(row(s, 1), zh ? "消息（最新在前，共 2 条）" : "Messages, newest first (2)");
		assert_has(s, "-END");
		assert_has(s, zh ? "欢迎。" : "Welcome.");
		free(s);
	}
	free(label);
}

/* A refusal longer than 512 bytes (unsetting an unknown setting: every key is listed)
 * reaches the message line whole, its end included: the workbench's copies of an error,
 * kept while it reloads, are as large as the error record. */
static void test_long_error_kept_whole(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "200x60", ":unset nosuchkey<Enter>");
	/* the same refusal, as the settings the workbench loaded make it */
	assert_int_not_equal(config_key_check("nosuchkey"), 0);
	const char *why = err_message();
	size_t n = strlen(why);
	assert_true(n > 512);
	assert_has(message(s, 60), "nosuchkey");
	assert_has(message(s, 60), why + n - 40);
	err_clear();
	free(s);
}

/* M lists the messages shown so far, newest first, in both languages; with more than fit,
 * they scroll and a search finds the oldest; q goes back. */
static void test_messages_view(void **state)
{
	struct fx *fx = *state;
	setenv("FERRY_LANG", "zh", 1);
	char *s = screen_of(fx->dir, "80x24", "4n:nosuch<Enter>M");
	assert_has(row(s, 1), "消息（最新在前，共 3 条）");
	assert_has(row(s, 2), "nosuch：没有这个命令");
	assert_has(row(s, 3), "尚无搜索内容");
	assert_has(row(s, 4), "欢迎。");
	free(s);
	setenv("FERRY_LANG", "en", 1);
	/* n with nothing to search for says so each time: twenty messages and the welcome */
	const char *many = "4nnnnnnnnnnnnnnnnnnnnM";
	s = screen_of(fx->dir, "80x24", many);
	assert_has(row(s, 1), "Messages, newest first (21)");
	assert_has(row(s, 2), "Nothing to search for yet: / searches.");
	assert_null(strstr(s, "Welcome."));
	char *search = xasprintf("%s/welcome<Enter>", many);
	free(s);
	s = screen_of(fx->dir, "80x24", search);
	assert_has(s, "Welcome.");
	free(search);
	free(s);
	s = screen_of(fx->dir, "80x24", "Mq");
	assert_has(row(s, 1), "Findings ·");
	free(s);
}

/* Replaces the bytes of the kept reading in dir/.ferry/cache whose name holds `what` with
 * text, keeping its header's record of the artifact copy (acache.c's format). */
static void rewrite_kept(const char *dir, const char *what, const char *text)
{
	char *cache = util_path_join(dir, ".ferry/cache");
	DIR *d = opendir(cache);
	assert_non_null(d);
	struct dirent *e;
	int done = 0;
	while ((e = readdir(d)) && !done) {
		if (!strstr(e->d_name, what))
			continue;
		char *path = util_path_join(cache, e->d_name), *old = NULL;
		size_t len = 0;
		assert_int_equal(util_read_file(&old, &len, path), 0);
		long long size, ino, mtime, ctime;
		assert_int_equal(sscanf(old, "ferry-acache 2 %lld %lld %lld %lld", &size, &ino, &mtime, &ctime), 4);
		char sha[65];
		util_sha256_hex(sha, text, strlen(text));
		char *entry = xasprintf("ferry-acache 2 %lld %lld %lld %lld %zu %s\n%s", size, ino, mtime, ctime, strlen(text),
		                        sha, text);
		assert_int_equal(util_write_atomic(path, entry, strlen(entry), 0644), 0);
		free(entry);
		free(old);
		free(path);
		done = 1;
	}
	closedir(d);
	free(cache);
	assert_true(done);
}

/* A profile opens as its top operators, AI CPU operators and steps; its text scrolls
 * sideways and can be searched. */
static void test_profile_view(void **state)
{
	struct fx *fx = *state;
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char *keys = xasprintf(":ingest profile %s/tests/fixtures/profile/trace_view.json --label prof<Enter>"
	                       "a/prof<Enter><Enter>", cwd);
	char *s = screen_of(fx->dir, "100x40", keys);
	assert_has(s, "#1 profile · prof");
	assert_has(s, "Top operators by device time");
	assert_has(s, "62.5%");
	assert_has(s, "Operators on the AI CPU");
	assert_has(s, "aclnnNonzero_NonZero_NonZero");
	assert_has(s, "ProfilerStep#2");
	assert_has(s, "← host-bound");
	free(s);
	free(keys);
	/* at 80 columns the operator names are cut; > shows their ends */
	s = screen_of(fx->dir, "80x40", "a<Enter>/Top operators<Enter>>>>>");
	assert_has(s, "(MatMulV2)");
	free(s);
	/* the view was kept (a 2 GB profile takes most of a minute to read): an entry holding
	 * other text is what the next opening shows */
	rewrite_kept(fx->dir, ".view.", "KEPT VIEW OF THE PROFILE\n");
	s = screen_of(fx->dir, "100x40", "a<Enter>");
	assert_has(s, "KEPT VIEW OF THE PROFILE");
	assert_null(strstr(s, "Top operators by device time"));
	free(s);
}

/* An artifact opens as the checks read it: ais_bench output as a benchmark with its
 * throughput, a run log written in GBK with its Chinese text readable. */
static void test_artifact_view_reads_like_the_checks(void **state)
{
	struct fx *fx = *state;
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char *keys = xasprintf(":ingest bench %s/tests/fixtures/profile/ais_bench_summary.json --label ais<Enter>"
	                       "a/ais<Enter><Enter>", cwd);
	char *s = screen_of(fx->dir, "100x40", keys);
	assert_has(s, "#1 bench · ais");
	assert_has(s, "Ascend NPU (ais_bench / msit benchmark)");
	assert_has(s, "1018.33");
	free(s);
	free(keys);
	keys = xasprintf(":ingest run-log %s/tests/fixtures/runlog/gbk.log --label gbk<Enter>a/gbk<Enter><Enter>", cwd);
	s = screen_of(fx->dir, "100x40", keys);
	assert_has(s, "#2 run-log · gbk");
	assert_has(s, "第 9 步  loss: nan  学习率: 0.5");
	assert_has(s, "依赖库/libascend_hal.so: cannot open shared object file");
	free(s);
	free(keys);
	/* a model is not offered to :compare dump, and an artifact without a label has no
	 * dangling separator in its title */
	keys = xasprintf(":ingest onnx %s/tests/fixtures/onnx/%s<Enter>a/onnx<Enter><Enter>", cwd, "cnn_op13.onnx");
	s = screen_of(fx->dir, "100x40", keys);
	assert_has(s, "the infer-convert checks read it");
	assert_null(strstr(s, "compare dump"));
	assert_has(row(s, 1), "#3 onnx");
	assert_null(strstr(row(s, 1), "#3 onnx ·"));
	free(s);
	free(keys);
	/* a stored copy altered since it was ingested is not shown: the status line names it,
	 * as the checks and the report refuse it */
	char *dir = util_path_join(fx->dir, ".ferry/artifacts/bench");
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	char *copy = NULL;
	while ((e = readdir(d)) && !copy)
		if (strstr(e->d_name, "ais_bench_summary.json"))
			copy = util_path_join(dir, e->d_name);
	closedir(d);
	assert_non_null(copy);
	char *old = NULL;
	size_t len = 0;
	assert_int_equal(util_read_file(&old, &len, copy), 0);
	char *hot = strstr(old, "1018.3299");
	assert_non_null(hot);
	hot[0] = '9'; /* 9018.33: a throughput nobody measured */
	assert_int_equal(util_write_atomic(copy, old, len, 0644), 0);
	s = screen_of(fx->dir, "100x40", "a/ais<Enter><Enter>");
	assert_has(s, "artifact 1 (bench, ais) no longer matches the SHA-256 recorded at ingest");
	assert_null(strstr(s, "9018.33"));
	free(s);
	free(old);
	free(copy);
	free(dir);
}

/* The engagement's value of a setting (malloc'd), NULL when it is not set. */
static char *setting_of(const char *dir, const char *key)
{
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, dir), 0);
	char *v = store_config_get(ws->db, key);
	ws_close(ws);
	return v;
}

/* The settings form: the design settings first with what each accepts; Enter changes
 * one through the same check and audit as `ferry config`; a bad value is refused. */
static void test_settings_form(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "120x40", "o");
	assert_has(row(s, 1), "Settings");
	assert_has(row(s, 2), "Design: targets, acceptance criteria, strategy, model size");
	assert_has(s, "auto | tool | manual");
	assert_has(s, "a whole number of at least 1");
	free(s);
	s = screen_of(fx->dir, "120x40", "o/strategy<Enter><Enter>");
	assert_has(row(s, 38), "strategy (auto | tool | manual):");
	free(s);
	s = screen_of(fx->dir, "120x40", "o/strategy<Enter><Enter>tool<Enter>");
	assert_has(row(s, 38), "strategy set to tool (recorded in the audit chain).");
	free(s);
	char *v = setting_of(fx->dir, "strategy");
	assert_non_null(v);
	assert_string_equal(v, "tool");
	free(v);
	/* the form shows the value now, and refuses a word it does not accept */
	s = screen_of(fx->dir, "120x40", "o/strategy<Enter><Enter><BS><BS><BS><BS>fast<Enter>");
	assert_has(row(s, 38), "config strategy fast: must be one of: auto tool manual");
	assert_has(s, " tool ");
	free(s);
	s = screen_of(fx->dir, "120x40", "o/target.cards<Enter><Enter>0<Enter>");
	assert_has(row(s, 38), "config target.cards 0: must be a whole number of at least 1");
	free(s);
}

/* After keys, the message line of a 120x40 screen says text. */
static void message_says(const char *dir, const char *keys, const char *text)
{
	char *s = screen_of(dir, "120x40", keys);
	assert_has(message(s, 40), text);
	free(s);
}

/* x in the settings form unsets the selected setting after asking, as `ferry config
 * --unset`; :unset KEY does it from the palette, its keys completed by Tab; a word typed
 * after :unset is a key, never the form's answer to its question. */
static void test_settings_unset(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "120x40", "o/strategy<Enter><Enter>tool<Enter>x");
	assert_has(row(s, 1), "x unsets it");
	assert_has(row(s, 38), "Unset strategy (now tool)? (y/n)");
	free(s);
	message_says(fx->dir, "o/strategy<Enter>xn", "Nothing done.");
	char *v = setting_of(fx->dir, "strategy");
	assert_string_equal(v, "tool");
	free(v);
	/* the setting the form last changed is not what ":unset yes" names */
	message_says(fx->dir, "o/strategy<Enter><Enter>tool<Enter>:unset yes<Enter>", "config: unknown key yes");
	v = setting_of(fx->dir, "strategy");
	assert_non_null(v);
	free(v);
	s = screen_of(fx->dir, "120x40", "o/strategy<Enter>xy");
	assert_has(row(s, 38), "strategy unset (was tool; recorded in the audit chain).");
	const char *line = strstr(s, "strategy   "); /* the form's row of the setting */
	assert_non_null(line);
	assert_true(strstr(line, "(not set)") && strstr(line, "(not set)") < strchr(line, '\n'));
	free(s);
	assert_null(setting_of(fx->dir, "strategy"));
	message_says(fx->dir, "o/strategy<Enter>x", "strategy was not set; nothing changed");
	message_says(fx->dir, ":unset tolerance.l<Tab>", ":unset tolerance.loss");
	message_says(fx->dir, ":config tolerance.loss 0.02<Enter>:unset tolerance.l<Tab><Enter>",
	             "tolerance.loss unset (was 0.02; recorded in the audit chain).");
	s = screen_of(fx->dir, "120x40", ":config tolerance.loss 0.02<Enter>:unset tolerance.loss 0.02<Enter>");
	assert_has(s, "usage: unset KEY");
	free(s);
	v = setting_of(fx->dir, "tolerance.loss");
	assert_string_equal(v, "0.02");
	free(v);
	message_says(fx->dir, ":unset effort.weight.bogus<Enter>", "'bogus' is not a finding category");
}

static void test_waive_with_reason(void **state)
{
	struct fx *fx = *state;
	/* a reason of blanks (an ideographic space too) says nothing: refused */
	char *s = screen_of(fx->dir, "100x30", "4jw   <Enter>");
	assert_has(row(s, 28), "A waiver needs a reason (auditors read it).");
	free(s);
	s = screen_of(fx->dir, "100x30", "4jw\xe3\x80\x80<Enter>");
	assert_has(row(s, 28), "A waiver needs a reason (auditors read it).");
	free(s);
	s = screen_of(fx->dir, "100x30", "4jwvendor kernel kept<Enter>");
	char msg[64];
	snprintf(msg, sizeof msg, "Waived finding #%lld.", fx->ids[0]);
	assert_has(row(s, 28), msg);
	assert_has(row(s, 0), "waived 1");
	free(s);
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	cJSON *w = NULL;
	assert_int_equal(store_waivers(&w, ws->db), 0);
	assert_int_equal(cJSON_GetArraySize(w), 1);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(w, 0), "reason")->valuestring, "vendor kernel kept");
	cJSON_Delete(w);
	ws_close(ws);
	/* the detail pane of the waived finding says who waived it, when and why */
	s = screen_of(fx->dir, "100x40", "4j");
	assert_has(s, "Waived by");
	assert_has(s, "Ada Tester <ada@example.com>, 20");
	assert_has(s, ": vendor kernel kept");
	free(s);
	/* an empty reason is refused */
	s = screen_of(fx->dir, "100x30", "4jjw<Enter>");
	assert_has(s, "A waiver needs a reason");
	free(s);
}

static void test_signoff_refused_then_allowed(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "4S");
	assert_has(row(s, 28), "Cannot sign off adapt: the earlier phase assess is not signed off yet.");
	/* the phase's own open errors are listed in full, not cut off the message line */
	assert_has(row(s, 1), "Cannot sign off adapt yet");
	assert_has(s, "Open error (1):");
	assert_has(s, "#1  adapt.distributed_backend  train.py:6");
	/* the keys it names are the findings list's, where q goes back to */
	assert_has(s, "q goes back to the findings: fix (F) or waive (w) each of them there");
	free(s);
	/* the question says what is still open */
	s = screen_of(fx->dir, "160x30", "1S");
	/* the gate ran assess.gpu_baseline, which reads the loss logs on record: none, so the
	 * checklist's GPU baseline item is open too */
	assert_has(row(s, 28), "Sign off assess with 1 open warning and 1 unticked checklist item (listed above) as Ada Tester?");
	/* and lists it above */
	assert_has(row(s, 1), "Before signing off assess");
	assert_has(s, "Open warning (1):");
	assert_has(s, "#4  assess.cuda_apis  train.py:7");
	assert_has(s, "CUDA API in use.");
	free(s);
	/* signing goes back to where the user was */
	s = screen_of(fx->dir, "100x30", "1Sall reviewed<Enter>");
	assert_has(row(s, 28), "Phase assess signed off by Ada Tester <ada@example.com>.");
	assert_has(row(s, 2), "✔ 1 assess");
	assert_has(row(s, 1), "Findings · assess");
	free(s);
	/* design has set nothing: S runs the checks of its settings first (the gate), and the
	 * question lists their warnings with the checklist items */
	s = screen_of(fx->dir, "160x30", "2S");
	assert_has(row(s, 28), "Sign off design with 7 open warnings and 4 unticked checklist items (listed above) as Ada Tester?");
	free(s);
	/* at 120 columns the question is cut in its middle: what it is about and what is
	 * still open stay in view, and so does the note */
	s = screen_of(fx->dir, "120x30", "2S");
	assert_has(row(s, 28), "Sign off design with 7 open warnings and 4 unticked checklist");
	assert_has(row(s, 28), "…Note (optional, Enter signs):");
	assert_has(s, "Checklist items not ticked (4):");
	assert_has(s, "[ ] A migration strategy is chosen (o, or ferry config strategy)");
	assert_has(s, "Open warnings (7):");
	free(s);
	/* in a window narrower than the question, what is typed stays in view, after the end
	 * of the question: the start of the question gives way, never the note */
	s = screen_of(fx->dir, "100x30", "2Sok");
	assert_has(row(s, 28), "Note (optional, Enter signs): ok");
	assert_has(row(s, 28), "…");
	free(s);
	setenv("FERRY_LANG", "zh", 1);
	s = screen_of(fx->dir, "80x30", "2Sok");
	assert_has(row(s, 28), "ok");
	free(s);
	s = screen_of(fx->dir, "120x30", "2S");
	assert_has(row(s, 28), "签署确认设计阶段（尚有 7 条未处理的警告");
	assert_has(row(s, 28), "备注（可选，按 Enter 签署确认）：");
	setenv("FERRY_LANG", "en", 1);
	free(s);
	/* Esc leaves the list in view; q goes back to the findings */
	s = screen_of(fx->dir, "160x30", "2S<Esc>q");
	assert_has(row(s, 1), "Findings · design");
	free(s);
	/* a new error in the signed-off assess phase reopens it on the rail */
	add_later(fx, "assess", "assess.cuda_extensions", "error", "custom_kernel", 3, 1, 10, "A custom kernel.");
	s = screen_of(fx->dir, "100x30", "1");
	assert_has(row(s, 2), "↺ 1 assess");
	assert_has(row(s, 3), "reopened E1");
	free(s);
}

static void test_timeline_and_diff(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "t");
	assert_has(row(s, 1), "Checkpoint timeline, newest first (1)");
	assert_has(row(s, 2), "#1");
	assert_has(row(s, 2), "baseline");
	assert_has(row(s, 2), "Ada Tester");
	free(s);
	s = screen_of(fx->dir, "100x30", "t<Enter>");
	assert_has(row(s, 1), "Diff of checkpoint #1");
	free(s);
	/* the baseline cannot be reverted: the refusal is shown, nothing changes */
	s = screen_of(fx->dir, "100x30", "txy");
	assert_has(row(s, 2), "#1");
	assert_true(strstr(s, "#2") == NULL);
	free(s);
}

static void test_edit_records_checkpoint_and_revert(void **state)
{
	struct fx *fx = *state;
	char *script = util_path_join(fx->dir, ".ferry/edit.sh");
	tu_write(fx->dir, ".ferry/edit.sh", "#!/bin/sh\nsed -i 's/nccl/hccl/' \"$2\"\n");
	chmod(script, 0755);
	setenv("EDITOR", script, 1);
	unsetenv("VISUAL");
	char *s = screen_of(fx->dir, "100x30", "4je");
	assert_has(row(s, 28), "Your edit was recorded as checkpoint #2 (manual edit).");
	free(s);
	char *text = tu_read(fx->dir, "train.py");
	assert_non_null(strstr(text, "backend='hccl'"));
	free(text);
	s = screen_of(fx->dir, "100x30", "t");
	assert_has(row(s, 2), "#2");
	assert_has(row(s, 2), "manual");
	free(s);
	s = screen_of(fx->dir, "100x30", "txy");
	assert_has(row(s, 28), "Reverted checkpoint #2 with checkpoint #3");
	free(s);
	text = tu_read(fx->dir, "train.py");
	assert_non_null(strstr(text, "backend='nccl'"));
	free(text);
	unsetenv("EDITOR");
	free(script);
}

static void test_guide_and_chinese(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "i");
	assert_has(row(s, 1), "Guide to phase 1 · assess");
	assert_has(s, "[✓] The project has been surveyed by the checks");
	assert_has(s, "[ ] Assessment signed off");
	free(s);
	setenv("FERRY_LANG", "zh", 1);
	s = screen_of(fx->dir, "100x30", "4");
	assert_has(row(s, 1), "阶段");
	assert_has(row(s, 1), "问题 · 适配  3/3"); /* the phase by the name the rail gives it */
	assert_has(s, "错误 train.py:6");
	/* wide characters keep the columns aligned: the location column starts at the
	 * same display column in both languages */
	const char *r = row(s, 3);
	const char *loc = strstr(r, "train.py:6");
	assert_non_null(loc);
	char prefix[256];
	snprintf(prefix, sizeof prefix, "%.*s", (int)(loc - r), r);
	assert_int_equal(text_width(prefix), 30);
	free(s);
	s = screen_of(fx->dir, "100x30", "i");
	assert_has(row(s, 1), "阶段指南 1 · 评估");
	free(s);
	setenv("FERRY_LANG", "en", 1);
	s = screen_of(fx->dir, "100x30", ":lang zh<Enter>");
	assert_has(row(s, 28), "界面语言：简体中文");
	free(s);
	/* a bundled check's finding follows the switch at once, and an unknown language is refused */
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	const char *ids[] = { "adapt.distributed_backend" };
	check_opts co = { NULL, 0, ids, 1, NULL, NULL, NULL, NULL, NULL, 0 };
	check_result res;
	assert_int_equal(check_run(&res, ws, &co), 0);
	check_result_done(&res);
	ws_close(ws);
	s = screen_of(fx->dir, "160x30", "4:lang zh<Enter>");
	assert_has(s, "分布式后端 'nccl' 是 NVIDIA 的 NCCL");
	free(s);
	s = screen_of(fx->dir, "100x30", ":lang klingon<Enter>");
	assert_has(row(s, 28), "lang klingon: not one of en, zh");
	free(s);
}

static void test_chart_help_palette_artifacts(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "c");
	assert_has(row(s, 1), "Readiness of the project (assess)");
	assert_has(row(s, 16), "Open findings by category, per phase");
	assert_has(row(s, 17), "1 assess");
	assert_has(row(s, 18), "cuda_api");
	assert_has(row(s, 18), "█");
	assert_has(s, "4 adapt");
	free(s);
	/* other phases: the categories only */
	s = screen_of(fx->dir, "100x30", "4c");
	assert_has(row(s, 1), "Open findings by category, per phase");
	assert_has(row(s, 2), "1 assess");
	free(s);
	s = screen_of(fx->dir, "100x30", "?");
	assert_has(s, "ferry workbench keys");
	assert_has(s, "run-phase        run the checks of the selected phase");
	free(s);
	/* at 80 columns the overlay's title keeps the whole hint (how to close it first) */
	s = screen_of(fx->dir, "80x24", "?");
	assert_has(s, "Esc closes, j/k scroll, : runs a command by name");
	free(s);
	s = screen_of(fx->dir, "100x30", ":tim");
	assert_has(s, "timeline");
	assert_has(row(s, 28), ":tim");
	free(s);
	s = screen_of(fx->dir, "100x30", ":tim<Tab><Enter>");
	assert_has(row(s, 1), "Checkpoint timeline");
	free(s);
	s = screen_of(fx->dir, "100x30", ":phase infer-c<Enter>");
	assert_has(row(s, 1), "Findings · infer-convert");
	free(s);
	s = screen_of(fx->dir, "100x30", "a");
	assert_has(s, "No artifacts yet");
	free(s);
}

/* At 80 columns a long help text wraps under itself instead of being cut. */
static void test_help_rows_wrap(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "80x90", "?");
	char *at = strstr(s, "preview the selected finding's fix");
	if (!at)
		fail_msg("no fix help on the screen:\n%s", s);
	/* the rest of the sentence is on the next row, in the help column */
	const char *nl = strchr(at, '\n');
	assert_non_null(nl);
	const char *next = nl + 1;
	assert_true(strncmp(next, "                               ", 31) == 0);
	assert_non_null(strstr(next, "checkpoint"));
	free(s);
}

static void test_small_window_and_resize(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "60x20", "");
	assert_has(s, "ferry needs a window of at least 80x24 (this one is");
	assert_has(s, "60x20).");
	free(s);
	s = screen_of(fx->dir, "100x30", "4<Resize:70x20>");
	assert_has(s, "this one is 70x20");
	free(s);
	s = screen_of(fx->dir, "70x20", "<Resize:120x40>4");
	assert_has(row(s, 1), "Findings · adapt  3/3");
	assert_has(row(s, 39), "r run");
	free(s);
}

/* In a narrow window a long actor is shortened (address first), never the engagement or the counts. */
static void test_long_actor_abbreviated(void **state)
{
	struct fx *fx = *state;
	setenv("FERRY_ACTOR", "Maximilian Alexander Example-Consultant <maximilian.alexander@consultancy.example.com>", 1);
	char *s = screen_of(fx->dir, "100x30", "");
	setenv("FERRY_ACTOR", "Ada Tester <ada@example.com>", 1);
	const char *bar = row(s, 0);
	assert_has(bar, " ferry · ");
	assert_has(bar, "(E");
	assert_has(bar, "· Maximilian");
	assert_null(strstr(bar, "<maximilian"));
	free(s);
	s = screen_of(fx->dir, "160x30", "");
	assert_has(row(s, 0), "<ada@example.com>"); /* room enough: the whole actor */
	free(s);
}

/* At 80 columns, with a real engagement name and a client's full name, the bar keeps the
 * finding counts to the last one and who acts; the commit and the client give way. */
static void test_status_bar_at_80_columns(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	tu_write(dir, "train.py", TRAIN_PY);
	workspace *ws = NULL;
	ws_init_opts o = { "Shenzhen Example Robotics", "e-2026-11-29", NULL };
	assert_int_equal(ws_init(&ws, dir, &o), 0);
	ws_close(ws);
	static const char *const langs[] = { "en", "zh" };
	for (size_t i = 0; i < 2; i++) {
		setenv("FERRY_LANG", langs[i], 1);
		char *s = screen_of(dir, "80x24", "");
		const char *bar = row(s, 0);
		assert_has(bar, " ferry · e-2026-11-29");
		assert_has(bar, i ? "已豁免 0" : "waived 0");
		assert_has(bar, "· Ada Tester");
		free(s);
		s = screen_of(dir, "160x24", ""); /* room enough: everything */
		assert_has(row(s, 0), "e-2026-11-29 / Shenzhen Example Robotics · ");
		assert_has(row(s, 0), i ? "当前检查点 " : "head ");
		assert_has(row(s, 0), "<ada@example.com>");
		free(s);
	}
	setenv("FERRY_LANG", "en", 1);
	tu_rmdir(dir);
	free(dir);
}

static void test_empty_chart_and_init_offer(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	tu_write(dir, "main.py", "print('hello')\n");
	setenv("FERRY_HEADLESS", "100x30", 1);
	setenv("FERRY_KEYS", "n", 1);
	intl_init();
	assert_int_equal(tui_main(dir), 0);
	char *s;
	char *db = util_path_join(dir, ".ferry");
	struct stat st;
	assert_true(stat(db, &st) != 0); /* "n": nothing created */
	s = screen_of(dir, "100x30", "y");
	assert_true(stat(db, &st) == 0);
	assert_has(s, "No checks have run for this phase yet. Press r to run them.");
	free(s);
	s = screen_of(dir, "100x30", "c");
	assert_has(s, "Nothing to chart yet");
	assert_has(s, "No assessment yet: the assess checks have not run, so there is no");
	assert_string_equal(row(s, 27), " not assessed yet");
	free(s);
	free(db);
	tu_rmdir(dir);
	free(dir);
}

/* The part of a saved row right of the rail (the main area starts at column 22 on
 * screens narrower than 120 columns). */
static const char *main_part(const char *r)
{
	return r + text_fit(r, 22, NULL);
}

static void assert_main_rows(const char *screen, int first, const char *const *expected, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char got[4096];
		snprintf(got, sizeof got, "%s", main_part(row(screen, first + (int)i)));
		if (strcmp(got, expected[i]) != 0) {
			fprintf(stderr, "main row %zu differs:\n  got:      [%s]\n  expected: [%s]\n--- screen ---\n%s", first + i,
			        got, expected[i], screen);
			fail();
		}
	}
}

static void test_fix_preview_and_apply(void **state)
{
	struct fx *fx = *state;
	setenv("FERRY_SAVE_ATTRS", "1", 1);
	/* F on the first adapt row (dist.py:5, the 'nccl' fix): the preview */
	char *s = screen_of(fx->dir, "100x30", "4F");
	static const char *const preview[] = {
		" Fix preview · finding #5 (adapt.test_backend)",
		" Apply 1 fix to 1 file as 1 checkpoint?  y applies, n discards, Space leaves",
		" a hunk out.",
		"",
		" diff --git a/dist.py b/dist.py",
		" index d368f49..4b2fe65 100644",
		" --- a/dist.py",
		" +++ b/dist.py",
		"▶@@ -2,5 +2,5 @@ import torch",
		"  import torch.distributed as dist",
		"",
		"  def setup():",
		" -    dist.init_process_group(backend='nccl')",
		" +    dist.init_process_group(backend='hccl')",
		"      torch.cuda.synchronize()",
	};
	assert_main_rows(s, 1, preview, sizeof preview / sizeof preview[0]);
	assert_string_equal(row(s, 29), "y apply  n discard  Space hunk in/out  l next hunk  ? help");
	free(s);
	/* coloured: the question, + green, - red, @@ dim */
	assert_int_equal(attr_at(fx->dir, 2, 23), 'W');
	assert_int_equal(attr_at(fx->dir, 9, 23), 'H');
	assert_int_equal(attr_at(fx->dir, 9, 22), 'S'); /* the current hunk's mark */
	assert_int_equal(attr_at(fx->dir, 13, 23), '-');
	assert_int_equal(attr_at(fx->dir, 14, 23), '+');
	unsetenv("FERRY_SAVE_ATTRS");
	/* nothing was written by the preview; n discards, other keys are held back */
	char *text = tu_read(fx->dir, "dist.py");
	assert_string_equal(text, DIST_PY);
	free(text);
	s = screen_of(fx->dir, "100x30", "4Fr");
	assert_has(row(s, 28), "Answer the fix preview first: y applies the fixes, n discards them.");
	free(s);
	s = screen_of(fx->dir, "100x30", "4Fn");
	assert_has(row(s, 28), "Fix preview closed; nothing was changed.");
	assert_has(row(s, 1), "Findings · adapt  5/5");
	free(s);
	/* y applies: one checkpoint, the finding fixed, the head and the message updated */
	s = screen_of(fx->dir, "100x30", "4Fy");
	const char *msg = "Fixed 1 finding in 1 checkpoint; the head is now checkpoint #2 (";
	assert_has(row(s, 28), msg);
	char head[64];
	snprintf(head, sizeof head, "head %.7s #2", strstr(row(s, 28), msg) + strlen(msg));
	assert_has(row(s, 0), head);
	assert_has(row(s, 0), "fixed 1");
	assert_has(row(s, 1), "Findings · adapt  4/5");
	free(s);
	text = tu_read(fx->dir, "dist.py");
	assert_non_null(strstr(text, "backend='hccl'"));
	assert_non_null(strstr(text, "torch.cuda.synchronize()\n"));
	free(text);
	s = screen_of(fx->dir, "100x30", "t");
	assert_has(row(s, 1), "Checkpoint timeline, newest first (2)");
	assert_has(row(s, 2), "#2");
	assert_has(row(s, 2), "fix");
	assert_has(row(s, 3), "adapt.test_backend");
	free(s);
}

/* A finding whose code was edited since the workbench loaded it: the preview's fresh run
 * closes it (its code, so its identity, changed) and reports the place under a new id. The
 * workbench says so, naming that successor, and fixes nothing in its stead. */
static void test_fix_code_changed(void **state)
{
	struct fx *fx = *state;
	const char *at = strstr(DIST_PY, "backend='nccl'");
	assert_non_null(at);
	char *edited = xasprintf("%.*sbackend ='nccl'%s", (int)(at - DIST_PY), DIST_PY, at + strlen("backend='nccl'"));
	tu_write(fx->dir, "dist.py", edited);
	char *s = screen_of(fx->dir, "200x30", "4F");
	assert_has(row(s, 28), "finding 5 (dist.py:5): no longer stands as it was (the code changed): #7 reports dist.py:5 now; fix #7");
	free(s);
	char *now = tu_read(fx->dir, "dist.py");
	assert_string_equal(now, edited);
	free(now);
	free(edited);
}

/* Per hunk, as in a staging view: Space leaves the hunk at the top out (dimmed), the
 * question counts what is left; y applies the rest as one checkpoint per check and the
 * finding left out stays open with its file untouched. */
static void test_fix_hunks_left_out(void **state)
{
	struct fx *fx = *state;
	setenv("FERRY_SAVE_ATTRS", "1", 1);
	char *s = screen_of(fx->dir, "120x40", "4:fix-phase<Enter>");
	assert_has(row(s, 2), "Apply 2 fixes to 2 files as 2 checkpoints?");
	free(s);
	/* Space: the first hunk (dist.py) is left out and dimmed; the question counts the rest */
	s = screen_of(fx->dir, "120x40", "4:fix-phase<Enter> ");
	assert_has(row(s, 2), "Apply 1 fix, leaving 1 finding open (dimmed)?");
	int r = 0;
	while (r < 40 && !strstr(row(s, r), "-    dist.init_process_group(backend='nccl')"))
		r++;
	assert_true(r < 40);
	free(s);
	assert_int_equal(attr_at(fx->dir, r, 30), 'd'); /* dimmed, not red */
	unsetenv("FERRY_SAVE_ATTRS");
	/* ] to the next hunk, Space: everything left out; Space again takes it back */
	s = screen_of(fx->dir, "120x40", "4:fix-phase<Enter> ] ");
	assert_has(row(s, 2), "Every hunk is left out: nothing would be applied.");
	free(s);
	s = screen_of(fx->dir, "120x40", "4:fix-phase<Enter> ]  ");
	assert_has(row(s, 2), "Apply 1 fix, leaving 1 finding open (dimmed)?");
	free(s);
	/* y: the rest is applied; the finding left out stays open, its file untouched */
	s = screen_of(fx->dir, "120x40", "4:fix-phase<Enter> y");
	assert_has(row(s, 38), "Fixed 1 finding in 1 checkpoint");
	free(s);
	char *text = tu_read(fx->dir, "dist.py");
	assert_string_equal(text, DIST_PY);
	free(text);
	text = tu_read(fx->dir, "train.py");
	assert_non_null(strstr(text, "backend='hccl'"));
	free(text);
	s = screen_of(fx->dir, "120x40", "4/#5<Enter>");
	assert_has(row(s, 1), "1/");
	assert_has(s, "[open]");
	free(s);
}

/* A fix that appends at the end of a file is a hunk of its own finding: Space leaves it out. */
static void test_fix_append_left_out(void **state)
{
	struct fx *fx = *state;
	tu_write(fx->dir, "lib.py", "\"\"\"A library.\"\"\"\n");
	tu_write(fx->dir, ".ferry/plugins/adapt/test_append.lua",
	         "return {\n"
	         "  id = 'adapt.test_append', phase = 'adapt', title = 'test append', severity = 'warning',\n"
	         "  category = 'device',\n"
	         "  run = function(ctx)\n"
	         "    local text = ctx.read('lib.py')\n"
	         "    ctx.report{ file = 'lib.py', line = 1, message = 'No import.', suggestion = 'Import it.',\n"
	         "      edits = { { start_byte = #text, end_byte = #text, text = 'import torch_npu\\n' } } }\n"
	         "  end,\n"
	         "}\n");
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	const char *ids[] = { "adapt.test_append" };
	check_opts co = { NULL, 0, ids, 1, NULL, NULL, NULL, NULL, NULL, 0 };
	check_result res;
	assert_int_equal(check_run(&res, ws, &co), 0);
	assert_int_equal(res.nfindings, 1);
	check_result_done(&res);
	ws_close(ws);
	char *s = screen_of(fx->dir, "120x40", ":fix-plugin adapt.test_append<Enter> ");
	assert_has(row(s, 2), "Every hunk is left out: nothing would be applied.");
	free(s);
}

static void test_fix_refused(void **state)
{
	struct fx *fx = *state;
	/* the second row is the fix that would break the parse */
	char *s = screen_of(fx->dir, "100x30", "4jF");
	static const char *const preview[] = {
		" Fix preview · finding #6 (adapt.test_badfix)",
		" Nothing can be applied: every selected fix was refused. n or Esc closes.",
		"",
		" Refused (1), nothing is written for these:",
		"   finding 6 (dist.py:6): the edited file would no longer parse as Python,",
		"     so this fix is refused",
		"",
		" (no file would change)",
	};
	assert_main_rows(s, 1, preview, sizeof preview / sizeof preview[0]);
	free(s);
	s = screen_of(fx->dir, "100x30", "4jFy");
	assert_has(row(s, 28), "Nothing was applied: every selected fix was refused.");
	free(s);
	char *text = tu_read(fx->dir, "dist.py");
	assert_string_equal(text, DIST_PY);
	free(text);
	/* a finding without a fix is answered at once, without planning */
	s = screen_of(fx->dir, "100x30", "4jjF");
	assert_has(row(s, 28), "Finding #2 has no automatic fix: change the code with e, or waive it with w.");
	free(s);
	/* every fix of the file: the good one is offered, the bad one listed as refused */
	s = screen_of(fx->dir, "100x30", "4A");
	assert_has(row(s, 1), "Fix preview · every fix in dist.py (adapt)");
	assert_has(row(s, 2), "Apply 1 fix to 1 file as 1 checkpoint?");
	assert_has(s, "Refused (1), nothing is written for these:");
	assert_has(s, "dist.init_process_group(backend='hccl')");
	free(s);
	/* every fix of the selected finding's check; the palette takes ids */
	s = screen_of(fx->dir, "100x30", "4P");
	assert_has(row(s, 1), "Fix preview · every fix of adapt.test_backend");
	assert_has(row(s, 2), "Apply 1 fix to 1 file as 1 checkpoint?");
	free(s);
	s = screen_of(fx->dir, "100x30", "4:fix 5<Enter>");
	assert_has(row(s, 1), "Fix preview · finding #5");
	free(s);
	/* in Chinese */
	setenv("FERRY_LANG", "zh", 1);
	s = screen_of(fx->dir, "100x30", "4F");
	assert_has(row(s, 1), "修复预览 · 问题 #5（adapt.test_backend）");
	assert_has(row(s, 2), "将 1 处修复应用到 1 个文件，生成 1 个检查点？  y 应用，n");
	free(s);
	setenv("FERRY_LANG", "en", 1);
}

static void test_readiness(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "c");
	static const char *const chart[] = {
		" Readiness of the project (assess)",
		"  Score      ███████████████████████████████░  97/100  ready",
		"  Effort     2.0 person-days",
		"             effort = base 2 = 2.0 person-days",
		"  Quote      migration survey and assessment        2.0",
		"             Total                                  2.0 person-days",
		"             Estimates from the open assess findings: price them with",
		"             quote.rate in the settings (o), agree a line's days with",
		"             :config quote.days.<line> DAYS.",
		"  Strategy   explicit rewrite with ferry fix (recommended)",
		"             Few CUDA-specific sites and no blockers: rewrite them",
		"             explicitly with ferry fix, so every change is visible in the",
		"             history.",
		"  Top risks  WARN train.py:7  CUDA API in use.",
		"",
		" Open findings by category, per phase",
		" 1 assess",
	};
	assert_main_rows(s, 1, chart, sizeof chart / sizeof chart[0]);
	/* the rail's foot: a one-line summary */
	assert_string_equal(row(s, 26), " Readiness");
	assert_string_equal(row(s, 27), " 97/100 · 2.0 days");
	free(s);
	/* a chosen strategy is shown next to the recommendation */
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	assert_int_equal(store_config_set(ws->db, "strategy", "manual"), 0);
	ws_close(ws);
	s = screen_of(fx->dir, "100x30", "c");
	assert_has(row(s, 10), "explicit rewrite with ferry fix (recommended); chosen: manual");
	assert_has(row(s, 11), "porting first");
	free(s);
	/* priced, with a line's days agreed: amounts and the agreed mark, no hint */
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	assert_int_equal(store_config_set(ws->db, "quote.rate", "3000"), 0);
	assert_int_equal(store_config_set(ws->db, "quote.currency", "CNY"), 0);
	assert_int_equal(store_config_set(ws->db, "quote.days.environment", "4.5"), 0);
	ws_close(ws);
	s = screen_of(fx->dir, "100x30", "c");
	static const char *const priced[] = {
		"  Quote      migration survey and assessment   2.0                6000.00 CNY",
		"             environment deployment            4.5 agreed        13500.00 CNY",
		"             Total                             6.5 person-days   19500.00 CNY",
		"  Strategy   explicit rewrite with ferry fix (recommended); chosen: manual",
	};
	assert_main_rows(s, 5, priced, sizeof priced / sizeof priced[0]);
	free(s);
	setenv("FERRY_LANG", "zh", 1);
	s = screen_of(fx->dir, "100x30", "c");
	assert_has(row(s, 1), "项目就绪度（评估）");
	assert_has(row(s, 2), "97/100  就绪");
	assert_has(row(s, 3), "2.0 人天");
	assert_has(row(s, 5), "报价");
	assert_has(row(s, 5), "模型迁移调研评估");
	assert_has(row(s, 6), "环境部署搭建");
	assert_has(row(s, 6), "商定");
	assert_has(row(s, 7), "合计");
	assert_has(row(s, 27), "97/100 · 2.0 人天");
	free(s);
	setenv("FERRY_LANG", "en", 1);
}

/* :save-screen writes under .ferry/screens/, never into the project: a dump in the
 * project would be committed as a "manual edit" and ship in an export. */
static void test_save_screen_outside_project(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", ":save-screen shot.txt<Enter>");
	assert_has(s, "Screen saved to .ferry/screens/shot.txt");
	free(s);
	char *text = tu_read(fx->dir, "shot.txt");
	assert_null(text);
	text = tu_read(fx->dir, ".ferry/screens/shot.txt");
	assert_non_null(text);
	assert_non_null(strstr(text, "acme"));
	free(text);
	/* the default name goes there as well */
	s = screen_of(fx->dir, "100x30", ":save-screen<Enter>");
	assert_has(message(s, 30), "Save the screen to file: .ferry/screens/screen-");
	free(s);
	/* the project tree has nothing new: no manual edit is recorded */
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	char **changed = NULL;
	size_t n = 0;
	assert_int_equal(history_changed_files(&changed, &n, ws->hist), 0);
	assert_int_equal(n, 0);
	free(changed);
	ws_close(ws);
	/* an absolute path inside the project is refused */
	char *inside = util_path_join(fx->dir, "inside.txt");
	char *keys = xasprintf(":save-screen %s<Enter>", inside);
	s = screen_of(fx->dir, "100x30", keys);
	assert_has(message(s, 30), "inside the project");
	free(s);
	assert_null(tu_read(fx->dir, "inside.txt"));
	free(keys);
	free(inside);
	/* so is one that climbs out of .ferry/ with "..", relative or absolute, into the
	 * project or beyond it */
	char *climb = xasprintf("%s/.ferry/../climbed-abs.txt", fx->dir);
	const char *const paths[] = { "../../climbed.py", ".ferry/../climbed2.py", "../../../outside-the-project.txt", climb };
	for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
		keys = xasprintf(":save-screen %s<Enter>", paths[i]);
		s = screen_of(fx->dir, "100x30", keys);
		if (!strstr(message(s, 30), "inside the project") && !strstr(message(s, 30), "outside .ferry/"))
			fail_msg("save-screen %s was not refused: [%s]", paths[i], message(s, 30));
		free(s);
		free(keys);
	}
	free(climb);
	assert_null(tu_read(fx->dir, "climbed.py"));
	assert_null(tu_read(fx->dir, "climbed2.py"));
	assert_null(tu_read(fx->dir, "climbed-abs.txt"));
	char *parent = xasprintf("%s/..", fx->dir);
	assert_null(tu_read(parent, "outside-the-project.txt"));
	free(parent);
}

static void test_report(void **state)
{
	struct fx *fx = *state;
	/* p asks for the format, then the path (a default under .ferry/artifacts/reports/) */
	char *s = screen_of(fx->dir, "100x30", "p");
	assert_string_equal(row(s, 28), "Report format (md, html, json, sarif or csv): md");
	free(s);
	s = screen_of(fx->dir, "100x30", "p<Enter>");
	assert_has(message(s, 30), "Write the md report to: .ferry/artifacts/reports/report-");
	free(s);
	s = screen_of(fx->dir, "100x30", "p<Enter><Enter>");
	assert_has(message(s, 30), "Wrote .ferry/artifacts/reports/report-");
	assert_has(message(s, 30), "(md report, sha256 ");
	free(s);
	/* the palette takes both at once; the artifacts pane lists what was written */
	s = screen_of(fx->dir, "100x30", ":report json .ferry/out.json<Enter>a");
	assert_has(row(s, 1), "Artifacts (0), comparisons (0) and reports (2)");
	assert_has(s, "report     json · all");
	assert_has(s, ".ferry/out.json  (Ada Tester");
	assert_has(s, "report     md · all");
	free(s);
	char *text = tu_read(fx->dir, ".ferry/out.json");
	assert_non_null(text);
	assert_non_null(strstr(text, "\"assessment\""));
	free(text);
	/* a report path typed without .ferry/ is still written under .ferry/, never into
	 * the client's project (where it would become a "manual edit" checkpoint) */
	s = screen_of(fx->dir, "100x30", ":report md notes.md<Enter>");
	assert_has(message(s, 30), "Wrote .ferry/artifacts/reports/notes.md");
	free(s);
	text = tu_read(fx->dir, "notes.md");
	assert_null(text);
	text = tu_read(fx->dir, ".ferry/artifacts/reports/notes.md");
	assert_non_null(text);
	free(text);
	s = screen_of(fx->dir, "100x30", ":report pdf<Enter>");
	assert_has(message(s, 30), "pdf: not a report format (md, html, json, sarif or csv)");
	free(s);
}

/* Loss logs of a GPU and an NPU run (the NPU one 1 % off after step 50) outside the project. */
static char *loss_logs(void)
{
	char *dir = tu_mkdtemp();
	char gpu[4096] = "", npu[4096] = "";
	for (int st = 1; st <= 100; st++) {
		double v = 3.0 / (1 + st * 0.05) + 1;
		snprintf(gpu + strlen(gpu), sizeof gpu - strlen(gpu), "step %d loss %.6f\n", st, v);
		snprintf(npu + strlen(npu), sizeof npu - strlen(npu), "step %d loss %.6f\n", st, v * (st > 50 ? 1.01 : 1.0));
	}
	tu_write(dir, "gpu.log", gpu);
	tu_write(dir, "npu.log", npu);
	return dir;
}

/* :compare takes the CLI's options: --column for a CSV with several loss columns, and the
 * comparison opened again from the artifacts pane is computed with the same column. */
/* Tab completes Chinese file names whole, never half a character, and quotes a name
 * with a blank so that the palette reads it as one argument. */
static void test_palette_completes_chinese_and_blanks(void **state)
{
	struct fx *fx = *state;
	char *dir = tu_mkdtemp();
	tu_write(dir, "数据.log", "step 1 loss 1\n");
	tu_write(dir, "文件.log", "step 1 loss 1\n");
	tu_write(dir, "客户 日志/a.log", "step 1 loss 1\n");
	char *keys = xasprintf(":ingest loss-log %s/<Tab>", dir);
	char *s = screen_of(fx->dir, "120x30", keys);
	char *want = xasprintf(":ingest loss-log %s/", dir);
	assert_has(row(s, 28), want);
	assert_true(util_utf8_valid(s, strlen(s)));
	free(want);
	free(s);
	free(keys);
	keys = xasprintf(":ingest loss-log %s/客<Tab>a<Tab>", dir);
	s = screen_of(fx->dir, "160x30", keys);
	want = xasprintf(":ingest loss-log \"%s/客户 日志/a.log\"", dir);
	assert_has(row(s, 28), want);
	free(want);
	free(s);
	free(keys);
	keys = xasprintf(":ingest loss-log %s/客<Tab>a<Tab><Enter>", dir);
	s = screen_of(fx->dir, "160x30", keys);
	assert_has(row(s, 28), "(loss-log)");
	free(s);
	free(keys);
	tu_rmdir(dir);
	free(dir);
}

/* The comparison views of two ingested YOLOv5 consoles: the column compared and what a
 * point of the console's loss table is, the inputs by the names the user gave them (a
 * label, the file an artifact came from; never the stored copy's path), and the same log
 * ingested as GPU and NPU run shown as proving nothing, not as a PASS, when it is made and
 * when it is opened again, in both languages. */
static void write_npy(const char *dir, const char *name, int n, float start, float step);

static void test_compare_views_name_inputs_and_same_data(void **state)
{
	struct fx *fx = *state;
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char *keys = xasprintf(":ingest loss-log %s/tests/fixtures/loss/gpu_yolov5_tty.log --label gpu<Enter>"
	                       ":ingest loss-log %s/tests/fixtures/loss/gpu_yolov5_tty.log --label npu<Enter>"
	                       ":compare loss gpu npu --column box_loss<Enter>", cwd, cwd);
	char *s = screen_of(fx->dir, "100x30", keys);
	free(keys);
	assert_has(row(s, 1), "Comparison of loss: gpu (A, GPU) against npu (B, NPU)");
	assert_has(row(s, 2), "PROVES NOTHING  mean relative error 0%");
	assert_null(strstr(s, "PASS"));
	assert_has(row(s, 3), "A and B are the same data (sha256 ");
	assert_has(s, "compared: column box_loss");
	assert_has(s, "one point per epoch from the console's loss table: the epoch's mean");
	assert_has(s, "per-step loss");
	assert_has(message(s, 30), "compare loss gpu npu: proves nothing: A and B are the same data");
	free(s);
	/* the artifacts pane lists it as proving nothing, and opens it again as it was shown */
	s = screen_of(fx->dir, "100x30", "a");
	assert_has(s, "compare    loss · proves nothing");
	assert_has(s, "gpu ↔ npu");
	free(s);
	s = screen_of(fx->dir, "100x30", "ajj<Enter>");
	assert_has(row(s, 1), "Comparison of loss: gpu (A, GPU) against npu (B, NPU), recorded ");
	assert_has(row(s, 2), "PROVES NOTHING");
	assert_has(s, "compared: column box_loss");
	free(s);
	setenv("FERRY_LANG", "zh", 1);
	s = screen_of(fx->dir, "100x30", "ajj<Enter>");
	assert_has(row(s, 2), "不能作为证据");
	assert_has(s, "比较的是：列 box_loss");
	assert_null(strstr(s, "通过"));
	free(s);
	setenv("FERRY_LANG", "en", 1);
	/* artifacts without labels: the files they were ingested from, not .ferry/artifacts/ */
	keys = xasprintf(":ingest loss-log %s/tests/fixtures/loss/gpu_yolov5_console.log<Enter>"
	                 ":ingest loss-log %s/tests/fixtures/loss/npu_yolov5_console.log<Enter>"
	                 ":compare loss 3 4 --column train/box_loss<Enter>", cwd, cwd);
	s = screen_of(fx->dir, "120x30", keys);
	free(keys);
	assert_has(row(s, 1), "Comparison of loss: gpu_yolov5_console.log (A, GPU) against npu_yolov5_console.log (B, NPU)");
	assert_has(row(s, 2), "PASS  mean relative error");
	assert_has(s, "compared: column box_loss");
	free(s);
	s = screen_of(fx->dir, "160x30", "ajjjj<Enter>");
	assert_has(row(s, 1), "Comparison of loss: gpu_yolov5_console.log (A, GPU) against npu_yolov5_console.log (B, NPU), recorded");
	assert_null(strstr(row(s, 1), "artifacts"));
	free(s);
	/* a dump compared with itself proves nothing either */
	char *data = tu_mkdtemp();
	write_npy(data, "a.npy", 16, 1.0f, 0.1f);
	keys = xasprintf(":compare dump %s/a.npy %s/a.npy<Enter>", data, data);
	s = screen_of(fx->dir, "120x30", keys);
	free(keys);
	assert_has(row(s, 2), "PROVES NOTHING  1 tensor pair compared, 0 fail");
	assert_has(row(s, 3), "A and B are the same data (sha256 ");
	free(s);
	tu_rmdir(data);
	free(data);
}

/* The dump table: headings as wide as their words (Chinese ones too), and the failing
 * pair's reason whole, the name column no wider than the longest name. */
static void test_dump_table_widths(void **state)
{
	struct fx *fx = *state;
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char *keys = xasprintf(":compare dump %s/tests/fixtures/dump/gpu_dump %s/tests/fixtures/dump/npu_dump<Enter>", cwd, cwd);
	char *s = screen_of(fx->dir, "120x40", keys);
	assert_has(s, "outside msprobe's accuracy rule");
	assert_has(s, "…output.0"); /* a long name keeps its end */
	free(s);
	setenv("FERRY_LANG", "zh", 1);
	s = screen_of(fx->dir, "120x40", keys);
	assert_has(s, "余弦相似度");
	assert_has(s, "超出 msprobe 的精度规则");
	assert_null(strstr(s, "余弦相似…"));
	free(s);
	setenv("FERRY_LANG", "en", 1);
	free(keys);
}

/* A pair whose dump.json states another dtype than its .pt holds is shown as one to
 * double-check, and the view says which and what each side says. */
static void test_dump_view_dtype_contradiction(void **state)
{
	struct fx *fx = *state;
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof cwd));
	char *keys = xasprintf(":compare dump %s/tests/fixtures/dump/dtype_gpu_dump %s/tests/fixtures/dump/dtype_npu_dump<Enter>",
	                       cwd, cwd);
	char *s = screen_of(fx->dir, "160x40", keys);
	assert_has(s, "pass (warning)");
	assert_has(s, "1 tensor pair whose dump.json states another dtype than its file holds: the file's was compared");
	assert_has(s, "first Functional.linear.0.forward.output.0: B's dump.json says torch.bfloat16, its file holds float32");
	free(s);
	free(keys);
}

/* :ingest takes what `ferry ingest` takes: options anywhere after the kind, and a probe
 * of this machine with --local. */
static void test_palette_ingest_forms(void **state)
{
	struct fx *fx = *state;
	char *dir = tu_mkdtemp();
	tu_write(dir, "gpu.log", "step 1 loss 2.0\nstep 2 loss 1.5\n");
	char *keys = xasprintf(":ingest loss-log --label gpu %s/gpu.log<Enter>", dir);
	char *s = screen_of(fx->dir, "100x30", keys);
	assert_has(row(s, 28), "(loss-log).");
	free(s);
	free(keys);
	s = screen_of(fx->dir, "120x30", ":ingest env-probe --local<Enter>");
	assert_has(row(s, 28), "Probed this machine and ingested the result as artifact #2 (env-probe).");
	free(s);
	s = screen_of(fx->dir, "100x30", ":ingest loss-log --local<Enter>");
	assert_has(row(s, 28), "ingest KIND PATH [--label L] | ingest env-probe --local [--smoke]");
	free(s);
	tu_rmdir(dir);
	free(dir);
}

/* A prompt's offered default is replaced by what is typed, and kept when the person
 * moves into it first. */
static void test_prompt_default_replaced(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "phtml<Enter>");
	assert_has(row(s, 28), "Write the html report to");
	free(s);
	s = screen_of(fx->dir, "100x30", "p<End><BS><BS>csv<Enter>");
	assert_has(row(s, 28), "Write the csv report to");
	free(s);
}

/* A blow-up in the workbench's table reads as the CLI's: '-' for the error, NaN/inf
 * marked, the step over the tolerance marked; never a raw "nan%". */
static void test_loss_table_marks_nan(void **state)
{
	struct fx *fx = *state;
	char *dir = tu_mkdtemp();
	tu_write(dir, "a.log", "step 1 loss 2.0\nstep 2 loss 1.5\nstep 3 loss 1.2\nstep 4 loss 1.0\n");
	tu_write(dir, "b.log", "step 1 loss 2.0\nstep 2 loss 3.0\nstep 3 loss nan\nstep 4 loss nan\n");
	char *keys = xasprintf(":compare loss %s/a.log %s/b.log<Enter>", dir, dir);
	char *s = screen_of(fx->dir, "100x40", keys);
	assert_has(s, "FAIL  ");
	assert_has(s, "NaN/inf");
	assert_has(s, "100%  over");
	assert_null(strstr(s, "nan%"));
	free(s);
	free(keys);
	tu_rmdir(dir);
	free(dir);
}

static void test_palette_compare_options(void **state)
{
	struct fx *fx = *state;
	char *dir = tu_mkdtemp();
	char a[4096] = "step,train_loss,aux_loss\n", b[4096] = "step,train_loss,aux_loss\n";
	for (int st = 1; st <= 50; st++) {
		double v = 3.0 / (1 + st * 0.05) + 1;
		snprintf(a + strlen(a), sizeof a - strlen(a), "%d,%.6f,%.6f\n", st, v, v / 10);
		/* train_loss within the tolerance (the same values would prove nothing), aux differs */
		snprintf(b + strlen(b), sizeof b - strlen(b), "%d,%.6f,%.6f\n", st, v * 1.004, v * 3);
	}
	tu_write(dir, "a.csv", a);
	tu_write(dir, "b.csv", b);
	char *keys = xasprintf(":compare loss %s/a.csv %s/b.csv<Enter>", dir, dir);
	char *s = screen_of(fx->dir, "100x30", keys);
	assert_has(message(s, 30), "several loss columns");
	free(s);
	free(keys);
	keys = xasprintf(":compare loss %s/a.csv %s/b.csv --column train_loss<Enter>", dir, dir);
	s = screen_of(fx->dir, "100x30", keys);
	assert_has(s, "PASS  mean relative error");
	free(s);
	free(keys);
	/* opened again from the artifacts pane: the same column, so the same verdict */
	s = screen_of(fx->dir, "100x30", "a<Enter>");
	assert_has(row(s, 1), "Comparison of loss");
	assert_has(s, "PASS  mean relative error");
	free(s);
	keys = xasprintf(":compare loss %s/a.csv %s/b.csv --dtype-a bf16<Enter>", dir, dir);
	s = screen_of(fx->dir, "100x30", keys);
	assert_has(s, "usage: compare loss A B [--column NAME]");
	free(s);
	free(keys);
	tu_rmdir(dir);
	free(dir);
}

/* The engagement commands of the palette: usage when incomplete, completion of kinds,
 * keys and labels, and ingest, config, compare, verify, unwaive, export and probe-script
 * through the CLI's own functions. */
static void test_palette_engagement_commands(void **state)
{
	struct fx *fx = *state;
	char *logs = loss_logs();
	/* incomplete: the palette comes back with the usage and the kinds */
	char *s = screen_of(fx->dir, "100x30", ":ingest<Enter>");
	assert_has(s, "usage: ingest KIND PATH [--label L]");
	assert_has(s, "atc-log  bench  dump  env-probe  first-step  loss-log  onnx  overflow  profile");
	assert_string_equal(row(s, 28), ":ingest");
	free(s);
	s = screen_of(fx->dir, "100x30", ":ing<Tab>lo<Tab>");
	assert_has(message(s, 30), ":ingest loss-log");
	free(s);
	s = screen_of(fx->dir, "100x30", ":config tolerance.l<Tab>");
	assert_has(message(s, 30), ":config tolerance.loss");
	free(s);
	s = screen_of(fx->dir, "100x30", ":config strategy <Tab>");
	assert_has(s, "auto  manual  tool");
	free(s);
	/* ingest both logs with labels */
	char *keys = xasprintf(":ingest loss-log %s/gpu.log --label gpu<Enter>", logs);
	s = screen_of(fx->dir, "100x30", keys);
	assert_has(message(s, 30), "as artifact #1 (loss-log).");
	free(s);
	free(keys);
	keys = xasprintf(":ingest loss-log %s/npu.log --label npu<Enter>", logs);
	s = screen_of(fx->dir, "100x30", keys);
	assert_has(message(s, 30), "as artifact #2 (loss-log).");
	free(s);
	free(keys);
	s = screen_of(fx->dir, "100x30", ":ingest bogus x<Enter>");
	assert_has(message(s, 30), "unknown kind");
	free(s);
	/* labels complete for compare */
	s = screen_of(fx->dir, "100x30", ":compare loss g<Tab>");
	assert_has(message(s, 30), ":compare loss gpu");
	free(s);
	s = screen_of(fx->dir, "100x30", ":config tolerance.loss 0.001<Enter>");
	assert_has(message(s, 30), "tolerance.loss set to 0.001");
	free(s);
	s = screen_of(fx->dir, "100x30", ":config tolerance.loss lots<Enter>");
	assert_has(message(s, 30), "tolerance.loss");
	assert_has(message(s, 30), "lots");
	free(s);
	/* the comparison: curves, verdict, table; failing at a 0.1 % tolerance */
	s = screen_of(fx->dir, "100x30", ":compare loss gpu npu<Enter>");
	assert_has(row(s, 1), "Comparison of loss: gpu (A, GPU) against npu (B, NPU)");
	assert_has(s, "FAIL  mean relative error");
	assert_has(s, "A (GPU)");
	assert_has(s, "⣿");
	assert_has(message(s, 30), "compare loss gpu npu:");
	free(s);
	s = screen_of(fx->dir, "100x30", ":config tolerance.loss 0.02<Enter>:compare loss gpu npu<Enter>");
	assert_has(s, "PASS  mean relative error");
	free(s);
	/* the artifacts pane lists the comparisons; Enter opens one again without recording it */
	s = screen_of(fx->dir, "100x30", "a");
	assert_has(row(s, 1), "Artifacts (2), comparisons (2) and reports (0)");
	assert_has(s, "compare    loss · pass");
	assert_null(strstr(s, " 0 B ")); /* a comparison is a record: no file size */
	free(s);
	s = screen_of(fx->dir, "100x30", "aj<Enter>");
	assert_has(row(s, 1), "#2 loss-log · npu");
	assert_has(s, "step 1 loss");
	free(s);
	s = screen_of(fx->dir, "100x30", "ajj<Enter>");
	assert_has(row(s, 1), "Comparison of loss");
	assert_has(s, "PASS  mean relative error");
	free(s);
	/* verify shows its result in the audit pane, newest event first: this fixture stored
	 * its findings behind the chain's back, and verify names each of them */
	s = screen_of(fx->dir, "100x30", ":verify<Enter>");
	/* each ingest, setting and comparison is followed by the run of the checks judging it */
	assert_has(row(s, 1), "Audit chain, newest first (14 events)");
	assert_has(row(s, 2), "verify:  findings 1: the row is not recorded in the audit chain");
	assert_has(message(s, 30), "verify: 4 problems; the first: findings 1");
	assert_has(row(s, 7), "   14  ");
	assert_has(row(s, 7), "  check       Ada Tester");
	assert_has(row(s, 10), "\"plugins\":[\"tune.acceptance\",\"tune.loss_curves\"");
	assert_has(row(s, 12), "   13  ");
	assert_has(row(s, 12), "  compare     Ada Tester");
	assert_has(row(s, 13), "{\"a\":{\"arg\":\"gpu\"");
	free(s);
	/* unwaive: waive #1, then withdraw it by number with a reason */
	s = screen_of(fx->dir, "100x30", "4jwnot now<Enter>");
	assert_has(message(s, 30), "Waived finding #1.");
	free(s);
	s = screen_of(fx->dir, "100x30", ":unwaive 1<Enter>");
	/* the reason is asked for on its own: the field starts empty */
	assert_string_equal(row(s, 28), "Reason for withdrawing the waiver of #1:");
	free(s);
	s = screen_of(fx->dir, "100x30", ":unwaive 1 the client wants it fixed<Enter>");
	assert_has(message(s, 30), "Withdrew the waiver of #1; it is open again.");
	free(s);
	/* export patches, and the probe script */
	keys = xasprintf(":export patches %s/patches<Enter>", logs);
	s = screen_of(fx->dir, "100x30", keys);
	assert_has(message(s, 30), "Wrote one patch per checkpoint into");
	free(s);
	free(keys);
	char *anchor = tu_read(logs, "patches/AUDIT-ANCHOR");
	assert_non_null(anchor);
	free(anchor);
	s = screen_of(fx->dir, "100x30", ":export branch x<Enter>");
	assert_has(message(s, 30), "usage: export patches DIR | export branch NAME --to REPO");
	free(s);
	s = screen_of(fx->dir, "100x30", ":probe-script probe.sh<Enter>");
	assert_has(message(s, 30), "Wrote the probe to .ferry/probe/probe.sh");
	free(s);
	char *probe = tu_read(fx->dir, ".ferry/probe/probe.sh");
	assert_non_null(probe);
	free(probe);
	/* opened again after tolerance.loss was tightened, a comparison shows the verdict it
	 * was recorded with, judged by the tolerance it was judged by then */
	s = screen_of(fx->dir, "100x30", ":config tolerance.loss 0.001<Enter>ajj<Enter>");
	assert_has(row(s, 1), "Comparison of loss");
	assert_has(s, "PASS  mean relative error");
	assert_has(s, "(tolerance 2%)");
	free(s);
	tu_rmdir(logs);
	free(logs);
}

/* Writes a float32 .npy of n values start, start + step, … into dir/name. */
static void write_npy(const char *dir, const char *name, int n, float start, float step)
{
	char hdr[128];
	int len = snprintf(hdr, sizeof hdr, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }", n);
	while ((10 + len + 1) % 64)
		hdr[len++] = ' ';
	hdr[len++] = '\n';
	char *path = util_path_join(dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	unsigned char pre[10] = { 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8) };
	fwrite(pre, 1, 10, f);
	fwrite(hdr, 1, (size_t)len, f);
	for (int i = 0; i < n; i++) {
		float v = start + step * (float)i;
		fwrite(&v, sizeof v, 1, f);
	}
	fclose(f);
	free(path);
}

/* Signs the first n phases off, each after waiving the open errors its gate names (the
 * fixture's finding, the environment's missing probe). */
static void sign_phases_waiving(workspace *ws, int n)
{
	for (int i = 0; i < n; i++) {
		if (review_signoff(ws, phase_name(i), NULL) == 0)
			continue;
		store_finding_filter want = { .phase = phase_name(i), .status = "open", .brief = 1 };
		finding *fs = NULL;
		size_t nf = 0;
		assert_int_equal(store_finding_list(&fs, &nf, ws->db, &want), 0);
		for (size_t k = 0; k < nf; k++)
			if (fs[k].severity == SEVERITY_ERROR)
				assert_int_equal(review_waive(ws, &fs[k].id, 1, "accepted"), 0);
		finding_list_free(fs, nf);
		assert_int_equal(review_signoff(ws, phase_name(i), NULL), 0);
	}
}

/* A failing acceptance criterion recorded after the last check run blocks the sign-off
 * before the note is asked for, and the refusal names the blocking finding. */
static void test_signoff_runs_the_gate_first(void **state)
{
	struct fx *fx = *state;
	char *data = tu_mkdtemp();
	write_npy(data, "a.npy", 16, 0.0f, 0.1f);
	write_npy(data, "b.npy", 16, 0.0f, -0.1f);
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	assert_int_equal(review_waive(ws, &fx->ids[0], 1, "accepted"), 0);
	sign_phases_waiving(ws, 4);
	char *pa = util_path_join(data, "a.npy"), *pb = util_path_join(data, "b.npy");
	compare_req req = { 0, pa, pb, NULL, 1, NULL, NULL, 0, { 0, 0, 0 }, 0 };
	compare_outcome o;
	assert_int_equal(compare_record(&o, ws, &req), 0);
	assert_int_equal(o.pass, 0);
	compare_outcome_done(&o);
	ws_close(ws);
	char *s = screen_of(fx->dir, "100x30", "5S");
	assert_has(message(s, 30), "Cannot sign off tune: 1 open error finding must be fixed or waived ");
	assert_has(message(s, 30), "tune.acceptance: The l");
	free(s);
	free(pa);
	free(pb);
	tu_rmdir(data);
	free(data);
}

/* A dump comparison is judged by the thresholds agreed for the engagement when they are
 * set, and shown with them; opened again after the setting changed, it is judged by the
 * thresholds it was recorded with. B is A plus 0.01: within msprobe's rule (cosine above
 * 0.99), outside an agreed atol of 0.001. */
static void test_compare_view_shows_recorded_thresholds(void **state)
{
	struct fx *fx = *state;
	char *data = tu_mkdtemp();
	write_npy(data, "a.npy", 16, 1.0f, 0.1f);
	write_npy(data, "b.npy", 16, 1.01f, 0.1f);
	char *keys = xasprintf(":config tolerance.dump_atol 0.001<Enter>:compare dump %s/a.npy %s/b.npy<Enter>", data, data);
	char *s = screen_of(fx->dir, "120x30", keys);
	assert_has(message(s, 30), "1 of 1 tensor pairs fail");
	free(s);
	free(keys);
	s = screen_of(fx->dir, "120x30", ":config tolerance.dump_atol 0.5<Enter>a<Enter>");
	assert_has(row(s, 1), "Comparison of dump");
	assert_has(row(s, 2), "FAIL  1 tensor pair compared, 1 fail");
	assert_has(row(s, 3), "judged by the thresholds agreed for the engagement: atol 0.001, rtol 0");
	free(s);
	tu_rmdir(data);
	free(data);
}

/* Signing the last phase off says the engagement is complete and offers the final report. */
static void test_engagement_complete_offers_report(void **state)
{
	struct fx *fx = *state;
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	assert_int_equal(review_waive(ws, &fx->ids[0], 1, "accepted"), 0);
	sign_phases_waiving(ws, 6);
	ws_close(ws);
	/* the offer is the report's own question, with html proposed */
	char *keys = xasprintf("7S<Enter><Save:%s/.ferry/offer.txt><Enter>", fx->dir);
	char *s = screen_of(fx->dir, "100x30", keys);
	free(keys);
	assert_has(row(s, 28), "Write the html report to: .ferry/artifacts/reports/report-");
	free(s);
	s = tu_read(fx->dir, ".ferry/offer.txt");
	assert_non_null(s);
	/* the question and the proposed answer in view, though the line is too short for all */
	assert_has(row(s, 28), "Engagement complete:");
	assert_has(row(s, 28), "…Final report format (md, html, json, sarif or csv): html");
	free(s);
	/* opening the workbench on a complete engagement says so */
	s = screen_of(fx->dir, "100x30", "");
	assert_has(row(s, 28), "The engagement is complete: every phase is signed off. p writes the final report.");
	free(s);
}

/* While checks re-run, the list keeps the previous findings with the cursor where it was
 * and says how far the run is; it does not go blank ("0/0"). The screen is saved at the
 * run's first progress report (headless keys are read then). */
static void test_rerun_keeps_the_list(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "4j");
	assert_has(row(s, 1), "Findings · adapt  3/3");
	assert_has(s, "#1  error  adapt.distributed_backend");
	free(s);
	char *peek = util_path_join(fx->dir, ".ferry/peek.txt"), *keys = xasprintf("4jr<Peek:%s>", peek);
	s = screen_of(fx->dir, "100x30", keys);
	free(s);
	free(keys);
	size_t len = 0;
	assert_int_equal(util_read_file(&s, &len, peek), 0);
	free(peek);
	assert_has(row(s, 1), "Findings · adapt  3/3");
	/* the peek lands while the run works: before its first check starts or during one */
	const char *r1 = row(s, 1);
	if (!strstr(r1, "⟳ starting the checks") && !strstr(r1, "⟳ checking "))
		assert_has(r1, "⟳ starting the checks");
	assert_has(s, "#1  error  adapt.distributed_backend");
	free(s);
}

/* An info finding ("a supported combination") is not an open problem: the environment
 * checklist ticks its item; a warning of the same check leaves it open. */
static void test_checklist_ticks_past_info(void **state)
{
	struct fx *fx = *state;
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	long long run = 0;
	assert_int_equal(store_begin(ws->db), 0);
	assert_int_equal(store_run_begin(&run, ws->db, ws->actor, "{\"phases\":[\"environment\"]}", NULL), 0);
	add(ws->db, run, fx, 4, "environment", "environment.versions", "info", "versions", 1, 1, 2,
	    "PyTorch 2.1.0 with torch_npu 2.1.0 and CANN 8.0 is a supported combination.", "fpe1", NULL, 0);
	add(ws->db, run, fx, 5, "environment", "environment.npu", "warning", "npu", 1, 1, 2, "One NPU is unhealthy.",
	    "fpe2", NULL, 0);
	assert_int_equal(store_run_finish(ws->db, run, 2, 0), 0);
	assert_int_equal(store_commit(ws->db), 0);
	ws_close(ws);
	char *s = screen_of(fx->dir, "100x40", "3i");
	assert_has(s, "[✓] Versions are compatible");
	assert_has(s, "[ ] NPUs are visible and healthy");
	free(s);
	/* but "no GPU loss log yet" is info too, and leaves the GPU baseline unticked */
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	assert_int_equal(store_begin(ws->db), 0);
	assert_int_equal(store_run_begin(&run, ws->db, ws->actor, "{\"phases\":[\"assess\"]}", NULL), 0);
	add(ws->db, run, fx, 6, "assess", "assess.gpu_baseline", "info", "baseline", 1, 1, 2,
	    "No loss log from the GPU run has been ingested.", "fpa1", NULL, 0);
	assert_int_equal(store_run_finish(ws->db, run, 1, 0), 0);
	assert_int_equal(store_commit(ws->db), 0);
	ws_close(ws);
	s = screen_of(fx->dir, "100x40", "1i");
	assert_has(s, "[ ] GPU baseline recorded (the GPU run's loss log ingested)");
	free(s);
}

/* A fix that creates a file is previewed as a new file, not as an edit of an empty one. */
static void test_fix_preview_new_file(void **state)
{
	struct fx *fx = *state;
	tu_write(fx->dir, ".ferry/plugins/adapt/test_newfile.lua",
	         "return {\n"
	         "  id = 'adapt.test_newfile', phase = 'adapt', title = 'test new file', severity = 'info',\n"
	         "  run = function(ctx)\n"
	         "    if ctx.read('gen/npu_env.sh') then return end\n"
	         "    ctx.report{ file = 'gen/npu_env.sh', key = 'gen', message = 'No setup script.',\n"
	         "      edits = { { start_byte = 0, end_byte = 0, text = 'export A=1\\n' } } }\n"
	         "  end,\n"
	         "}\n");
	char *s = screen_of(fx->dir, "100x30", "4:fix-plugin adapt.test_newfile<Enter>");
	/* a shell script a fix creates is made executable, and its checkpoint says so */
	assert_has(s, "new file mode 100755");
	assert_has(s, "--- /dev/null");
	assert_has(s, "+++ b/gen/npu_env.sh");
	free(s);
	/* its finding names the file without a line 0, and shows the file it would create */
	s = screen_of(fx->dir, "120x40", "4:fix-plugin adapt.test_newfile<Enter>n/plugin:adapt.test_newfile<Enter>");
	assert_has(s, "gen/npu_env.sh ");
	assert_null(strstr(s, "gen/npu_env.sh:0"));
	assert_has(s, "(the file does not exist yet)");
	assert_has(s, "(a new file)");
	assert_has(s, "+ export A=1");
	assert_null(strstr(s, "(the file cannot be read)"));
	free(s);
}

/* After a revert the reopened finding is shown as it now is: when a later checkpoint
 * moved its code (an import added above it), the check runs again and the proposed fix
 * follows, instead of the stored offsets cutting into the wrong bytes. */
static void test_revert_refreshes_reopened_findings(void **state)
{
	struct fx *fx = *state;
	tu_write(fx->dir, ".ferry/plugins/adapt/test_import.lua",
	         "return {\n"
	         "  id = 'adapt.test_import', phase = 'adapt', title = 'test import', severity = 'warning',\n"
	         "  run = function(ctx)\n"
	         "    local text = ctx.read('dist.py')\n"
	         "    if string.find(text, 'import torch_npu', 1, true) then return end\n"
	         "    ctx.report{ file = 'dist.py', line = 1, col = 1, message = 'No torch_npu import.',\n"
	         "      edits = { { start_byte = 0, end_byte = 0, text = 'import torch_npu\\n' } } }\n"
	         "  end,\n"
	         "}\n");
	char *s = screen_of(fx->dir, "100x30",
	                    "4:fix-plugin adapt.test_backend<Enter>y:fix-plugin adapt.test_import<Enter>y");
	assert_has(row(s, 28), "the head is now checkpoint #3");
	free(s);
	/* revert #2 (the backend fix): its finding opens again, one line lower than it was */
	s = screen_of(fx->dir, "100x40", "tjxy");
	assert_has(s, "Reverted checkpoint #2 with checkpoint #4");
	free(s);
	s = screen_of(fx->dir, "100x40", "4/plugin:adapt.test_backend status:open<Enter>");
	/* (this test check reports line 5 whatever the text; the edit is what it computes) */
	assert_has(s, "dist.init_process_group(backend='hccl')");
	assert_null(strstr(s, "init_proce'hccl'"));
	free(s);
}

/* Key bindings are data: the user's file adds keys, help lists them, a bad line is named. */
static void test_user_key_bindings(void **state)
{
	struct fx *fx = *state;
	char *cfg = tu_mkdtemp();
	tu_write(cfg, "ferry/keys", "# my keys\nT timeline\nC-t audit\n");
	setenv("XDG_CONFIG_HOME", cfg, 1);
	char *s = screen_of(fx->dir, "100x30", "T");
	assert_has(row(s, 1), "Checkpoint timeline");
	free(s);
	s = screen_of(fx->dir, "100x30", "\x14"); /* C-t */
	assert_has(row(s, 1), "Audit chain, newest first");
	free(s);
	s = screen_of(fx->dir, "100x30", ":timel");
	assert_has(s, "timeline         t T");
	free(s);
	tu_write(cfg, "ferry/keys", "T timeline\nZ nothing-like-this\n");
	s = screen_of(fx->dir, "100x30", "");
	assert_has(row(s, 28), "ferry/keys:2: no such command");
	free(s);
	unsetenv("XDG_CONFIG_HOME");
	tu_rmdir(cfg);
	free(cfg);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* 10 000 findings: the first screen and 1 000 cursor moves stay interactive. */
/* A phase with no findings yet has no list; the findings of a run in it are added to one
 * (this crashed when the empty list was taken for a full one). */
static void test_run_in_empty_phase(void **state)
{
	struct fx *fx = *state;
	char *s = screen_of(fx->dir, "100x30", "2r");
	assert_non_null(strstr(s, "Findings · design"));
	assert_non_null(strstr(s, "run 2:"));
	free(s);
}

static void test_ten_thousand_findings(void **state)
{
	struct fx *fx = *state;
	workspace *ws = NULL;
	assert_int_equal(ws_open(&ws, fx->dir), 0);
	long long run = 0;
	assert_int_equal(store_begin(ws->db), 0);
	assert_int_equal(store_run_begin(&run, ws->db, ws->actor, "{\"phases\":[\"tune\"]}", NULL), 0);
	for (int i = 0; i < 10000; i++) {
		char fp[32];
		snprintf(fp, sizeof fp, "bulk%d", i);
		finding f = { 0 };
		f.plugin = "tune.host_sync";
		f.phase = phase_index("tune");
		f.severity = i % 7 ? SEVERITY_WARNING : SEVERITY_ERROR;
		f.category = "performance";
		f.file = "train.py";
		f.line = 1 + i % 8;
		f.col = 1;
		f.message = "`.item()` inside the training loop waits for the device.";
		f.fingerprint = fp;
		assert_int_equal(store_finding_upsert(ws->db, run, &f), 0);
	}
	assert_int_equal(store_commit(ws->db), 0);
	ws_close(ws);
	double t0 = now_s();
	char *s = screen_of(fx->dir, "120x40", "5");
	double first = now_s() - t0;
	assert_has(row(s, 1), "Findings · tune  10000/10000");
	free(s);
	char keys[1100];
	memset(keys, 'j', 1000);
	strcpy(keys + 1000, "5");
	keys[0] = '5';
	t0 = now_s();
	s = screen_of(fx->dir, "120x40", keys);
	double moves = now_s() - t0;
	free(s);
	fprintf(stderr, "    10000 findings: first screen %.3f s, 1000 cursor moves %.3f s more\n", first, moves - first);
	assert_true(first < 5.0);
	assert_true(moves - first < 5.0);
}

/* In a diff, ] and [ jump between hunks and files; past the last one nothing moves. */
static void test_diff_hunk_jumps(void **state)
{
	(void)state;
	diffview d = { 0 };
	diffview_set(&d, "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n c\n"
	                 "@@ -9,2 +9,2 @@\n-d\n+e\n c\n c\n c\n c\n c\n c\n c\n");
	d.h = 4;
	assert_int_equal(diffview_scroll(&d, CMD_PHASE_NEXT), 1);
	assert_int_equal(d.scroll, 3); /* the first @@ */
	assert_int_equal(diffview_scroll(&d, CMD_PHASE_NEXT), 1);
	assert_int_equal(d.scroll, 8); /* the second */
	assert_int_equal(diffview_scroll(&d, CMD_PHASE_NEXT), 1);
	assert_int_equal(d.scroll, 8); /* no third: stays, and the phase does not change */
	assert_int_equal(diffview_scroll(&d, CMD_PHASE_PREV), 1);
	assert_int_equal(d.scroll, 3);
	assert_int_equal(diffview_scroll(&d, CMD_PHASE_PREV), 1);
	assert_int_equal(d.scroll, 0); /* the file header */
	assert_int_equal(diffview_scroll(&d, CMD_BOTTOM), 1);
	assert_int_equal(d.scroll, d.nlines - 4);
	diffview_clear(&d);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	/* the catalogs of this source tree (the test binary is not beside build/locale) */
	char here[4096];
	if (!getenv("FERRY_LOCALEDIR") && getcwd(here, sizeof here)) {
		char *dir = xasprintf("%s/build/locale", here);
		setenv("FERRY_LOCALEDIR", dir, 1);
		free(dir);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_findings_screen, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detail_shows_fix_as_diff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cursor_and_highlights, setup, teardown),
		cmocka_unit_test_setup_teardown(test_highlight_after_byte_order_mark, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_line_breaks_are_blanks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_sort_and_status_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_by_id_and_place_search_repeat, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detail_scrolls_sideways, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detail_scroll_marker_beside_text, setup, teardown),
		cmocka_unit_test(test_diffview_marker_beside_text),
		cmocka_unit_test_setup_teardown(test_messages_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_message_grows_the_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_message_too_long_names_its_key, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_error_kept_whole, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_view, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_form, setup, teardown),
		cmocka_unit_test_setup_teardown(test_waive_with_reason, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signoff_refused_then_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeline_and_diff, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edit_records_checkpoint_and_revert, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guide_and_chinese, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chart_help_palette_artifacts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_help_rows_wrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_small_window_and_resize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_long_actor_abbreviated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_status_bar_at_80_columns, setup, teardown),
		cmocka_unit_test(test_empty_chart_and_init_offer),
		cmocka_unit_test(test_diff_hunk_jumps),
		cmocka_unit_test_setup_teardown(test_fix_preview_and_apply, setup_fixes, teardown),
		cmocka_unit_test_setup_teardown(test_fix_hunks_left_out, setup_fixes, teardown),
		cmocka_unit_test_setup_teardown(test_fix_refused, setup_fixes, teardown),
		cmocka_unit_test_setup_teardown(test_fix_code_changed, setup_fixes, teardown),
		cmocka_unit_test_setup_teardown(test_readiness, setup, teardown),
		cmocka_unit_test_setup_teardown(test_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_palette_engagement_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_palette_compare_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signoff_runs_the_gate_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_view_shows_recorded_thresholds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_engagement_complete_offers_report, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rerun_keeps_the_list, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checklist_ticks_past_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_loss_table_marks_nan, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prompt_default_replaced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_palette_ingest_forms, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_view_dtype_contradiction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_table_widths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_compare_views_name_inputs_and_same_data, setup, teardown),
		cmocka_unit_test_setup_teardown(test_palette_completes_chinese_and_blanks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settings_unset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_append_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_artifact_view_reads_like_the_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fix_preview_new_file, setup_fixes, teardown),
		cmocka_unit_test_setup_teardown(test_revert_refreshes_reopened_findings, setup_fixes, teardown),
		cmocka_unit_test_setup_teardown(test_user_key_bindings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_save_screen_outside_project, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ten_thousand_findings, setup, teardown),
		cmocka_unit_test_setup_teardown(test_run_in_empty_phase, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
