/* audit — the audit chain newest first: each event's number, time, kind and actor,
 * and its payload (the event's data as the chain hashes it) under it; the selected
 * event's payload is wrapped in full. The last `verify` result (V or :verify) is
 * shown in place above the list, with every problem it found. */
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct austate {
	tui_event *e;
	size_t n;
	int loaded;
	unsigned gen;
	int cur, top, h;
	char err[256];
} austate;

static void load(austate *s, tui *t)
{
	if (s->loaded && s->gen == t->reload_gen)
		return;
	model_events_free(s->e, s->n);
	s->e = NULL;
	s->n = 0;
	s->err[0] = '\0';
	if (model_events(&s->e, &s->n, &t->m) != 0)
		snprintf(s->err, sizeof s->err, "%s", _("cannot read the audit chain"));
	s->loaded = 1;
	s->gen = t->reload_gen;
	if (s->cur >= (int)s->n)
		s->cur = s->n ? (int)s->n - 1 : 0;
}

static void *audit_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(austate));
}

static void audit_close(void *st)
{
	austate *s = st;
	if (!s)
		return;
	model_events_free(s->e, s->n);
	free(s);
}

/* The verify result, one line per row (at most max rows); returns rows used. */
static int draw_verify(ui_win *w, int y, tui *t, int max)
{
	int width = ui_win_width(w), used = 0;
	const char *p = t->verify;
	ui_put(w, y, 1, UI_TITLE, _("verify:"), 0);
	while (*p && used < max) {
		size_t n = strcspn(p, "\n");
		ui_putn(w, y + used, 10, t->verify_ok ? UI_OK : UI_ERROR, p, n, width - 11);
		used++;
		p += n;
		if (*p)
			p++;
	}
	return used ? used : 1;
}

static void audit_draw(void *st, tui *t, ui_win *w)
{
	austate *s = st;
	load(s, t);
	ui_erase(w);
	int width = ui_win_width(w), h = ui_win_height(w);
	char head[160];
	snprintf(head, sizeof head, P_("Audit chain, newest first (%zu event) · V verifies", "Audit chain, newest first (%zu events) · V verifies", s->n),
	         s->n);
	int y = pane_title(w, 0, head);
	if (t->verify)
		y += draw_verify(w, y, t, 4) + 1;
	if (*s->err) {
		ui_put(w, y, 2, UI_ERROR, s->err, 0);
		return;
	}
	/* two rows per event; the selected one wraps its payload over up to 4 rows */
	s->h = (h - y - 4) / 2;
	if (s->h < 1)
		s->h = 1;
	pane_scroll(&s->top, s->cur, s->h, (int)s->n);
	for (int i = s->top; i < (int)s->n && y < h; i++) {
		const tui_event *e = &s->e[i];
		int sel = i == s->cur, attr = sel ? UI_SELECT : UI_NORMAL;
		ui_fill_row(w, y, attr);
		char *kind = text_cell(pane_word(e->kind), 10, 0);
		char line[512];
		snprintf(line, sizeof line, "%5lld  %s  %s  %s  %.12s", e->seq, e->time, kind, e->actor, e->hash);
		free(kind);
		ui_put(w, y++, 1, attr, line, width - 2);
		if (y >= h)
			break;
		if (sel) {
			int room = h - y < 4 ? h - y : 4, need = pane_wrap(w, y, 8, UI_DIM, e->payload, 0, room);
			y += need < room ? (need ? need : 1) : room;
		} else {
			ui_put(w, y++, 8, UI_DIM, e->payload, width - 9);
		}
	}
}

/* Search: "#N" the event of that sequence number; words its kind, actor, time, payload
 * or hash. */
static int event_match(int i, const char *text, void *ctx)
{
	const tui_event *e = &((const austate *)ctx)->e[i];
	int id = pane_id_match(text, e->seq);
	if (id >= 0)
		return id;
	return pane_has(text, e->kind, pane_word(e->kind), e->actor, e->time, e->payload, e->hash, (char *)NULL);
}

static int audit_handle(void *st, tui *t, int cmd, const char *arg)
{
	austate *s = st;
	if (cmd == CMD_RELOAD) {
		s->loaded = 0;
		return 0;
	}
	load(s, t);
	if ((cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) && s->n)
		return pane_find(&s->cur, (int)s->n, cmd == CMD_SEARCH_NEXT ? 1 : -1, arg, event_match, s)
		           ? PANE_HANDLED | PANE_REDRAW : 0;
	if (pane_move(&s->cur, (int)s->n, s->h, cmd))
		return PANE_HANDLED | PANE_REDRAW;
	return 0;
}

const pane_ops pane_audit_ops = { "audit", audit_open, audit_close, audit_draw, audit_handle };
