/* Log lines from a host set to a Chinese locale (GBK, GB18030) are read as UTF-8, line by
 * line, and nothing else is touched. */
#include "gbtext.h"
#include "util.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

/* "第 9 步" in GBK, and in UTF-8 */
#define GBK_STEP "\xb5\xda 9 \xb2\xbd"
#define UTF8_STEP "\xe7\xac\xac 9 \xe6\xad\xa5"

static void test_gbk_line(void **state)
{
	(void)state;
	gbtext *g = gbtext_new();
	const char line[] = GBK_STEP "  loss: nan";
	char out[GBTEXT_ROOM(sizeof line)];
	size_t n = gbtext_line(g, out, line, sizeof line - 1, 0);
	assert_int_equal(n, strlen(UTF8_STEP "  loss: nan"));
	assert_memory_equal(out, UTF8_STEP "  loss: nan", n);
	/* a four-byte GB18030 character (U+20000) */
	const char four[] = "\x95\x32\x82\x36";
	n = gbtext_line(g, out, four, 4, 0);
	assert_int_equal(n, 4);
	assert_memory_equal(out, "\xf0\xa0\x80\x80", 4);
	gbtext_free(g);
}

static void test_left_alone(void **state)
{
	(void)state;
	gbtext *g = gbtext_new();
	char out[64];
	assert_int_equal(gbtext_line(g, out, "loss: 0.5", 9, 0), 0);              /* ASCII */
	assert_int_equal(gbtext_line(g, out, UTF8_STEP, strlen(UTF8_STEP), 0), 0); /* UTF-8 */
	assert_int_equal(gbtext_line(g, out, "caf\xe9 ok", 7, 0), 0);              /* Latin-1: not GB18030 */
	assert_int_equal(gbtext_line(g, out, "\xff\xfe", 2, 0), 0);                /* neither */
	/* a GBK character cut in half at the end is neither, unless the reader cut the line */
	assert_int_equal(gbtext_line(g, out, GBK_STEP "\xb2", strlen(GBK_STEP) + 1, 0), 0);
	size_t n = gbtext_line(g, out, GBK_STEP "\xb2", strlen(GBK_STEP) + 1, 1);
	assert_int_equal(n, strlen(UTF8_STEP));
	assert_memory_equal(out, UTF8_STEP, n);
	/* a UTF-8 line the reader cut inside its last character is still UTF-8 */
	assert_int_equal(gbtext_line(g, out, UTF8_STEP "\xe6\xad", strlen(UTF8_STEP) + 2, 1), 0);
	gbtext_free(g);
}

static void test_mixed_text(void **state)
{
	(void)state;
	const char text[] = "start\n" GBK_STEP "\n" UTF8_STEP "\ncaf\xe9\n" GBK_STEP;
	size_t len, lines;
	char *out = gbtext_lines(text, sizeof text - 1, &len, &lines);
	assert_non_null(out);
	assert_int_equal(lines, 2);
	const char want[] = "start\n" UTF8_STEP "\n" UTF8_STEP "\ncaf\xe9\n" UTF8_STEP;
	assert_int_equal(len, sizeof want - 1);
	assert_memory_equal(out, want, len);
	assert_int_equal(out[len], '\0');
	free(out);
	assert_null(gbtext_lines("all ascii\n", 10, &len, &lines));
	assert_null(gbtext_lines(UTF8_STEP "\n", strlen(UTF8_STEP) + 1, &len, &lines));
	assert_null(gbtext_lines("caf\xe9\n", 5, &len, &lines));
	assert_int_equal(lines, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gbk_line),
		cmocka_unit_test(test_left_alone),
		cmocka_unit_test(test_mixed_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
