/*
 * fuzz_safetext — arbitrary bytes as a string a plugin quotes from a client's file:
 * safetext_clean gives valid UTF-8 of the same text; safetext_quote_line of text that
 * spans lines gives one line, still valid UTF-8, no longer than SAFETEXT_QUOTE_MAX bytes
 * and the mark; text on one line comes back unchanged.
 * fuzz-modules: safetext util err
 */
#include "safetext.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *clean = safetext_clean((const char *)data, size);
	size_t len = strlen(clean);
	if (!util_utf8_valid(clean, len))
		abort();
	char *quoted = safetext_quote_line(clean);
	size_t qlen = strlen(quoted);
	if (!util_utf8_valid(quoted, qlen))
		abort();
	if (strchr(clean, '\n')) {
		if (strchr(quoted, '\n') || strchr(quoted, '\r') || qlen > SAFETEXT_QUOTE_MAX + strlen("…"))
			abort();
	} else if (strcmp(quoted, clean) != 0) {
		abort();
	}
	free(quoted);
	free(clean);
	return 0;
}
