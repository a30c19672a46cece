/* pyenc — see pyenc.h. */
#include "pyenc.h"
#include "err.h"
#include "intl.h"
#include "util.h"

#include <errno.h>
#include <iconv.h>
#include <stdlib.h>
#include <string.h>

/* The encoding named by a PEP 263 comment in line [p, end): a comment whose text matches
 * coding[:=]\s*([-\w.]+). 1 and the name in enc, or 0. */
static int declared_in(char enc[32], const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\f'))
		p++;
	if (p >= end || *p != '#')
		return 0;
	for (const char *c = p; c + 7 <= end; c++) {
		if (memcmp(c, "coding", 6) != 0 || (c[6] != ':' && c[6] != '='))
			continue;
		const char *v = c + 7;
		while (v < end && (*v == ' ' || *v == '\t'))
			v++;
		size_t n = 0;
		while (v + n < end && n < 31 &&
		       ((v[n] >= 'a' && v[n] <= 'z') || (v[n] >= 'A' && v[n] <= 'Z') || (v[n] >= '0' && v[n] <= '9') ||
		        v[n] == '-' || v[n] == '_' || v[n] == '.'))
			n++;
		if (!n)
			return 0;
		memcpy(enc, v, n);
		enc[n] = '\0';
		return 1;
	}
	return 0;
}

/* The declaration on line 1 or 2, as PEP 263 allows. */
static int declared(char enc[32], const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	for (int line = 0; line < 2 && p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;
		if (declared_in(enc, p, eol))
			return 1;
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* Python's spellings of encodings iconv names otherwise (Python's codec aliases: case,
 * '_' and '-' do not matter there). */
static const struct {
	const char *python, *iconv;
} aliases[] = {
	{ "latin-1", "ISO-8859-1" }, { "latin1", "ISO-8859-1" }, { "l1", "ISO-8859-1" },
	{ "iso-latin-1", "ISO-8859-1" }, { "iso8859-1", "ISO-8859-1" }, { "8859", "ISO-8859-1" },
	{ "cp819", "ISO-8859-1" }, { "utf8", "UTF-8" }, { "u8", "UTF-8" }, { "sjis", "SHIFT_JIS" },
	{ "shift-jis", "SHIFT_JIS" }, { "s-jis", "SHIFT_JIS" }, { "windows-1252", "CP1252" },
};

/* An iconv descriptor from UTF-8's point of view for Python's encoding name. */
static iconv_t open_from(const char *enc)
{
	char norm[32];
	size_t i = 0;
	for (; enc[i] && i + 1 < sizeof norm; i++)
		norm[i] = enc[i] == '_' ? '-' : (enc[i] >= 'A' && enc[i] <= 'Z') ? (char)(enc[i] - 'A' + 'a') : enc[i];
	norm[i] = '\0';
	for (size_t k = 0; k < sizeof aliases / sizeof aliases[0]; k++)
		if (strcmp(norm, aliases[k].python) == 0)
			return iconv_open("UTF-8", aliases[k].iconv);
	iconv_t cd = iconv_open("UTF-8", enc);
	return cd != (iconv_t)-1 ? cd : iconv_open("UTF-8", norm);
}

int pyenc_decode(char **out, size_t *outlen, char encoding[32], const char *path, const char *text, size_t len)
{
	char enc[32];
	if (util_utf8_valid(text, len) || !declared(enc, text, len))
		return 0;
	iconv_t cd = open_from(enc);
	if (cd == (iconv_t)-1)
		return err_set(FERRY_ECORRUPT, _("%s: declares the encoding '%s', which this system cannot read"), path, enc);
	size_t cap = len * 4 + 4, left_out = cap - 1, left_in = len; /* room for the NUL */
	char *buf = xmalloc(cap), *dst = buf, *src = (char *)text;
	size_t r = iconv(cd, &src, &left_in, &dst, &left_out);
	int bad = r == (size_t)-1;
	int why = errno;
	iconv_close(cd);
	if (bad) {
		free(buf);
		return err_set(FERRY_ECORRUPT, _("%s: not valid %s text at byte %zu (%s)"), path, enc, len - left_in,
		               strerror(why));
	}
	*outlen = cap - 1 - left_out;
	buf[*outlen] = '\0';
	*out = buf;
	memcpy(encoding, enc, sizeof enc);
	return 1;
}
