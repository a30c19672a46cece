/* rdoc's Markdown: finding messages and file names quote client code. Read by a real
 * CommonMark renderer (cmark-gfm, with GitHub's tables), none of it becomes HTML, and code
 * in backticks shows as written (`x < y`, not `x &lt; y`). */
#include "testutil.h"
#include "rdoc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Markdown of a document holding one paragraph of text (caller frees). */
static char *md_of(const char *text, int in_cell)
{
	rdoc *d = rdoc_new("en", "t");
	cJSON *sec = rdoc_section(d, "s", "S");
	if (in_cell) {
		const char *hd[] = { "A", NULL };
		rdoc_cell_text(rdoc_row(rdoc_table(sec, hd)), text);
	} else {
		rdoc_para_text(sec, NULL, text);
	}
	sbuf b;
	sbuf_init(&b);
	rdoc_render_md(&b, d);
	rdoc_free(d);
	return sbuf_detach(&b);
}

/* A location (a client's file name) written as code: escaped like any text. */
static char *md_of_loc(const char *file)
{
	rdoc *d = rdoc_new("en", "t");
	cJSON *sec = rdoc_section(d, "s", "S");
	cJSON *p = rdoc_para(sec, NULL);
	rdoc_text(p, "see ` ");
	rdoc_loc(p, file);
	rdoc_code(p, "<img src=x onerror=alert(1)>");
	sbuf b;
	sbuf_init(&b);
	rdoc_render_md(&b, d);
	rdoc_free(d);
	return sbuf_detach(&b);
}

/* The HTML cmark-gfm makes of md (caller frees): its safe mode writes
 * "<!-- raw HTML omitted -->" for any HTML the Markdown holds. The anchors ferry writes
 * itself before each heading (`<a id="s"></a>`) are left out. */
static char *commonmark_html(const char *md_in)
{
	sbuf kept;
	sbuf_init(&kept);
	for (const char *line = md_in; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line + 1) : strlen(line);
		if (strncmp(line, "<a id=\"", 7) != 0)
			sbuf_add(&kept, line, len);
		line += len;
	}
	const char *md = kept.buf;
	char path[] = "/tmp/ferry-rdoc-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs(md, f);
	fclose(f);
	char *cmd = xasprintf("cmark-gfm -e table '%s'", path);
	FILE *p = popen(cmd, "r");
	free(cmd);
	assert_non_null(p);
	sbuf out;
	sbuf_init(&out);
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		sbuf_add(&out, buf, n);
	int rc = pclose(p);
	unlink(path);
	sbuf_done(&kept);
	assert_int_equal(rc, 0); /* cmark-gfm is installed by scripts/setup.sh --test */
	return sbuf_detach(&out);
}

/* No HTML of the text's: neither a tag the renderer kept out nor one it let through. */
static void assert_no_html(const char *md)
{
	char *html = commonmark_html(md);
	if (strstr(html, "raw HTML omitted") || strstr(html, "<script") || strstr(html, "<img"))
		fail_msg("HTML from the text in\n%s\nrendered as\n%s", md, html);
	free(html);
}

static void test_no_html_anywhere(void **state)
{
	(void)state;
	/* runs of backticks, backslashes before them, blank lines: wherever a renderer's code
	 * spans begin and end, no '<' of the text becomes HTML */
	static const char *const hostile[] = {
		"<script>alert(1)</script>",
		"\\`<script>alert(1)</script>`",
		"\\\\`a`<script>alert(1)</script>`",
		"``<script>alert(1)</script>`",
		"`a``b`<script>alert(1)</script>`",
		"`a\n\n<script>alert(1)</script>`",
		"`<b>` then <script>x</script> `",
		"` <script>alert(1)</script>",
		"`ferry config quote.days.<script> DAYS`",
		"x\n<script>alert(1)</script>",
		"`a`\n\n    <script>b</script>\n\n<img src=x onerror=alert(1)>",
		"[a](`<script>`) <http://example.invalid/`>` &lt;script&gt;",
		"| `a | <script>x</script> | b` |",
	};
	for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
		char *md = md_of(hostile[i], 0);
		assert_no_html(md);
		free(md);
		md = md_of(hostile[i], 1);
		assert_no_html(md);
		free(md);
	}
	char *md = md_of_loc("a`<img src=x onerror=alert(1)>`.py");
	assert_no_html(md);
	free(md);
}

/* Code quoted in a finding shows as written: a renderer shows a code span's content
 * verbatim, so an entity there would be read as "&lt;". */
static void test_code_shows_as_written(void **state)
{
	(void)state;
	static const struct {
		const char *text, *html;
	} cases[] = {
		{ "mask `labels[overlaps < 0.3]` assigned", "<code>labels[overlaps &lt; 0.3]</code>" },
		{ "`ferry config effort.weight.<category> DAYS`", "<code>ferry config effort.weight.&lt;category&gt; DAYS</code>" },
		{ "`a && b` and a < b & c", "<code>a &amp;&amp; b</code> and a &lt; b &amp; c" },
		{ "path C:\\data\\`x`", "C:\\data\\<code>x</code>" },
		{ "`x\ny < z`", "<code>x y &lt; z</code>" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (int cell = 0; cell < 2; cell++) {
			char *md = md_of(cases[i].text, cell);
			char *html = commonmark_html(md);
			if (!strstr(html, cases[i].html))
				fail_msg("'%s' (cell %d) rendered as\n%s\nnot holding\n%s", cases[i].text, cell, html, cases[i].html);
			free(html);
			free(md);
		}
	/* a table cell's code keeps its '|' */
	char *md = md_of("`a | b`", 1);
	char *html = commonmark_html(md);
	assert_non_null(strstr(html, "<code>a | b</code>"));
	free(html);
	free(md);
	/* a location and a code span of ferry's own, backticks in them included */
	rdoc *d = rdoc_new("en", "t");
	cJSON *p = rdoc_para(rdoc_section(d, "s", "S"), NULL);
	rdoc_loc(p, "src/a<b>.py");
	rdoc_code(p, "x = `y` < 1");
	sbuf b;
	sbuf_init(&b);
	rdoc_render_md(&b, d);
	rdoc_free(d);
	html = commonmark_html(b.buf);
	assert_non_null(strstr(html, "<code>src/a&lt;b&gt;.py</code>"));
	assert_non_null(strstr(html, "<code>x = `y` &lt; 1</code>"));
	free(html);
	sbuf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_html_anywhere),
		cmocka_unit_test(test_code_shows_as_written),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
