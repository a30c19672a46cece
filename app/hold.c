/* hold — see hold.h. */
#include "hold.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The token diff is computed on at most this many cells (old × new tokens, after the
 * common ends are taken off); a larger change counts all its middle as inserted. */
#define LCS_CELLS_MAX (1u << 22)

typedef struct token {
	const char *s;
	size_t len;
	int line; /* 0-based line of the text */
	int word; /* a run of letters, digits, `_` or non-ASCII bytes */
} token;

static int word_byte(unsigned char c)
{
	return c == '_' || c >= 0x80 || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int blank_byte(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n';
}

/* The tokens of text, white space left out. Caller frees *out. */
static size_t tokenize(token **out, const char *text)
{
	size_t n = 0, cap = 0;
	int line = 0;
	*out = NULL;
	for (const char *p = text; *p;) {
		if (blank_byte((unsigned char)*p)) {
			line += *p++ == '\n';
			continue;
		}
		const char *q = p + 1;
		int word = word_byte((unsigned char)*p);
		while (word && *q && word_byte((unsigned char)*q))
			q++;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[n++] = (token){ p, (size_t)(q - p), line, word };
		p = q;
	}
	return n;
}

static int same(const token *a, const token *b)
{
	return a->len == b->len && memcmp(a->s, b->s, a->len) == 0;
}

/* Marks in kept the tokens of b that a longest common subsequence of a and b keeps
 * from a; the others are what b put in. */
static void mark_kept(unsigned char *kept, const token *a, size_t na, const token *b, size_t nb)
{
	size_t pre = 0, suf = 0;
	while (pre < na && pre < nb && same(&a[pre], &b[pre]))
		kept[pre++] = 1;
	while (suf < na - pre && suf < nb - pre && same(&a[na - 1 - suf], &b[nb - 1 - suf])) {
		kept[nb - 1 - suf] = 1;
		suf++;
	}
	size_t n = na - pre - suf, m = nb - pre - suf;
	if (!n || !m || (n + 1) * (m + 1) > LCS_CELLS_MAX)
		return;
	a += pre;
	b += pre;
	kept += pre;
	/* len[i][j]: the longest common subsequence of a[i..] and b[j..] */
	uint32_t *len = xcalloc((n + 1) * (m + 1), sizeof *len);
#define LEN(i, j) len[(i) * (m + 1) + (j)]
	for (size_t i = n; i-- > 0;)
		for (size_t j = m; j-- > 0;)
			LEN(i, j) = same(&a[i], &b[j]) ? LEN(i + 1, j + 1) + 1
			            : LEN(i + 1, j) >= LEN(i, j + 1) ? LEN(i + 1, j) : LEN(i, j + 1);
	for (size_t i = 0, j = 0; i < n && j < m;) {
		if (same(&a[i], &b[j])) {
			kept[j] = 1;
			i++;
			j++;
		} else if (LEN(i + 1, j) >= LEN(i, j + 1)) {
			i++;
		} else {
			j++;
		}
	}
#undef LEN
	free(len);
}

/* Whether tokens t[from .. to-1] occur one after another in now. */
static int occurs(const token *t, size_t from, size_t to, const token *now, size_t nnow)
{
	size_t k = to - from;
	for (size_t i = 0; i + k <= nnow; i++) {
		size_t j = 0;
		while (j < k && same(&now[i + j], &t[from + j]))
			j++;
		if (j == k)
			return 1;
	}
	return 0;
}

/* The runs of tokens the change put in on the line of nw that starts at token first:
 * counted (1) when a run holds a word, held (1) when each run, with its anchors, occurs
 * in now. Returns the index of the next line's first token. */
static size_t judge_line(int *counted, int *held, const token *nw, size_t nnw, const unsigned char *kept,
                         size_t first, const token *now, size_t nnow)
{
	size_t end = first;
	while (end < nnw && nw[end].line == nw[first].line)
		end++;
	*counted = 0;
	*held = 1;
	for (size_t i = first; i < end;) {
		if (kept[i]) {
			i++;
			continue;
		}
		size_t run = i;
		while (i < end && !kept[i])
			*counted |= nw[i++].word;
		size_t from = run > first ? run - 1 : run, to = i < end ? i + 1 : i;
		*held &= occurs(nw, from, to, now, nnow);
	}
	return end;
}

int hold_still(const char *old_text, const char *new_text, const char *now_text)
{
	token *old = NULL, *nw = NULL, *now = NULL;
	size_t nold = tokenize(&old, old_text), nnw = tokenize(&nw, new_text), nnow = tokenize(&now, now_text);
	int holds;
	if (nnw && !nnow) {
		holds = 0; /* every line it wrote is gone */
	} else {
		unsigned char *kept = xcalloc(nnw ? nnw : 1, 1);
		mark_kept(kept, old, nold, nw, nnw);
		int any_counted = 0, counted, held;
		holds = 0;
		for (size_t i = 0; i < nnw && !holds;) {
			i = judge_line(&counted, &held, nw, nnw, kept, i, now, nnow);
			any_counted |= counted;
			holds = counted && held;
		}
		if (!any_counted) { /* it took text out: undone when the lines read as before it */
			holds = nold != nnow;
			for (size_t i = 0; i < nold && !holds; i++)
				holds = !same(&old[i], &now[i]);
		}
		free(kept);
	}
	free(old);
	free(nw);
	free(now);
	return holds;
}
