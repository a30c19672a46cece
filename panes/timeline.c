/* timeline — checkpoints newest first (kind, actor, time, findings); Enter shows
 * a checkpoint's diff, the same text `ferry diff REV` prints. Reverting is asked
 * for by the main loop (x), which confirms and calls ws_revert like the CLI. */
#include "diffview.h"
#include "subject.h"
#include "err.h"
#include "history.h"
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tstate {
	tui_checkpoint *cps;
	size_t n;
	unsigned gen;      /* reload generation loaded */
	int loaded;
	int cur, top, h;
	diffview dv;       /* the shown checkpoint's diff */
	int showing;       /* the diff is shown instead of the list */
	char err[ERR_MAX]; /* load error */
} tstate;

static void drop_diff(tstate *s)
{
	diffview_clear(&s->dv);
	s->showing = 0;
}

static void select_cp(tstate *s, tui *t)
{
	t->sel_cp = s->n ? s->cps[s->cur].id : 0;
	snprintf(t->sel_cp_commit, sizeof t->sel_cp_commit, "%s", s->n ? s->cps[s->cur].commit : "");
}

static void load(tstate *s, tui *t)
{
	if (s->loaded && s->gen == t->reload_gen)
		return;
	model_checkpoints_free(s->cps, s->n);
	s->cps = NULL;
	s->n = 0;
	s->err[0] = '\0';
	if (model_checkpoints(&s->cps, &s->n, &t->m) != 0)
		snprintf(s->err, sizeof s->err, "%s", err_message());
	s->loaded = 1;
	s->gen = t->reload_gen;
	if (s->cur >= (int)s->n)
		s->cur = s->n ? (int)s->n - 1 : 0;
	drop_diff(s);
	select_cp(s, t);
}

/* The checkpoint's own changes; for the baseline, everything since (as `ferry diff`). */
static int load_diff(tstate *s, tui *t)
{
	const tui_checkpoint *c = &s->cps[s->cur];
	workspace *ws = t->m.ws;
	char base[41], head[41];
	char *text = NULL;
	int rc = history_baseline(base, ws->hist);
	if (!rc && strcmp(base, c->commit) == 0) {
		if (!(rc = history_head(head, ws->hist)))
			rc = history_diff(&text, ws->hist, c->commit, head);
	} else if (!rc) {
		rc = history_diff(&text, ws->hist, c->commit, NULL);
	}
	if (rc)
		return rc;
	diffview_set(&s->dv, text);
	free(text);
	s->showing = 1;
	return 0;
}

static void *timeline_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(tstate));
}

static void timeline_close(void *st)
{
	tstate *s = st;
	if (!s)
		return;
	model_checkpoints_free(s->cps, s->n);
	drop_diff(s);
	free(s);
}

static void draw_diff(tstate *s, ui_win *w)
{
	const tui_checkpoint *c = &s->cps[s->cur];
	char head[256];
	snprintf(head, sizeof head, "%s #%lld %.12s  %s", _("Diff of checkpoint"), c->id, c->commit, ws_checkpoint_kind_word(c->kind));
	pane_title(w, 0, head);
	if (s->dv.nlines == 0)
		ui_put(w, 2, 2, UI_DIM, _("(no changes in this checkpoint)"), 0);
	diffview_draw(&s->dv, w, 1, 1, ui_win_height(w) - 1);
}

static void timeline_draw(void *st, tui *t, ui_win *w)
{
	tstate *s = st;
	load(s, t);
	ui_erase(w);
	if (s->showing) {
		draw_diff(s, w);
		return;
	}
	int width = ui_win_width(w);
	char head[128];
	snprintf(head, sizeof head, _("Checkpoint timeline, newest first (%zu)"), s->n);
	pane_title(w, 0, head);
	if (*s->err) {
		pane_wrap(w, 2, 2, UI_ERROR, s->err, 0, 4);
		return;
	}
	s->h = (ui_win_height(w) - 1) / 2;
	pane_scroll(&s->top, s->cur, s->h, (int)s->n);
	for (int r = 0; r < s->h && s->top + r < (int)s->n; r++) {
		int i = s->top + r, y = 1 + 2 * r;
		const tui_checkpoint *c = &s->cps[i];
		int sel = i == s->cur, attr = sel ? UI_SELECT : UI_NORMAL;
		ui_fill_row(w, y, attr);
		char row[512];
		char *kind = text_cell(ws_checkpoint_kind_word(c->kind), 10, 0);
		snprintf(row, sizeof row, "#%-4lld %.10s  %s %s  %s", c->id, c->commit, kind, c->time, c->actor);
		free(kind);
		ui_put(w, y, 1, attr, row, width - 2);
		char sub[512];
		char *subject = subject_show(c->message);
		snprintf(sub, sizeof sub, "%.200s%s%s%s", subject, *c->plugin ? "  [" : "", c->plugin, *c->plugin ? "]" : "");
		free(subject);
		int x = 8 + ui_put(w, y + 1, 8, sel ? UI_TITLE : UI_DIM, sub, width - 10);
		if (*c->findings) {
			char fl[256];
			snprintf(fl, sizeof fl, "  %s %s", _("findings"), c->findings);
			ui_put(w, y + 1, x, UI_INFO, fl, width - x - 1);
		}
	}
}

/* Search: "#N" a checkpoint's id; a commit's start; words its subject, kind, actor,
 * check or findings. */
static int checkpoint_match(int i, const char *text, void *ctx)
{
	const tui_checkpoint *c = &((const tstate *)ctx)->cps[i];
	int id = pane_id_match(text, c->id);
	if (id >= 0)
		return id;
	if (strlen(text) >= 4 && util_starts_with(c->commit, text))
		return 1;
	char *subject = subject_show(c->message);
	int found = pane_has(text, c->message, subject, c->kind, ws_checkpoint_kind_word(c->kind), c->actor, c->plugin, c->findings,
	                     (char *)NULL);
	free(subject);
	return found;
}

static int timeline_handle(void *st, tui *t, int cmd, const char *arg)
{
	tstate *s = st;
	load(s, t);
	if (s->showing) {
		if (cmd == CMD_BACK || cmd == CMD_CANCEL) {
			drop_diff(s);
			return PANE_HANDLED | PANE_REDRAW;
		}
		return diffview_handle(&s->dv, cmd, arg);
	}
	if ((cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) && s->n) {
		if (!pane_find(&s->cur, (int)s->n, cmd == CMD_SEARCH_NEXT ? 1 : -1, arg, checkpoint_match, s))
			return 0;
		select_cp(s, t);
		return PANE_HANDLED | PANE_REDRAW;
	}
	if (pane_move(&s->cur, (int)s->n, s->h, cmd)) {
		select_cp(s, t);
		return PANE_HANDLED | PANE_REDRAW;
	}
	if (cmd == CMD_OPEN && s->n) {
		if (load_diff(s, t) != 0)
			tui_message(t, UI_ERROR, "%s", err_message());
		return PANE_HANDLED | PANE_REDRAW;
	}
	if (cmd == CMD_RELOAD) {
		s->loaded = 0;
		return 0;
	}
	return 0;
}

const pane_ops pane_timeline_ops = { "timeline", timeline_open, timeline_close, timeline_draw, timeline_handle };
