/* Wrapping for the workbench: lines break at blanks in English and beside any Chinese
 * character in Chinese (which has no blanks), never inside a character. */
#include "testutil.h"

#include "text.h"

#include <locale.h>

/* The lines s wraps into at cols columns, joined with '|'. */
static char *wrapped(const char *s, int cols)
{
	sbuf b;
	sbuf_init(&b);
	while (*s) {
		size_t len = 0, next = text_wrap(s, cols, &len);
		if (b.len)
			sbuf_addc(&b, '|');
		sbuf_add(&b, s, len);
		assert_true(text_width(b.buf) >= 0);
		s += next;
	}
	return sbuf_detach(&b);
}

static void test_wrap_english_at_blanks(void **state)
{
	(void)state;
	char *w = wrapped("the quick brown fox jumps", 10);
	assert_string_equal(w, "the quick|brown fox|jumps");
	free(w);
	w = wrapped("abcdefghijklmnop", 5); /* no blank: cut inside the word */
	assert_string_equal(w, "abcde|fghij|klmno|p");
	free(w);
}

static void test_wrap_chinese_beside_characters(void **state)
{
	(void)state;
	/* 它编译的 CUDA 源代码无法为 NPU 构建 — the break may fall after any CJK character,
	 * not only at the last blank (which would leave half the line empty) */
	char *w = wrapped("它编译的 CUDA 源代码无法为 NPU 构建：先替换这些核函数", 20);
	char *line = strtok(w, "|");
	assert_string_equal(line, "它编译的 CUDA 源代码");
	free(w);
	w = wrapped("先替换这些核函数，再删除这一构建步骤", 10);
	assert_string_equal(w, "先替换这些|核函数，再|删除这一构|建步骤");
	free(w);
	/* a Latin word is not cut when a break beside a Chinese character is near */
	w = wrapped("改用 torch_npu 的接口", 12);
	assert_string_equal(w, "改用|torch_npu 的|接口");
	free(w);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap_english_at_blanks),
		cmocka_unit_test(test_wrap_chinese_beside_characters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
