/* accel — which accelerator a free text names (see accel.h). */
#include "accel.h"

#include <string.h>
#include <strings.h>

static const char *const gpu_words[] = { "gpu", "nvidia", "cuda", "英伟达", NULL };
static const char *const npu_words[] = { "npu", "ascend", "atlas", "昇腾", NULL };

static int is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* 1 when s holds one of words as a word of its own: no letter right before it, and none
 * after it but a plural 's'. */
static int names_any(const char *s, const char *const *words)
{
	for (size_t i = 0; s && words[i]; i++) {
		size_t n = strlen(words[i]);
		for (const char *p = strcasestr(s, words[i]); p; p = strcasestr(p + 1, words[i])) {
			const char *after = p + n;
			if (*after == 's' || *after == 'S')
				after++;
			if ((p == s || !is_letter(p[-1])) && !is_letter(*after))
				return 1;
		}
	}
	return 0;
}

int accel_named(const char *text)
{
	return (names_any(text, gpu_words) ? ACCEL_GPU : 0) | (names_any(text, npu_words) ? ACCEL_NPU : 0);
}
