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

/* Length of the dotted name s starts with (`torch.nn.Linear`), 0 if none. */
static size_t callee_len(const char *s)
{
	size_t n = 0;
	while (s[n] && (s[n] == '_' || s[n] == '.' || (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= 'A' && s[n] <= 'Z') ||
	                (n && s[n] >= '0' && s[n] <= '9')))
		n++;
	return n;
}

/* 1 when the bracket opened at s[open] closes at the last byte of s. */
static int closes_at_end(const char *s, size_t open)
{
	size_t len = strlen(s);
	int depth = 0;
	for (size_t i = open; i < len; i++) {
		if (s[i] == '(' || s[i] == '[' || s[i] == '{')
			depth++;
		else if ((s[i] == ')' || s[i] == ']' || s[i] == '}') && --depth == 0)
			return i == len - 1;
	}
	return 0;
}

char *safetext_quote_line(const char *s)
{
	if (!strchr(s, '\n'))
		return xstrdup(s);
	sbuf b;
	sbuf_init(&b);
	for (const char *p = s; *p; p++) {
		if (*p != '\n' && *p != '\r') {
			sbuf_addc(&b, *p);
			continue;
		}
		while (b.len && (b.buf[b.len - 1] == ' ' || b.buf[b.len - 1] == '\t'))
			b.buf[--b.len] = '\0';
		while (p[1] == ' ' || p[1] == '\t' || p[1] == '\n' || p[1] == '\r')
			p++;
		char prev = b.len ? b.buf[b.len - 1] : '(';
		if (p[1] && !strchr("([{", prev) && !strchr(")]}.,", p[1]))
			sbuf_addc(&b, ' ');
	}
	char *one = sbuf_detach(&b);
	sbuf_done(&b);
	size_t len = strlen(one);
	if (len <= SAFETEXT_QUOTE_MAX)
		return one;
	size_t name = callee_len(one);
	char *out;
	if (name && name + 5 <= SAFETEXT_QUOTE_MAX && one[name] == '(' && closes_at_end(one, name)) {
		out = xasprintf("%.*s(…)", (int)name, one);
	} else {
		size_t n = SAFETEXT_QUOTE_MAX;
		while (n && ((unsigned char)one[n] & 0xC0) == 0x80)
			n--;
		out = xasprintf("%.*s…", (int)n, one);
	}
	free(one);
	return out;
}
