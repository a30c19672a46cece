/* Unit tests for history: the shadow repository on temporary projects, checked
 * against the real git command where the contract is "git can read it". */
#include "testutil.h"

#include "err.h"
#include "history.h"

#include <git2.h>
#include <stdarg.h>

static const history_sig SIG = { "Test Actor", "actor@example.com" };

/* Runs a shell command built from fmt; fails the test when it exits non-zero. */
static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	sbuf b;
	va_list ap;
	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	int rc = system(b.buf);
	if (rc != 0)
		fprintf(stderr, "command failed (%d): %s\n", rc, b.buf);
	assert_int_equal(rc, 0);
	sbuf_done(&b);
}

/* Output of a shell command (trailing newline removed). Caller frees. */
static char *cap(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *cap(const char *fmt, ...)
{
	sbuf cmd, out;
	va_list ap;
	char chunk[4096];
	size_t n;
	sbuf_init(&cmd);
	sbuf_init(&out);
	va_start(ap, fmt);
	sbuf_vaddf(&cmd, fmt, ap);
	va_end(ap);
	FILE *p = popen(cmd.buf, "r");
	assert_non_null(p);
	while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
		sbuf_add(&out, chunk, n);
	pclose(p);
	while (out.len && out.buf[out.len - 1] == '\n')
		out.buf[--out.len] = '\0';
	sbuf_done(&cmd);
	char *text = sbuf_detach(&out);
	sbuf_done(&out);
	return text;
}

static void write_bytes(const char *dir, const char *rel, const char *data, size_t len)
{
	char *path = util_path_join(dir, rel);
	assert_int_equal(util_write_atomic(path, data, len, 0644), 0);
	free(path);
}

static void assert_file_bytes(const char *dir, const char *rel, const char *data, size_t len)
{
	char *path = util_path_join(dir, rel), *got = NULL;
	size_t glen = 0;
	assert_int_equal(util_read_file(&got, &glen, path), 0);
	assert_int_equal(glen, len);
	assert_memory_equal(got, data, len);
	free(got);
	free(path);
}

static int exists(const char *dir, const char *rel)
{
	char *path = util_path_join(dir, rel);
	struct stat st;
	int r = lstat(path, &st) == 0;
	free(path);
	return r;
}

static void remove_rel(const char *dir, const char *rel)
{
	char *path = util_path_join(dir, rel);
	assert_int_equal(unlink(path), 0);
	free(path);
}

static char *gitdir_of(const char *root) { return util_path_join(root, ".ferry/history.git"); }

/* A project with a few files, initialised; *root and *gd freed by the caller. */
static history *fresh(char **root, char **gd, char baseline[41])
{
	history *h = NULL;
	*root = tu_mkdtemp();
	*gd = gitdir_of(*root);
	tu_write(*root, "train.py", "import torch\nmodel.cuda()\n");
	tu_write(*root, "lib/util.py", "def f():\n    return 1\n");
	tu_write(*root, "README.md", "hello\n");
	assert_int_equal(history_init(&h, baseline, *root, *gd, &SIG), 0);
	return h;
}

static void done(history *h, char *root, char *gd)
{
	history_free(h);
	tu_rmdir(root);
	free(root);
	free(gd);
}

static int contains(char **v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void commit_all(history *h, char out[41], const char *msg)
{
	int made = 0;
	assert_int_equal(history_commit(out, &made, h, NULL, 0, msg, NULL, 0, &SIG), 0);
	assert_int_equal(made, 1);
}

/* A client git repository with committed files. */
static char *client_repo(void)
{
	char *root = tu_mkdtemp();
	tu_write(root, "train.py", "import torch\nx = torch.zeros(3).cuda()\nprint(x)\n");
	tu_write(root, "lib/util.py", "def f():\n    return 1\n");
	tu_write(root, "old.txt", "to be removed\n");
	tu_write(root, ".gitignore", "*.log\n");
	sh("cd '%s' && git -c init.defaultBranch=main init -q && git add -A && git commit -q -m initial", root);
	return root;
}

static void test_init_plain(void **state)
{
	(void)state;
	char *root = tu_mkdtemp(), *gd = gitdir_of(root), base[41], head[41];
	history *h = NULL, *h2 = NULL;
	tu_write(root, "a.py", "print('a')\n");
	tu_write(root, "sub/deep/b.py", "print('b')\n");
	tu_write(root, "run.sh", "#!/bin/sh\necho hi\n");
	sh("chmod 755 '%s/run.sh' && ln -s a.py '%s/link.py' && mkdir -p '%s/emptydir'", root, root, root);
	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	assert_int_equal(strlen(base), 40);
	assert_int_equal(history_head(head, h), 0);
	assert_string_equal(head, base);
	assert_int_equal(history_baseline(head, h), 0);
	assert_string_equal(head, base);

	char *tree = cap("git --git-dir='%s' ls-tree -r HEAD", gd);
	assert_non_null(strstr(tree, "100755 blob"));
	assert_non_null(strstr(tree, "120000 blob"));
	assert_non_null(strstr(tree, "sub/deep/b.py"));
	assert_null(strstr(tree, "emptydir"));
	assert_null(strstr(tree, ".ferry"));
	free(tree);
	/* the real git agrees the repository is sound and the branch is ferry */
	sh("git --git-dir='%s' fsck --no-progress --no-dangling", gd);
	char *branch = cap("git --git-dir='%s' symbolic-ref HEAD", gd);
	assert_string_equal(branch, "refs/heads/ferry");
	free(branch);
	assert_false(exists(root, ".git"));

	char *text = NULL;
	size_t len = 0;
	assert_int_equal(history_read_at(&text, &len, h, base, "link.py"), 0);
	assert_string_equal(text, "a.py");
	free(text);
	assert_int_equal(history_read_at(&text, &len, h, base, "nope.py"), FERRY_ENOTFOUND);

	history_commit_info info;
	assert_int_equal(history_commit_info_get(&info, h, base), 0);
	assert_true(util_starts_with(info.message, "Baseline: project as received\n\n"));
	assert_string_equal(info.author, "Test Actor <actor@example.com>");
	assert_int_equal(info.nparents, 0);
	char *actor = history_trailer_value(info.message, "Actor");
	assert_string_equal(actor, "Test Actor <actor@example.com>");
	free(actor);
	history_commit_info_done(&info);

	char **changed = NULL;
	size_t n = 0;
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);

	/* a second init is refused and leaves the first alone */
	assert_int_equal(history_init(&h2, base, root, gd, &SIG), FERRY_EEXISTS);
	assert_null(h2);
	assert_non_null(strstr(err_message(), gd));
	history_free(h);
	assert_int_equal(history_open(&h, root, gd), 0);
	assert_int_equal(history_head(head, h), 0);
	assert_string_equal(head, base);
	assert_int_equal(history_check(h), 0);
	done(h, root, gd);
}

static void test_init_git_repo_untouched(void **state)
{
	(void)state;
	char *root = client_repo(), *gd = gitdir_of(root), base[41], out[41];
	history *h = NULL;
	/* uncommitted work of every kind: modified, staged, untracked */
	tu_write(root, "train.py", "import torch\nx = torch.zeros(3).npu()\n");
	tu_write(root, "staged.py", "s = 1\n");
	sh("cd '%s' && git add staged.py", root);
	tu_write(root, "untracked.py", "u = 2\n");
	const char *hash_cmd = "cd '%s/.git' && find . -type f | sort | xargs sha256sum | sha256sum";
	char *before = cap(hash_cmd, root);
	char *status_before = cap("cd '%s' && git status --porcelain --untracked-files=all", root);

	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	char *text = NULL;
	size_t len;
	assert_int_equal(history_read_at(&text, &len, h, base, "train.py"), 0);
	assert_non_null(strstr(text, ".npu()"));
	free(text);
	assert_int_equal(history_read_at(&text, &len, h, base, "untracked.py"), 0);
	free(text);
	assert_int_equal(history_read_at(&text, &len, h, base, ".git/HEAD"), FERRY_ENOTFOUND);
	tu_write(root, "lib/util.py", "def f():\n    return 2\n");
	commit_all(h, out, "edit");
	char **changed = NULL;
	size_t n = 0;
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	free_list(changed, n);
	history_free(h);

	char *after = cap(hash_cmd, root);
	assert_string_equal(before, after);
	char *status_after = cap("cd '%s' && git status --porcelain --untracked-files=all", root);
	/* the client only sees our edit and the new .ferry/ folder */
	assert_non_null(strstr(status_after, "lib/util.py"));
	assert_non_null(strstr(status_after, ".ferry/"));
	assert_non_null(strstr(status_before, "staged.py"));
	free(before);
	free(after);
	free(status_before);
	free(status_after);
	tu_rmdir(root);
	free(root);
	free(gd);
}

static void test_gitignore(void **state)
{
	(void)state;
	char *root = tu_mkdtemp(), *gd = gitdir_of(root), base[41];
	history *h = NULL;
	tu_write(root, ".gitignore", "*.log\nbuild/\n");
	tu_write(root, "keep.py", "k = 1\n");
	tu_write(root, "run.log", "noise\n");
	tu_write(root, "build/out.o", "obj\n");
	tu_write(root, "pkg/.gitignore", "local.txt\n");
	tu_write(root, "pkg/local.txt", "local\n");
	tu_write(root, "pkg/mod.py", "m = 1\n");
	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	char *tree = cap("git --git-dir='%s' ls-tree -r --name-only HEAD", gd);
	assert_string_equal(tree, ".gitignore\nkeep.py\npkg/.gitignore\npkg/mod.py");
	free(tree);
	int ig = -1;
	assert_int_equal(history_is_ignored(&ig, h, "run.log"), 0);
	assert_int_equal(ig, 1);
	assert_int_equal(history_is_ignored(&ig, h, "pkg/local.txt"), 0);
	assert_int_equal(ig, 1);
	assert_int_equal(history_is_ignored(&ig, h, "keep.py"), 0);
	assert_int_equal(ig, 0);
	assert_int_equal(history_is_ignored(&ig, h, ".ferry/engagement.db"), 0);
	assert_int_equal(ig, 1);

	tu_write(root, "other.log", "more\n");
	tu_write(root, ".ferry/engagement.db", "db\n");
	char **changed = NULL;
	size_t n = 0;
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);
	done(h, root, gd);
}

