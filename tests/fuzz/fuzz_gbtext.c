/*
 * fuzz_gbtext — arbitrary bytes as a log from a Chinese-locale host: gbtext_lines keeps
 * every line break, converts only lines that were not UTF-8, and each converted line
 * (gbtext_line, whole or cut) is valid UTF-8 within the room the header promises.
 * fuzz-modules: gbtext util err intl
 */
#include "gbtext.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t breaks(const char *s, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	size_t len = 0, lines = 0;
	char *out = gbtext_lines(text, size, &len, &lines);
	if (out) {
		if (!lines || out[len] != '\0' || breaks(out, len) != breaks(text, size))
			abort();
		free(out);
	} else if (lines) {
		abort();
	}
	gbtext *g = gbtext_new();
	char *room = xmalloc(GBTEXT_ROOM(size));
	for (int cut = 0; cut < 2; cut++) {
		size_t n = gbtext_line(g, room, text, size, cut);
		if (n > GBTEXT_ROOM(size) || (n && !util_utf8_valid(room, n)))
			abort();
	}
	free(room);
	gbtext_free(g);
	return 0;
}
