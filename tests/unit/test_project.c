/* Unit tests for the project inventory: the walk, its problems, and path resolution. */
#include "testutil.h"

#include "err.h"
#include "project.h"

#include <unistd.h>

struct fixture {
	char *dir;     /* a temporary folder holding the project and an outside file */
	char *root;    /* dir/proj */
};

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	fx->dir = tu_mkdtemp();
	fx->root = util_path_join(fx->dir, "proj");
	tu_write(fx->root, "b.py", "print(1)\n");
	tu_write(fx->root, "a/x.py", "x = 1\n");
	tu_write(fx->root, "a/z.txt", "z\n");
	tu_write(fx->root, ".git/config", "[core]\n");
	tu_write(fx->root, ".ferry/engagement.db", "db");
	tu_write(fx->root, "build/gen.py", "generated = 1\n");
	tu_write(fx->root, "notes.log", "log\n");
	tu_write(fx->dir, "secret.txt", "outside\n");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx->root);
	free(fx);
	return 0;
}

static void link_in(const char *root, const char *target, const char *rel)
{
	char *path = util_path_join(root, rel);
	if (symlink(target, path) != 0)
		abort();
	free(path);
}

static int has(const project_list *l, const char *path)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->paths[i], path) == 0)
			return 1;
	return 0;
}

static int has_problem(const project_list *l, const char *line)
{
	for (size_t i = 0; i < l->nproblems; i++)
		if (strcmp(l->problems[i], line) == 0)
			return 1;
	return 0;
}

static int ignore_build_and_logs(const char *rel, void *payload)
{
	(void)payload;
	return strcmp(rel, "build/") == 0 || util_ends_with(rel, ".log");
}

static void test_lists_sorted_and_skips_workspace(void **state)
{
	struct fixture *fx = *state;
	project_list l;
	assert_int_equal(project_files(&l, fx->root, NULL, NULL), 0);
	assert_int_equal(l.n, 5);
	assert_string_equal(l.paths[0], "a/x.py");
	assert_string_equal(l.paths[1], "a/z.txt");
	assert_string_equal(l.paths[2], "b.py");
	assert_string_equal(l.paths[3], "build/gen.py");
	assert_string_equal(l.paths[4], "notes.log");
	assert_int_equal(l.nproblems, 0);
	project_list_done(&l);
	project_list_done(&l);
	project_list_done(NULL);
}

static void test_ignore_callback(void **state)
{
	struct fixture *fx = *state;
	project_list l;
	assert_int_equal(project_files(&l, fx->root, ignore_build_and_logs, NULL), 0);
	assert_int_equal(l.n, 3);
	assert_false(has(&l, "build/gen.py"));
	assert_false(has(&l, "notes.log"));
	project_list_done(&l);
}

static void test_symlinks(void **state)
{
	struct fixture *fx = *state;
	link_in(fx->root, "../secret.txt", "leak.txt");  /* leaves the project */
	link_in(fx->root, "../..", "a/up");              /* leaves the project */
	link_in(fx->root, "..", "a/root");              /* back to the root: an alias */
	link_in(fx->root, ".", "a/self");                /* itself: an alias */
	link_in(fx->root, "loop2", "loop1");             /* a link loop */
	link_in(fx->root, "loop1", "loop2");
	link_in(fx->root, "missing", "dangling");        /* broken */
	link_in(fx->root, "b.py", "c.py");               /* a file inside: an alias */
	link_in(fx->root, "a", "alias");                 /* a folder inside: an alias */
	link_in(fx->root, ".git", "git_alias");          /* inside, but where ferry never reads */
	project_list l;
	assert_int_equal(project_files(&l, fx->root, NULL, NULL), 0);
	/* each file once, by its real path: nothing through a link */
	assert_int_equal(l.n, 5);
	assert_true(has(&l, "a/x.py"));
	assert_true(has(&l, "b.py"));
	assert_false(has(&l, "c.py"));
	assert_false(has(&l, "alias/x.py"));
	assert_false(has(&l, "a/self/x.py"));
	assert_false(has(&l, "git_alias/config"));
	assert_false(has(&l, "leak.txt"));
	assert_true(has_problem(&l, "leak.txt: symlink leaving the project"));
	assert_true(has_problem(&l, "a/up: symlink leaving the project"));
	assert_true(has_problem(&l, "loop1: symlink loop"));
	assert_true(has_problem(&l, "loop2: symlink loop"));
	assert_true(has_problem(&l, "dangling: broken symlink"));
	/* links that stay inside are not problems: their targets are listed */
	assert_int_equal(l.nproblems, 5);
	project_list_done(&l);
}

static void test_unreadable_dir(void **state)
{
	struct fixture *fx = *state;
	if (geteuid() == 0)
		skip(); /* root reads every directory */
	tu_write(fx->root, "locked/y.py", "y = 1\n");
	char *locked = util_path_join(fx->root, "locked");
	chmod(locked, 0);
	project_list l;
	assert_int_equal(project_files(&l, fx->root, NULL, NULL), 0);
	assert_int_equal(l.nproblems, 1);
	assert_non_null(strstr(l.problems[0], "locked/: unreadable directory"));
	project_list_done(&l);
	chmod(locked, 0755);
	free(locked);
}

static void test_missing_root(void **state)
{
	struct fixture *fx = *state;
	char *gone = util_path_join(fx->dir, "nope");
	project_list l;
	assert_int_equal(project_files(&l, gone, NULL, NULL), FERRY_EIO);
	assert_int_equal(l.n, 0);
	assert_non_null(strstr(err_message(), "nope"));
	free(gone);
}

static void test_resolve(void **state)
{
	struct fixture *fx = *state;
	char *abs = NULL;
	link_in(fx->root, "../secret.txt", "leak.txt");
	link_in(fx->root, "a", "alias");
	assert_int_equal(project_resolve(&abs, fx->root, "a/x.py"), 0);
	assert_true(util_ends_with(abs, "/proj/a/x.py"));
	assert_true(abs[0] == '/');
	free(abs);
	assert_int_equal(project_resolve(&abs, fx->root, "alias/x.py"), 0);
	assert_true(util_ends_with(abs, "/proj/a/x.py"));
	free(abs);

	assert_int_equal(project_resolve(&abs, fx->root, "../secret.txt"), FERRY_EREFUSED);
	assert_null(abs);
	assert_string_equal(err_message(), "../secret.txt: path leaves the project");
	assert_int_equal(project_resolve(&abs, fx->root, "a/../../secret.txt"), FERRY_EREFUSED);
	assert_int_equal(project_resolve(&abs, fx->root, "/etc/passwd"), FERRY_EREFUSED);
	assert_string_equal(err_message(), "/etc/passwd: absolute path refused");
	assert_int_equal(project_resolve(&abs, fx->root, ""), FERRY_EREFUSED);
	assert_int_equal(project_resolve(&abs, fx->root, "leak.txt"), FERRY_EREFUSED);
	assert_string_equal(err_message(), "leak.txt: symlink leaves the project");
	assert_int_equal(project_resolve(&abs, fx->root, "nothere.py"), FERRY_ENOTFOUND);
	assert_string_equal(err_message(), "nothere.py: no such file");
	/* a name that merely starts with two dots is fine */
	tu_write(fx->root, "..data", "x");
	assert_int_equal(project_resolve(&abs, fx->root, "..data"), 0);
	free(abs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lists_sorted_and_skips_workspace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ignore_callback, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlinks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resolve, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