static void test_changed_and_commit(void **state)
{
	(void)state;
	char *root, *gd, base[41], c1[41], c2[41], head[41];
	history *h = fresh(&root, &gd, base);
	char **changed = NULL;
	size_t n = 0;
	int made = -1;

	/* same size, same second as the baseline: must still be seen */
	tu_write(root, "README.md", "HELLO\n");
	tu_write(root, "new/added.py", "x = 1\n");
	remove_rel(root, "lib/util.py");
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 3);
	assert_string_equal(changed[0], "README.md");
	assert_string_equal(changed[1], "lib/util.py");
	assert_string_equal(changed[2], "new/added.py");
	free_list(changed, n);

	/* exactly the given paths, a deletion among them */
	const char *paths[] = { "lib/util.py" };
	history_trailer tr[] = { { "Phase", "adapt" }, { "Check", "adapt.cuda_to_npu" }, { "Findings", "3,4" } };
	assert_int_equal(history_commit(c1, &made, h, paths, 1, "Delete util\n", tr, 3, &SIG), 0);
	assert_int_equal(made, 1);
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 2);
	assert_false(contains(changed, n, "lib/util.py"));
	free_list(changed, n);
	char **touched = NULL;
	assert_int_equal(history_commit_paths(&touched, &n, h, c1), 0);
	assert_int_equal(n, 1);
	assert_string_equal(touched[0], "lib/util.py");
	free_list(touched, n);

	history_commit_info info;
	assert_int_equal(history_commit_info_get(&info, h, c1), 0);
	assert_string_equal(info.message, "Delete util\n\nPhase: adapt\nCheck: adapt.cuda_to_npu\nFindings: 3,4\n");
	assert_int_equal(info.nparents, 1);
	assert_string_equal(info.parents[0], base);
	assert_true(info.time > 0);
	char *v = history_trailer_value(info.message, "Check");
	assert_string_equal(v, "adapt.cuda_to_npu");
	free(v);
	v = history_trailer_value(info.message, "findings");
	assert_string_equal(v, "3,4");
	free(v);
	assert_null(history_trailer_value(info.message, "Audit"));
	history_commit_info_done(&info);
	assert_null(history_trailer_value("Subject only: not a trailer\n", "Subject only"));

	/* everything else */
	commit_all(h, c2, "The rest");
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);

	/* nothing to commit: no empty commit */
	assert_int_equal(history_commit(head, &made, h, NULL, 0, "Nothing", NULL, 0, &SIG), 0);
	assert_int_equal(made, 0);
	assert_string_equal(head, c2);
	assert_int_equal(history_head(head, h), 0);
	assert_string_equal(head, c2);
	assert_int_equal(history_has_commit(h, c1), 1);
	assert_int_equal(history_has_commit(h, "0123456789012345678901234567890123456789"), 0);
	assert_int_equal(history_has_commit(h, "zz"), 0);

	/* an executable bit flip alone is a change */
	sh("chmod +x '%s/train.py'", root);
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 1);
	free_list(changed, n);
	commit_all(h, c2, "Make train.py executable");
	char *mode = cap("git --git-dir='%s' ls-tree HEAD train.py", gd);
	assert_true(util_starts_with(mode, "100755"));
	free(mode);
	done(h, root, gd);
}

