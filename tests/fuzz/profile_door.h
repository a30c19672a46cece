/* Shared by fuzz_profile_csv.c and fuzz_trace_json.c: runs app/profile.c over the input,
 * handed out in pieces of 1 to 64 bytes (the first byte chooses) so every token crosses
 * a read boundary, and checks the invariants of the result: no crash, a refusal is one
 * line naming the file, the aggregates are finite and sorted, counts add up. */
#ifndef FUZZ_PROFILE_DOOR_H
#define FUZZ_PROFILE_DOOR_H

#include "err.h"
#include "profile.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* prefix (may be "") is put before the input, to steer it into one reader. */
static int door_profile(const char *prefix, const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t plen = strlen(prefix);
	uint8_t *buf = malloc(plen + size);
	if (!buf)
		return 0;
	memcpy(buf, prefix, plen);
	memcpy(buf + plen, data + 1, size - 1);
	artifact_mem m = { buf, plen + size - 1, (size_t)(data[0] % 64) + 1 };
	artifact_source src = { artifact_mem_read_at, &m, m.len };
	profile *p = NULL;
	int rc = profile_read(&p, "fuzz.prof", &src);
	if (rc) {
		if (p || !strstr(err_message(), "fuzz.prof") || strchr(err_message(), '\n'))
			abort();
	} else {
		if (!isfinite(p->total_us) || p->bad_rows > p->rows + 1 || p->bytes > m.len)
			abort();
		for (size_t i = 1; i < p->nops; i++)
			if (p->ops[i].total_us > p->ops[i - 1].total_us)
				abort();
		for (size_t i = 0; i < p->nsteps; i++)
			if (p->form == PROFILE_TRACE && p->steps[i].busy_us > p->steps[i].dur_us + 1e-6)
				abort();
		profile_free(p);
	}
	free(buf);
	return 0;
}

#endif
