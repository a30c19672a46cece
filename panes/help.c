/* help — the key overlay, generated from the keymap table (keys, command name,
 * help text in the interface language). */
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct hstate {
	int scroll, total, h;
} hstate;

static const char *view_title(int view)
{
	switch (view) {
	case VIEW_FINDINGS: return _("In the findings list");
	case VIEW_TIMELINE: return _("In the timeline");
	case VIEW_FIX: return _("In the fix preview");
	default: return _("Everywhere");
	}
}

static void *help_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(hstate));
}

static void help_close(void *st)
{
	free(st);
}

static void help_draw(void *st, tui *t, ui_win *w)
{
	hstate *s = st;
	(void)t;
	int width = ui_win_width(w);
	ui_erase(w);
	s->h = ui_win_height(w) - 2;
	char head[128];
	const char *hint = _("Esc closes, j/k scroll, : runs a command by name");
	snprintf(head, sizeof head, "%s   (%s)", _("ferry workbench keys"), hint);
	if (text_width(head) > width - 2) /* a narrow window: how to close and scroll matters more */
		snprintf(head, sizeof head, "%s", hint);
	ui_fill_row(w, 0, UI_BAR);
	ui_put(w, 0, 1, UI_BAR, head, width - 2);
	int row = 0;
	static const int views[] = { VIEW_ANY, VIEW_FINDINGS, VIEW_TIMELINE, VIEW_FIX };
	for (size_t v = 0; v < sizeof views / sizeof views[0]; v++) {
		if (row >= s->scroll && row - s->scroll < s->h)
			ui_put(w, 1 + row - s->scroll, 1, UI_TITLE, view_title(views[v]), 0);
		row++;
		for (const keymap_entry *e = keymap; e->name; e++) {
			if (e->view != views[v] || !e->help)
				continue;
			/* the help text wraps under itself; the keys and name stand on its first row */
			const char *text = keymap_help(e);
			int cols = width - 32 > 10 ? width - 32 : 10;
			for (int first = 1; first || *text; first = 0) {
				size_t len, next = text_wrap(text, cols, &len);
				if (row >= s->scroll && row - s->scroll < s->h) {
					int y = 1 + row - s->scroll;
					if (first) {
						char *keys = text_cell(keymap_label(e), 11, 0);
						char *name = text_cell(e->name, 16, 0);
						ui_put(w, y, 2, UI_KEY, keys, 11);
						ui_put(w, y, 14, UI_DIM, name, 16);
						free(keys);
						free(name);
					}
					ui_putn(w, y, 31, UI_NORMAL, text, len, cols);
				}
				row++;
				text = next ? text + next : "";
			}
		}
	}
	s->total = row;
}

static int help_handle(void *st, tui *t, int cmd, const char *arg)
{
	hstate *s = st;
	(void)arg;
	if (cmd == CMD_BACK || cmd == CMD_CANCEL || cmd == CMD_HELP) {
		t->help = 0;
		return PANE_HANDLED | PANE_LAYOUT;
	}
	return pane_scroll_cmd(&s->scroll, s->total, s->h, cmd);
}

const pane_ops pane_help_ops = { "help", help_open, help_close, help_draw, help_handle };