static void test_resolve(void **state)
{
	(void)state;
	char *root, *gd, base[41], c1[41], out[41];
	history *h = fresh(&root, &gd, base);
	tu_write(root, "train.py", "import torch\nmodel.npu()\n");
	commit_all(h, c1, "Edit");

	assert_int_equal(history_resolve(out, h, "baseline"), 0);
	assert_string_equal(out, base);
	assert_int_equal(history_resolve(out, h, "HEAD"), 0);
	assert_string_equal(out, c1);
	char prefix[9];
	memcpy(prefix, c1, 8);
	prefix[8] = '\0';
	assert_int_equal(history_resolve(out, h, prefix), 0);
	assert_string_equal(out, c1);
	assert_int_equal(history_resolve(out, h, c1), 0);
	assert_string_equal(out, c1);
	assert_int_equal(history_resolve(out, h, "zzzz"), FERRY_ENOTFOUND);
	assert_int_equal(history_resolve(out, h, "abc"), FERRY_ENOTFOUND);
	assert_int_equal(history_resolve(out, h, "0000000000000000000000000000000000000001"), FERRY_ENOTFOUND);
	assert_non_null(strstr(err_message(), "no such checkpoint or commit"));
	/* a tree id is not a commit */
	char *tree = cap("git --git-dir='%s' rev-parse HEAD^{tree}", gd);
	assert_int_equal(history_resolve(out, h, tree), FERRY_ENOTFOUND);
	free(tree);

	/* Many commits on the branch make two share a 4-digit prefix. */
	sh("cd '%s' && i=0; { while [ $i -lt 1500 ]; do "
	   "printf 'commit refs/heads/ferry\\ncommitter t <t@t> %%d +0000\\ndata <<EOM\\nmsg %%d\\nEOM\\n%%s\\n' "
	   "$i $i \"$([ $i = 0 ] && echo 'from %s')\"; i=$((i+1)); done; } "
	   "| git --git-dir='%s' fast-import --quiet",
	   root, c1, gd);
	char *pair = cap("git --git-dir='%s' rev-list refs/heads/ferry | cut -c1-4 | sort | uniq -d | head -1", gd);
	if (strlen(pair) != 4) { /* say what the branch held, for a failure that is hard to reproduce */
		char *count = cap("git --git-dir='%s' rev-list --count refs/heads/ferry; git --git-dir='%s' symbolic-ref HEAD", gd, gd);
		fprintf(stderr, "no shared 4-digit prefix; commits and HEAD: %s\n", count);
		free(count);
	}
	assert_int_equal(strlen(pair), 4);
	assert_int_equal(history_resolve(out, h, pair), FERRY_EUSAGE);
	assert_non_null(strstr(err_message(), "ambiguous"));
	free(pair);
	/* the baseline is still found at the end of the first-parent chain */
	assert_int_equal(history_resolve(out, h, "baseline"), 0);
	assert_string_equal(out, base);
	/* a prefix unique among commits but shared with another object type */
	char *unique = cap("git --git-dir='%s' rev-list HEAD | cut -c1-4 | sort | uniq -u | head -1", gd);
	assert_int_equal(history_resolve(out, h, unique), 0);
	assert_true(util_starts_with(out, unique));
	free(unique);
	assert_int_equal(history_check(h), 0);
	done(h, root, gd);
}

