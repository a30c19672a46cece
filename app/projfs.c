/* projfs — see projfs.h. */
#include "intl.h"
#include "projfs.h"
#include "err.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define TMP_MARK ".ferry-tmp."

/* Folders of version-control systems and of ferry: never written into. */
static int reserved_dir(const char *name, size_t n)
{
	static const char *const names[] = { ".git", ".hg", ".svn", ".bzr", "_darcs", "CVS", ".ferry", NULL };
	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == n && strncasecmp(names[i], name, n) == 0)
			return 1;
	return 0;
}

int projfs_check_path(const char *rel)
{
	if (!rel || !*rel || rel[0] == '/')
		return err_set(FERRY_EREFUSED, _("%s: not a relative path inside the project"), rel ? rel : "(none)");
	for (const char *c = rel;;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return err_set(FERRY_EREFUSED, _("%s: not a plain path inside the project (empty, \".\" or \"..\" part)"),
			               rel);
		if (reserved_dir(c, n))
			return err_set(FERRY_EREFUSED, _("%s: inside %.*s/, which ferry never writes into"), rel, (int)n, c);
		if (!c[n])
			return 0;
		c += n + 1;
	}
}

/* Opens the directory holding rel, one component at a time without following links;
 * with create, missing directories are made. *base receives the last component
 * (caller frees). FERRY_ENOTFOUND (no error record) when a directory is missing and
 * create is 0. */
static int open_parent(int *out, char **base, const char *root, const char *rel, int create)
{
	*out = -1;
	*base = NULL;
	int rc = projfs_check_path(rel);
	if (rc)
		return rc;
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", root, strerror(errno));
	const char *comp = rel;
	for (const char *slash; (slash = strchr(comp, '/')); comp = slash + 1) {
		char *name = xstrndup(comp, (size_t)(slash - comp));
		int next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && create) {
			if (mkdirat(fd, name, 0755) < 0 && errno != EEXIST) {
				rc = err_set(FERRY_EIO, "%.*s: %s", (int)(slash - rel), rel, strerror(errno));
				goto fail;
			}
			next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (next < 0) {
			struct stat st;
			int e = errno, link = fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
			if (e == ENOENT && !create)
				rc = FERRY_ENOTFOUND;
			else if (link || e == ELOOP)
				rc = err_set(FERRY_EREFUSED, _("%s: %.*s is a symbolic link; ferry writes only through the project's own folders"),
				             rel, (int)(slash - rel), rel);
			else if (e == ENOTDIR)
				rc = err_set(FERRY_EREFUSED, _("%s: %.*s is not a folder"), rel, (int)(slash - rel), rel);
			else
				rc = err_set(FERRY_EIO, "%.*s: %s", (int)(slash - rel), rel, strerror(e));
			goto fail;
		}
		free(name);
		close(fd);
		fd = next;
		continue;
	fail:
		free(name);
		close(fd);
		return rc;
	}
	*base = xstrdup(comp);
	*out = fd;
	return 0;
}

/* The rules for an existing entry: a regular file with one link. *exists is 0 when
 * there is none. */
