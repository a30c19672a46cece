/* palette — the `:` command list: every keymap command whose name starts with
 * what has been typed, with its keys and help, so commands can be found and run
 * by name. The typed line itself is edited by the main loop's prompt. */
#include "i18n.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static void *palette_open(tui *t)
{
	(void)t;
	return NULL;
}

static void palette_close(void *st)
{
	(void)st;
}

static void palette_draw(void *st, tui *t, ui_win *w)
{
	(void)st;
	const char *typed = t->prompt_buf ? t->prompt_buf : "";
	size_t n = strcspn(typed, " ");
	int width = ui_win_width(w), h = ui_win_height(w);
	ui_erase(w);
	ui_fill_row(w, 0, UI_BAR);
	ui_put(w, 0, 1, UI_BAR, T("Commands (Tab completes, Enter runs, Esc cancels)"), width - 2);
	int y = 1;
	for (const keymap_entry *e = keymap; e->name && y < h; e++) {
		if (!e->help_en || strncmp(e->name, typed, n) != 0)
			continue;
		char *name = text_cell(e->name, 16, 0);
		char *keys = text_cell(e->label ? e->label : "", 10, 0);
		ui_put(w, y, 1, UI_TITLE, name, 16);
		ui_put(w, y, 18, UI_KEY, keys, 10);
		ui_put(w, y, 29, UI_NORMAL, keymap_help(e), width - 30);
		free(name);
		free(keys);
		y++;
	}
	if (y == 1)
		ui_put(w, 1, 1, UI_DIM, T("no command starts with that"), 0);
}

static int palette_handle(void *st, tui *t, int cmd, const char *arg)
{
	(void)st, (void)t, (void)cmd, (void)arg;
	return 0;
}

const pane_ops pane_palette_ops = { "palette", palette_open, palette_close, palette_draw, palette_handle };