/* Another writer (a second ferry, a repack) adds a pack after this history was opened,
 * holding a commit that shares a 4-digit prefix with a loose one: the prefix is
 * ambiguous, not the loose commit. */
static void test_resolve_pack_added_later(void **state)
{
	(void)state;
	char *root, *gd, base[41], c1[41], out[41];
	history *h = fresh(&root, &gd, base);
	tu_write(root, "train.py", "import torch\nmodel.npu()\n");
	commit_all(h, c1, "Edit");
	char *tree = cap("git --git-dir='%s' rev-parse %s^{tree}", gd, c1);
	char body[512], hex[41];
	int len = 0;
	git_oid id;
	for (unsigned n = 0;; n++) {
		len = snprintf(body, sizeof body,
		               "tree %s\nparent %s\nauthor t <t@t> %u +0000\ncommitter t <t@t> %u +0000\n\ncollide\n",
		               tree, c1, n, n);
		assert_int_equal(git_odb_hash(&id, body, (size_t)len, GIT_OBJECT_COMMIT), 0);
		git_oid_tostr(hex, sizeof hex, &id);
		if (strncmp(hex, c1, 4) == 0 && strcmp(hex, c1) != 0)
			break;
	}
	write_bytes(root, "collide.txt", body, (size_t)len);
	sh("cd '%s' && git --git-dir='%s' hash-object -t commit -w collide.txt >/dev/null && rm collide.txt && "
	   "echo %s | git --git-dir='%s' pack-objects -q '%s/objects/pack/pack' >/dev/null && "
	   "git --git-dir='%s' prune-packed && git --git-dir='%s' update-ref HEAD %s",
	   root, gd, hex, gd, gd, gd, gd, hex);
	char prefix[5];
	memcpy(prefix, c1, 4);
	prefix[4] = '\0';
	assert_int_equal(history_resolve(out, h, prefix), FERRY_EUSAGE);
	assert_non_null(strstr(err_message(), "ambiguous"));
	/* one more digit tells them apart, in the new pack or loose */
	char longer[41];
	for (size_t k = 5; k <= 40; k++) {
		if (strncmp(hex, c1, k) == 0)
			continue;
		memcpy(longer, hex, k);
		longer[k] = '\0';
		assert_int_equal(history_resolve(out, h, longer), 0);
		assert_string_equal(out, hex);
		memcpy(longer, c1, k);
		assert_int_equal(history_resolve(out, h, longer), 0);
		assert_string_equal(out, c1);
		break;
	}
	free(tree);
	done(h, root, gd);
}

static void test_diff(void **state)
{
	(void)state;
	char *root, *gd, base[41], c1[41], c2[41];
	history *h = fresh(&root, &gd, base);
	tu_write(root, "train.py", "import torch\nmodel.npu()\n");
	commit_all(h, c1, "Edit train");
	tu_write(root, "extra.py", "e = 1\n");
	commit_all(h, c2, "Add extra");

	char *d = NULL;
	assert_int_equal(history_diff(&d, h, c1, NULL), 0);
	assert_non_null(strstr(d, "diff --git a/train.py b/train.py"));
	assert_non_null(strstr(d, "-model.cuda()\n+model.npu()\n"));
	assert_null(strstr(d, "extra.py"));
	free(d);
	assert_int_equal(history_diff(&d, h, "baseline", "HEAD"), 0);
	assert_non_null(strstr(d, "+model.npu()"));
	assert_non_null(strstr(d, "+++ b/extra.py"));
	free(d);
	/* the baseline against nothing: every file added */
	assert_int_equal(history_diff(&d, h, base, NULL), 0);
	assert_non_null(strstr(d, "new file mode 100644"));
	free(d);
	assert_int_equal(history_diff(&d, h, "ffff", NULL), FERRY_ENOTFOUND);
	assert_null(d);

	/* two versions of one file, no repository involved */
	static const char before[] = "a\r\nb\r\nc\r\n", after[] = "a\r\nB\r\nc\r\n";
	assert_int_equal(history_diff_buffers(&d, "src/x.py", before, sizeof before - 1, after, sizeof after - 1, 0), 0);
	assert_true(util_starts_with(d, "diff --git a/src/x.py b/src/x.py\n"));
	assert_non_null(strstr(d, " 100644\n--- a/src/x.py\n+++ b/src/x.py\n"));
	assert_non_null(strstr(d, "-b\r\n+B\r\n"));
	free(d);
	/* an executable file's mode, as its checkpoint records it */
	assert_int_equal(history_diff_buffers(&d, "bin/run.py", before, sizeof before - 1, after, sizeof after - 1, 1), 0);
	assert_non_null(strstr(d, " 100755\n--- a/bin/run.py\n+++ b/bin/run.py\n"));
	assert_null(strstr(d, "100644"));
	free(d);
	assert_int_equal(history_diff_buffers(&d, "x.py", before, sizeof before - 1, before, sizeof before - 1, 0), 0);
	assert_string_equal(d, "");
	free(d);
	assert_int_equal(history_diff_buffers(&d, "new.py", "", 0, "n\n", 2, 0), 0);
	assert_non_null(strstr(d, "+n\n"));
	free(d);
	/* a file that does not exist yet is shown as a new file, not an edit of an empty one */
	assert_int_equal(history_diff_buffers(&d, "gen/setup_env.sh", NULL, 0, "n\n", 2, 1), 0);
	assert_non_null(strstr(d, "new file mode 100755"));
	assert_non_null(strstr(d, "--- /dev/null\n+++ b/gen/setup_env.sh\n"));
	free(d);
	assert_int_equal(history_diff_buffers(&d, "gen/plan.md", NULL, 0, "n\n", 2, 0), 0);
	assert_non_null(strstr(d, "new file mode 100644"));
	free(d);
	done(h, root, gd);
}

