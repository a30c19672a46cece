/* rdoc's Markdown: text is escaped so that nothing in it becomes HTML, and a code span
 * (`...`, a command or a name) reads as written, since Markdown shows an entity inside
 * one as the entity itself. Finding messages quote client code, so the cases where a
 * backtick is not a code span must stay escaped. */
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

static void test_code_span_reads_as_written(void **state)
{
	(void)state;
	char *md = md_of("Run `ferry config quote.days.<line> DAYS` & see.", 0);
	assert_non_null(strstr(md, "`ferry config quote.days.<line> DAYS` &amp; see."));
	free(md);
	md = md_of("a `x < y && z` b < c", 1);
	assert_non_null(strstr(md, "a `x < y && z` b &lt; c"));
	free(md);
}

static void test_no_html_outside_a_code_span(void **state)
{
	(void)state;
	static const char *const hostile[] = {
		"<script>alert(1)</script>",
		"\\`<script>alert(1)</script>`",   /* an escaped backtick opens no code span */
		"``<script>alert(1)</script>`",    /* a run of two is not closed by one */
		"`<b>` then <script>x</script> `", /* after a closed span, escaping goes on */
		"` <script>alert(1)</script>",     /* an unclosed backtick is a backtick */
	};
	for (size_t i = 0; i < sizeof hostile / sizeof *hostile; i++) {
		char *md = md_of(hostile[i], 0);
		assert_null(strstr(md, "<script"));
		free(md);
		md = md_of(hostile[i], 1);
		assert_null(strstr(md, "<script"));
		free(md);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_code_span_reads_as_written),
		cmocka_unit_test(test_no_html_outside_a_code_span),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
