/* Unit tests for util: atomic writes, SHA-256, UTF-8 validation, the string buffer. */
#include "testutil.h"

#include "err.h"

#include <dirent.h>

static int count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static void test_atomic_write_replaces_and_keeps_mode(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	tu_write(dir, "run.sh", "old\n");
	char *path = util_path_join(dir, "run.sh");
	chmod(path, 0750);
	assert_int_equal(util_write_atomic(path, "new\r\n\tbody", 10, 0644), 0);
	char *text = tu_read(dir, "run.sh");
	assert_memory_equal(text, "new\r\n\tbody", 10);
	struct stat st;
	stat(path, &st);
	assert_int_equal(st.st_mode & 0777, 0750);
	assert_int_equal(count_entries(dir), 1); /* no temporary file left behind */
	free(text);
	free(path);
	tu_rmdir(dir);
	free(dir);
}

static void test_atomic_write_failure_names_file(void **state)
{
	(void)state;
	assert_int_equal(util_write_atomic("/nonexistent-dir/x.py", "a", 1, 0644), FERRY_EIO);
	assert_non_null(strstr(err_message(), "/nonexistent-dir/x.py"));
}

static void test_remove_tree_does_not_follow_links(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	tu_write(dir, "keep/precious.txt", "do not delete");
	tu_write(dir, "gone/a/b/c.txt", "x");
	char *gone = util_path_join(dir, "gone"), *link = util_path_join(dir, "gone/a/link");
	char *keep = util_path_join(dir, "keep");
	assert_int_equal(symlink(keep, link), 0);
	assert_int_equal(util_remove_tree(gone), 0);
	struct stat st;
	assert_int_not_equal(lstat(gone, &st), 0);
	char *text = tu_read(dir, "keep/precious.txt");
	assert_string_equal(text, "do not delete");
	free(text);
	free(gone), free(link), free(keep);
	tu_rmdir(dir);
	free(dir);
}

static void test_sha256(void **state)
{
	(void)state;
	char hex[65];
	util_sha256_hex(hex, "abc", 3);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* One CSV field: RFC 4180 quoting, and a leading formula character made inert. */
static void test_csv_field(void **state)
{
	(void)state;
	static const struct { const char *in, *out; } cases[] = {
		{ "plain", "plain" },
		{ "a,b", "\"a,b\"" },
		{ "say \"hi\"", "\"say \"\"hi\"\"\"" },
		{ "=HYPERLINK(\"x\")", "\"'=HYPERLINK(\"\"x\"\")\"" },
		{ "+1", "'+1" },
		{ "-2+3", "'-2+3" },
		{ "@SUM(A1)", "'@SUM(A1)" },
		{ "\tx", "'\tx" },
		{ "\rx", "\"'\rx\"" },
		{ "a=b", "a=b" },
		{ "", "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		sbuf b;
		sbuf_init(&b);
		sbuf_add_csv(&b, cases[i].in);
		assert_string_equal(b.buf ? b.buf : "", cases[i].out);
		sbuf_done(&b);
	}
}

static void test_utf8(void **state)
{
	(void)state;
	assert_true(util_utf8_valid("plain", 5));
	assert_true(util_utf8_valid("\xe4\xb8\xad\xe6\x96\x87", 6));
	assert_false(util_utf8_valid("\xe4\xb8", 2));          /* truncated */
	assert_false(util_utf8_valid("\xc0\xaf", 2));          /* overlong */
	assert_false(util_utf8_valid("\xed\xa0\x80", 3));      /* surrogate */
	assert_false(util_utf8_valid("\xff", 1));
}

static void test_sbuf(void **state)
{
	(void)state;
	sbuf b;
	sbuf_init(&b);
	for (int i = 0; i < 1000; i++)
		sbuf_addf(&b, "%d,", i);
	assert_true(util_starts_with(b.buf, "0,1,2,"));
	assert_true(util_ends_with(b.buf, "998,999,"));
	char *s = sbuf_detach(&b);
	sbuf_adds(&b, "again");
	assert_string_equal(b.buf, "again");
	sbuf_done(&b);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_atomic_write_replaces_and_keeps_mode),
		cmocka_unit_test(test_csv_field),
		cmocka_unit_test(test_atomic_write_failure_names_file),
		cmocka_unit_test(test_remove_tree_does_not_follow_links),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_sbuf),
	};
	return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
