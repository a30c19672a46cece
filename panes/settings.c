/* settings — the engagement's settings as a form: the design phase's first (targets,
 * tolerances, strategy, cards, model size), then the effort formula, reports, plugins
 * and the settings the installed checks declare. Each row shows the value (or the
 * default), what a value must be ("auto tool manual") and what the setting is for.
 * Enter edits the row under the cursor on the prompt line (tui.c asks, and stores it
 * through config_set as :config does: checked, recorded in the audit chain). */
#include "err.h"
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct formstate {
	tui_setting *s;
	size_t n;
	int loaded;
	unsigned gen;
	int cur, top;
	int rows;          /* settings that fit at the last draw */
	char err[ERR_MAX];
} formstate;

static void load(formstate *st, tui *t)
{
	if (st->loaded && st->gen == t->reload_gen)
		return;
	model_settings_free(st->s, st->n);
	st->s = NULL;
	st->n = 0;
	st->err[0] = '\0';
	if (model_settings(&st->s, &st->n, &t->m) != 0)
		snprintf(st->err, sizeof st->err, "%s", err_message());
	st->loaded = 1;
	st->gen = t->reload_gen;
	if (st->cur >= (int)st->n)
		st->cur = st->n ? (int)st->n - 1 : 0;
}

static void *settings_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(formstate));
}

static void settings_close(void *p)
{
	formstate *st = p;
	if (!st)
		return;
	model_settings_free(st->s, st->n);
	free(st);
}

/* A group's heading in the interface language. */
static const char *group_title(const char *group, char *buf, size_t n)
{
	if (strcmp(group, "design") == 0)
		return _("Design: targets, acceptance criteria, strategy, model size");
	if (strcmp(group, "assess") == 0)
		return _("Effort estimate");
	if (strcmp(group, "report") == 0)
		return _("Reports, export and signing");
	if (strcmp(group, "plugins") == 0)
		return _("Plugins");
	snprintf(buf, n, _("Declared by the %s checks"), pane_word(group));
	return buf;
}

static void settings_draw(void *p, tui *t, ui_win *w)
{
	formstate *st = p;
	load(st, t);
	ui_erase(w);
	int width = ui_win_width(w), h = ui_win_height(w);
	pane_title(w, 0, _("Settings · Enter changes the one under the cursor, x unsets it (recorded in the audit chain)"));
	if (*st->err) {
		pane_wrap(w, 2, 2, UI_ERROR, st->err, 0, 4);
		return;
	}
	/* each setting takes two rows, each group's first a heading row before them */
	int avail = h - 1;
	st->rows = avail / 3 > 0 ? avail / 3 : 1;
	pane_scroll(&st->top, st->cur, st->rows, (int)st->n);
	int y = 1;
	for (int i = st->top; i < (int)st->n && y < h; i++) {
		const tui_setting *s = &st->s[i];
		if (i == st->top || strcmp(s->group, st->s[i - 1].group) != 0) {
			char buf[160];
			if (y + 2 >= h)
				break;
			ui_put(w, y++, 1, UI_TITLE, group_title(s->group, buf, sizeof buf), width - 2);
		}
		if (y + 1 >= h)
			break;
		int sel = i == st->cur, attr = sel ? UI_SELECT : UI_NORMAL;
		ui_fill_row(w, y, attr);
		char *key = text_cell(s->key, 26, 0);
		int x = 2 + ui_put(w, y, 2, attr, key, 0);
		free(key);
		char val[300];
		if (s->value)
			snprintf(val, sizeof val, " %s", s->value);
		else if (s->def)
			snprintf(val, sizeof val, " %s %s", s->def, _("(default)"));
		else
			snprintf(val, sizeof val, " %s", _("(not set)"));
		char *cell = text_cell(val, 24, 0);
		x += ui_put(w, y, x, sel ? UI_SELECT : s->value ? UI_OK : UI_DIM, cell, 0);
		free(cell);
		ui_put(w, y, x + 1, sel ? UI_SELECT : UI_INFO, s->accepts, width - x - 2);
		y++;
		char help[600];
		snprintf(help, sizeof help, "%s%s%s", s->help, s->owner ? "  · " : "", s->owner ? s->owner : "");
		ui_put(w, y++, 4, UI_DIM, help, width - 5);
	}
}

/* Search: the key, what it is for, what it accepts, its value. */
static int setting_match(int i, const char *text, void *ctx)
{
	const tui_setting *s = &((const formstate *)ctx)->s[i];
	return pane_has(text, s->key, s->help, s->accepts, s->value ? s->value : "", (char *)NULL);
}

static int settings_handle(void *p, tui *t, int cmd, const char *arg)
{
	formstate *st = p;
	if (cmd == CMD_RELOAD) {
		st->loaded = 0;
		return 0;
	}
	load(st, t);
	if (pane_move(&st->cur, (int)st->n, st->rows, cmd))
		return PANE_HANDLED | PANE_REDRAW;
	if ((cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) && st->n)
		return pane_find(&st->cur, (int)st->n, cmd == CMD_SEARCH_NEXT ? 1 : -1, arg, setting_match, st)
		           ? PANE_HANDLED | PANE_REDRAW : 0;
	return 0;
}

const tui_setting *settings_selected(tui *t)
{
	formstate *st = t->st[PANE_SETTINGS];
	if (!st)
		return NULL;
	load(st, t);
	return st->n ? &st->s[st->cur] : NULL;
}

const pane_ops pane_settings_ops = { "settings", settings_open, settings_close, settings_draw, settings_handle };
