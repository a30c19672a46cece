/* acache: readings of ingested artifacts kept on disk (see acache.h).
 *
 * An entry file is a header line, then the bytes:
 *   "ferry-acache 1 SIZE MTIME_NS LEN SHA256\n" BYTES
 * SIZE and MTIME_NS are the artifact copy's when it was read, LEN and SHA256 those of
 * BYTES: a torn or altered entry is not used. */
#include "acache.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ACACHE_MAGIC "ferry-acache 1"
#define ACACHE_MAX (64u << 20) /* an entry larger than this is not kept */

static long long mtime_ns(const struct stat *st)
{
	return (long long)st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
}

int acache_key_make(acache_key *k, const char *dir, const char *sha256, const char *reader, const void *args,
                    size_t argslen, const char *file)
{
	struct stat st, exe;
	if (!dir || !sha256 || strlen(sha256) != 64 || stat(file, &st) != 0 || !S_ISREG(st.st_mode) ||
	    stat("/proc/self/exe", &exe) != 0)
		return -1;
	/* the name: the artifact's hash, the reader, and a hash of its arguments and of the
	 * executable (a rebuilt ferry may read differently) */
	util_sha256 *h = util_sha256_new();
	long long who[4] = { (long long)exe.st_dev, (long long)exe.st_ino, (long long)exe.st_size, mtime_ns(&exe) };
	util_sha256_update(h, who, sizeof who);
	util_sha256_update(h, reader, strlen(reader) + 1);
	util_sha256_update(h, args, argslen);
	char hex[65];
	util_sha256_final(hex, h);
	int n = snprintf(k->path, sizeof k->path, "%s/%s.%s.%.16s", dir, sha256, reader, hex);
	if (n < 0 || (size_t)n >= sizeof k->path)
		return -1;
	k->size = (long long)st.st_size;
	k->mtime_ns = mtime_ns(&st);
	return 0;
}

char *acache_load(const acache_key *k, size_t *len)
{
	char *text = NULL;
	size_t n = 0;
	int fd = open(k->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	int ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (off_t)ACACHE_MAX + 256 &&
	         util_read_fd(&text, &n, fd, k->path) == 0;
	close(fd);
	if (!ok)
		return NULL;
	long long size, mtime;
	unsigned long long blen;
	char sha[65], magic[16];
	int head = 0;
	if (sscanf(text, "%15[a-z-] 1 %lld %lld %llu %64[0-9a-f]\n%n", magic, &size, &mtime, &blen, sha, &head) != 5 ||
	    !head || strcmp(magic, "ferry-acache") != 0 || size != k->size || mtime != k->mtime_ns ||
	    blen != n - (size_t)head) {
		free(text);
		return NULL;
	}
	char got[65];
	util_sha256_hex(got, text + head, (size_t)blen);
	if (strcmp(got, sha) != 0) {
		free(text);
		return NULL;
	}
	char *out = xmalloc(blen ? blen : 1);
	memcpy(out, text + head, blen);
	free(text);
	*len = (size_t)blen;
	return out;
}

/* path's folder, created when missing. */
static int make_dir_of(const char *path)
{
	char *dir = xstrdup(path);
	char *slash = strrchr(dir, '/');
	int rc = 0;
	if (slash && slash != dir) {
		*slash = '\0';
		rc = util_mkdirs(dir, 0777) ? -1 : 0;
	}
	free(dir);
	return rc;
}

int acache_store(const acache_key *k, const char *bytes, size_t len)
{
	static atomic_uint serial;
	if (len > ACACHE_MAX || make_dir_of(k->path))
		return -1;
	char sha[65];
	util_sha256_hex(sha, bytes, len);
	char head[160];
	int hn = snprintf(head, sizeof head, ACACHE_MAGIC " %lld %lld %zu %s\n", k->size, k->mtime_ns, len, sha);
	/* a name of this process and thread's own: two threads may keep the same reading */
	char *tmp = xasprintf("%s.tmp.%ld.%u", k->path, (long)getpid(), atomic_fetch_add(&serial, 1));
	FILE *f = fopen(tmp, "wbe");
	int rc = -1;
	if (f) {
		int wrote = fwrite(head, 1, (size_t)hn, f) == (size_t)hn && fwrite(bytes, 1, len, f) == len;
		if (fclose(f) == 0 && wrote && rename(tmp, k->path) == 0)
			rc = 0;
	}
	if (rc)
		unlink(tmp);
	free(tmp);
	return rc;
}
