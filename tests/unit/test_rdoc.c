/* rdoc's Markdown: finding messages and file names quote client code, so no '<' of
 * theirs is ever written raw, whatever their backticks make of code spans. */
#include "testutil.h"
#include "rdoc.h"

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

static void test_no_html_anywhere(void **state)
{
	(void)state;
	/* where a renderer's code spans begin and end differs from any simple rule (runs of
	 * backticks, a backslash before one, a blank line), so '<' is never written raw */
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
	};
	for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
		char *md = md_of(hostile[i], 0);
		assert_null(strstr(md, "<script"));
		free(md);
		md = md_of(hostile[i], 1);
		assert_null(strstr(md, "<script"));
		free(md);
	}
	char *md = md_of_loc("a`<img src=x onerror=alert(1)>`.py");
	assert_null(strstr(md, "<img"));
	free(md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_html_anywhere),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
