/* safetext — see safetext.h. */
#include "safetext.h"

#include <stdlib.h>
#include <string.h>

/* The length of the valid UTF-8 sequence at p (at most end - p bytes), or 0 when the
 * bytes there are not one. */
static size_t utf8_seq(const unsigned char *p, const unsigned char *end)
{
	size_t n = *p < 0x80 ? 1 : (*p & 0xE0) == 0xC0 ? 2 : (*p & 0xF0) == 0xE0 ? 3 : (*p & 0xF8) == 0xF0 ? 4 : 0;
	return n && n <= (size_t)(end - p) && util_utf8_valid((const char *)p, n) ? n : 0;
}

/* Whether the n-byte sequence at p is a control character other than tab and newline:
 * C0, DEL, or C1 (U+0080..U+009F, encoded C2 80..C2 9F). */
static int is_control(const unsigned char *p, size_t n)
{
	if (n == 1)
		return (*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7F;
	return n == 2 && p[0] == 0xC2 && p[1] < 0xA0;
}

/* Appends s[0..len): controls escaped; invalid bytes as U+FFFD (bad_as_fffd) or \xNN. */
static void add_safe(sbuf *b, const char *s, size_t len, int bad_as_fffd)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		size_t n = utf8_seq(p, end);
		if (n == 0 || (*p == 0 && bad_as_fffd)) {
			if (bad_as_fffd)
				sbuf_adds(b, "\xEF\xBF\xBD");
			else
				sbuf_addf(b, "\\x%02x", *p);
			p++;
		} else if (is_control(p, n)) {
			if (n == 1)
				sbuf_addf(b, "\\x%02x", *p);
			else
				sbuf_addf(b, "\\u%04x", p[1] & 0xFF);
			p += n;
		} else {
			sbuf_add(b, (const char *)p, n);
			p += n;
		}
	}
}

char *safetext_clean(const char *s, size_t len)
{
	sbuf b;
	sbuf_init(&b);
	add_safe(&b, s, len, 1);
	char *out = sbuf_detach(&b);
	sbuf_done(&b);
	return out;
}

void safetext_add_terminal(sbuf *b, const char *s)
{
	if (s)
		add_safe(b, s, strlen(s), 0);
}

char *safetext_terminal(const char *s)
{
	sbuf b;
	sbuf_init(&b);
	safetext_add_terminal(&b, s);
	char *out = sbuf_detach(&b);
	sbuf_done(&b);
	return out;
}
