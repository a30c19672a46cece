/* messages — the messages shown on the message line so far (msglog.h), newest first, each
 * whole: its time, then its text wrapped in the colour it was shown in. A message too long
 * for the line is read here; it scrolls with the movement keys and searches (/ n N). */
#include "intl.h"
#include "msglog.h"
#include "pane.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TEXT_X 11 /* where a message's text starts, right of its time */

typedef struct mstate {
	int scroll, total, h; /* first row shown, rows of every message, rows shown */
	int *starts;          /* the row each message starts on at the last draw */
	size_t nstarts;
} mstate;

static void *messages_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(mstate));
}

static void messages_close(void *st)
{
	mstate *s = st;
	if (!s)
		return;
	free(s->starts);
	free(s);
}

/* Paints the messages' rows that fall in [s->scroll, s->scroll + shown) from row y0 of w
 * (none when shown is 0) and notes where each starts; returns the rows they all take. */
static int draw_rows(mstate *s, tui *t, ui_win *w, int y0, int shown)
{
	int row = 0;
	for (size_t i = 0; i < s->nstarts; i++) {
		const msglog_entry *e = msglog_get(t->msgs, i);
		int skip = s->scroll - row > 0 ? s->scroll - row : 0, at = row - s->scroll > 0 ? row - s->scroll : 0;
		int room = at < shown ? shown - at : 0;
		if (room && !skip) {
			char when[16];
			struct tm tm;
			localtime_r(&e->at, &tm);
			strftime(when, sizeof when, "%H:%M:%S", &tm);
			ui_put(w, y0 + at, 1, UI_DIM, when, 0);
		}
		s->starts[i] = row;
		row += pane_wrap(w, y0 + at, TEXT_X, e->attr, e->text, skip, room);
	}
	return row;
}

static void messages_draw(void *st, tui *t, ui_win *w)
{
	mstate *s = st;
	size_t n = msglog_count(t->msgs);
	ui_erase(w);
	char head[160];
	snprintf(head, sizeof head, _("Messages, newest first (%zu)"), n);
	int y0 = pane_title(w, 0, head), h = ui_win_height(w) - y0;
	s->starts = xrealloc(s->starts, (n ? n : 1) * sizeof *s->starts);
	s->nstarts = n;
	if (!n) {
		ui_put(w, y0 + 1, 2, UI_DIM, _("No message has been shown yet."), 0);
		s->total = 0;
		return;
	}
	/* measured first: when they do not all fit, the last row is the marker's */
	s->total = draw_rows(s, t, w, y0, 0);
	s->h = pane_text_rows(s->total, h);
	int max = s->total - s->h > 0 ? s->total - s->h : 0;
	if (s->scroll > max)
		s->scroll = max;
	draw_rows(s, t, w, y0, s->h);
	pane_more(w, y0, h, s->scroll, s->total, NULL);
}

/* Search: the messages holding the text. */
static int message_match(int i, const char *text, void *ctx)
{
	const msglog_entry *e = msglog_get(ctx, (size_t)i);
	return e && pane_has(text, e->text, (char *)NULL);
}

/* The message shown on the first row, the one a search goes on from. */
static int message_at_top(const mstate *s)
{
	int i = 0;
	while ((size_t)i + 1 < s->nstarts && s->starts[i + 1] <= s->scroll)
		i++;
	return i;
}

static int messages_handle(void *st, tui *t, int cmd, const char *arg)
{
	mstate *s = st;
	if ((cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) && s->nstarts) {
		int i = message_at_top(s);
		if (!pane_find(&i, (int)s->nstarts, cmd == CMD_SEARCH_NEXT ? 1 : -1, arg, message_match, t->msgs))
			return 0;
		int max = s->total - s->h > 0 ? s->total - s->h : 0;
		s->scroll = s->starts[i] < max ? s->starts[i] : max;
		return PANE_HANDLED | PANE_REDRAW;
	}
	return pane_scroll_cmd(&s->scroll, s->total, s->h, cmd);
}

const pane_ops pane_messages_ops = { "messages", messages_open, messages_close, messages_draw, messages_handle };
