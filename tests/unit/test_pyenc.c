/* Python files in a declared encoding (PEP 263) are read as Python reads them. */
#include "err.h"
#include "pyenc.h"
#include "pysrc.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static void test_latin1_declared(void **state)
{
	(void)state;
	const char text[] = "# -*- coding: latin-1 -*-\n# Fran\xe7ois\nx = 1\n";
	char *out = NULL, enc[32];
	size_t len = 0;
	assert_int_equal(pyenc_decode(&out, &len, enc, "a.py", text, sizeof text - 1), 1);
	assert_string_equal(enc, "latin-1");
	assert_string_equal(out, "# -*- coding: latin-1 -*-\n# Fran\xc3\xa7ois\nx = 1\n");
	assert_int_equal(len, strlen(out));
	free(out);
}

static void test_second_line_and_spellings(void **state)
{
	(void)state;
	static const char *const texts[] = {
		"#!/usr/bin/env python\n# vim: set fileencoding=iso-8859-15 :\ns = '\xa4'\n",
		"# coding=cp1252\ns = '\x80'\n",
		"#!/usr/bin/python\n# -*- coding: Latin_1 -*-\ns = '\xe9'\n",
	};
	static const char *const euro[] = { "\xe2\x82\xac", "\xe2\x82\xac", "\xc3\xa9" };
	for (size_t i = 0; i < 3; i++) {
		char *out = NULL, enc[32];
		size_t len = 0;
		assert_int_equal(pyenc_decode(&out, &len, enc, "a.py", texts[i], strlen(texts[i])), 1);
		assert_non_null(strstr(out, euro[i]));
		free(out);
	}
}

static void test_nothing_to_do(void **state)
{
	(void)state;
	char *out = NULL, enc[32];
	size_t len = 0;
	/* UTF-8 whatever it declares; no declaration; a declaration on line 3 is no declaration */
	const char utf8[] = "# coding: latin-1\ns = 'caf\xc3\xa9'\n";
	assert_int_equal(pyenc_decode(&out, &len, enc, "a.py", utf8, sizeof utf8 - 1), 0);
	const char none[] = "s = 'caf\xe9'\n";
	assert_int_equal(pyenc_decode(&out, &len, enc, "a.py", none, sizeof none - 1), 0);
	const char late[] = "import os\n\n# coding: latin-1\ns = '\xe9'\n";
	assert_int_equal(pyenc_decode(&out, &len, enc, "a.py", late, sizeof late - 1), 0);
	/* a coding word outside a comment declares nothing */
	const char code[] = "coding = 'latin-1'\ns = '\xe9'\n";
	assert_int_equal(pyenc_decode(&out, &len, enc, "a.py", code, sizeof code - 1), 0);
	assert_null(out);
}

static void test_refused(void **state)
{
	(void)state;
	char *out = NULL, enc[32];
	size_t len = 0;
	const char unknown[] = "# coding: klingon\ns = '\xff'\n";
	assert_int_equal(pyenc_decode(&out, &len, enc, "k.py", unknown, sizeof unknown - 1), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "k.py: declares the encoding 'klingon'"));
	/* bytes that are not in the declared encoding */
	const char bad[] = "# coding: shift_jis\ns = '\x81'\n";
	assert_int_equal(pyenc_decode(&out, &len, enc, "j.py", bad, sizeof bad - 1), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "j.py: not valid shift_jis text"));
	assert_null(out);
	err_clear();
}

static void test_parsed_as_declared(void **state)
{
	(void)state;
	char dir[] = "/tmp/ferry-pyenc-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/a.py", dir);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	fputs("# -*- coding: latin-1 -*-\nname = 'Fran\xe7ois'\nimport torch\n", f);
	fclose(f);
	pysrc *src = NULL;
	char *err = NULL;
	pysrc_parse_file(&src, &err, dir, "a.py");
	assert_null(err);
	assert_non_null(src);
	uint32_t line = 0, col = 0;
	assert_int_equal(pysrc_first_error(src, &line, &col), 0);
	pysrc_free(src);
	remove(path);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latin1_declared),
		cmocka_unit_test(test_second_line_and_spellings),
		cmocka_unit_test(test_nothing_to_do),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_parsed_as_declared),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
