/* err — see err.h. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char err_text[ERR_MAX];
static _Thread_local int err_last;

int err_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err_text, sizeof err_text, fmt, ap);
	va_end(ap);
	/* one line: fold any newline an underlying library put in its message */
	for (char *p = err_text; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	err_last = code;
	return code;
}

int err_prefix(const char *fmt, ...)
{
	char old[ERR_MAX];
	va_list ap;
	memcpy(old, err_text, sizeof old);
	va_start(ap, fmt);
	int n = vsnprintf(err_text, sizeof err_text, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof err_text - 3)
		return err_last;
	size_t used = (size_t)n;
	memcpy(err_text + used, ": ", 2);
	used += 2;
	size_t room = sizeof err_text - used - 1, len = strlen(old);
	if (len > room)
		len = room;
	memcpy(err_text + used, old, len);
	err_text[used + len] = '\0';
	return err_last;
}

int err_recode(int code)
{
	err_last = code;
	return code;
}

const char *err_message(void) { return err_text; }
int err_code(void) { return err_last; }

void err_clear(void)
{
	err_text[0] = '\0';
	err_last = FERRY_OK;
}

int err_exit_code(int code)
{
	switch (code) {
	case FERRY_OK: return 0;
	case FERRY_EUSAGE: return 2;
	case FERRY_EFAIL:
	case FERRY_EREFUSED: return 1;
	default: return 3;
	}
}
