/* A fault-injection shim for the CLI tests (LD_PRELOAD): opening any file whose path
 * ends in "/$FERRY_TEST_VANISH" fails with ENOENT while stat still finds it, which is
 * what a file deleted and recreated between every stat and open looks like. It makes
 * the race of a file vanishing under a sync happen every time instead of once in a
 * thousand runs. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static int vanishes(const char *path)
{
	const char *name = getenv("FERRY_TEST_VANISH");
	if (!name || !*name || !path)
		return 0;
	size_t n = strlen(name), len = strlen(path);
	return len > n && path[len - n - 1] == '/' && strcmp(path + len - n, name) == 0;
}

typedef int (*open_fn)(const char *, int, ...);

/* Fails as if path had just been deleted, or opens it through the real symbol name. */
static int open_through(open_fn *real, const char *name, const char *path, int flags, mode_t mode)
{
	if (vanishes(path)) {
		errno = ENOENT;
		return -1;
	}
	if (!*real)
		*real = (open_fn)dlsym(RTLD_NEXT, name);
	return (*real)(path, flags, mode);
}

#define MODE_ARG(flags) ((flags) & (O_CREAT | O_TMPFILE) ? (mode_t)va_arg(ap, int) : 0)

int open(const char *path, int flags, ...)
{
	static open_fn real;
	va_list ap;
	va_start(ap, flags);
	mode_t mode = MODE_ARG(flags);
	va_end(ap);
	return open_through(&real, "open", path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	static open_fn real;
	va_list ap;
	va_start(ap, flags);
	mode_t mode = MODE_ARG(flags);
	va_end(ap);
	return open_through(&real, "open64", path, flags, mode);
}