static int check_target(struct stat *st, int *exists, int dfd, const char *base, const char *rel)
{
	*exists = 0;
	if (fstatat(dfd, base, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return err_set(FERRY_EIO, "%s: %s", rel, strerror(errno));
	}
	*exists = 1;
	if (S_ISLNK(st->st_mode))
		return err_set(FERRY_EREFUSED, _("%s: a symbolic link; ferry edits only regular files of the project"), rel);
	if (S_ISDIR(st->st_mode))
		return err_set(FERRY_EREFUSED, _("%s: a folder, not a file"), rel);
	if (!S_ISREG(st->st_mode))
		return err_set(FERRY_EREFUSED, _("%s: not a regular file (a FIFO, socket or device); ferry never writes to it"),
		               rel);
	if (st->st_nlink > 1)
		return err_set(FERRY_EREFUSED,
		               _("%s: has %lu hard links (it may be shared with a file outside the project); ferry edits only "
		               "files with one link"),
		               rel, (unsigned long)st->st_nlink);
	return 0;
}

static void stamp_of(projfs_stamp *out, const struct stat *st, const void *data, size_t len)
{
	out->exists = 1;
	out->size = (long long)st->st_size;
	out->mtime_ns = (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
	out->ino = (unsigned long long)st->st_ino;
	out->mode = (unsigned)st->st_mode & 07777;
	util_sha256_hex(out->sha256, data, len);
}

/* Reads the existing entry base (already checked) without following a link swapped
 * in meanwhile, re-checking the rules on the open descriptor. */
static int read_checked(char **out, size_t *len, projfs_stamp *stamp, int dfd, const char *base, const char *rel)
{
	struct stat st;
	int exists = 0;
	int fd = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return err_set(errno == ELOOP ? FERRY_EREFUSED : FERRY_EIO, "%s: %s", rel,
		               errno == ELOOP ? _("a symbolic link; ferry edits only regular files of the project")
		                              : strerror(errno));
	int rc = fstat(fd, &st) < 0 ? err_set(FERRY_EIO, "%s: %s", rel, strerror(errno)) : 0;
	if (!rc && (!S_ISREG(st.st_mode) || st.st_nlink > 1)) {
		/* swapped since the check: report it by the same rules */
		rc = check_target(&st, &exists, dfd, base, rel);
		if (!rc)
			rc = err_set(FERRY_EREFUSED, _("%s: changed while ferry opened it"), rel);
	}
	if (!rc)
		rc = util_read_fd(out, len, fd, rel);
	if (!rc && stamp)
		stamp_of(stamp, &st, *out, *len);
	close(fd);
	return rc;
}

int projfs_read(char **out, size_t *len, projfs_stamp *stamp, const char *root, const char *rel)
{
	*out = NULL;
	*len = 0;
	if (stamp)
		memset(stamp, 0, sizeof *stamp);
	int dfd = -1, exists = 0;
	char *base = NULL;
	struct stat st;
	int rc = open_parent(&dfd, &base, root, rel, 0);
	if (rc == FERRY_ENOTFOUND) {
		*out = xstrdup("");
		return 0;
	}
	if (!rc)
		rc = check_target(&st, &exists, dfd, base, rel);
	if (!rc && !exists)
		*out = xstrdup("");
	else if (!rc)
		rc = read_checked(out, len, stamp, dfd, base, rel);
	if (dfd >= 0)
		close(dfd);
	free(base);
	return rc;
}

/* The file is still what ferry read: same identity, size, time and content. */
static int still_as(int dfd, const char *base, const char *rel, const projfs_stamp *expect)
{
	const char *why = _("changed since ferry read it (saved in an editor meanwhile?); ferry did not "
	                    "overwrite it: run the command again");
	struct stat st;
	int exists = 0;
	int rc = check_target(&st, &exists, dfd, base, rel);
	if (rc)
		return rc;
	if (!expect->exists)
		return exists ? err_set(FERRY_EREFUSED, "%s: %s", rel, why) : 0;
	long long mtime = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	if (!exists || (long long)st.st_size != expect->size || mtime != expect->mtime_ns ||
	    (unsigned long long)st.st_ino != expect->ino)
		return err_set(FERRY_EREFUSED, "%s: %s", rel, why);
	char *text = NULL;
	size_t len = 0;
	projfs_stamp now;
	if ((rc = read_checked(&text, &len, &now, dfd, base, rel)))
		return rc;
	free(text);
	return strcmp(now.sha256, expect->sha256) == 0 ? 0 : err_set(FERRY_EREFUSED, "%s: %s", rel, why);
}

int projfs_unchanged(const char *root, const char *rel, const projfs_stamp *expect)
{
	int dfd = -1;
	char *base = NULL;
	int rc = open_parent(&dfd, &base, root, rel, 0);
	if (rc == FERRY_ENOTFOUND)
		return expect->exists ? err_set(FERRY_EREFUSED, _("%s: deleted since ferry read it; nothing was written"), rel)
		                      : 0;
	if (!rc)
		rc = still_as(dfd, base, rel, expect);
	if (dfd >= 0)
		close(dfd);
	free(base);
	return rc;
}

/* The test hook of projfs.h (FERRY_TEST_PAUSE). */
static void test_pause(const char *rel)
{
	const char *fifo = getenv("FERRY_TEST_PAUSE");
	if (!fifo || !*fifo)
		return;
	int fd = open(fifo, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	dprintf(fd, "%s\n", rel);
	close(fd);
	if ((fd = open(fifo, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	char c;
	while (read(fd, &c, 1) > 0)
		;
	close(fd);
}

static char *tmp_name(const char *base) { return xasprintf("%s" TMP_MARK "%ld", base, (long)getpid()); }

static int write_all(int fd, const char *p, size_t left)
{
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	return 0;
}

int projfs_write(projfs_stamp *after, const char *root, const char *rel, const void *data, size_t len,
                 unsigned mode, int exec, const projfs_stamp *expect)
{
	test_pause(rel);
	int dfd = -1, fd = -1, exists = 0;
	char *base = NULL, *tmp = NULL;
	struct stat st;
	int rc = open_parent(&dfd, &base, root, rel, 1);
	if (rc || (rc = check_target(&st, &exists, dfd, base, rel)))
		goto out;
	if (exists)
		mode = st.st_mode & 07777;
	if (exec == 1)
		mode |= ((mode & 0444) >> 2) | 0100;
	else if (exec == 0)
		mode &= ~0111u;
	tmp = tmp_name(base);
	unlinkat(dfd, tmp, 0); /* one of ours left by a killed process: we hold the lock */
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	if (fd < 0) {
		rc = err_set(FERRY_EIO, _("%s: cannot create temporary file: %s"), rel, strerror(errno));
		goto out;
	}
	if (write_all(fd, data, len) < 0 || fchmod(fd, mode) < 0 || fsync(fd) < 0 || fstat(fd, &st) < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", rel, strerror(errno));
		goto out;
	}
	close(fd);
	fd = -1;
	if (expect && (rc = still_as(dfd, base, rel, expect)))
		goto out;
	if (renameat(dfd, tmp, dfd, base) < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", rel, strerror(errno));
		goto out;
	}
	fsync(dfd);
	if (after)
		stamp_of(after, &st, data, len);
out:
	if (fd >= 0)
		close(fd);
	if (rc && tmp && dfd >= 0)
		unlinkat(dfd, tmp, 0);
	if (dfd >= 0)
		close(dfd);
	free(tmp);
	free(base);
	return rc;
}

int projfs_symlink(const char *root, const char *rel, const char *target)
{
	test_pause(rel);
	int dfd = -1;
	char *base = NULL, *tmp = NULL;
	struct stat st;
	int rc = open_parent(&dfd, &base, root, rel, 1);
	if (rc)
		goto out;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
		rc = err_set(FERRY_EIO, _("%s: a folder is in the way"), rel);
		goto out;
	}
	tmp = tmp_name(base);
	unlinkat(dfd, tmp, 0);
	if (symlinkat(target, dfd, tmp) < 0 || renameat(dfd, tmp, dfd, base) < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", rel, strerror(errno));
		unlinkat(dfd, tmp, 0);
	}
out:
	if (dfd >= 0)
		close(dfd);
	free(tmp);
	free(base);
	return rc;
}

int projfs_remove(const char *root, const char *rel)
{
	int dfd = -1;
	char *base = NULL;
	int rc = open_parent(&dfd, &base, root, rel, 0);
	if (rc == FERRY_ENOTFOUND)
		return 0;
	if (rc)
		return rc;
	if (unlinkat(dfd, base, 0) < 0 && errno != ENOENT)
		rc = err_set(FERRY_EIO, "%s: %s", rel, strerror(errno));
	close(dfd);
	free(base);
	/* then the folders it leaves empty, deepest first, each reached without links */
	char *dir = xstrdup(rel);
	for (char *slash = strrchr(dir, '/'); !rc && slash; slash = strrchr(dir, '/')) {
		*slash = '\0';
		if (open_parent(&dfd, &base, root, dir, 0) != 0) {
			err_clear();
			break;
		}
		int gone = unlinkat(dfd, base, AT_REMOVEDIR) == 0;
		close(dfd);
		free(base);
		if (!gone)
			break;
	}
	free(dir);
	return rc;
}

/* NAME.ferry-tmp.PID with a non-empty NAME. */
static int is_tmp_name(const char *name)
{
	const char *m = strstr(name, TMP_MARK);
	if (!m || m == name)
		return 0;
	const char *d = m + strlen(TMP_MARK);
	if (!*d)
		return 0;
	for (; *d; d++)
		if (*d < '0' || *d > '9')
			return 0;
	return 1;
}

static void sweep_fd(size_t *removed, int fd, int depth)
{
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		const char *name = e->d_name;
		struct stat st;
		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (is_tmp_name(name)) {
			if (fstatat(dirfd(d), name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISDIR(st.st_mode) &&
			    unlinkat(dirfd(d), name, 0) == 0)
				(*removed)++;
			continue;
		}
		if (depth >= 128 || reserved_dir(name, strlen(name)) || strcmp(name, "history.git") == 0 ||
		    (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN))
			continue;
		int sub = openat(dirfd(d), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub >= 0)
			sweep_fd(removed, sub, depth + 1);
	}
	closedir(d);
}

void projfs_sweep_tmp(size_t *removed, const char *dir)
{
	size_t n = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		sweep_fd(&n, fd, 0);
	if (removed)
		*removed = n;
}
