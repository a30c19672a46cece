/* finding — see finding.h. */
#include "finding.h"
#include "util.h"

#include <stdlib.h>

void finding_clear(finding *f)
{
	if (!f)
		return;
	free(f->plugin);
	free(f->phase);
	free(f->severity);
	free(f->category);
	free(f->file);
	free(f->message);
	free(f->suggestion);
	free(f->i18n);
	free(f->fingerprint);
	free(f->construct);
	free(f->status);
	for (size_t i = 0; i < f->nedits; i++)
		free(f->edits[i].text);
	free(f->edits);
}

void finding_free(finding *f)
{
	finding_clear(f);
	free(f);
}

/* Appends text[from, to) with runs of white space folded to one space. */
static void add_folded(sbuf *b, const char *text, size_t from, size_t to)
{
	int in_space = 0;
	for (size_t i = from; i < to; i++) {
		char c = text[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			in_space = 1;
			continue;
		}
		if (in_space && b->len)
			sbuf_addc(b, ' ');
		in_space = 0;
		sbuf_addc(b, c);
	}
}

char *finding_fingerprint(const char *plugin, const char *file, const char *text, size_t len,
                          size_t start, size_t end, const char *key)
{
	sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, "%s\n%s\n%s\n", plugin, file ? file : "", key ? key : "");
	if (text && start <= end && end <= len) {
		/* context: the line before, the matched line(s), the line after */
		size_t from = start, to = end;
		int nl = 0;
		while (from > 0 && nl < 2) {
			if (text[from - 1] == '\n')
				nl++;
			if (nl < 2)
				from--;
		}
		nl = 0;
		while (to < len && nl < 2) {
			if (text[to] == '\n')
				nl++;
			to++;
		}
		add_folded(&b, text, start, end);
		sbuf_addc(&b, '\n');
		add_folded(&b, text, from, to);
	}
	char hex[65];
	util_sha256_hex(hex, b.buf, b.len);
	sbuf_done(&b);
	return xstrndup(hex, 24);
}

char *finding_construct(const char *file, const char *text, size_t len, size_t start, size_t end)
{
	return finding_fingerprint("", file, text, len, start, end, NULL);
}
