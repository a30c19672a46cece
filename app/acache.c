/* acache: readings of ingested artifacts kept on disk (see acache.h).
 *
 * An entry file DIR/SHA256.READER.EXE.ARGS (EXE and ARGS: 16 hex digits of a SHA-256 of
 * the executable's identity and of the arguments) is a header line, then the bytes:
 *   "ferry-acache 2 SIZE INO MTIME_NS CTIME_NS LEN SHA256\n" BYTES
 * SIZE ... CTIME_NS are the artifact copy's when it was read, LEN and SHA256 those of
 * BYTES: a torn or altered entry is not used. */
#include "acache.h"
#include "err.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ACACHE_MAGIC "ferry-acache 2"
#define ACACHE_MAX (64u << 20) /* an entry larger than this is not kept */
#define ACACHE_HEAD 256        /* a header line is shorter than this */

static long long ns(struct timespec t)
{
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int is_hex64(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
			return 0;
	return n == 64;
}

static int is_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return 0;
	return 1;
}

/* The first 16 hex digits of the SHA-256 of data into out[17]. */
static void short_hash(char out[17], const void *data, size_t len)
{
	char hex[65];
	util_sha256_hex(hex, data, len);
	memcpy(out, hex, 16);
	out[16] = '\0';
}

int acache_key_make(acache_key *k, const char *dir, const char *sha256, const char *reader, const void *args,
                    size_t argslen, const char *file)
{
	struct stat st, exe, d;
	if (!dir || !sha256 || !is_hex64(sha256) || !is_name(reader) || stat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
	    stat("/proc/self/exe", &exe) != 0)
		return -1;
	if (lstat(dir, &d) == 0 && !S_ISDIR(d.st_mode))
		return -1; /* a link or a file where the folder belongs: not followed */
	long long who[4] = { (long long)exe.st_dev, (long long)exe.st_ino, (long long)exe.st_size, ns(exe.st_mtim) };
	char exe_hash[17], args_hash[17];
	short_hash(exe_hash, who, sizeof who);
	short_hash(args_hash, args, argslen);
	int n = snprintf(k->stem, sizeof k->stem, "%s/%s.%s.", dir, sha256, reader);
	int m = snprintf(k->path, sizeof k->path, "%s%s.%s", k->stem, exe_hash, args_hash);
	if (n < 0 || (size_t)n >= sizeof k->stem || m < 0 || (size_t)m >= sizeof k->path)
		return -1;
	k->size = (long long)st.st_size;
	k->ino = (long long)st.st_ino;
	k->mtime_ns = ns(st.st_mtim);
	k->ctime_ns = ns(st.st_ctim);
	return 0;
}

int acache_key_matches(const acache_key *k, const struct stat *st)
{
	return k->size == (long long)st->st_size && k->ino == (long long)st->st_ino && k->mtime_ns == ns(st->st_mtim) &&
	       k->ctime_ns == ns(st->st_ctim);
}

char *acache_load(const acache_key *k, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	int fd = open(k->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return NULL;
	struct stat st;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (off_t)ACACHE_MAX + ACACHE_HEAD &&
	         util_read_fd(&text, &n, fd, k->path) == 0;
	close(fd);
	if (!ok) {
		err_clear();
		return NULL;
	}
	/* the header is the first line; the bytes start right after its newline */
	const char *nl = memchr(text, '\n', n < ACACHE_HEAD ? n : ACACHE_HEAD);
	long long size, ino, mtime, ctime;
	unsigned long long blen;
	char sha[65];
	size_t head = nl ? (size_t)(nl - text) + 1 : 0;
	int good = nl && sscanf(text, ACACHE_MAGIC " %lld %lld %lld %lld %llu %64[0-9a-f]", &size, &ino, &mtime, &ctime,
	                        &blen, sha) == 6 &&
	           size == k->size && ino == k->ino && mtime == k->mtime_ns && ctime == k->ctime_ns &&
	           blen == n - head;
	if (good) {
		char got[65];
		util_sha256_hex(got, text + head, (size_t)blen);
		good = strcmp(got, sha) == 0;
	}
	if (!good) {
		free(text);
		return NULL;
	}
	memmove(text, text + head, (size_t)blen);
	*len = (size_t)blen;
	return text;
}

/* path's folder, created when missing. */
static int make_dir_of(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		rc = util_mkdirs(dir, 0755) ? -1 : 0;
	}
	free(dir);
	return rc;
}

/* Removes the entries of k's artifact and reader that another build of ferry wrote (their
 * name has the stem and another executable's part): they can never be used again. */
static void drop_other_builds(const acache_key *k)
{
	const char *slash = strrchr(k->stem, '/');
	const char *stem = slash + 1, *own = k->path + strlen(k->stem);
	char *dir = xstrndup(k->stem, (size_t)(slash - k->stem));
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t sl = strlen(stem);
	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, stem, sl) != 0 || strncmp(e->d_name + sl, own, 16) == 0 || strstr(e->d_name, ".tmp."))
			continue;
		char *p = util_path_join(dir, e->d_name);
		unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
}

int acache_store(const acache_key *k, const char *bytes, size_t len)
{
	static atomic_uint serial;
	if (len > ACACHE_MAX || make_dir_of(k->path)) {
		err_clear();
		return -1;
	}
	char sha[65];
	util_sha256_hex(sha, bytes, len);
	char head[ACACHE_HEAD];
	int hn = snprintf(head, sizeof head, ACACHE_MAGIC " %lld %lld %lld %lld %zu %s\n", k->size, k->ino, k->mtime_ns,
	                  k->ctime_ns, len, sha);
	/* a name of this process and thread's own: two threads may keep the same reading */
	char *tmp = xasprintf("%s.tmp.%ld.%u", k->path, (long)getpid(), atomic_fetch_add(&serial, 1));
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f && fd >= 0)
		close(fd);
	int rc = -1;
	if (f) {
		int wrote = fwrite(head, 1, (size_t)hn, f) == (size_t)hn && fwrite(bytes, 1, len, f) == len;
		if (fclose(f) == 0 && wrote && rename(tmp, k->path) == 0)
			rc = 0;
	}
	if (rc)
		unlink(tmp);
	else
		drop_other_builds(k);
	free(tmp);
	return rc;
}