static void test_revert(void **state)
{
	(void)state;
	char *root = tu_mkdtemp(), *gd = gitdir_of(root), base[41], c1[41], c2[41], r[41], head[41];
	history *h = NULL;
	static const char crlf[] = "line one\r\nline two\r\n";
	static const char bin[] = "\x00\x01\x02\xff\r\n\x00";
	/* the client's attributes would normalise line endings: not in our history */
	tu_write(root, ".gitattributes", "* text=auto\n*.txt text eol=lf\n");
	write_bytes(root, "crlf.txt", crlf, sizeof crlf - 1);
	write_bytes(root, "data.bin", bin, sizeof bin - 1);
	tu_write(root, "gone/deleted.py", "d = 1\n");
	tu_write(root, "tool.sh", "#!/bin/sh\n");
	tu_write(root, "other.py", "o = 1\n");
	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	char *blob = NULL;
	size_t blen = 0;
	assert_int_equal(history_read_at(&blob, &blen, h, base, "crlf.txt"), 0);
	assert_int_equal(blen, sizeof crlf - 1);
	assert_memory_equal(blob, crlf, blen);
	free(blob);

	/* checkpoint 1 changes all of them */
	write_bytes(root, "crlf.txt", "line one\r\nline 2\r\n", 18);
	write_bytes(root, "data.bin", "\x00\x00", 2);
	remove_rel(root, "gone/deleted.py");
	char *gone = util_path_join(root, "gone");
	assert_int_equal(rmdir(gone), 0);
	free(gone);
	tu_write(root, "added/new.py", "n = 1\n");
	sh("chmod +x '%s/tool.sh'", root);
	commit_all(h, c1, "Checkpoint one");
	/* checkpoint 2 is unrelated */
	tu_write(root, "other.py", "o = 2\n");
	commit_all(h, c2, "Checkpoint two");

	history_trailer tr = { "Phase", "adapt" };
	assert_int_equal(history_revert(r, h, c1, "Revert checkpoint one", &tr, 1, &SIG, NULL), 0);
	assert_file_bytes(root, "crlf.txt", crlf, sizeof crlf - 1);
	assert_file_bytes(root, "data.bin", bin, sizeof bin - 1);
	assert_file_bytes(root, "gone/deleted.py", "d = 1\n", 6);
	assert_false(exists(root, "added/new.py"));
	assert_false(exists(root, "added"));
	assert_file_bytes(root, "other.py", "o = 2\n", 6);
	struct stat st;
	char *tool = util_path_join(root, "tool.sh");
	assert_int_equal(stat(tool, &st), 0);
	assert_int_equal(st.st_mode & 0111, 0);
	free(tool);
	char **changed = NULL;
	size_t n = 0;
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);
	history_commit_info info;
	assert_int_equal(history_commit_info_get(&info, h, r), 0);
	assert_string_equal(info.parents[0], c2);
	assert_string_equal(info.message, "Revert checkpoint one\n\nPhase: adapt\n");
	history_commit_info_done(&info);
	/* the tree is the baseline's but for checkpoint two */
	char *d = NULL;
	assert_int_equal(history_diff(&d, h, base, r), 0);
	assert_string_equal(strstr(d, "diff --git") ? "other" : "", "other");
	assert_null(strstr(d, "crlf.txt"));
	free(d);

	/* reverting again: nothing left to undo */
	assert_int_equal(history_revert(head, h, c1, "again", NULL, 0, &SIG, NULL), FERRY_EREFUSED);
	/* the baseline cannot be reverted: a request that is never valid, not a refusal */
	assert_int_equal(history_revert(head, h, base, "all", NULL, 0, &SIG, NULL), FERRY_EUSAGE);

	/* a later change on the same lines conflicts */
	tu_write(root, "other.py", "o = 3\n");
	commit_all(h, head, "Checkpoint three");
	assert_int_equal(history_revert(r, h, c2, "undo two", NULL, 0, &SIG, NULL), FERRY_EREFUSED);
	assert_non_null(strstr(err_message(), "conflict"));
	/* the refusal names the later checkpoint and the file in conflict */
	char named[64];
	snprintf(named, sizeof named, "%.12s changed other.py", head);
	if (!strstr(err_message(), named))
		fail_msg("refusal does not name %s: %s", named, err_message());
	assert_file_bytes(root, "other.py", "o = 3\n", 6);

	/* an edit not yet in the history is never overwritten */
	char c4[41];
	tu_write(root, "README", "r\n");
	commit_all(h, c4, "Add readme");
	tu_write(root, "README", "edited outside\n");
	assert_int_equal(history_revert(r, h, c4, "undo readme", NULL, 0, &SIG, NULL), FERRY_EREFUSED);
	assert_file_bytes(root, "README", "edited outside\n", 15);
	assert_int_equal(history_head(r, h), 0);
	assert_string_equal(r, c4);
	assert_int_equal(history_check(h), 0);
	done(h, root, gd);
}

