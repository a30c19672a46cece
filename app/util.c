/* util — see util.h. */
#define _POSIX_C_SOURCE 200809L
#include "intl.h"
#include "util.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		abort();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		abort();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();
	return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	sbuf b;
	va_list ap;
	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	return sbuf_detach(&b);
}

void sbuf_init(sbuf *b)
{
	b->cap = 64;
	b->len = 0;
	b->buf = xmalloc(b->cap);
	b->buf[0] = '\0';
}

static void sbuf_grow(sbuf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	if (!b->cap)
		b->cap = 64;
	while (b->len + extra + 1 > b->cap)
		b->cap *= 2;
	b->buf = xrealloc(b->buf, b->cap);
}

void sbuf_add(sbuf *b, const char *s, size_t n)
{
	sbuf_grow(b, n);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void sbuf_adds(sbuf *b, const char *s) { sbuf_add(b, s, strlen(s)); }
void sbuf_addc(sbuf *b, char c) { sbuf_add(b, &c, 1); }

void sbuf_vaddf(sbuf *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n <= 0)
		return;
	sbuf_grow(b, (size_t)n);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sbuf_addf(sbuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(b, fmt, ap);
	va_end(ap);
}

void sbuf_add_csv(sbuf *b, const char *s)
{
	/* a spreadsheet evaluates a cell starting with one of these as a formula */
	int inert = *s && strchr("=+-@\t\r", *s) != NULL;
	if (!s[strcspn(s, ",\"\r\n")]) {
		if (inert)
			sbuf_addc(b, '\'');
		sbuf_adds(b, s);
		return;
	}
	sbuf_addc(b, '"');
	if (inert)
		sbuf_addc(b, '\'');
	for (; *s; s++) {
		if (*s == '"')
			sbuf_addc(b, '"');
		sbuf_addc(b, *s);
	}
	sbuf_addc(b, '"');
}

void sbuf_reset(sbuf *b)
{
	b->len = 0;
	if (b->buf)
		b->buf[0] = '\0';
}

char *sbuf_detach(sbuf *b)
{
	char *p = b->buf ? b->buf : xstrdup("");
	b->buf = NULL;
	b->len = b->cap = 0;
	return p;
}

void sbuf_done(sbuf *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}

int util_read_file(char **out, size_t *len, const char *path)
{
	*out = NULL;
	if (len)
		*len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	int rc = util_read_fd(out, len, fd, path);
	close(fd);
	return rc;
}

int util_read_fd(char **out, size_t *len, int fd, const char *name)
{
	*out = NULL;
	if (len)
		*len = 0;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		return err_set(FERRY_EIO, "%s: %s", name,
		               S_ISDIR(st.st_mode) ? _("is a directory") : e ? strerror(e) : _("not a regular file"));
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			free(buf);
			return err_set(FERRY_EIO, "%s: %s", name, strerror(e));
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return 0;
}

static int fsync_dir_of(const char *path)
{
	char *copy = xstrdup(path);
	int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(copy);
	if (fd < 0)
		return -1;
	int rc = fsync(fd);
	close(fd);
	return rc;
}

int util_write_atomic(const char *path, const void *data, size_t len, unsigned mode)
{
	struct stat st;
	if (stat(path, &st) == 0)
		mode = st.st_mode & 07777;
	char *tmp = xasprintf("%s.ferry-tmp.%ld", path, (long)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	if (fd < 0) {
		int rc = err_set(FERRY_EIO, _("%s: cannot create temporary file: %s"), path, strerror(errno));
		free(tmp);
		return rc;
	}
	const char *p = data;
	size_t left = len;
	while (left) {
		ssize_t w = write(fd, p, left);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		p += w;
		left -= (size_t)w;
	}
	if (fchmod(fd, mode) < 0 || fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path) < 0)
		goto fail;
	fsync_dir_of(path);
	free(tmp);
	return 0;
fail:;
	int rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return rc;
}

int util_mkdirs(const char *path, unsigned mode)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST) {
			int rc = err_set(FERRY_EIO, "%s: %s", p, strerror(errno));
			free(p);
			return rc;
		}
		*s = '/';
	}
	int rc = 0;
	if (mkdir(p, mode) < 0 && errno != EEXIST)
		rc = err_set(FERRY_EIO, "%s: %s", p, strerror(errno));
	free(p);
	return rc;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)ftw;
	return (type == FTW_DP ? rmdir(path) : unlink(path)) == 0 ? 0 : -1;
}

int util_remove_tree(const char *path)
{
	return nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

static void hex_digest(char out[65], const unsigned char *md)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
}

void util_sha256_hex(char out[65], const void *data, size_t len)
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	EVP_Digest(data, len, md, &mdlen, EVP_sha256(), NULL);
	hex_digest(out, md);
}

