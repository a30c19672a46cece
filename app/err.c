/* err — see err.h. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char err_text[ERR_MAX];
static _Thread_local int err_last;

#define ELLIPSIS "\xE2\x80\xA6" /* … */

/* Ends text, which was cut at cap - 1 bytes, on a whole UTF-8 character followed by
 * "…", so a cut message still reads as one (valid UTF-8) and says it was cut. */
static void mark_cut(char *text, size_t cap)
{
	size_t end = cap - sizeof ELLIPSIS; /* room for the mark and the NUL */
	while (end > 0 && ((unsigned char)text[end] & 0xC0) == 0x80)
		end--;
	memcpy(text + end, ELLIPSIS, sizeof ELLIPSIS);
}

int err_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err_text, sizeof err_text, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof err_text)
		mark_cut(err_text, sizeof err_text);
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
	if (n < 0 || (size_t)n >= sizeof err_text / 2) { /* context this long is not context: keep the message */
		memcpy(err_text, old, sizeof old);
		return err_last;
	}
	size_t used = (size_t)n, len = strlen(old);
	memcpy(err_text + used, ": ", 2);
	used += 2;
	if (used + len >= sizeof err_text) {
		memcpy(err_text + used, old, sizeof err_text - used - 1);
		err_text[sizeof err_text - 1] = '\0';
		mark_cut(err_text, sizeof err_text);
	} else {
		memcpy(err_text + used, old, len + 1);
	}
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
