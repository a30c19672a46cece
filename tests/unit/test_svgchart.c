/* svgchart: text is escaped, non-finite values are skipped, the marker and the band are
 * drawn, and what comes out is one <svg> element with no script or external reference. */
#include "testutil.h"
#include "svgchart.h"

#include <math.h>
#include <string.h>

static int count(const char *s, const char *what)
{
	int n = 0;
	for (const char *p = s; (p = strstr(p, what)); p += strlen(what))
		n++;
	return n;
}

static void assert_clean(const char *svg)
{
	assert_true(strncmp(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39) == 0);
	assert_int_equal(count(svg, "<svg"), 1);
	assert_int_equal(count(svg, "</svg>"), 1);
	assert_null(strstr(svg, "<script"));
	assert_null(strstr(svg, "href"));
	assert_null(strstr(svg, "nan"));
	assert_null(strstr(svg, "inf"));
}

/* Draws one chart into b (initialised here) and checks it is clean. */
static void draw(sbuf *b, const svg_bar_spec *bar, const svg_line_spec *line)
{
	sbuf_init(b);
	if (bar)
		svg_bar_chart(b, bar);
	else
		svg_line_chart(b, line);
	assert_clean(b->buf);
}

static void test_bar_chart(void **state)
{
	(void)state;
	const char *labels[] = { "assess", "a <b> & \"c\"", "一个很长很长很长很长很长很长很长很长很长很长的算子名称超过了三十个字符" };
	double err[] = { 3, 1, NAN }, warn[] = { 2, 0, 4 };
	svg_bar_series s[] = { { "error", "#c0392b", err }, { "warning", "#e0a526", warn } };
	svg_bar_spec spec = { "Findings <by> phase", "open findings", labels, 3, s, 2 };
	sbuf b;
	draw(&b, &spec, NULL);
	assert_non_null(strstr(b.buf, "<title>Findings &lt;by&gt; phase</title>"));
	assert_non_null(strstr(b.buf, "a &lt;b&gt; &amp; &quot;c&quot;"));
	assert_null(strstr(b.buf, "<b>"));
	assert_non_null(strstr(b.buf, "…</text>")); /* the long label is cut, whole characters */
	assert_non_null(strstr(b.buf, ">5</text>")); /* the stacked total of the first bar */
	assert_int_equal(count(b.buf, "<rect"), 2 + 4); /* two legend swatches; 2 + 1 + 1 segments (0 and NaN drawn as none) */
	sbuf_done(&b);
}

static void test_line_chart(void **state)
{
	(void)state;
	double x[] = { 1, 2, 3, 4 }, y[] = { 1, NAN, 0.95, 0.99 }, lo[] = { 0.9, 0.9, 0.9, 0.9 }, hi[] = { 1, 1, 1, 1 };
	svg_line_series s = { "cosine", "#1d5bb8", x, y, 4, 0 };
	svg_line_spec spec = { "Cosine", "layer", "cosine", &s, 1, x, lo, hi, 4, "band <1>", 1, 3, "first: Functional.linear.0", 1, 0.9, 1 };
	sbuf b;
	draw(&b, NULL, &spec);
	assert_non_null(strstr(b.buf, "first: Functional.linear.0</text>"));
	assert_non_null(strstr(b.buf, "band &lt;1&gt;"));
	assert_non_null(strstr(b.buf, "stroke-dasharray=\"4 3\"")); /* the marker */
	assert_int_equal(count(b.buf, "<path"), 2);                 /* the band and the line */
	/* the NaN point breaks the line: two moves */
	const char *line = strstr(b.buf, "stroke=\"#1d5bb8\"");
	assert_non_null(line);
	const char *d = strstr(line, " d=\"");
	assert_int_equal(count(d, "M") - count(strstr(d, "\"/>"), "M"), 2);
	sbuf_done(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bar_chart),
		cmocka_unit_test(test_line_chart),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
