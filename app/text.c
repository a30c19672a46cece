/* text — see text.h. */
#include "text.h"
#include "util.h"

#include <string.h>
#include <wchar.h>

/* East Asian wide ranges, for when LC_CTYPE is not UTF-8 and wcwidth knows no CJK
 * (a Chinese reader in a C locale still gets aligned tables). */
static int wide_fallback(unsigned c)
{
	static const unsigned ranges[][2] = {
		{ 0x1100, 0x115F }, { 0x2E80, 0x303E }, { 0x3041, 0x33FF }, { 0x3400, 0x4DBF }, { 0x4E00, 0x9FFF },
		{ 0xA000, 0xA4CF }, { 0xAC00, 0xD7A3 }, { 0xF900, 0xFAFF }, { 0xFE30, 0xFE4F }, { 0xFF00, 0xFF60 },
		{ 0xFFE0, 0xFFE6 }, { 0x20000, 0x3FFFD },
	};
	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++)
		if (c >= ranges[i][0] && c <= ranges[i][1])
			return 1;
	return 0;
}

size_t text_next(const char *s, size_t n, unsigned *cp, int *width)
{
	const unsigned char *u = (const unsigned char *)s;
	unsigned c = u[0];
	size_t len = 1;
	if (c >= 0xC2 && c <= 0xDF)
		len = 2, c &= 0x1F;
	else if (c >= 0xE0 && c <= 0xEF)
		len = 3, c &= 0x0F;
	else if (c >= 0xF0 && c <= 0xF4)
		len = 4, c &= 0x07;
	else if (c >= 0x80)
		len = 0;
	if (len == 0 || len > n) {
		*cp = 0xFFFD;
		*width = 1;
		return 1;
	}
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xC0) != 0x80) {
			*cp = 0xFFFD;
			*width = 1;
			return 1;
		}
		c = (c << 6) | (u[i] & 0x3F);
	}
	*cp = c;
	if (c < 0x20 || c == 0x7F) {
		*width = 1;
	} else {
		int w = wcwidth((wchar_t)c);
		*width = w >= 0 ? w : c >= 0x80 && wide_fallback(c) ? 2 : 1;
	}
	return len;
}

int text_width(const char *s)
{
	int total = 0;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		unsigned cp;
		int w;
		i += text_next(s + i, n - i, &cp, &w);
		total += w;
	}
	return total;
}

size_t text_fit(const char *s, int cols, int *used)
{
	size_t n = strlen(s), i = 0;
	int total = 0;
	while (i < n) {
		unsigned cp;
		int w;
		size_t k = text_next(s + i, n - i, &cp, &w);
		if (total + w > cols)
			break;
		total += w;
		i += k;
	}
	if (used)
		*used = total;
	return i;
}

char *text_cell(const char *s, int cols, int right)
{
	sbuf b;
	sbuf_init(&b);
	if (cols <= 0)
		return sbuf_detach(&b);
	int w = text_width(s);
	const char *body = s;
	size_t blen = strlen(s);
	int bw = w;
	int ellipsis = 0;
	if (w > cols) {
		blen = text_fit(s, cols - 1, &bw);
		ellipsis = 1;
	}
	int pad = cols - bw - ellipsis;
	if (right)
		for (int i = 0; i < pad; i++)
			sbuf_addc(&b, ' ');
	sbuf_add(&b, body, blen);
	if (ellipsis)
		sbuf_adds(&b, "\xe2\x80\xa6");
	if (!right)
		for (int i = 0; i < pad; i++)
			sbuf_addc(&b, ' ');
	return sbuf_detach(&b);
}

size_t text_wrap(const char *s, int cols, size_t *len)
{
	size_t nl = strcspn(s, "\n");
	int used;
	size_t fit = text_fit(s, cols, &used);
	if (fit >= nl) {
		*len = nl;
		return s[nl] ? nl + 1 : nl;
	}
	/* the last place a line may end within fit: after a blank (which is dropped), or
	 * beside a wide (CJK) character, which may be broken before or after as Chinese
	 * text is; whichever comes later */
	size_t space = 0, cjk = 0, n = strlen(s);
	int prev_wide = 0;
	for (size_t i = 0; i < fit;) {
		unsigned cp;
		int w;
		size_t k = text_next(s + i, n - i, &cp, &w);
		if ((w == 2 || prev_wide) && i > 0)
			cjk = i; /* before this character */
		prev_wide = w == 2;
		i += k;
		if (cp == ' ')
			space = i;
		else if (prev_wide && i <= fit)
			cjk = i; /* after a wide character */
	}
	if (fit < n && cjk == fit && s[fit] == ' ')
		space = fit + 1; /* the line ends right before a blank: drop it */
	if (space && space >= cjk) {
		*len = space - 1;
		return space;
	}
	if (cjk) {
		*len = cjk;
		return cjk;
	}
	if (fit == 0) /* not even one character fits: take it anyway */
		fit = text_next(s, n, &(unsigned){ 0 }, &(int){ 0 });
	*len = fit;
	return fit;
}
