/*
 * util — small helpers shared by every module: a growable string buffer, whole-file
 * reads, atomic file writes, SHA-256, path joining, a table hash and identifier bytes.
 *
 * Ownership: sbuf owns its bytes until sbuf_detach hands them to the caller (free()).
 * util_read_file's *out belongs to the caller (free()). Nothing here keeps state.
 */
#ifndef FERRY_UTIL_H
#define FERRY_UTIL_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sbuf {
	char *buf;  /* NUL-terminated contents, never NULL after sbuf_init */
	size_t len; /* bytes used, excluding the NUL */
	size_t cap; /* bytes allocated */
} sbuf;

void sbuf_init(sbuf *b);
void sbuf_add(sbuf *b, const char *s, size_t n);
void sbuf_adds(sbuf *b, const char *s);
void sbuf_addc(sbuf *b, char c);
void sbuf_addf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_vaddf(sbuf *b, const char *fmt, va_list ap);
/* Appends s as one CSV field (RFC 4180): quoted, with quotes doubled, when it holds a
 * comma, a quote or a line break. A field starting with =, +, -, @, tab or CR gets a
 * leading single quote, so a spreadsheet shows it as text instead of evaluating it. */
void sbuf_add_csv(sbuf *b, const char *s);
/* Starts a CSV file that Excel must read as UTF-8. */
#define CSV_UTF8_BOM "\xEF\xBB\xBF"
void sbuf_reset(sbuf *b);
/* Returns the bytes (caller frees) and leaves b empty: sbuf_add* may use it again
 * (b->buf is NULL until then); sbuf_done is then harmless. */
char *sbuf_detach(sbuf *b);
void sbuf_done(sbuf *b);

/* Aborts on allocation failure: ferry cannot do anything useful without memory. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Reads the whole file; *out is NUL-terminated (the NUL not counted in *len).
 * Fails with FERRY_EIO naming the path. */
int util_read_file(char **out, size_t *len, const char *path);
/* The same from an open descriptor (read from its current offset; not closed); name
 * is the path for the error. */
int util_read_fd(char **out, size_t *len, int fd, const char *name);

/* Writes data to path atomically: a temporary file beside it, fsync, rename over
 * path, fsync of the directory. An existing file's permission bits are kept;
 * a new file gets `mode` (subject to umask). */
int util_write_atomic(const char *path, const void *data, size_t len, unsigned mode);

/* mkdir -p; existing directories are fine. */
int util_mkdirs(const char *path, unsigned mode);

/* Removes path and everything below it, never following symbolic links. Best effort:
 * returns 0 when everything went, -1 otherwise (no error record). */
int util_remove_tree(const char *path);

/* Lower-case hex SHA-256 of data into out (65 bytes with the NUL). */
void util_sha256_hex(char out[65], const void *data, size_t len);
/* SHA-256 of a whole file, streamed. */
int util_sha256_file(char out[65], const char *path);

/* A SHA-256 fed piece by piece: util_sha256_new (never NULL: allocation failure aborts
 * as xmalloc does), util_sha256_update any number of times, util_sha256_final writes the
 * lower-case hex digest and frees the context; util_sha256_free(NULL) is harmless and
 * drops an unfinished one. */
typedef struct util_sha256 util_sha256;
util_sha256 *util_sha256_new(void);
void util_sha256_update(util_sha256 *h, const void *data, size_t len);
void util_sha256_final(char out[65], util_sha256 *h);
void util_sha256_free(util_sha256 *h);

/* "a" + "/" + "b" without doubling the slash. Caller frees. */
char *util_path_join(const char *a, const char *b);

/* 1 when s starts with prefix. */
int util_starts_with(const char *s, const char *prefix);
int util_ends_with(const char *s, const char *suffix);
/* The absolute path dir names, through its nearest existing folder (the rest need not
 * exist yet; "." and ".." in it taken as the kernel will once the folders are made);
 * NULL when none of it resolves. Caller frees. */
char *util_resolve_dest(const char *dir);
/* 1 when the absolute path is root or below it. */
int util_path_under(const char *path, const char *root);

/* Current time as ISO-8601 UTC ("2026-11-21T23:52:27Z") into out. */
void util_now_iso(char out[32]);

/* CPU time the calling thread has used, in nanoseconds. */
unsigned long long util_thread_cpu_ns(void);

/* 1 when the buffer is valid UTF-8. */
int util_utf8_valid(const char *s, size_t len);
/* The bytes of the UTF-8 byte-order mark the text starts with: 3, or 0 without one. Python
 * does not count it, so neither does a column of line 1. */
size_t util_utf8_bom(const char *text, size_t len);

/* The 64-bit FNV-1a hash of n bytes: a hash for tables, not for the record. */
unsigned long long util_fnv1a(const char *s, size_t n);

/* ASCII identifier bytes, as Lua's "[%a_][%w_]*" reads them in the C locale: '_' or a
 * letter starts one, '_', a letter or a digit goes on with it. */
int util_ident_start(int c);
int util_ident_char(int c);

#endif