struct util_sha256 {
	EVP_MD_CTX *ctx;
};

util_sha256 *util_sha256_new(void)
{
	util_sha256 *h = xmalloc(sizeof *h);
	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1)
		abort(); /* as xmalloc: only allocation fails here */
	return h;
}

void util_sha256_update(util_sha256 *h, const void *data, size_t len)
{
	EVP_DigestUpdate(h->ctx, data, len);
}

void util_sha256_final(char out[65], util_sha256 *h)
{
	unsigned char md[32];
	unsigned int mdlen = 0;
	EVP_DigestFinal_ex(h->ctx, md, &mdlen);
	util_sha256_free(h);
	hex_digest(out, md);
}

void util_sha256_free(util_sha256 *h)
{
	if (!h)
		return;
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

int util_sha256_file(char out[65], const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	util_sha256 *h = util_sha256_new();
	char buf[1 << 16];
	ssize_t r;
	while ((r = read(fd, buf, sizeof buf)) != 0) {
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
			util_sha256_free(h);
			close(fd);
			return rc;
		}
		util_sha256_update(h, buf, (size_t)r);
	}
	close(fd);
	util_sha256_final(out, h);
	return 0;
}

char *util_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	if (la && a[la - 1] == '/')
		return xasprintf("%s%s", a, b);
	return xasprintf("%s/%s", a, b);
}

int util_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

int util_ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

void util_now_iso(char out[32])
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

unsigned long long util_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

size_t util_utf8_bom(const char *text, size_t len)
{
	return text && len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

int util_utf8_valid(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		unsigned c = *p;
		size_t n;
		unsigned min;
		if (c < 0x80) {
			p++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			n = 1, min = 0x80, c &= 0x1F;
		} else if ((c & 0xF0) == 0xE0) {
			n = 2, min = 0x800, c &= 0x0F;
		} else if ((c & 0xF8) == 0xF0) {
			n = 3, min = 0x10000, c &= 0x07;
		} else {
			return 0;
		}
		if ((size_t)(end - p) <= n)
			return 0;
		for (size_t i = 1; i <= n; i++) {
			if ((p[i] & 0xC0) != 0x80)
				return 0;
			c = (c << 6) | (p[i] & 0x3F);
		}
		if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
			return 0;
		p += n + 1;
	}
	return 1;
}

unsigned long long util_fnv1a(const char *s, size_t n)
{
	unsigned long long h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

int util_ident_start(int c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

int util_ident_char(int c)
{
	return util_ident_start(c) || (c >= '0' && c <= '9');
}

/* see util.h */
char *util_resolve_dest(const char *dir)
{
	char *probe = xstrdup(dir), *tail = xstrdup("");
	char real[PATH_MAX];
	for (;;) {
		if (realpath(*probe ? probe : ".", real)) {
			/* the part not there yet: "." and ".." taken as the kernel will once the
			 * folders are made ("new/../../project" leads into the project) */
			sbuf out;
			sbuf_init(&out);
			sbuf_adds(&out, real);
			int up = 0;
			for (char *save = NULL, *c = strtok_r(tail, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
				if (strcmp(c, ".") == 0)
					continue;
				if (strcmp(c, "..") == 0) {
					up = 1;
					char *slash = strrchr(out.buf, '/');
					out.len = slash && slash != out.buf ? (size_t)(slash - out.buf) : 1;
					out.buf[out.len] = '\0';
					continue;
				}
				if (out.len > 1)
					sbuf_addc(&out, '/');
				sbuf_adds(&out, c);
			}
			free(probe);
			free(tail);
			char *path = sbuf_detach(&out);
			if (!up)
				return path;
			/* after a "..", a folder that exists may follow, a link among them: resolve
			 * the path again from the top ("new/../link-to-project" leads into it) */
			char *again = util_resolve_dest(path);
			free(path);
			return again;
		}
		char *slash = strrchr(probe, '/');
		char *name = slash ? slash + 1 : probe;
		char *t = *tail ? xasprintf("%s/%s", name, tail) : xstrdup(name);
		free(tail);
		tail = t;
		if (!slash) {
			probe[0] = '\0';
		} else {
			*slash = '\0';
			if (slash == probe) { /* "/x": the root */
				free(probe);
				probe = xstrdup("/");
			}
		}
		if (!*probe && !*tail) {
			free(probe);
			free(tail);
			return NULL;
		}
	}
}

/* see util.h */
int util_path_under(const char *path, const char *root)
{
	size_t n = strlen(root);
	return strncmp(path, root, n) == 0 && (path[n] == '\0' || path[n] == '/' || (n && root[n - 1] == '/'));
}
