/* textscan — see textscan.h. */
#include "textscan.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct textscan {
	size_t n;            /* patterns */
	char **pat;          /* copies */
	size_t *len;
	int32_t *next;       /* next pattern in the same bucket, -1 at the end */
	int32_t head2[65536];/* first pattern whose first two bytes are the index, or -1 */
	int32_t head1[256];  /* first one-byte pattern with that byte, or -1 */
	uint8_t any2[8192];  /* bitmap of the two-byte keys in use */
};

textscan *textscan_new(const char *const *pats, size_t n)
{
	textscan *ts = xcalloc(1, sizeof *ts);
	ts->n = n;
	ts->pat = xcalloc(n ? n : 1, sizeof *ts->pat);
	ts->len = xcalloc(n ? n : 1, sizeof *ts->len);
	ts->next = xcalloc(n ? n : 1, sizeof *ts->next);
	memset(ts->head2, 0xff, sizeof ts->head2);
	memset(ts->head1, 0xff, sizeof ts->head1);
	for (size_t i = 0; i < n; i++) {
		ts->pat[i] = xstrdup(pats[i]);
		ts->len[i] = strlen(pats[i]);
		const unsigned char *p = (const unsigned char *)pats[i];
		ts->next[i] = -1;
		if (ts->len[i] == 1) {
			ts->next[i] = ts->head1[p[0]];
			ts->head1[p[0]] = (int32_t)i;
		} else if (ts->len[i] >= 2) {
			unsigned key = (unsigned)p[0] << 8 | p[1];
			ts->next[i] = ts->head2[key];
			ts->head2[key] = (int32_t)i;
			ts->any2[key >> 3] |= (uint8_t)(1u << (key & 7));
		}
	}
	return ts;
}

void textscan_free(textscan *ts)
{
	if (!ts)
		return;
	for (size_t i = 0; i < ts->n; i++)
		free(ts->pat[i]);
	free(ts->pat);
	free(ts->len);
	free(ts->next);
	free(ts);
}

size_t textscan_run(const textscan *ts, const char *text, size_t len, unsigned char *hits)
{
	const unsigned char *t = (const unsigned char *)text;
	size_t found = 0;
	for (size_t i = 0; i < len && found < ts->n; i++) {
		for (int32_t j = ts->head1[t[i]]; j >= 0; j = ts->next[j])
			if (!hits[j]) {
				hits[j] = 1;
				found++;
			}
		if (i + 1 >= len)
			break;
		unsigned key = (unsigned)t[i] << 8 | t[i + 1];
		if (!(ts->any2[key >> 3] & (1u << (key & 7))))
			continue;
		for (int32_t j = ts->head2[key]; j >= 0; j = ts->next[j])
			if (!hits[j] && ts->len[j] <= len - i && memcmp(t + i, ts->pat[j], ts->len[j]) == 0) {
				hits[j] = 1;
				found++;
			}
	}
	return found;
}