static void test_export_patches(void **state)
{
	(void)state;
	char *root = client_repo(), *gd = gitdir_of(root), base[41], c[41];
	char *out = tu_mkdtemp(), *clone = tu_mkdtemp();
	history *h = NULL;
	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	tu_write(root, "train.py", "import torch\nimport torch_npu\nx = torch.zeros(3).npu()\nprint(x)\n");
	history_trailer tr[] = { { "Phase", "adapt" }, { "Check", "adapt.device" } };
	int made;
	assert_int_equal(history_commit(c, &made, h, NULL, 0, "Move tensors to the NPU", tr, 2, &SIG), 0);
	tu_write(root, "lib/new_mod.py", "def g():\n    return 2\n");
	remove_rel(root, "old.txt");
	sh("chmod +x '%s/lib/util.py'", root);
	static const char bin[] = "\x00\x01\x02\x03\xfe\xff\x00";
	write_bytes(root, "weights.bin", bin, sizeof bin - 1);
	commit_all(h, c, "Add helper, drop old.txt: cleanup!");

	assert_int_equal(history_export_patches(h, out, NULL), 0);
	char *names = cap("ls '%s'", out);
	assert_string_equal(names, "0001-Move-tensors-to-the-NPU.patch\n0002-Add-helper-drop-old.txt-cleanup.patch");
	free(names);
	char *first = cap("cat '%s/0001-Move-tensors-to-the-NPU.patch'", out);
	assert_non_null(strstr(first, "Subject: [PATCH 1/2] Move tensors to the NPU"));
	assert_non_null(strstr(first, "From: Test Actor <actor@example.com>"));
	free(first);

	sh("rm -rf '%s' && git clone -q '%s' '%s' && cd '%s' && "
	   "git -c user.name=t -c user.email=t@t am -q '%s'/*.patch",
	   clone, root, clone, clone, out);
	sh("diff -r -x .git -x .ferry '%s' '%s'", root, clone);
	char *log = cap("git -C '%s' log --format=%%s -3", clone);
	assert_string_equal(log, "Add helper, drop old.txt: cleanup!\nMove tensors to the NPU\ninitial");
	free(log);
	char *trailer = cap("git -C '%s' log -1 --skip=1 --format=%%b", clone);
	assert_non_null(strstr(trailer, "Check: adapt.device"));
	free(trailer);
	char *mode = cap("git -C '%s' ls-tree HEAD lib/util.py", clone);
	assert_true(util_starts_with(mode, "100755"));
	free(mode);
	history_free(h);
	tu_rmdir(out);
	tu_rmdir(clone);
	tu_rmdir(root);
	free(out);
	free(clone);
	free(root);
	free(gd);
}

static void test_export_branch(void **state)
{
	(void)state;
	char *root = client_repo(), *gd = gitdir_of(root), base[41], c[41];
	history *h = NULL;
	/* uncommitted client work at the time ferry starts, and an ignored file */
	tu_write(root, "lib/util.py", "def f():\n    return 10\n");
	tu_write(root, "debug.log", "x\n");
	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	tu_write(root, "train.py", "import torch\nimport torch_npu\nx = torch.zeros(3).npu()\nprint(x)\n");
	commit_all(h, c, "Move tensors to the NPU");
	remove_rel(root, "old.txt");
	static const char bin[] = "\x00\x01\x02\x03\xfe\xff";
	write_bytes(root, "weights.bin", bin, sizeof bin - 1);
	commit_all(h, c, "Binary and delete");

	const char *state_cmd = "cd '%s' && sha256sum .git/index .git/HEAD && git rev-parse HEAD && "
	                        "git symbolic-ref HEAD && git status --porcelain --untracked-files=all";
	char *before = cap(state_cmd, root);
	char *files_before = cap("cd '%s' && find . -path ./.git -prune -o -type f -print | sort | "
	                         "xargs sha256sum", root);
	/* the client's HEAD lacks the uncommitted work: no commit holds the project as
	 * received, so the base must be named */
	assert_int_equal(history_export_branch(h, "ferry/npu", root, NULL), FERRY_EREFUSED);
	assert_int_equal(history_export_branch(h, "ferry/npu", root, "no-such-rev"), FERRY_EUSAGE);
	assert_int_equal(history_export_branch(h, "ferry/npu", root, "main"), 0);
	char *after = cap(state_cmd, root);
	char *files_after = cap("cd '%s' && find . -path ./.git -prune -o -type f -print | sort | "
	                        "xargs sha256sum", root);
	assert_string_equal(before, after);
	assert_string_equal(files_before, files_after);
	assert_non_null(strstr(after, "refs/heads/main"));
	free(before);
	free(after);
	free(files_before);
	free(files_after);

	char *log = cap("git -C '%s' log --format=%%s ferry/npu", root);
	assert_string_equal(log, "Binary and delete\nMove tensors to the NPU\nBaseline: project as received\ninitial");
	free(log);
	sh("cd '%s' && git show ferry/npu:lib/util.py | cmp - lib/util.py", root);
	sh("cd '%s' && git show ferry/npu:train.py | cmp - train.py", root);
	sh("cd '%s' && git show ferry/npu:weights.bin | cmp - weights.bin", root);
	sh("cd '%s' && ! git cat-file -e ferry/npu:old.txt 2>/dev/null", root);
	sh("cd '%s' && git cat-file -e ferry/npu:.gitignore", root);
	sh("cd '%s' && git fsck --no-progress --no-dangling", root);
	char *author = cap("git -C '%s' log -1 --format='%%an <%%ae>' ferry/npu", root);
	assert_string_equal(author, "Test Actor <actor@example.com>");
	free(author);
	char *branches = cap("git -C '%s' branch --list --format='%%(refname)'", root);
	assert_string_equal(branches, "refs/heads/ferry/npu\nrefs/heads/main");
	free(branches);

	assert_int_equal(history_export_branch(h, "ferry/npu", root, "main"), FERRY_EEXISTS);
	assert_int_equal(history_export_branch(h, "bad..name", root, NULL), FERRY_EUSAGE);
	char *plain = tu_mkdtemp();
	assert_int_equal(history_export_branch(h, "x", plain, NULL), FERRY_EGIT);
	tu_rmdir(plain);
	free(plain);
	history_free(h);
	tu_rmdir(root);
	free(root);
	free(gd);
}

