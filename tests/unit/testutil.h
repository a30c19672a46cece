/*
 * testutil — shared helpers for the cmocka unit tests: temporary directories that
 * are removed afterwards, and writing small files.
 */
#ifndef FERRY_TESTUTIL_H
#define FERRY_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Creates a fresh temporary directory; caller frees the returned path and should
 * call tu_rmdir on it. */
static inline char *tu_mkdtemp(void)
{
	const char *base = getenv("TMPDIR");
	char *tmpl = xasprintf("%s/ferry-test-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpl))
		abort();
	return tmpl;
}

static inline void tu_rmdir(const char *path)
{
	char *cmd = xasprintf("rm -rf '%s'", path);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", path);
	free(cmd);
}

/* Writes text to dir/rel, creating parent directories. */
static inline void tu_write(const char *dir, const char *rel, const char *text)
{
	char *path = util_path_join(dir, rel);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	util_mkdirs(path, 0755);
	*slash = '/';
	FILE *f = fopen(path, "wb");
	if (!f)
		abort();
	fwrite(text, 1, strlen(text), f);
	fclose(f);
	free(path);
}

/* Reads dir/rel into a malloc'd string (NULL when missing). */
static inline char *tu_read(const char *dir, const char *rel)
{
	char *path = util_path_join(dir, rel), *text = NULL;
	size_t len;
	if (util_read_file(&text, &len, path) != 0)
		text = NULL;
	free(path);
	return text;
}

#endif
