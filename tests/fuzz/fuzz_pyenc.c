/*
 * fuzz_pyenc — arbitrary bytes as a Python file that may declare its encoding (PEP 263):
 * pyenc_decode either leaves them alone, refuses them with a message, or returns valid
 * UTF-8 of the length it states.
 * fuzz-modules: pyenc util err intl
 */
#include "err.h"
#include "pyenc.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL, enc[32];
	size_t len = 0;
	int rc = pyenc_decode(&out, &len, enc, "fuzz.py", (const char *)data, size);
	if (rc == 1) {
		if (!out || out[len] != '\0' || !util_utf8_valid(out, len) || !*enc)
			abort();
		free(out);
	} else if (rc == 0) {
		if (out)
			abort();
	} else if (!*err_message() || out) {
		abort();
	}
	err_clear();
	return 0;
}