static void test_damaged(void **state)
{
	(void)state;
	char *root, *gd, base[41];
	history *h = fresh(&root, &gd, base), *h2 = NULL;
	history_free(h);

	sh("cp '%s/HEAD' '%s/HEAD.good' && echo garbage > '%s/HEAD'", gd, gd, gd);
	assert_int_equal(history_open(&h2, root, gd), FERRY_EGIT);
	assert_null(h2);
	assert_non_null(strstr(err_message(), gd));
	assert_null(strchr(err_message(), '\n'));
	sh("mv '%s/HEAD.good' '%s/HEAD'", gd, gd);
	assert_int_equal(history_open(&h2, root, gd), 0);
	assert_int_equal(history_check(h2), 0);

	/* a missing blob is found by the check (a checkpoint's: the baseline is one pack) */
	char edit[41];
	tu_write(root, "README.md", "edited\n");
	commit_all(h2, edit, "Edit");
	char *blob = cap("git --git-dir='%s' rev-parse HEAD:README.md", gd);
	sh("rm -f '%s/objects/%.2s/%s'", gd, blob, blob + 2);
	assert_int_equal(history_check(h2), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), blob));
	free(blob);
	history_free(h2);
	h2 = NULL;

	sh("rm -rf '%s/objects'", gd);
	assert_int_equal(history_open(&h2, root, gd), FERRY_EGIT);
	assert_non_null(strstr(err_message(), gd));
	char *missing = util_path_join(root, "nowhere.git");
	assert_int_equal(history_open(&h2, root, missing), FERRY_ENOTFOUND);
	free(missing);
	done(NULL, root, gd);
}

static void test_identity_and_own_dir(void **state)
{
	(void)state;
	char *name = NULL, *email = NULL, base[41];
	assert_int_equal(history_user_identity(&name, &email), 0);
	assert_string_equal(name, "Global User");
	assert_string_equal(email, "global@example.com");
	free(name);
	free(email);

	/* a history kept in the project but outside .ferry/ is not part of itself */
	char *root = tu_mkdtemp(), *gd = util_path_join(root, "hist.git");
	history *h = NULL;
	tu_write(root, "a.py", "a = 1\n");
	assert_int_equal(history_init(&h, base, root, gd, NULL), 0);
	char *tree = cap("git --git-dir='%s' ls-tree -r --name-only HEAD", gd);
	assert_string_equal(tree, "a.py");
	free(tree);
	char *author = cap("git --git-dir='%s' log -1 --format=%%an HEAD", gd);
	assert_string_equal(author, "ferry");
	free(author);
	char **changed = NULL;
	size_t n = 0;
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);
	done(h, root, gd);
}

static void test_nested_repo(void **state)
{
	(void)state;
	char *root = tu_mkdtemp(), *gd = gitdir_of(root), base[41], c[41];
	history *h = NULL;
	char **changed = NULL;
	size_t n = 0;
	int made = 0;
	/* a vendored checkout with its own .git and ignore rules */
	tu_write(root, "main.py", "m = 1\n");
	tu_write(root, "third_party/apex/setup.py", "s = 1\n");
	tu_write(root, "third_party/apex/csrc/k.cu", "k\n");
	tu_write(root, "third_party/apex/.gitignore", "*.o\n");
	tu_write(root, "third_party/apex/build.o", "o\n");
	sh("cd '%s/third_party/apex' && git -c init.defaultBranch=main init -q && git add -A && "
	   "git commit -q -m v", root);
	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	char *tree = cap("git --git-dir='%s' ls-tree -r --name-only HEAD", gd);
	assert_string_equal(tree, "main.py\nthird_party/apex/.gitignore\nthird_party/apex/csrc/k.cu\n"
	                          "third_party/apex/setup.py");
	free(tree);

	tu_write(root, "third_party/apex/setup.py", "s = 2\n");
	tu_write(root, "third_party/apex/csrc/new.cu", "n\n");
	tu_write(root, "vendor/other/x.py", "x\n");
	sh("cd '%s/vendor/other' && git -c init.defaultBranch=main init -q", root);
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 3);
	assert_string_equal(changed[0], "third_party/apex/csrc/new.cu");
	assert_string_equal(changed[1], "third_party/apex/setup.py");
	assert_string_equal(changed[2], "vendor/other/x.py");
	free_list(changed, n);
	/* one path inside a repository no scan enters yet */
	const char *one[] = { "vendor/other/x.py" };
	assert_int_equal(history_commit(c, &made, h, one, 1, "Vendored", NULL, 0, &SIG), 0);
	assert_int_equal(made, 1);
	commit_all(h, c, "The rest");
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);
	/* the nested repositories' own state is theirs */
	sh("cd '%s/third_party/apex' && test \"$(git status --porcelain)\" = \"$(printf ' M setup.py\\n?? csrc/new.cu')\"",
	   root);
	done(h, root, gd);
}

/* The baseline's exact content on a project with every kind of path init meets: the
 * list (mode and name) is what staging with libgit2's add_all recorded before init
 * wrote its own pack, and git must read the result back as the work tree's bytes. */
