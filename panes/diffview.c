/* diffview — see diffview.h. */
#include "diffview.h"
#include "keymap.h"
#include "pane.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void diffview_clear(diffview *d)
{
	free(d->text);
	free(d->lines);
	free(d->dim);
	d->text = NULL;
	d->lines = NULL;
	d->dim = NULL;
	d->nlines = d->scroll = d->npre = d->hscroll = 0;
	d->match = d->mark = -1;
}

void diffview_set(diffview *d, const char *text)
{
	diffview_clear(d);
	if (!text)
		return;
	d->text = xstrdup(text);
	size_t len = strlen(d->text), cap = 64;
	d->lines = xmalloc(cap * sizeof *d->lines);
	for (size_t i = 0; i < len;) {
		if ((size_t)d->nlines == cap)
			d->lines = xrealloc(d->lines, (cap *= 2) * sizeof *d->lines);
		d->lines[d->nlines++] = i;
		const char *nl = strchr(d->text + i, '\n');
		i = nl ? (size_t)(nl - d->text) + 1 : len;
	}
}

void diffview_dim(diffview *d, int from, int to, int dim)
{
	if (!d->nlines)
		return;
	if (!d->dim)
		d->dim = xcalloc((size_t)d->nlines, 1);
	for (int i = from < 0 ? 0 : from; i < to && i < d->nlines; i++)
		d->dim[i] = (unsigned char)dim;
}

int diffview_attr(const char *l)
{
	if (util_starts_with(l, "+++") || util_starts_with(l, "---") || util_starts_with(l, "diff "))
		return UI_TITLE;
	if (l[0] == '+')
		return UI_ADD;
	if (l[0] == '-')
		return UI_DEL;
	if (util_starts_with(l, "@@"))
		return UI_HUNK;
	return UI_NORMAL;
}

void diffview_draw(diffview *d, ui_win *w, int y, int x, int h)
{
	d->h = pane_text_rows(d->nlines, h > 0 ? h : 0);
	int max = d->nlines - d->h > 0 ? d->nlines - d->h : 0;
	if (d->scroll > max)
		d->scroll = max;
	for (int r = 0; r < d->h && d->scroll + r < d->nlines; r++) {
		int i = d->scroll + r;
		const char *l = d->text + d->lines[i];
		size_t len = strcspn(l, "\n");
		int attr = i == d->match ? UI_MATCH : d->dim && d->dim[i] ? UI_DIM
		         : i < d->npre ? d->pre_attr : d->plain ? UI_NORMAL : diffview_attr(l);
		if (i == d->match)
			ui_fill_row(w, y + r, attr);
		if (i == d->mark && x > 0) /* the cursor stands in the margin, the line keeps its colour */
			ui_put(w, y + r, x - 1, UI_SELECT, "▶", 1);
		ui_putn_clip(w, y + r, x, x - d->hscroll, attr, l, len);
	}
	pane_more(w, y, h, d->scroll, d->nlines, NULL);
}

/* The first line after (dir > 0) or before (dir < 0) line `from` that starts a hunk
 * ("@@") or a file ("diff "), or -1. */
static int hunk_from(const diffview *d, int from, int dir)
{
	for (int i = from + dir; i >= d->npre && i < d->nlines; i += dir) {
		const char *l = d->text + d->lines[i];
		if (util_starts_with(l, "@@") || util_starts_with(l, "diff "))
			return i;
	}
	return -1;
}

int diffview_scroll(diffview *d, int cmd)
{
	int max = d->nlines - d->h > 0 ? d->nlines - d->h : 0;
	int sc = d->scroll;
	if (cmd == CMD_SCROLL_RIGHT || cmd == CMD_SCROLL_LEFT) {
		d->hscroll += cmd == CMD_SCROLL_RIGHT ? DIFFVIEW_HSTEP : -DIFFVIEW_HSTEP;
		if (d->hscroll < 0)
			d->hscroll = 0;
		return 1;
	}
	if (cmd == CMD_BOTTOM) {
		sc = max;
	} else if (cmd == CMD_PHASE_NEXT || cmd == CMD_PHASE_PREV) {
		/* in a diff, ] and [ (l and h) go to the next or previous hunk */
		int at = hunk_from(d, sc, cmd == CMD_PHASE_NEXT ? 1 : -1);
		if (at < 0)
			return 1; /* no further hunk: stay, and do not switch phases underneath */
		sc = at > max ? max : at;
	} else if (!pane_move(&sc, max + 1, d->h, cmd)) {
		return 0;
	}
	d->scroll = sc;
	return 1;
}

/* 1 when the len bytes at l hold text, ignoring ASCII case. */
static int line_has(const char *l, size_t len, const char *text)
{
	size_t n = strlen(text);
	for (size_t i = 0; n && i + n <= len; i++)
		if (strncasecmp(l + i, text, n) == 0)
			return 1;
	return 0;
}

int diffview_find(diffview *d, const char *text, int dir)
{
	if (!d->nlines || !*text)
		return 0;
	int from = d->match >= 0 ? d->match : d->scroll - (dir > 0 ? 1 : 0);
	for (int k = 1; k <= d->nlines; k++) {
		int i = ((from + dir * k) % d->nlines + d->nlines) % d->nlines;
		const char *l = d->text + d->lines[i];
		if (!line_has(l, strcspn(l, "\n"), text))
			continue;
		d->match = i;
		/* the match a third of the way down, so what follows it shows */
		int third = d->h > 3 ? d->h / 3 : 0, max = d->nlines - d->h > 0 ? d->nlines - d->h : 0;
		d->scroll = i - third < 0 ? 0 : i - third > max ? max : i - third;
		return 1;
	}
	return 0;
}

int diffview_handle(diffview *d, int cmd, const char *arg)
{
	if (cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV)
		return arg && diffview_find(d, arg, cmd == CMD_SEARCH_NEXT ? 1 : -1) ? PANE_HANDLED | PANE_REDRAW : 0;
	return diffview_scroll(d, cmd) ? PANE_HANDLED | PANE_REDRAW : 0;
}
