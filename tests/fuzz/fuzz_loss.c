/* libFuzzer target: the training-log parser behind `ferry compare loss`. Any bytes must
 * parse or be refused with one error line, never crash, read out of bounds or leak; a
 * parsed series is compared with itself and rendered both ways. An input whose first line
 * is "#column=SPEC" is parsed with --column SPEC (one name, or "a+b" for a sum).
 * fuzz-modules: compare_loss gbtext json util err */
#include "compare_loss.h"
#include "err.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char col[128];
	const char *column = NULL;
	const uint8_t *nl = size > 8 && memcmp(data, "#column=", 8) == 0 ? memchr(data, '\n', size) : NULL;
	if (nl && (size_t)(nl - data) - 8 < sizeof col) {
		size_t n = (size_t)(nl - data) - 8;
		memcpy(col, data + 8, n);
		col[n] = '\0';
		if (!memchr(col, '\0', n))
			column = col;
		size -= (size_t)(nl + 1 - data);
		data = nl + 1;
	}
	loss_series s;
	if (loss_parse(&s, "fuzz.log", (const char *)data, size, column) == 0) {
		if (s.n == 0 || strchr(err_message(), '\n'))
			abort();
		for (size_t i = 1; i < s.n; i++)
			if (s.pts[i].step <= s.pts[i - 1].step)
				abort(); /* sorted, one point per step */
		loss_result r;
		loss_compare(&r, &s, &s, 0.02);
		/* a log against itself: every step aligns, NaNs are shared, nothing is cut short;
		 * it passes unless it ends in NaN/inf, which fails on both sides at once */
		if (r.n != s.n || r.nonfinite_b || r.truncated || r.blowup != r.blowup_a || (r.finite && !r.pass && !r.blowup))
			abort();
		sbuf b;
		sbuf_init(&b);
		loss_render_text(&b, &r, &s, &s, "a", "b", "a log compared with itself");
		sbuf_done(&b);
		cJSON_Delete(loss_result_json(&r, &s, &s, NULL, NULL));
		loss_result_done(&r);
		loss_series_done(&s);
	} else if (strchr(err_message(), '\n')) {
		abort();
	}
	err_clear();
	return 0;
}