static void test_init_baseline_paths(void **state)
{
	(void)state;
	char *root = tu_mkdtemp(), *gd = gitdir_of(root), base[41];
	history *h = NULL;
	char **changed = NULL;
	size_t n = 0;
	static const char *const files[][2] = {
		{ "train.py", "import torch\r\nmodel.cuda()\r\n" }, { "lib/util.py", "def f():\n    return 1\n" },
		{ ".gitignore", "*.log\n!keep.log\nbuild/\n" }, { ".gitattributes", "*.py text eol=crlf\n" },
		{ "debug.log", "ignored\n" }, { "keep.log", "kept\n" }, { "build/x.o", "ignored\n" },
		{ "a b/c d.py", "spaces\n" }, { "caf\xe9.py", "latin-1 name\n" }, { "empty.txt", "" },
		{ "dup1.txt", "same\n" }, { "dup2.txt", "same\n" }, { "run.sh", "#!/bin/sh\necho hi\n" },
		{ "vendor/lib/setup.py", "s = 1\n" }, { "vendor/lib/src/mod.py", "m = 1\n" },
		{ "vendor/lib/.gitignore", "*.tmp\n" }, { "vendor/lib/scratch.tmp", "ignored\n" },
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		tu_write(root, files[i][0], files[i][1]);
	sh("cd '%s' && chmod 755 run.sh && ln -s train.py link.py && ln -s nowhere dangling && ln -s lib dirlink && "
	   "ln -s setup.py vendor/lib/ln && mkdir -p empty/inner && mkfifo pipe && truncate -s 40M big.bin && "
	   "printf 'tail' >>big.bin && git -c init.defaultBranch=main init -q && "
	   "cd vendor/lib && git -c init.defaultBranch=main init -q && git add -A && git commit -q -m v",
	   root);
	assert_int_equal(history_init(&h, base, root, gd, &SIG), 0);
	char *tree = cap("git -c core.quotePath=false --git-dir='%s' ls-tree -r --format='%%(path) %%(objectmode)' HEAD | "
	                 "LC_ALL=C sort",
	                 gd);
	assert_string_equal(tree, ".gitattributes 100644\n.gitignore 100644\na b/c d.py 100644\nbig.bin 100644\n"
	                          "caf\xe9.py 100644\ndangling 120000\ndirlink 120000\ndup1.txt 100644\n"
	                          "dup2.txt 100644\nempty.txt 100644\nkeep.log 100644\nlib/util.py 100644\n"
	                          "link.py 120000\nrun.sh 100755\ntrain.py 100644\nvendor/lib/.gitignore 100644\n"
	                          "vendor/lib/ln 120000\nvendor/lib/setup.py 100644\nvendor/lib/src/mod.py 100644");
	free(tree);
	/* every blob is the work tree's exact bytes (a symlink: its target), and git
	 * finds the repository whole */
	sh("cd '%s' && git --git-dir='%s' ls-tree -r -z HEAD | tr '\\0' '\\n' | while IFS=\"$(printf '\\t')\" read -r meta path; do "
	   "id=${meta##* }; mode=${meta%%%% *}; "
	   "if [ \"$mode\" = 120000 ]; then want=$(printf '%%s' \"$(readlink \"$path\")\" | git hash-object --stdin); "
	   "else want=$(git hash-object --no-filters \"$path\"); fi; "
	   "[ \"$id\" = \"$want\" ] || { echo \"$path: $id, want $want\"; exit 1; }; done",
	   root, gd);
	sh("git --git-dir='%s' fsck --strict --no-dangling 2>&1", gd);
	/* the index holds the files' stat data: nothing differs right after init */
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);
	history_free(h);
	h = NULL;
	assert_int_equal(history_open(&h, root, gd), 0);
	assert_int_equal(history_changed_files(&changed, &n, h), 0);
	assert_int_equal(n, 0);
	free_list(changed, n);
	done(h, root, gd);
}

/* A home whose git settings would rewrite line endings and hide every .py and .txt
 * file: the history must ignore them (only the project's own rules apply). */
static char *hostile_home(void)
{
	char *home = tu_mkdtemp();
	char *gitconfig = xasprintf("[core]\n\tautocrlf = true\n\texcludesFile = %s/ignore-all\n"
	                            "\tattributesFile = %s/attrs\n[user]\n\tname = Global User\n"
	                            "\temail = global@example.com\n", home, home);
	tu_write(home, ".gitconfig", gitconfig);
	tu_write(home, "ignore-all", "*.py\n*.txt\n*.bin\n");
	tu_write(home, "attrs", "* text eol=crlf\n");
	free(gitconfig);
	setenv("HOME", home, 1);
	setenv("XDG_CONFIG_HOME", home, 1);
	return home;
}

int main(void)
{
	char *home = hostile_home();
	/* the git command used to check our work must not read this machine's settings */
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);
	setenv("GIT_AUTHOR_NAME", "Client", 1);
	setenv("GIT_AUTHOR_EMAIL", "client@example.com", 1);
	setenv("GIT_COMMITTER_NAME", "Client", 1);
	setenv("GIT_COMMITTER_EMAIL", "client@example.com", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_plain),
		cmocka_unit_test(test_init_git_repo_untouched),
		cmocka_unit_test(test_gitignore),
		cmocka_unit_test(test_changed_and_commit),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_resolve_pack_added_later),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_revert),
		cmocka_unit_test(test_export_patches),
		cmocka_unit_test(test_export_branch),
		cmocka_unit_test(test_damaged),
		cmocka_unit_test(test_identity_and_own_dir),
		cmocka_unit_test(test_nested_repo),
		cmocka_unit_test(test_init_baseline_paths),
	};
	int failed = cmocka_run_group_tests(tests, NULL, NULL);
	tu_rmdir(home);
	free(home);
	return failed;
}
