/* gbtext — see gbtext.h. */
#include "gbtext.h"
#include "util.h"

#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>

struct gbtext {
	iconv_t cd; /* (iconv_t)-1 until first needed */
	int unusable; /* this system's iconv has no GB18030 */
};

gbtext *gbtext_new(void)
{
	gbtext *g = xcalloc(1, sizeof *g);
	g->cd = (iconv_t)-1;
	return g;
}

void gbtext_free(gbtext *g)
{
	if (!g)
		return;
	if (g->cd != (iconv_t)-1)
		iconv_close(g->cd);
	free(g);
}

/* Length of s[0..len) without a last UTF-8 character left incomplete. */
static size_t without_partial_tail(const unsigned char *s, size_t len)
{
	size_t i = len, back = 0;
	while (i > 0 && back < 3 && (s[i - 1] & 0xC0) == 0x80)
		i--, back++;
	if (i == 0 || s[i - 1] < 0xC0)
		return len; /* no lead byte where a partial character would start */
	unsigned lead = s[i - 1];
	size_t need = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : 1;
	return back < need ? i - 1 : len;
}

static int ascii_only(const unsigned char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (s[i] >= 0x80)
			return 0;
	return 1;
}

size_t gbtext_line(gbtext *g, char *out, const char *s, size_t len, int cut)
{
	const unsigned char *u = (const unsigned char *)s;
	if (ascii_only(u, len))
		return 0;
	size_t whole = cut ? without_partial_tail(u, len) : len;
	if (util_utf8_valid(s, whole) || g->unusable)
		return 0;
	if (g->cd == (iconv_t)-1) {
		g->cd = iconv_open("UTF-8", "GB18030");
		if (g->cd == (iconv_t)-1) {
			g->unusable = 1;
			return 0;
		}
	}
	iconv(g->cd, NULL, NULL, NULL, NULL); /* a fresh line, a fresh state */
	char *src = (char *)s, *dst = out;
	size_t left_in = len, left_out = GBTEXT_ROOM(len);
	size_t r = iconv(g->cd, &src, &left_in, &dst, &left_out);
	/* a character the reader's cut left incomplete (EINVAL) is dropped; any other
	 * failure (EILSEQ) means the line is not GB18030 */
	if (r == (size_t)-1 && !(cut && errno == EINVAL))
		return 0;
	return (size_t)(dst - out);
}

char *gbtext_lines(const char *text, size_t len, size_t *outlen, size_t *lines)
{
	*lines = 0;
	if (ascii_only((const unsigned char *)text, len) || util_utf8_valid(text, len))
		return NULL;
	gbtext *g = gbtext_new();
	sbuf b;
	sbuf_init(&b);
	char *room = NULL;
	size_t roomcap = 0;
	for (const char *p = text, *end = text + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (GBTEXT_ROOM(n) > roomcap) {
			roomcap = GBTEXT_ROOM(n);
			room = xrealloc(room, roomcap);
		}
		size_t m = gbtext_line(g, room, p, n, 0);
		if (m) {
			sbuf_add(&b, room, m);
			++*lines;
		} else {
			sbuf_add(&b, p, n);
		}
		if (nl)
			sbuf_add(&b, "\n", 1);
		p += n + (nl != NULL);
	}
	free(room);
	gbtext_free(g);
	if (!*lines) {
		sbuf_done(&b);
		return NULL;
	}
	*outlen = b.len;
	return sbuf_detach(&b);
}
