/* tui — see tui.h. The main loop: layout, drawing what changed, the prompt line,
 * routing commands to panes, and the actions that change the engagement. Every
 * action goes through the same functions as the CLI command of the same name
 * (check_run, review_waive, review_signoff, ws_sync, fix_plan_new/fix_plan_apply,
 * ws_revert, ws_init) and takes the writer lock only while it works. */
#include "tui.h"
#include "phase.h"
#include "artifact.h"
#include "artview.h"
#include "audit.h"
#include "check.h"
#include "compare.h"
#include "config.h"
#include "err.h"
#include "export.h"
#include "ingest.h"
#include "json.h"
#include "probe.h"
#include "fix.h"
#include "history.h"
#include "report.h"
#include "intl.h"
#include "msglog.h"
#include "pane.h"
#include "plugin_host.h"
#include "review.h"
#include "seal.h"
#include "text.h"
#include "version.h"
#include "util.h"
#include "workspace.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIN_COLS 80
#define MIN_ROWS 24

enum dirty {
	D_STATUS = 1,
	D_RAIL = 2,
	D_MAIN = 4,
	D_DETAIL = 8,
	D_MSG = 16,
	D_HINTS = 32,
	D_OVERLAY = 64,
	D_ALL = 127,
};

typedef struct prompt {
	int active;
	int cmd;          /* command run with the typed text on Enter */
	int confirm;      /* a y/n question: cmd runs with "yes" on y (or with answer) */
	char answer[256]; /* a question's own argument for cmd on y ("": "yes"), so that what the
	                     palette types never stands for a confirmation */
	char label[512];
	char buf[512];
	size_t len, pos;  /* bytes; pos is the cursor */
	long long about;  /* the finding the typed text is about (0: none): the text is all reason */
	int offered;      /* buf holds an offered default, untouched: typing replaces it */
} prompt;

typedef struct app {
	tui t;
	prompt p;
	int dirty;
	int touch;         /* windows overlapped: repaint every cell */
	int quit;
	int small;         /* window below MIN_COLS x MIN_ROWS */
	int zoom;          /* detail fills the main area */
	int cancel;        /* running checks asked to stop */
	int busy_fixed;    /* the running work cannot be cancelled (planning, applying) */
	int stream;        /* the running checks stream findings into an empty list */
	int found;         /* findings of the selected phase reported by the running checks */
	char report_format[16]; /* the report format chosen, while its path is asked for */
	int reviewing;     /* the show view lists what a sign-off being confirmed accepts */
	char setting[128]; /* the setting the settings form is changing */
	double last_draw;  /* during runs: time of the last repaint */
	long long db_version; /* the store's data_version at the last reload */
	unsigned long long tree_stamp; /* model_tree_stamp when last looked */
	double tree_at;    /* when the tree was last looked at */
	int cols, rows;
	int msg_h;         /* rows of the message line: more while a long message shows */
	ui_win *w_status, *w_rail, *w_list, *w_detail, *w_main, *w_msg, *w_hints, *w_help, *w_pal;
} app;

void tui_message(tui *t, int attr, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbuf b;
	sbuf_init(&b);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	t->msg = msglog_add(t->msgs, attr, b.buf);
	t->msg_attr = attr;
	sbuf_done(&b);
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* --- layout and drawing --- */

static void free_windows(app *a)
{
	ui_win *ws[] = { a->w_status, a->w_rail, a->w_list, a->w_detail, a->w_main,
		             a->w_msg, a->w_hints, a->w_help, a->w_pal };
	for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
		ui_win_free(ws[i]);
	a->w_status = a->w_rail = a->w_list = a->w_detail = a->w_main = NULL;
	a->w_msg = a->w_hints = a->w_help = a->w_pal = NULL;
}

static void layout(app *a)
{
	free_windows(a);
	ui_size(&a->cols, &a->rows);
	a->small = a->cols < MIN_COLS || a->rows < MIN_ROWS;
	a->dirty = D_ALL;
	a->touch = 1;
	if (a->small) {
		a->w_main = ui_win_new(0, 0, a->rows, a->cols);
		return;
	}
	int rw = a->cols >= 120 ? 26 : 22;
	int body = a->rows - 3;
	int lh = body * 2 / 5 + 1;
	a->w_status = ui_win_new(0, 0, 1, a->cols);
	a->w_rail = ui_win_new(1, 0, body, rw);
	a->w_list = ui_win_new(1, rw, lh, a->cols - rw);
	a->w_detail = ui_win_new(1 + lh, rw, body - lh, a->cols - rw);
	a->w_main = ui_win_new(1, rw, body, a->cols - rw);
	a->w_msg = ui_win_new(a->rows - 2, 0, 1, a->cols);
	a->msg_h = 1;
	a->w_hints = ui_win_new(a->rows - 1, 0, 1, a->cols);
	int hw = a->cols - 8 > 100 ? 100 : a->cols - 8;
	a->w_help = ui_win_new(2, (a->cols - hw) / 2, a->rows - 4, hw);
	int ph = a->rows / 2 > 14 ? 14 : a->rows / 2;
	a->w_pal = ui_win_new(a->rows - 2 - ph, 0, ph, a->cols);
}

static void draw_small(app *a)
{
	ui_win *w = a->w_main;
	ui_erase(w);
	char b[256];
	snprintf(b, sizeof b, _("ferry needs a window of at least %dx%d (this one is %dx%d)."), MIN_COLS, MIN_ROWS,
	         a->cols, a->rows);
	pane_wrap(w, a->rows / 2 - 1, 1, UI_TITLE, b, 0, 3);
	pane_wrap(w, a->rows / 2 + 2, 1, UI_NORMAL, _("Please enlarge it, or press q to quit."), 0, 2);
	ui_win_show(w);
}

static const struct hint {
	int view; /* VIEW_ANY: shown with every view */
	int cmd;
	const char *word;
} hints[] = {
	{ VIEW_FINDINGS, CMD_RUN_PHASE, N_("run") },   { VIEW_FINDINGS, CMD_WAIVE, N_("waive") },
	{ VIEW_FINDINGS, CMD_SIGNOFF, N_("sign off") }, { VIEW_FINDINGS, CMD_EDIT, N_("edit") },
	{ VIEW_FINDINGS, CMD_FILTER, N_("filter") },   { VIEW_FINDINGS, CMD_OPEN, N_("zoom") },
	{ VIEW_FINDINGS, CMD_FIX_FINDING, N_("fix") },  { VIEW_TIMELINE, CMD_OPEN, N_("diff") },
	{ VIEW_TIMELINE, CMD_REVERT, N_("revert") },   { VIEW_FIX, CMD_FIX_APPLY, N_("apply") },
	{ VIEW_FIX, CMD_FIX_DISCARD, N_("discard") },  { VIEW_FIX, CMD_FIX_TOGGLE, N_("hunk in/out") },
	{ VIEW_FIX, CMD_PHASE_NEXT, N_("next hunk") },
	{ VIEW_SETTINGS, CMD_OPEN, N_("change") },     { VIEW_SETTINGS, CMD_CONFIG_UNSET, N_("unset") },
	{ VIEW_ANY, CMD_TIMELINE, N_("timeline") },    { VIEW_ANY, CMD_GUIDE, N_("guide") },
	{ VIEW_ANY, CMD_CHART, N_("chart") },          { VIEW_ANY, CMD_ARTIFACTS, N_("artifacts") },
	{ VIEW_ANY, CMD_PALETTE, N_("commands") },     { VIEW_ANY, CMD_HELP, N_("help") },
	{ VIEW_ANY, CMD_BACK, N_("back/quit") },
};

static void draw_hints(app *a)
{
	ui_win *w = a->w_hints;
	ui_erase(w);
	int x = 0, width = ui_win_width(w);
	if (a->t.running) {
		if (a->busy_fixed) {
			ui_put(w, 0, x, UI_DIM, _("working; this cannot be cancelled"), 0);
			return;
		}
		x += ui_put(w, 0, x, UI_KEY, "Esc", 0);
		ui_put(w, 0, x + 1, UI_NORMAL, _("cancel the running checks"), 0);
		return;
	}
	/* help and back/quit always fit: the others take what room is left before them */
	int tail = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
			int last = hints[i].cmd == CMD_HELP || hints[i].cmd == CMD_BACK;
			if (hints[i].view != VIEW_ANY && hints[i].view != a->t.view)
				continue;
			if (a->t.view == VIEW_FIX && hints[i].view == VIEW_ANY && hints[i].cmd != CMD_HELP)
				continue;
			const keymap_entry *e = keymap_by_cmd(hints[i].cmd);
			if (!e || !e->label)
				continue;
			char key[16];
			snprintf(key, sizeof key, "%.*s", (int)strcspn(e->label, " "), e->label);
			const char *word = _(hints[i].word);
			int need = text_width(key) + 1 + text_width(word) + 2;
			if (pass == 0) { /* measure the tail */
				tail += last ? need : 0;
				continue;
			}
			if (!last && x + need > width - tail)
				continue;
			x += ui_put(w, 0, x, UI_KEY, key, 0) + 1;
			x += ui_put(w, 0, x, UI_NORMAL, word, 0) + 2;
		}
}

/* The prompt's label as the line shows it in cols columns: whole when it leaves room to
 * type, else its start and its end with "…" between — a question starts with what it is
 * about ("Sign off design as …") and ends with what it asks ("Note (optional, Enter
 * signs): "), and what is typed must stay in view, with 24 columns left for the input
 * (a third of a narrower line). Points into the label or into buf. */
static const char *prompt_label_shown(const prompt *p, int cols, char *buf, size_t size)
{
	int room = cols / 3 < 24 ? cols / 3 : 24;
	int fit = cols - room - 1; /* columns for the start, "…" and the end */
	if (text_width(p->label) <= cols - room || fit <= 2)
		return p->label;
	/* the end: the label's last sentence, the question itself, when it fits beside a
	 * start of 8 columns; else half of what there is */
	const char *tail = NULL;
	static const char *const stops[] = { ". ", "? ", "。", "？" };
	for (size_t i = 0; i < sizeof stops / sizeof stops[0]; i++)
		for (const char *q = strstr(p->label, stops[i]); q; q = strstr(q + 1, stops[i])) {
			const char *after = q + strlen(stops[i]);
			if (*after && text_width(after) <= fit - 8 && (!tail || after > tail))
				tail = after;
		}
	if (!tail) {
		tail = p->label;
		while (*tail && text_width(tail) > fit / 2)
			tail += text_next(tail, strlen(tail), &(unsigned){ 0 }, &(int){ 0 });
	}
	size_t head = text_fit(p->label, fit - text_width(tail), NULL);
	snprintf(buf, size, "%.*s…%s", (int)head, p->label, tail);
	return buf;
}

/* The rows the message line needs: a message's wrapped at the window's width (at blanks,
 * or beside wide characters), one for a prompt or no message. */
static int msg_needs(app *a)
{
	if (a->p.active || !a->t.msg)
		return 1;
	int n = pane_wrap(a->w_msg, 0, 0, a->t.msg_attr, a->t.msg, 0, 0);
	return n > 1 ? n : 1;
}

static void draw_msg(app *a)
{
	ui_win *w = a->w_msg;
	ui_erase(w);
	if (a->p.active) {
		char cut[sizeof a->p.label + 4];
		int x = ui_put(w, 0, 0, UI_TITLE, prompt_label_shown(&a->p, ui_win_width(w), cut, sizeof cut), 0);
		/* keep the cursor visible: show the tail of long input */
		const char *s = a->p.buf;
		int room = ui_win_width(w) - x - 2;
		char before[512];
		snprintf(before, sizeof before, "%.*s", (int)a->p.pos, a->p.buf);
		while (text_width(before) > room && *s) {
			size_t k = text_next(s, strlen(s), &(unsigned){ 0 }, &(int){ 0 });
			s += k;
			memmove(before, before + k, strlen(before + k) + 1);
		}
		ui_put(w, 0, x, UI_NORMAL, s, room);
		return;
	}
	if (!a->t.msg)
		return;
	/* wrapped on the rows fit_msg gave; what does not fit is marked with the key that
	 * shows it whole */
	int h = ui_win_height(w), total = msg_needs(a);
	pane_wrap(w, 0, 0, a->t.msg_attr, a->t.msg, 0, pane_text_rows(total, h));
	const char *key = keymap_label(keymap_by_cmd(CMD_MESSAGES));
	char hint[128];
	/* TRANSLATORS: %.*s is the key of the messages view, "M" */
	snprintf(hint, sizeof hint, _("%.*s shows it whole"), (int)strcspn(key, " "), key);
	pane_more(w, 0, h, 0, total, hint);
}

/* Gives the message line the rows its message needs, up to a quarter of the screen: it
 * grows upwards over the panes, which are painted whole again when it shrinks (the next
 * key clears a message, as vim's do). */
static void fit_msg(app *a)
{
	int h = msg_needs(a), max = a->rows / 4;
	if (h > max)
		h = max;
	if (h == a->msg_h)
		return;
	ui_win_free(a->w_msg);
	a->w_msg = ui_win_new(a->rows - 1 - h, 0, h, a->cols);
	a->msg_h = h;
	a->dirty = D_ALL;
	a->touch = 1;
}

static int cursor_col(app *a)
{
	char before[512];
	snprintf(before, sizeof before, "%.*s", (int)a->p.pos, a->p.buf);
	char cut[sizeof a->p.label + 4];
	int x = text_width(prompt_label_shown(&a->p, a->cols, cut, sizeof cut)), room = a->cols - x - 2, bw = text_width(before);
	return x + (bw > room ? room : bw);
}

static int view_pane(int view);

static void draw(app *a)
{
	tui *t = &a->t;
	if (a->small) {
		if (a->dirty)
			draw_small(a);
		a->dirty = 0;
		ui_flush(NULL, 0, 0);
		return;
	}
	fit_msg(a);
	int d = a->dirty;
	if (a->touch)
		t->paint_gen++;
	if (a->touch || t->help || a->p.active)
		d |= D_OVERLAY;
	if (d & D_STATUS) {
		t->ops[PANE_STATUS]->draw(t->st[PANE_STATUS], t, a->w_status);
		ui_win_show(a->w_status);
	}
	if (d & D_RAIL) {
		t->ops[PANE_RAIL]->draw(t->st[PANE_RAIL], t, a->w_rail);
		ui_win_show(a->w_rail);
	}
	if (t->view == VIEW_FINDINGS) {
		t->ops[PANE_FINDINGS]->handle(t->st[PANE_FINDINGS], t, CMD_NONE, NULL);
		if (a->zoom) {
			if (d & (D_MAIN | D_DETAIL)) {
				t->ops[PANE_DETAIL]->draw(t->st[PANE_DETAIL], t, a->w_main);
				if (a->touch)
					ui_win_touch(a->w_main);
				ui_win_show(a->w_main);
			}
		} else {
			if (d & D_MAIN) {
				t->ops[PANE_FINDINGS]->draw(t->st[PANE_FINDINGS], t, a->w_list);
				if (a->touch)
					ui_win_touch(a->w_list);
				ui_win_show(a->w_list);
			}
			if (d & D_DETAIL) {
				t->ops[PANE_DETAIL]->draw(t->st[PANE_DETAIL], t, a->w_detail);
				if (a->touch)
					ui_win_touch(a->w_detail);
				ui_win_show(a->w_detail);
			}
		}
	} else if (d & (D_MAIN | D_DETAIL)) {
		int id = view_pane(t->view);
		t->ops[id]->draw(t->st[id], t, a->w_main);
		if (a->touch)
			ui_win_touch(a->w_main);
		ui_win_show(a->w_main);
	}
	if (d & D_HINTS) {
		draw_hints(a);
		ui_win_show(a->w_hints);
	}
	if ((d & D_OVERLAY) && t->help) {
		t->ops[PANE_HELP]->draw(t->st[PANE_HELP], t, a->w_help);
		ui_win_touch(a->w_help);
		ui_win_show(a->w_help);
	}
	if ((d & D_OVERLAY) && a->p.active && a->p.cmd == CMD_PALETTE) {
		t->prompt_buf = a->p.buf;
		t->ops[PANE_PALETTE]->draw(t->st[PANE_PALETTE], t, a->w_pal);
		ui_win_touch(a->w_pal);
		ui_win_show(a->w_pal);
	}
	/* last: a message on more than one row lies over the panes */
	if ((d & D_MSG) || a->msg_h > 1) {
		draw_msg(a);
		ui_win_touch(a->w_msg);
		ui_win_show(a->w_msg);
	}
	a->dirty = 0;
	a->touch = 0;
	if (a->p.active && !a->p.confirm)
		ui_flush(a->w_msg, 0, cursor_col(a));
	else
		ui_flush(NULL, 0, 0);
}

/* --- model --- */

static void reload(app *a)
{
	tui *t = &a->t;
	int rc = model_load_status(&t->m);
	if (!rc)
		rc = model_load_findings(&t->m);
	if (rc)
		tui_message(t, UI_ERROR, "%s", err_message());
	t->sel = NULL;
	t->reload_gen++;
	for (int i = 0; i < PANE_COUNT; i++)
		if (i != PANE_FINDINGS)
			t->ops[i]->handle(t->st[i], t, CMD_RELOAD, NULL);
	t->ops[PANE_FINDINGS]->handle(t->st[PANE_FINDINGS], t, CMD_RELOAD, NULL);
	t->ops[PANE_FINDINGS]->handle(t->st[PANE_FINDINGS], t, CMD_NONE, NULL);
	a->dirty = D_ALL;
}

/* The sync's warnings (files left out of the record) go to the message line, not over
 * the screen. */
static void warn_on_screen(const char *line, void *payload)
{
	tui_message(payload, UI_WARN, "%s", line);
}

/* Takes the writer lock and records outside edits first, as every CLI command does. */
static int lock_synced(app *a, int *made)
{
	workspace *ws = a->t.m.ws;
	int rc = ws_lock(ws);
	if (!rc && (rc = ws_sync(ws, made)))
		ws_unlock(ws);
	return rc;
}

/* --- running checks --- */

static void repaint_during_run(app *a, int force)
{
	double n = now_s();
	if (!force && n - a->last_draw < 0.08)
		return;
	a->last_draw = n;
	a->dirty |= D_STATUS | D_MAIN | D_HINTS;
	draw(a);
}

static void poll_cancel(app *a)
{
	int k;
	while ((k = ui_getkey(0)) != UI_KEY_NONE) {
		if (k == UI_KEY_ESC || k == UI_KEY_CTRL('c') || k == UI_KEY_SIGNAL || k == UI_KEY_EOF) {
			a->cancel = 1;
			if (k == UI_KEY_SIGNAL)
				a->quit = 1;
			snprintf(a->t.progress, sizeof a->t.progress, "%s", _("cancelling…"));
			break;
		}
		if (k == UI_KEY_RESIZE) {
			layout(a);
			draw(a);
		}
	}
}

static void on_finding(const finding *f, void *payload)
{
	app *a = payload;
	if (f->phase == a->t.m.phase) {
		a->found++;
		if (a->stream)
			model_add_finding(&a->t.m, f);
	}
	repaint_during_run(a, 0);
	if (!ui_is_headless())
		poll_cancel(a);
}

static void on_progress(const char *plugin, size_t done, size_t total, void *payload)
{
	app *a = payload;
	if (!a->cancel)
		snprintf(a->t.progress, sizeof a->t.progress, _("checking %zu/%zu %s · %d found"), done + 1, total, plugin,
		         a->found);
	repaint_during_run(a, done == 0);
}

static int is_cancelled(void *payload)
{
	app *a = payload;
	poll_cancel(a);
	return a->cancel;
}

static void run_checks(app *a, int all)
{
	tui *t = &a->t;
	if (t->running)
		return;
	int rc = lock_synced(a, NULL);
	if (rc) {
		tui_message(t, UI_ERROR, "%s", err_message());
		return;
	}
	const char *phases[1] = { phase_name(t->m.phase) };
	t->running = 1;
	a->cancel = 0;
	snprintf(t->progress, sizeof t->progress, "%s", _("starting the checks…"));
	/* a re-run keeps the previous list (and the cursor) until the new one is recorded;
	 * only a first run streams its findings in as they come */
	a->stream = t->m.nf == 0;
	a->found = 0;
	if (a->stream) {
		model_clear_findings(&t->m);
		t->sel = NULL;
		t->sel_id = 0;
	}
	a->dirty = D_ALL;
	repaint_during_run(a, 1);
	check_opts co = { all ? NULL : phases, all ? 0 : 1, NULL, 0, on_finding, on_progress, is_cancelled, a, NULL, 0 };
	check_result res = { 0 };
	rc = check_run(&res, t->m.ws, &co);
	ws_unlock(t->m.ws);
	t->running = 0;
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	reload(a);
	if (a->cancel || rc == FERRY_ECANCEL)
		tui_message(t, UI_WARN, "%s", _("Checks cancelled; nothing was recorded."));
	else if (rc)
		tui_message(t, UI_ERROR, "%s", err);
	else {
		char nf[64];
		snprintf(nf, sizeof nf, P_("%d finding", "%d findings", res.nfindings), res.nfindings);
		if (res.nerrors > 0) {
			char ne[64];
			snprintf(ne, sizeof ne, P_("%d plugin error", "%d plugin errors", res.nerrors), res.nerrors);
			/* TRANSLATORS: "run 3: 12 findings, 2 no longer seen; 1 plugin error, first: ..." */
			tui_message(t, UI_WARN, _("run %lld: %s, %d no longer seen; %s, first: %s"), res.run, nf, res.nclosed, ne,
			            res.errors[0]);
		} else {
			/* TRANSLATORS: "run 3: 12 findings, 2 no longer seen (marked fixed)" */
			tui_message(t, UI_OK, _("run %lld: %s, %d no longer seen (marked fixed)"), res.run, nf, res.nclosed);
		}
	}
	check_result_done(&res);
}

/* --- actions that change the engagement --- */

static const finding *open_selection(app *a)
{
	const finding *f = a->t.sel;
	if (!f) {
		tui_message(&a->t, UI_WARN, "%s", _("No finding selected."));
		return NULL;
	}
	if (f->status != STATUS_OPEN) {
		tui_message(&a->t, UI_WARN, _("Finding #%lld is %s; only open findings can be waived."), f->id, pane_word(status_name(f->status)));
		return NULL;
	}
	return f;
}

/* As `ferry waive N --reason TEXT`. */
static void do_waive(app *a, const char *reason)
{
	tui *t = &a->t;
	const finding *f = open_selection(a);
	if (!f)
		return;
	if (!review_reason_given(reason)) {
		tui_message(t, UI_ERROR, "%s", _("A waiver needs a reason (auditors read it)."));
		return;
	}
	long long id = f->id;
	int rc = lock_synced(a, NULL);
	if (!rc)
		rc = review_waive(t->m.ws, &id, 1, reason);
	ws_unlock(t->m.ws);
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	reload(a);
	if (rc)
		tui_message(t, UI_ERROR, "%s", err);
	else
		tui_message(t, UI_OK, _("Waived finding #%lld."), id);
}

/* The reason `ferry signoff PHASE` would refuse, in the interface language, or NULL. */
static const char *signoff_refusal(app *a, char *buf, size_t n)
{
	const model *m = &a->t.m;
	const char *id = phase_name(m->phase), *phase = phase_title(id); /* phases shown by their translated names */
	review_refusal why;
	if (review_signoff_check(&why, m->ws, id) != 0) {
		snprintf(buf, n, "%s", err_message());
		return buf;
	}
	switch (why.kind) {
	case REVIEW_EARLIER_OPEN:
		snprintf(buf, n, _("Cannot sign off %s: the earlier phase %s is not signed off yet."), phase, phase_title(why.other));
		return buf;
	case REVIEW_EARLIER_REOPENED:
		snprintf(buf, n, _("Cannot sign off %s: the earlier phase %s was reopened by new error findings."), phase,
		         phase_title(why.other));
		return buf;
	case REVIEW_ALREADY_SIGNED:
		snprintf(buf, n, _("%s is already signed off by %s."), phase, why.by);
		return buf;
	case REVIEW_OPEN_ERRORS:
		snprintf(buf, n, P_("Cannot sign off %s: %d open error finding must be fixed or waived first: %s",
		                    "Cannot sign off %s: %d open error findings must be fixed or waived first: %s", why.count),
		         phase, (int)why.count, why.blockers);
		return buf;
	case REVIEW_ALLOWED:
		break;
	}
	return NULL;
}

static void prompt_start(app *a, int cmd, int confirm, const char *label, const char *initial);
static void unwaive_finding(app *a, long long id, const char *reason);

/* 1 when every phase is signed off (none reopened). */
static int engagement_complete(const tui *t)
{
	for (int i = 0; i < (int)phase_count(); i++)
		if (strcmp(t->m.phases[i].status, "signed off") != 0)
			return 0;
	return 1;
}

static void set_view(app *a, int view);

/* As `ferry signoff PHASE --note NOTE`. */
static void do_signoff(app *a, const char *note)
{
	tui *t = &a->t;
	char why[ERR_MAX];
	const char *phase = phase_name(t->m.phase);
	int rc = lock_synced(a, NULL);
	if (!rc)
		rc = model_load_status(&t->m);
	if (!rc && signoff_refusal(a, why, sizeof why)) {
		ws_unlock(t->m.ws);
		reload(a);
		tui_message(t, UI_ERROR, "%s", why);
		return;
	}
	if (!rc)
		rc = review_signoff(t->m.ws, phase, note && *note ? note : NULL);
	ws_unlock(t->m.ws);
	if (a->reviewing && t->view == VIEW_SHOW) /* the list it accepted gives way to where the user was */
		set_view(a, t->show_back);
	a->reviewing = 0;
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	reload(a);
	if (rc)
		tui_message(t, UI_ERROR, "%s", err);
	else if (engagement_complete(t)) /* the last sign-off: offer the deliverable */
		prompt_start(a, CMD_REPORT, 0,
		             _("Engagement complete: every phase is signed off. Final report format (md, html, json, sarif or csv): "),
		             "html");
	else
		tui_message(t, UI_OK, _("Phase %s signed off by %s."), phase_title(phase), t->m.ws->actor);
}

/* Opens the finding's file in $VISUAL/$EDITOR at its line, then records the edit
 * as a checkpoint (ws_sync), as the next CLI command would. */
static void do_edit(app *a)
{
	tui *t = &a->t;
	const finding *f = t->sel;
	if (!f || !*f->file) {
		tui_message(t, UI_WARN, "%s", _("This finding has no file to open."));
		return;
	}
	const char *editor = getenv("VISUAL");
	if (!editor || !*editor)
		editor = getenv("EDITOR");
	if (!editor || !*editor)
		editor = "vi";
	char *path = util_path_join(t->m.ws->root, f->file);
	char line[32];
	snprintf(line, sizeof line, "+%d", f->line > 0 ? f->line : 1);
	char *cmd = xasprintf("%s \"$1\" \"$2\"", editor);
	ui_suspend();
	int status = -1;
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", line, path, (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0)
			;
	ui_resume();
	free(cmd);
	free(path);
	layout(a);
	int made = 0;
	int rc = lock_synced(a, &made);
	ws_unlock(t->m.ws);
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	reload(a);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		tui_message(t, UI_WARN, _("The editor (%s) did not finish cleanly."), editor);
	else if (rc)
		tui_message(t, UI_ERROR, "%s", err);
	else if (made)
		tui_message(t, UI_OK, _("Your edit was recorded as checkpoint #%lld (manual edit)."), t->m.head_cp);
	else
		tui_message(t, UI_NORMAL, "%s", _("No change to record."));
}

/* As `ferry revert REV`. */
static void do_revert(app *a)
{
	tui *t = &a->t;
	if (!t->sel_cp) {
		tui_message(t, UI_WARN, "%s", _("No checkpoint selected."));
		return;
	}
	char rev[32], oid[41] = "";
	long long id = 0;
	snprintf(rev, sizeof rev, "%lld", t->sel_cp);
	/* the check whose fix is undone runs again to place its findings (review_revert) */
	int rc = lock_synced(a, NULL);
	if (!rc)
		rc = review_revert(&id, oid, t->m.ws, rev);
	ws_unlock(t->m.ws);
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	reload(a);
	char *open_again = rc ? NULL : review_reopened_text(t->m.ws, id);
	if (rc)
		tui_message(t, UI_ERROR, "%s", err);
	else if (open_again)
		tui_message(t, UI_OK, _("Reverted checkpoint #%s with checkpoint #%lld (%.12s). %s"), rev, id, oid, open_again);
	else
		tui_message(t, UI_OK, _("Reverted checkpoint #%s with checkpoint #%lld (%.12s)."), rev, id, oid);
	free(open_again);
}

/* --- the prompt line --- */

static void prompt_start(app *a, int cmd, int confirm, const char *label, const char *initial)
{
	prompt *p = &a->p;
	memset(p, 0, sizeof *p);
	p->active = 1;
	p->cmd = cmd;
	p->confirm = confirm;
	snprintf(p->label, sizeof p->label, "%s", label);
	snprintf(p->buf, sizeof p->buf, "%s", initial ? initial : "");
	p->len = p->pos = strlen(p->buf);
	p->offered = p->len > 0 && cmd != CMD_PALETTE;
	a->dirty |= D_MSG | D_OVERLAY;
}

static void prompt_insert(prompt *p, int key)
{
	char enc[4];
	size_t n;
	unsigned c = (unsigned)key;
	if (c < 0x80)
		enc[0] = (char)c, n = 1;
	else if (c < 0x800)
		enc[0] = (char)(0xC0 | (c >> 6)), enc[1] = (char)(0x80 | (c & 0x3F)), n = 2;
	else if (c < 0x10000)
		enc[0] = (char)(0xE0 | (c >> 12)), enc[1] = (char)(0x80 | ((c >> 6) & 0x3F)),
		enc[2] = (char)(0x80 | (c & 0x3F)), n = 3;
	else
		enc[0] = (char)(0xF0 | (c >> 18)), enc[1] = (char)(0x80 | ((c >> 12) & 0x3F)),
		enc[2] = (char)(0x80 | ((c >> 6) & 0x3F)), enc[3] = (char)(0x80 | (c & 0x3F)), n = 4;
	if (p->len + n >= sizeof p->buf)
		return;
	memmove(p->buf + p->pos + n, p->buf + p->pos, p->len - p->pos + 1);
	memcpy(p->buf + p->pos, enc, n);
	p->pos += n;
	p->len += n;
}

static size_t prev_char(const prompt *p, size_t pos)
{
	if (pos == 0)
		return 0;
	pos--;
	while (pos > 0 && ((unsigned char)p->buf[pos] & 0xC0) == 0x80)
		pos--;
	return pos;
}

static size_t next_char(const prompt *p, size_t pos)
{
	if (pos >= p->len)
		return p->len;
	pos++;
	while (pos < p->len && ((unsigned char)p->buf[pos] & 0xC0) == 0x80)
		pos++;
	return pos;
}

/* Completes the word being typed on the palette line (a command name, then its
 * arguments: kinds, setting keys, labels, formats, files) to the longest common
 * prefix of its candidates; a unique one gets a space after it (a folder, a '/'). */
static void palette_complete(app *a)
{
	prompt *p = &a->p;
	if (p->pos != p->len)
		return;
	size_t at = 0;
	char **c = palette_candidates(&a->t, p->buf, &at);
	if (!c[0]) {
		model_strings_free(c);
		return;
	}
	size_t common = strlen(c[0]);
	for (size_t i = 1; c[i]; i++) {
		size_t k = 0;
		while (k < common && c[0][k] == c[i][k])
			k++;
		common = k;
	}
	while (common > 0 && ((unsigned char)c[0][common] & 0xC0) == 0x80)
		common--; /* never half a character: names differing inside one share less */
	char line[sizeof p->buf];
	int unique = !c[1] && c[0][common ? common - 1 : 0] != '/';
	/* a name with a blank is quoted (the palette splits on blanks outside quotes); the
	 * quote closes once the name is complete */
	int quoted = at > 0 && p->buf[at - 1] == '"';
	int quote = !quoted && memchr(c[0], ' ', common) != NULL;
	snprintf(line, sizeof line, "%.*s%s%.*s%s%s", (int)at, p->buf, quote ? "\"" : "", (int)common, c[0],
	         unique && (quoted || quote) ? "\"" : "", unique ? " " : "");
	snprintf(p->buf, sizeof p->buf, "%s", line);
	p->len = p->pos = strlen(p->buf);
	model_strings_free(c);
}

static void dispatch(app *a, int cmd, const char *arg);

static void run_palette(app *a, const char *line)
{
	while (*line == ' ')
		line++;
	size_t n = strcspn(line, " ");
	if (n == 0)
		return;
	char name[64];
	snprintf(name, sizeof name, "%.*s", (int)n, line);
	const keymap_entry *e = keymap_by_name(name);
	if (!e) {
		tui_message(&a->t, UI_ERROR, _("%s: no such command (: and Tab list them)"), name);
		a->dirty |= D_MSG;
		return;
	}
	const char *rest = line + n;
	while (*rest == ' ')
		rest++;
	dispatch(a, e->cmd, *rest || e->cmd == CMD_FILTER_CLEAR ? rest : NULL);
}

static void prompt_key(app *a, int key)
{
	prompt *p = &a->p;
	a->dirty |= D_MSG;
	if (p->cmd == CMD_PALETTE)
		a->dirty |= D_OVERLAY;
	if (p->confirm) {
		p->active = 0;
		a->dirty = D_ALL;
		a->touch = 1;
		if (key == 'y' || key == 'Y') {
			char answer[sizeof p->answer];
			snprintf(answer, sizeof answer, "%s", *p->answer ? p->answer : "yes");
			dispatch(a, p->cmd, answer);
		}
		else
			tui_message(&a->t, UI_NORMAL, "%s", _("Nothing done."));
		return;
	}
	/* an offered default (the current filter, a format, a path) is replaced by what is
	 * typed, unless the person first moves into it or edits it */
	int offered = p->offered;
	p->offered = 0;
	if (offered && key >= 0x20 && key < UI_KEY_BASE && key != 0x7F) {
		p->buf[0] = '\0';
		p->len = p->pos = 0;
	}
	switch (key) {
	case UI_KEY_ENTER: {
		char line[512];
		snprintf(line, sizeof line, "%s", p->buf);
		int cmd = p->cmd;
		long long about = p->about;
		p->active = 0;
		a->dirty = D_ALL;
		a->touch = 1;
		if (cmd == CMD_PALETTE)
			run_palette(a, line);
		else if (cmd == CMD_UNWAIVE && about)
			unwaive_finding(a, about, line);
		else
			dispatch(a, cmd, line);
		return;
	}
	case UI_KEY_ESC:
	case UI_KEY_CTRL('c'):
	case UI_KEY_CTRL('g'):
		p->active = 0;
		a->dirty = D_ALL;
		a->touch = 1;
		return;
	case UI_KEY_BACKSPACE:
		if (p->pos > 0) {
			size_t q = prev_char(p, p->pos);
			memmove(p->buf + q, p->buf + p->pos, p->len - p->pos + 1);
			p->len -= p->pos - q;
			p->pos = q;
		} else if (p->len == 0) {
			p->active = 0;
			a->dirty = D_ALL;
			a->touch = 1;
		}
		return;
	case UI_KEY_DELETE:
		if (p->pos < p->len) {
			size_t q = next_char(p, p->pos);
			memmove(p->buf + p->pos, p->buf + q, p->len - q + 1);
			p->len -= q - p->pos;
		}
		return;
	case UI_KEY_LEFT: p->pos = prev_char(p, p->pos); return;
	case UI_KEY_RIGHT: p->pos = next_char(p, p->pos); return;
	case UI_KEY_HOME:
	case UI_KEY_CTRL('a'): p->pos = 0; return;
	case UI_KEY_END:
	case UI_KEY_CTRL('e'): p->pos = p->len; return;
	case UI_KEY_CTRL('u'): p->buf[0] = '\0'; p->len = p->pos = 0; return;
	case UI_KEY_TAB:
		if (p->cmd == CMD_PALETTE)
			palette_complete(a);
		return;
	default:
		if (key >= 0x20 && key < UI_KEY_BASE && key != 0x7F)
			prompt_insert(p, key);
	}
}

/* --- routing --- */

static int view_pane(int view)
{
	switch (view) {
	case VIEW_TIMELINE: return PANE_TIMELINE;
	case VIEW_GUIDE: return PANE_GUIDE;
	case VIEW_CHART: return PANE_CHART;
	case VIEW_ARTIFACTS: return PANE_ARTIFACTS;
	case VIEW_FIX: return PANE_FIX;
	case VIEW_AUDIT: return PANE_AUDIT;
	case VIEW_SHOW: return PANE_SHOW;
	case VIEW_SETTINGS: return PANE_SETTINGS;
	case VIEW_MESSAGES: return PANE_MESSAGES;
	default: return PANE_FINDINGS;
	}
}

static void drop_plan(tui *t)
{
	fix_plan_free(t->plan);
	t->plan = NULL;
	t->plan_what[0] = '\0';
}

static void set_view(app *a, int view)
{
	tui *t = &a->t;
	if (t->view == VIEW_FIX && view != VIEW_FIX)
		drop_plan(t);
	t->view = t->view == view && view != VIEW_FINDINGS ? VIEW_FINDINGS : view;
	a->zoom = 0;
	a->dirty = D_ALL;
	a->touch = 1;
}

/* --- fixes: preview, then apply (as `ferry fix`) --- */

enum fix_scope { FIX_FINDING, FIX_PLUGIN, FIX_FILE, FIX_PHASE };

/* Plans the fixes of a scope — the selected finding (or the ids in arg), its check
 * (or the plugin in arg), its file (or the path in arg), the selected phase — and
 * opens the preview. Planning re-runs the checks involved under the writer lock,
 * like `ferry fix`; the lock is released while the preview waits for y or n. */
static void fix_preview(app *a, int scope, const char *arg)
{
	tui *t = &a->t;
	const finding *f = t->sel;
	const char *phase = phase_name(t->m.phase);
	long long ids[32];
	char plugin[128] = "", file[512] = "";
	fix_select sel = { ids, 0, NULL, NULL, phase, 0 };
	if (t->running)
		return;
	if (arg && *arg && scope == FIX_FINDING) {
		char *copy = xstrdup(arg), *save = NULL;
		for (char *w = strtok_r(copy, " ,", &save); w && sel.nids < 32; w = strtok_r(NULL, " ,", &save)) {
			char *end = NULL;
			long long id = strtoll(w[0] == '#' ? w + 1 : w, &end, 10);
			if (!end || *end || id <= 0) {
				tui_message(t, UI_ERROR, _("%s: not a finding number"), w);
				free(copy);
				return;
			}
			ids[sel.nids++] = id;
		}
		free(copy);
		sel.phase = NULL;
	} else if (arg && *arg && scope == FIX_PLUGIN) {
		snprintf(plugin, sizeof plugin, "%s", arg);
		sel.phase = NULL;
	} else if (arg && *arg && scope == FIX_FILE) {
		snprintf(file, sizeof file, "%s", arg);
	} else if (scope != FIX_PHASE) {
		if (!f) {
			tui_message(t, UI_WARN, "%s", _("No finding selected."));
			return;
		}
		if (f->status != STATUS_OPEN) {
			tui_message(t, UI_WARN, _("Finding #%lld is %s; only open findings can be fixed."), f->id, pane_word(status_name(f->status)));
			return;
		}
		if (scope == FIX_FINDING && !f->nedits) {
			tui_message(t, UI_WARN, _("Finding #%lld has no automatic fix: change the code with e, or waive it with w."),
			            f->id);
			return;
		}
		ids[sel.nids] = f->id;
		sel.nids = scope == FIX_FINDING;
		snprintf(plugin, sizeof plugin, "%s", f->plugin);
		snprintf(file, sizeof file, "%s", f->file);
		if (scope == FIX_FILE && !*file) {
			tui_message(t, UI_WARN, "%s", _("This finding has no file to open."));
			return;
		}
	}
	char what[320];
	switch (scope) {
	case FIX_FINDING:
		if (sel.nids == 1 && *plugin)
			snprintf(what, sizeof what, _("finding #%lld (%s)"), ids[0], plugin);
		else if (sel.nids == 1)
			snprintf(what, sizeof what, _("finding #%lld"), ids[0]);
		else
			snprintf(what, sizeof what, P_("%zu finding", "%zu findings", sel.nids), sel.nids);
		break;
	case FIX_PLUGIN:
		sel.plugin = plugin;
		snprintf(what, sizeof what, _("every fix of %s"), plugin);
		break;
	case FIX_FILE:
		sel.file = file;
		sel.all = 1;
		snprintf(what, sizeof what, _("every fix in %s (%s)"), file, phase_title(phase));
		break;
	default:
		sel.all = 1;
		snprintf(what, sizeof what, _("every fix of phase %s"), phase_title(phase));
	}
	int rc = lock_synced(a, NULL);
	if (rc) {
		tui_message(t, UI_ERROR, "%s", err_message());
		return;
	}
	t->running = 1;
	a->busy_fixed = 1;
	snprintf(t->progress, sizeof t->progress, "%s", _("planning the fix: re-running its checks…"));
	a->dirty = D_ALL;
	repaint_during_run(a, 1);
	fix_plan *plan = NULL;
	rc = fix_plan_new(&plan, t->m.ws, &sel);
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	reload(a); /* the fresh run may have changed the findings */
	ws_unlock(t->m.ws);
	t->running = 0;
	a->busy_fixed = 0;
	if (rc) {
		tui_message(t, UI_ERROR, "%s", err);
		return;
	}
	drop_plan(t);
	t->plan = plan;
	t->plan_gen++;
	snprintf(t->plan_what, sizeof t->plan_what, "%s", what);
	snprintf(t->plan_head, sizeof t->plan_head, "%s", t->m.head);
	t->view = VIEW_FIX;
	a->zoom = 0;
	a->dirty = D_ALL;
	a->touch = 1;
}

/* Applies the previewed plan (y): one checkpoint per check, findings marked fixed.
 * Refuses when the project changed since the preview, so no edit is lost. */
static void fix_apply(app *a)
{
	tui *t = &a->t;
	if (!t->plan)
		return;
	size_t nfind = 0, nfiles = 0, nplug = 0, made = 0, nout = 0;
	/* the hunks the person left out: their findings leave the plan and stay open */
	const long long *out = fixview_left_out(t, &nout);
	if (nout && fix_plan_withdraw(t->plan, t->m.ws, out, nout) != 0) {
		tui_message(t, UI_ERROR, "%s", err_message());
		return;
	}
	fix_plan_counts(t->plan, &nfind, &nfiles, &nplug);
	if (!nfind) {
		set_view(a, VIEW_FINDINGS);
		tui_message(t, UI_WARN, "%s", nout ? _("Nothing was applied: every hunk was left out.")
		                                   : _("Nothing was applied: every selected fix was refused."));
		return;
	}
	int synced = 0;
	char head[41] = "";
	int rc = lock_synced(a, &synced);
	if (rc) {
		tui_message(t, UI_ERROR, "%s", err_message());
		return;
	}
	if (!(rc = history_head(head, t->m.ws->hist)) && (synced || strcmp(head, t->plan_head) != 0)) {
		ws_unlock(t->m.ws);
		set_view(a, VIEW_FINDINGS);
		reload(a);
		tui_message(t, UI_WARN, "%s",
		            _("The project changed since the preview (a new checkpoint was recorded); nothing was applied. Preview the fix again."));
		return;
	}
	if (!rc) {
		t->running = 1;
		a->busy_fixed = 1;
		snprintf(t->progress, sizeof t->progress, "%s", _("applying the fixes…"));
		repaint_during_run(a, 1);
		rc = fix_plan_apply(&made, t->plan, t->m.ws);
	}
	ws_unlock(t->m.ws);
	t->running = 0;
	a->busy_fixed = 0;
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	set_view(a, VIEW_FINDINGS);
	reload(a);
	char nf[64], nc[64];
	snprintf(nf, sizeof nf, P_("%zu finding", "%zu findings", nfind), nfind);
	snprintf(nc, sizeof nc, P_("%zu checkpoint", "%zu checkpoints", made), made);
	if (rc)
		tui_message(t, UI_ERROR, "%s", err);
	else /* TRANSLATORS: "Fixed 2 findings in 1 checkpoint; ..." */
		tui_message(t, UI_OK, _("Fixed %s in %s; the head is now checkpoint #%lld (%.7s)."), nf, nc, t->m.head_cp,
		            t->m.head);
}

/* --- reports (as `ferry report`) --- */

/* The second question of p: the path, after the format; not a keymap command. */
enum { CMD_REPORT_PATH = CMD_COUNT + 1, CMD_SETTING_VALUE };

static void prompt_start(app *a, int cmd, int confirm, const char *label, const char *initial);

/* Where a file ferry writes for itself (a screen dump, a report) goes: a relative path
 * under .ferry/FOLDER/ (or under .ferry/ when it names it), and it must stay there; an
 * absolute path as given unless it lies in the project outside .ferry/ — there it would
 * become a "manual edit" checkpoint of the client's code and ship in an export. Both are
 * judged where they lead, ".." and links followed. *abs and *shown (the path as the
 * message names it) are malloc'd; the folder is created. */
static int own_path(char **abs, char **shown, workspace *ws, const char *path, const char *folder)
{
	*abs = *shown = NULL;
	int relative = path[0] != '/';
	char *named = !relative || util_starts_with(path, ".ferry/") ? xstrdup(path)
	                                                              : xasprintf(".ferry/%s/%s", folder, path);
	char *want = relative ? util_path_join(ws->root, named) : xstrdup(path);
	char *dest = util_resolve_dest(want);
	int rc = 0;
	if (!dest)
		rc = err_set(FERRY_EREFUSED, _("%s: no folder of it exists"), path);
	else if (relative && !util_path_under(dest, ws->dir))
		rc = err_set(FERRY_EREFUSED, _("%s: leads outside .ferry/; name a file under .ferry/%s/, or give an absolute path "
		                               "outside the project"),
		             path, folder);
	else if (ws_in_client_code(ws, dest))
		rc = err_set(FERRY_EREFUSED, _("%s: inside the project; ferry writes its own files under .ferry/"), path);
	free(want);
	if (rc) {
		free(dest);
		free(named);
		return rc;
	}
	*abs = dest;
	*shown = named;
	char *slash = strrchr(*abs, '/');
	*slash = '\0';
	rc = util_mkdirs(*abs, 0755);
	*slash = '/';
	return rc;
}

/* Writes the report in format to path (see own_path: under .ferry/artifacts/reports/
 * unless absolute) with report_write, the function behind `ferry report`, under the
 * writer lock. */
static void write_report(app *a, const char *format, const char *path)
{
	tui *t = &a->t;
	while (*path == ' ')
		path++;
	if (!*path) {
		tui_message(t, UI_ERROR, "%s", _("A report needs a file to write to."));
		return;
	}
	char *abs = NULL, *shown = NULL;
	if (own_path(&abs, &shown, t->m.ws, path, "artifacts/reports")) {
		tui_message(t, UI_ERROR, "%s", err_message());
		free(abs);
		free(shown);
		return;
	}
	path = shown;
	/* lang NULL: the engagement's "language" setting, as `ferry report` uses it */
	report_opts o = { format, "all", abs, FERRY_VERSION, NULL, 0, NULL };
	char sha[65] = "";
	int rc = lock_synced(a, NULL);
	if (!rc) {
		t->running = 1;
		a->busy_fixed = 1;
		snprintf(t->progress, sizeof t->progress, "%s", _("writing the report…"));
		repaint_during_run(a, 1);
		rc = report_write(sha, t->m.ws, &o);
		ws_unlock(t->m.ws);
		t->running = 0;
		a->busy_fixed = 0;
	}
	char err[ERR_MAX];
	snprintf(err, sizeof err, "%s", err_message());
	reload(a);
	if (rc)
		tui_message(t, UI_ERROR, "%s", err);
	else
		tui_message(t, UI_OK, _("Wrote %s (%s report, sha256 %.8s, recorded in the audit chain)."), path, format, sha);
	free(abs);
	free(shown);
}

/* p: "FORMAT [PATH]"; without a path, asks for one with a default under
 * .ferry/artifacts/reports/. */
static void do_report(app *a, const char *arg)
{
	tui *t = &a->t;
	char format[16] = "";
	while (arg && *arg == ' ')
		arg++;
	size_t n = arg ? strcspn(arg, " ") : 0;
	snprintf(format, sizeof format, "%.*s", (int)(n < sizeof format ? n : sizeof format - 1), arg ? arg : "");
	if (!report_format_valid(format)) {
		tui_message(t, UI_ERROR, _("%s: not a report format (md, html, json, sarif or csv)"), format);
		return;
	}
	const char *rest = arg + n;
	while (*rest == ' ')
		rest++;
	if (*rest) {
		write_report(a, format, rest);
		return;
	}
	snprintf(a->report_format, sizeof a->report_format, "%s", format);
	char stamp[32], def[128], label[128];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	snprintf(def, sizeof def, ".ferry/artifacts/reports/report-%s.%s", stamp, format);
	snprintf(label, sizeof label, _("Write the %s report to: "), format);
	prompt_start(a, CMD_REPORT_PATH, 0, label, def);
}

/* C: the selected finding's file:line (in the findings list) or checkpoint's commit (in
 * the timeline) onto the clipboard. */
static void do_copy(app *a)
{
	tui *t = &a->t;
	char text[600];
	if (t->view == VIEW_TIMELINE && t->sel_cp)
		snprintf(text, sizeof text, "%s", t->sel_cp_commit);
	else if (t->view == VIEW_FINDINGS && t->sel && *t->sel->file)
		snprintf(text, sizeof text, "%s:%d", t->sel->file, t->sel->line);
	else {
		tui_message(t, UI_WARN, "%s", _("Select a finding or a checkpoint to copy."));
		return;
	}
	if (ui_clipboard(text))
		tui_message(t, UI_ERROR, "%s", err_message());
	else
		tui_message(t, UI_OK, _("Copied %s to the clipboard."), text);
}

/* --- the engagement commands of the palette (the CLI's, through the same functions) --- */

/* Shows the command's usage on the message line; always returns 0 so callers can
 * `return usage(...)`. */
static void usage(app *a, int cmd)
{
	const keymap_entry *e = keymap_by_cmd(cmd);
	tui_message(&a->t, UI_ERROR, "%s %s", _("usage:"), keymap_usage(cmd) ? keymap_usage(cmd) : e ? e->name : "");
}

/* Runs work under the writer lock with the running indicator up; reloads afterwards.
 * Returns the work's code; the error line is kept in err. */
typedef int (*locked_fn)(app *a, void *arg);

static int under_lock(app *a, const char *doing, locked_fn fn, void *arg, char *err, size_t n)
{
	tui *t = &a->t;
	int rc = lock_synced(a, NULL);
	if (!rc) {
		t->running = 1;
		a->busy_fixed = 1;
		snprintf(t->progress, sizeof t->progress, "%s", doing);
		a->dirty = D_ALL;
		repaint_during_run(a, 1);
		rc = fn(a, arg);
		ws_unlock(t->m.ws);
		t->running = 0;
		a->busy_fixed = 0;
	}
	snprintf(err, n, "%s", rc ? err_message() : "");
	reload(a);
	return rc;
}

struct ingest_args {
	const char *kind, *label;
	char *path;
	long long id;
};

/* The checks that judge evidence run again once it changed, as the CLI does (their
 * failures are kept as plugin errors, shown with the findings). */
static int rejudge_locked(app *a, unsigned evidence)
{
	check_result res;
	int rc = review_rejudge(&res, a->t.m.ws, evidence);
	check_result_done(&res);
	return rc;
}

static int ingest_locked(app *a, void *arg)
{
	struct ingest_args *g = arg;
	int rc = ingest_file(&g->id, a->t.m.ws, g->kind, g->path, g->label);
	return rc ? rc : rejudge_locked(a, plugin_evidence_bit(g->kind));
}

/* ingest KIND PATH [--label L], as `ferry ingest`. */
/* ingest env-probe --local [--smoke]: the probe runs here (before the lock: it takes
 * seconds), then its result is ingested like any probe. */
struct local_probe_args {
	char *json;
	size_t len;
	const char *label;
	long long id;
};

static int ingest_local_locked(app *a, void *arg)
{
	struct local_probe_args *g = arg;
	int rc = ingest_bytes(&g->id, a->t.m.ws, "env-probe", "local-probe.json", g->json, g->len, g->label);
	return rc ? rc : rejudge_locked(a, plugin_evidence_bit("env-probe"));
}

/* ingest KIND PATH [--label L] | ingest env-probe --local [--smoke] [--label L], as
 * `ferry ingest`: options anywhere after the kind. */
static void do_ingest(app *a, const char *arg)
{
	char *copy = xstrdup(arg ? arg : ""), *v[8], err[ERR_MAX];
	size_t n = palette_split(v, 8, copy);
	const char *pos[2] = { NULL, NULL }, *label = NULL;
	int local = 0, smoke = 0, npos = 0, bad = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(v[i], "--label") == 0 && i + 1 < n)
			label = v[++i];
		else if (strcmp(v[i], "--local") == 0)
			local = 1;
		else if (strcmp(v[i], "--smoke") == 0)
			smoke = 1;
		else if (npos < 2 && v[i][0] != '-')
			pos[npos++] = v[i];
		else
			bad = 1;
	}
	if (bad || !npos || (local ? npos != 1 || strcmp(pos[0], "env-probe") != 0 : npos != 2 || smoke)) {
		usage(a, CMD_INGEST);
		free(copy);
		return;
	}
	if (local) {
		struct local_probe_args g = { NULL, 0, label, 0 };
		tui_message(&a->t, UI_NORMAL, "%s", _("probing this machine…"));
		if (probe_run_local(&g.json, &g.len, smoke) != 0)
			tui_message(&a->t, UI_ERROR, "%s", err_message());
		else if (under_lock(a, _("ingesting…"), ingest_local_locked, &g, err, sizeof err))
			tui_message(&a->t, UI_ERROR, "%s", err);
		else
			tui_message(&a->t, UI_OK, _("Probed this machine and ingested the result as artifact #%lld (env-probe)."), g.id);
		free(g.json);
		free(copy);
		return;
	}
	struct ingest_args g = { pos[0], label, NULL, 0 };
	int known = 0;
	for (size_t i = 0; artifact_kinds[i]; i++)
		known |= strcmp(artifact_kinds[i], g.kind) == 0;
	g.path = pane_expand_path(pos[1]);
	if (!known) {
		artifact_validate(g.kind, g.path, "", 0); /* the usage error listing the kinds */
		tui_message(&a->t, UI_ERROR, "%s", err_message());
	} else if (under_lock(a, _("ingesting…"), ingest_locked, &g, err, sizeof err))
		tui_message(&a->t, UI_ERROR, "%s", err);
	else
		tui_message(&a->t, UI_OK, _("Ingested %s as artifact #%lld (%s)."), pos[1], g.id, g.kind);
	free(g.path);
	free(copy);
}

struct config_args {
	const char *key, *value;
};

static int config_locked(app *a, void *arg)
{
	struct config_args *g = arg;
	char *before = store_config_get(a->t.m.ws->db, g->key);
	int rc = config_set(a->t.m.ws, g->key, g->value);
	int judged = config_key_judged(config_key_find(g->key)) && !(before && strcmp(before, g->value) == 0);
	free(before);
	return rc || !judged ? rc : rejudge_locked(a, EVIDENCE_SETTINGS);
}

/* config KEY VALUE (as `ferry config KEY VALUE`); config KEY shows the value. */
static void do_config(app *a, const char *arg)
{
	tui *t = &a->t;
	while (arg && *arg == ' ')
		arg++;
	size_t kn = arg ? strcspn(arg, " ") : 0;
	if (!kn) {
		usage(a, CMD_CONFIG);
		return;
	}
	char key[128], err[ERR_MAX];
	snprintf(key, sizeof key, "%.*s", (int)(kn < sizeof key ? kn : sizeof key - 1), arg);
	const char *value = arg + kn;
	while (*value == ' ')
		value++;
	if (check_declare_settings(t->m.ws) || config_key_check(key)) {
		tui_message(t, UI_ERROR, "%s", err_message());
		return;
	}
	if (!*value) {
		char *v = store_config_get(t->m.ws->db, key);
		const struct config_key *k = config_key_find(key);
		tui_message(t, UI_NORMAL, "%s = %s   (%s %s)", key, v ? v : k->def ? k->def : _("(not set)"), _("usage:"),
		            keymap_usage(CMD_CONFIG));
		free(v);
		return;
	}
	struct config_args g = { key, value };
	if (under_lock(a, _("saving the setting…"), config_locked, &g, err, sizeof err))
		tui_message(t, UI_ERROR, "%s", err);
	else
		tui_message(t, UI_OK, _("%s set to %s (recorded in the audit chain)."), key, value);
}

struct unset_args {
	const char *key;
	char *before; /* the value it had; NULL: it was not set */
};

static int config_unset_locked(app *a, void *arg)
{
	struct unset_args *u = arg;
	int rc = config_unset(&u->before, a->t.m.ws, u->key);
	return rc || !u->before || !config_key_judged(config_key_find(u->key)) ? rc : rejudge_locked(a, EVIDENCE_SETTINGS);
}

/* unset KEY (as `ferry config --unset KEY`): one word, the key. */
static void do_config_unset(app *a, const char *arg)
{
	tui *t = &a->t;
	char err[ERR_MAX], *copy = xstrdup(arg ? arg : ""), *v[2];
	struct unset_args u = { palette_split(v, 2, copy) == 1 ? v[0] : NULL, NULL };
	if (!u.key)
		usage(a, CMD_CONFIG_UNSET);
	else if (check_declare_settings(t->m.ws))
		tui_message(t, UI_ERROR, "%s", err_message());
	else if (under_lock(a, _("saving the setting…"), config_unset_locked, &u, err, sizeof err))
		tui_message(t, UI_ERROR, "%s", err);
	else if (!u.before)
		tui_message(t, UI_NORMAL, _("%s was not set; nothing changed"), u.key);
	else
		tui_message(t, UI_OK, _("%s unset (was %s; recorded in the audit chain)."), u.key, u.before);
	free(u.before);
	free(copy);
}

static void drop_shown(tui *t)
{
	compare_outcome_done(t->cmp);
	free(t->cmp);
	t->cmp = NULL;
	free(t->show_text);
	t->show_text = NULL;
	t->show_title[0] = '\0';
	t->show_gen++;
}

struct compare_args {
	compare_req req;
	compare_outcome *out;
};

static int compare_locked(app *a, void *arg)
{
	struct compare_args *g = arg;
	int rc = compare_record(g->out, a->t.m.ws, &g->req);
	return rc ? rc : rejudge_locked(a, EVIDENCE_COMPARISONS);
}

/* compare loss A B [--column NAME] | compare dump A B [--dtype-a bf16] [--dtype-b bf16], as
 * `ferry compare`: recorded, then shown as curves and a table. */
static void do_compare(app *a, const char *arg)
{
	tui *t = &a->t;
	char *copy = xstrdup(arg ? arg : ""), *v[10], err[ERR_MAX];
	size_t n = palette_split(v, 10, copy);
	int loss = n >= 3 && strcmp(v[0], "loss") == 0, ok = n >= 3 && (loss || strcmp(v[0], "dump") == 0) && n % 2 == 1;
	compare_req req = { loss, NULL, NULL, NULL, 0, NULL, NULL, 0, { 0, 0, 0 }, 0 };
	for (size_t i = 3; ok && i + 1 < n; i += 2) {
		if (loss && strcmp(v[i], "--column") == 0)
			req.column = v[i + 1];
		else if (!loss && strcmp(v[i], "--dtype-a") == 0)
			req.dtype_a = v[i + 1];
		else if (!loss && strcmp(v[i], "--dtype-b") == 0)
			req.dtype_b = v[i + 1];
		else
			ok = 0;
	}
	if (!ok) {
		usage(a, CMD_COMPARE);
		free(copy);
		return;
	}
	if (compare_req_check(&req)) {
		tui_message(t, UI_ERROR, "%s", err_message());
		free(copy);
		return;
	}
	char *pa = pane_expand_path(v[1]), *pb = pane_expand_path(v[2]);
	req.a = pa;
	req.b = pb;
	struct compare_args g = { req, xcalloc(1, sizeof(compare_outcome)) };
	int same, decimals;
	if (under_lock(a, _("comparing…"), compare_locked, &g, err, sizeof err)) {
		tui_message(t, UI_ERROR, "%s", err);
		free(g.out);
	} else {
		drop_shown(t);
		t->cmp = g.out;
		/* the inputs by the names the user knows them by: a label, the file an artifact was
		 * ingested from (never its stored copy's path) */
		snprintf(t->show_title, sizeof t->show_title, _("Comparison of %s: %s (A, GPU) against %s (B, NPU)"), v[0],
		         json_str(g.out->in_a, "shown"), json_str(g.out->in_b, "shown"));
		t->show_back = VIEW_ARTIFACTS;
		t->view = VIEW_SHOW;
		a->zoom = 0;
		a->dirty = D_ALL;
		a->touch = 1;
		if (!g.out->pass) {
			compare_failure(g.out, &g.req);
			tui_message(t, UI_ERROR, "%s", err_message());
		} else if ((same = compare_same_input(g.out, &decimals))) {
			char says[512];
			tui_message(t, UI_WARN, _("compare %s %s %s: proves nothing: %s."), v[0], v[1], v[2],
			            compare_same_text(says, sizeof says, g.out, same, decimals));
		} else if (compare_b_is_gpu(g.out)) {
			tui_message(t, UI_WARN, _("compare %s %s %s: B is labelled as a GPU run: it measures the GPU's own spread, not the NPU."),
			            v[0], v[1], v[2]);
		} else {
			tui_message(t, UI_OK, _("compare %s %s %s: pass (recorded in the audit chain)."), v[0], v[1], v[2]);
		}
	}
	free(pa);
	free(pb);
	free(copy);
}

struct export_args {
	int patches;
	char *dir_or_name, *repo;
	const char *base;
	char anchor[96];
};

static int export_locked(app *a, void *arg)
{
	struct export_args *g = arg;
	if (g->patches)
		return export_patches(g->anchor, a->t.m.ws, g->dir_or_name);
	return export_branch(g->anchor, a->t.m.ws, g->dir_or_name, g->repo, g->base);
}

/* export patches DIR | export branch NAME --to REPO [--base REV], as `ferry export`. */
static void do_export(app *a, const char *arg)
{
	tui *t = &a->t;
	char *copy = xstrdup(arg ? arg : ""), *v[8], err[ERR_MAX];
	size_t n = palette_split(v, 8, copy);
	struct export_args g = { 0, NULL, NULL, NULL, "" };
	if (n == 2 && strcmp(v[0], "patches") == 0) {
		g.patches = 1;
		g.dir_or_name = pane_expand_path(v[1]);
	} else if ((n == 4 || n == 6) && strcmp(v[0], "branch") == 0 && strcmp(v[2], "--to") == 0 &&
	           (n == 4 || strcmp(v[4], "--base") == 0)) {
		g.dir_or_name = xstrdup(v[1]);
		g.repo = pane_expand_path(v[3]);
		g.base = n == 6 ? v[5] : NULL;
	} else {
		usage(a, CMD_EXPORT);
		free(copy);
		return;
	}
	if (under_lock(a, _("exporting…"), export_locked, &g, err, sizeof err))
		tui_message(t, UI_ERROR, "%s", err);
	else if (g.patches)
		tui_message(t, UI_OK, _("Wrote one patch per checkpoint into %s; audit anchor %s."), v[1], g.anchor);
	else
		tui_message(t, UI_OK, _("Created branch %s in %s; audit anchor %s."), v[1], v[3], g.anchor);
	free(g.dir_or_name);
	free(g.repo);
	free(copy);
}

/* verify, as `ferry verify`: the result is kept for the audit pane, which opens. */
static void do_verify(app *a)
{
	tui *t = &a->t;
	audit_report rep;
	int rc = audit_check_record(&rep, t->m.ws->db, t->m.ws->hist, NULL);
	if (!rc && (rc = seal_verify_all(rep.problems, t->m.ws))) /* the artifacts' stored bytes too */
		audit_report_done(&rep);
	free(t->verify);
	t->verify = NULL;
	if (rc) {
		t->verify = xstrdup(err_message());
		t->verify_ok = 0;
		tui_message(t, UI_ERROR, "%s", err_message());
	} else {
		sbuf b;
		sbuf_init(&b);
		int np = cJSON_GetArraySize(rep.problems);
		const cJSON *p, *sg;
		cJSON_ArrayForEach(p, rep.problems)
			sbuf_addf(&b, "%s\n", json_str(p, "detail"));
		cJSON_ArrayForEach(sg, rep.signatures)
			sbuf_addf(&b, _("signature: event %lld signs head %.16s:%lld, %s, by %s\n"), json_int(sg, "seq"),
			          json_str(sg, "head"), json_int(sg, "signed_seq"),
			          cJSON_IsTrue(cJSON_GetObjectItem(sg, "valid")) ? _("good") : _("BAD"),
			          cJSON_IsString(cJSON_GetObjectItem(sg, "signer")) ? json_str(sg, "signer") : _("(unknown)"));
		if (!np)
			sbuf_addf(&b, P_("ok: %lld audit event intact, head %.16s:%lld; every checkpoint present and anchored; the record agrees with the chain and the artifacts with their hashes",
			             "ok: %lld audit events intact, head %.16s:%lld; every checkpoint present and anchored; the record agrees with the chain and the artifacts with their hashes",
			             (unsigned long)rep.events),
			          rep.events, rep.head, rep.events);
		t->verify = sbuf_detach(&b);
		sbuf_done(&b);
		t->verify_ok = !np;
		if (np)
			tui_message(t, UI_ERROR, P_("verify: %d problem; the first: %s", "verify: %d problems; the first: %s", (unsigned long)np), np,
			            json_str(cJSON_GetArrayItem(rep.problems, 0), "detail"));
		else
			tui_message(t, UI_OK, P_("verify: ok, %lld audit event intact.", "verify: ok, %lld audit events intact.", (unsigned long)rep.events),
			            rep.events);
		audit_report_done(&rep);
	}
	if (t->view != VIEW_AUDIT)
		set_view(a, VIEW_AUDIT);
	t->ops[PANE_AUDIT]->handle(t->st[PANE_AUDIT], t, CMD_RELOAD, NULL);
	a->dirty = D_ALL;
}

struct unwaive_args {
	long long id;
	const char *reason;
};

static int unwaive_locked(app *a, void *arg)
{
	struct unwaive_args *g = arg;
	return review_unwaive(a->t.m.ws, &g->id, 1, g->reason);
}

/* As `ferry unwaive ID --reason REASON`: the whole of reason is the reason. */
static void unwaive_finding(app *a, long long id, const char *reason)
{
	tui *t = &a->t;
	char err[ERR_MAX];
	if (!review_reason_given(reason)) {
		tui_message(t, UI_ERROR, _("unwaive: a reason is required; the waiver of #%lld stands"), id);
		return;
	}
	struct unwaive_args g = { id, reason };
	if (under_lock(a, _("withdrawing the waiver…"), unwaive_locked, &g, err, sizeof err))
		tui_message(t, UI_ERROR, "%s", err);
	else
		tui_message(t, UI_OK, _("Withdrew the waiver of #%lld; it is open again."), id);
}

/* unwaive [N] REASON, as `ferry unwaive N --reason REASON`; without N the selected finding,
 * whose reason is then asked for on its own (a reason may start with a number). */
static void do_unwaive(app *a, const char *arg)
{
	tui *t = &a->t;
	while (arg && *arg == ' ')
		arg++;
	struct unwaive_args g = { 0, NULL };
	char *end = NULL;
	if (arg && *arg) {
		long long id = strtoll(arg[0] == '#' ? arg + 1 : arg, &end, 10);
		if (end && (*end == ' ' || !*end) && id > 0) {
			g.id = id;
			arg = end;
			while (*arg == ' ')
				arg++;
		}
	}
	if (!g.id && t->sel && t->sel->status == STATUS_WAIVED)
		g.id = t->sel->id;
	if (!g.id) {
		usage(a, CMD_UNWAIVE);
		return;
	}
	if (!arg || !*arg) {
		char label[160];
		snprintf(label, sizeof label, _("Reason for withdrawing the waiver of #%lld: "), g.id);
		prompt_start(a, CMD_UNWAIVE, 0, label, NULL);
		a->p.about = g.id;
		return;
	}
	unwaive_finding(a, g.id, arg);
}

/* probe-script PATH, as `ferry probe-script > PATH`: under .ferry/probe/ unless absolute. */
static void do_probe_script(app *a, const char *arg)
{
	tui *t = &a->t;
	while (arg && *arg == ' ')
		arg++;
	if (!arg || !*arg) {
		usage(a, CMD_PROBE_SCRIPT);
		return;
	}
	char *path = pane_expand_path(arg), *abs = NULL, *shown = NULL;
	const char *text = NULL;
	size_t len = 0;
	int rc = own_path(&abs, &shown, t->m.ws, path, "probe");
	if (!rc)
		rc = probe_script(&text, &len);
	if (!rc)
		rc = util_write_atomic(abs, text, len, 0755);
	if (rc)
		tui_message(t, UI_ERROR, "%s", err_message());
	else
		tui_message(t, UI_OK, _("Wrote the probe to %s: run it on the NPU host (sh probe.sh > host.json), then :ingest env-probe host.json"),
		            shown);
	free(path);
	free(abs);
	free(shown);
}

/* --- opening an artifact (the artifacts pane's Enter) --- */

/* Runs $PAGER (else less) on path in the terminal, and comes back. */
static void page_file(app *a, const char *path)
{
	const char *pager = getenv("PAGER");
	if (!pager || !*pager)
		pager = "less";
	char *cmd = xasprintf("%s \"$1\"", pager);
	ui_suspend();
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, "sh", path, (char *)NULL);
		_exit(127);
	}
	int status = 0;
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0)
			;
	ui_resume();
	free(cmd);
	layout(a);
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		tui_message(&a->t, UI_WARN, _("The pager (%s) did not finish cleanly."), pager);
}

int tui_open_artifact(tui *t, const tui_artifact *art)
{
	app *a = (app *)t;
	if (strcmp(art->kind, "report") == 0) {
		char *path = art->path[0] == '/' ? xstrdup(art->path) : util_path_join(t->m.ws->root, art->path);
		page_file(a, path);
		free(path);
		return PANE_HANDLED | PANE_LAYOUT;
	}
	compare_outcome *o = NULL;
	char *text = NULL;
	int rc;
	if (strcmp(art->kind, "compare") == 0) {
		/* judged again as it was judged when recorded */
		compare_req req = { art->loss, art->a, art->b, art->column, 0, art->dtype_a, art->dtype_b, 1, art->th,
			            art->tolerance };
		o = xcalloc(1, sizeof *o);
		t->running = 1;
		a->busy_fixed = 1;
		snprintf(t->progress, sizeof t->progress, "%s", _("comparing…"));
		repaint_during_run(a, 1);
		rc = compare_compute(o, t->m.ws, &req);
		t->running = 0;
		a->busy_fixed = 0;
	} else {
		rc = artview_text(&text, &t->m, art);
	}
	if (rc) {
		tui_message(t, UI_ERROR, "%s", err_message());
		free(o);
		return PANE_HANDLED | PANE_LAYOUT;
	}
	drop_shown(t);
	t->cmp = o;
	t->show_text = text;
	if (o)
		snprintf(t->show_title, sizeof t->show_title, _("Comparison of %s: %s (A, GPU) against %s (B, NPU), recorded %s"),
		         art->loss ? "loss" : "dump", art->shown_a, art->shown_b, art->time);
	else
		if (art->label && *art->label)
			snprintf(t->show_title, sizeof t->show_title, "#%lld %s · %s", art->id, pane_word(art->kind), art->label);
		else
			snprintf(t->show_title, sizeof t->show_title, "#%lld %s", art->id, pane_word(art->kind));
	t->show_back = VIEW_ARTIFACTS;
	t->view = VIEW_SHOW;
	a->zoom = 0;
	return PANE_HANDLED | PANE_LAYOUT;
}

/* fmt (one %d) with n, in one of a few rotating static buffers (for two in a sentence). */
static const char *counted(const char *fmt, int n)
{
	static char buf[2][96];
	static int k;
	k = !k;
	snprintf(buf[k], sizeof buf[k], fmt, n);
	return buf[k];
}

/* The open findings of the selected phase with severity sev, one entry each: id, check,
 * place, message. */
static void list_open(sbuf *b, const tui *t, finding_severity sev)
{
	for (size_t i = 0; i < t->m.nf; i++) {
		const finding *f = &t->m.f[i];
		if (f->status != STATUS_OPEN || f->severity != sev || f->phase != t->m.phase)
			continue;
		sbuf_addf(b, "  #%lld  %s", f->id, f->plugin);
		if (*f->file)
			sbuf_addf(b, f->line > 0 ? "  %s:%d" : "  %s", f->file, f->line);
		sbuf_addf(b, "\n      %s\n", f->message);
	}
}

/* Shows the text in b (consumed) as a screen titled title; q goes back to the view before. */
static void show_screen(app *a, sbuf *b, const char *title)
{
	tui *t = &a->t;
	drop_shown(t);
	t->show_text = sbuf_detach(b);
	sbuf_done(b);
	snprintf(t->show_title, sizeof t->show_title, "%s", title);
	if (t->view != VIEW_SHOW)
		t->show_back = t->view;
	t->view = VIEW_SHOW;
	a->zoom = 0;
	a->dirty = D_ALL;
	a->touch = 1;
}

/* Before a sign-off is confirmed: when checklist items are not ticked or warnings are
 * open, they are listed in the show view above the question. Returns how many
 * checklist items are not ticked. */
static size_t signoff_review(app *a)
{
	tui *t = &a->t;
	const char *items[10];
	size_t n = guide_unticked(t, items, 10);
	int warnings = t->m.phases[t->m.phase].warnings;
	if (!n && !warnings)
		return 0;
	sbuf b;
	sbuf_init(&b);
	if (n) {
		sbuf_addf(&b, P_("Checklist item not ticked (%zu):\n", "Checklist items not ticked (%zu):\n", n), n);
		for (size_t i = 0; i < n; i++)
			sbuf_addf(&b, "  [ ] %s\n", _(items[i]));
		sbuf_adds(&b, "\n");
	}
	if (warnings) {
		sbuf_addf(&b, P_("Open warning (%d):\n", "Open warnings (%d):\n", (unsigned long)warnings), warnings);
		list_open(&b, t, SEVERITY_WARNING);
		sbuf_adds(&b, "\n");
	}
	sbuf_adds(&b, _("Signing off records that you accept these as they are. Esc cancels; q goes back."));
	sbuf_adds(&b, "\n");
	char title[160];
	snprintf(title, sizeof title, _("Before signing off %s"), phase_title(phase_name(t->m.phase)));
	show_screen(a, &b, title);
	a->reviewing = 1;
	return n;
}

/* A sign-off refused for open errors: every one of them listed, as the review screen
 * lists warnings (the message line has room for the first only). */
static void signoff_blockers(app *a)
{
	tui *t = &a->t;
	int errors = t->m.phases[t->m.phase].errors;
	if (errors <= 0)
		return;
	sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, P_("Open error (%d):\n", "Open errors (%d):\n", (unsigned long)errors), errors);
	list_open(&b, t, SEVERITY_ERROR);
	/* the keys act on the findings list, not on this screen */
	sbuf_addf(&b, "\n%s\n", _("q goes back to the findings: fix (F) or waive (w) each of them there, then sign off again."));
	char title[160];
	snprintf(title, sizeof title, _("Cannot sign off %s yet"), phase_title(phase_name(t->m.phase)));
	show_screen(a, &b, title);
}

/* Commands that need text first: ask for it on the prompt line. Returns 1 when
 * a prompt (or a refusal) took the command. */
static int needs_input(app *a, int cmd)
{
	tui *t = &a->t;
	char label[512], why[ERR_MAX];
	switch (cmd) {
	case CMD_FILTER:
		prompt_start(a, cmd, 0, _("Filter (words, #id, file:line, sev:, status:, plugin:, fix:yes): "), t->filter);
		return 1;
	case CMD_SEARCH:
		prompt_start(a, cmd, 0, _("Search (words, #id, file:line; empty repeats the last): "), NULL);
		return 1;
	case CMD_OPEN: {
		const tui_setting *s = t->view == VIEW_SETTINGS && !t->help ? settings_selected(t) : NULL;
		if (!s)
			return 0;
		snprintf(a->setting, sizeof a->setting, "%s", s->key);
		/* TRANSLATORS: "strategy (auto tool manual): " */
		snprintf(label, sizeof label, _("%s (%s): "), s->key, s->accepts);
		prompt_start(a, CMD_SETTING_VALUE, 0, label, s->value ? s->value : s->def);
		return 1;
	}
	case CMD_WAIVE: {
		const finding *f = t->view == VIEW_FINDINGS ? open_selection(a) : NULL;
		if (t->view != VIEW_FINDINGS)
			tui_message(t, UI_WARN, "%s", _("Waive from the findings list (f)."));
		if (!f) {
			a->dirty |= D_MSG;
			return 1;
		}
		snprintf(label, sizeof label, _("Reason for waiving #%lld: "), f->id);
		prompt_start(a, cmd, 0, label, NULL);
		return 1;
	}
	case CMD_SIGNOFF: {
		/* the acceptance criteria are judged on the latest evidence before asking */
		int rc = lock_synced(a, NULL);
		if (!rc) {
			rc = review_signoff_gate(t->m.ws, phase_name(t->m.phase));
			ws_unlock(t->m.ws);
		}
		snprintf(why, sizeof why, "%s", rc ? err_message() : "");
		reload(a);
		if (rc) {
			tui_message(t, UI_ERROR, "%s", why);
			return 1;
		}
		if (signoff_refusal(a, why, sizeof why)) {
			signoff_blockers(a);
			tui_message(t, UI_ERROR, "%s", why);
			a->dirty |= D_MSG;
			return 1;
		}
		size_t unticked = signoff_review(a);
		int warnings = t->m.phases[t->m.phase].warnings;
		if (warnings > 0 || unticked > 0) {
			const char *w = counted(P_("%d open warning", "%d open warnings", (unsigned long)warnings), warnings);
			const char *u = counted(P_("%d unticked checklist item", "%d unticked checklist items", (unsigned long)unticked),
			                        (int)unticked);
			char what[200];
			if (warnings && unticked)
				/* TRANSLATORS: "1 open warning and 2 unticked checklist items" */
				snprintf(what, sizeof what, _("%s and %s"), w, u);
			else
				snprintf(what, sizeof what, "%s", warnings ? w : u);
			/* what is still open comes before who signs: a line too narrow for the whole
			 * question loses the end of its first sentence (see prompt_label_shown);
			 * the name without its address, which the sign-off record keeps */
			/* TRANSLATORS: "Sign off adapt with 2 open warnings (listed above) as Ann?" */
			snprintf(label, sizeof label, _("Sign off %s with %s (listed above) as %s? Note (optional, Enter signs): "),
			         phase_title(phase_name(t->m.phase)), what, t->m.ws->actor_name);
		} else
			snprintf(label, sizeof label, _("Sign off %s as %s. Note (optional, Enter signs): "), phase_title(phase_name(t->m.phase)),
			         t->m.ws->actor_name);
		prompt_start(a, cmd, 0, label, NULL);
		return 1;
	}
	case CMD_SAVE_SCREEN: {
		char stamp[32], def[64];
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
		snprintf(def, sizeof def, ".ferry/screens/screen-%s.txt", stamp);
		prompt_start(a, cmd, 0, _("Save the screen to file: "), def);
		return 1;
	}
	case CMD_REPORT:
		prompt_start(a, cmd, 0, _("Report format (md, html, json, sarif or csv): "), "md");
		return 1;
	case CMD_INGEST:
	case CMD_CONFIG:
	case CMD_COMPARE:
	case CMD_EXPORT:
	case CMD_PROBE_SCRIPT: {
		/* the palette again, with the command's usage and what comes next */
		char initial[64];
		snprintf(initial, sizeof initial, "%s ", keymap_by_cmd(cmd)->name);
		prompt_start(a, CMD_PALETTE, 0, ":", initial);
		return 1;
	}
	case CMD_CONFIG_UNSET: {
		const tui_setting *s = t->view == VIEW_SETTINGS && !t->help ? settings_selected(t) : NULL;
		if (!s) {
			tui_message(t, UI_WARN, "%s", _("Select a setting in the settings form (o), or type :unset KEY."));
			a->dirty |= D_MSG;
			return 1;
		}
		if (!s->value) {
			tui_message(t, UI_NORMAL, _("%s was not set; nothing changed"), s->key);
			a->dirty |= D_MSG;
			return 1;
		}
		snprintf(label, sizeof label, _("Unset %s (now %s)? (y/n) "), s->key, s->value);
		prompt_start(a, cmd, 1, label, NULL);
		snprintf(a->p.answer, sizeof a->p.answer, "%s", s->key);
		return 1;
	}
	case CMD_REVERT:
		if (t->view != VIEW_TIMELINE || !t->sel_cp) {
			tui_message(t, UI_WARN, "%s", _("Select a checkpoint in the timeline (t) to revert it."));
			a->dirty |= D_MSG;
			return 1;
		}
		snprintf(label, sizeof label, _("Revert checkpoint #%lld (%.10s) with a new checkpoint? (y/n) "), t->sel_cp,
		         t->sel_cp_commit);
		prompt_start(a, cmd, 1, label, NULL);
		return 1;
	default: return 0;
	}
}

static void apply_flags(app *a, int pane, int flags, long long sel_before)
{
	if (flags & PANE_RELOAD)
		reload(a);
	if (flags & PANE_LAYOUT) {
		a->dirty = D_ALL;
		a->touch = 1;
	}
	if (flags & PANE_REDRAW) {
		if (pane == PANE_RAIL)
			a->dirty |= D_RAIL | D_MAIN | D_DETAIL | D_STATUS;
		else if (pane == PANE_DETAIL)
			a->dirty |= a->zoom ? D_MAIN | D_DETAIL : D_DETAIL;
		else if (pane == PANE_HELP)
			a->dirty |= D_OVERLAY;
		else
			a->dirty |= D_MAIN;
	}
	if (a->t.sel_id != sel_before)
		a->dirty |= D_DETAIL | (a->zoom ? D_MAIN : 0);
	if (flags & PANE_QUIT)
		a->quit = 1;
}

/* 1 when cmd may run while the fix preview waits for its answer. */
static int allowed_in_preview(int cmd)
{
	switch (cmd) {
	case CMD_UP: case CMD_DOWN: case CMD_PAGE_UP: case CMD_PAGE_DOWN: case CMD_TOP: case CMD_BOTTOM:
	case CMD_FIX_APPLY: case CMD_FIX_DISCARD: case CMD_BACK: case CMD_CANCEL: case CMD_HELP:
	case CMD_PALETTE: case CMD_LANG: case CMD_SAVE_SCREEN: case CMD_QUIT:
	case CMD_SEARCH: case CMD_SCROLL_LEFT: case CMD_SCROLL_RIGHT: case CMD_PHASE_NEXT: case CMD_PHASE_PREV:
	case CMD_FIX_TOGGLE:
		return 1;
	default: return 0;
	}
}

static void dispatch(app *a, int cmd, const char *arg)
{
	tui *t = &a->t;
	if (cmd == CMD_NONE)
		return;
	a->dirty |= D_MSG;
	if (t->view == VIEW_FIX && !t->help && !allowed_in_preview(cmd)) {
		tui_message(t, UI_WARN, "%s", _("Answer the fix preview first: y applies the fixes, n discards them."));
		return;
	}
	if (!arg && needs_input(a, cmd))
		return;
	if (cmd == CMD_SEARCH) { /* a new search goes to its first match; an empty one repeats */
		if (*arg)
			snprintf(t->search, sizeof t->search, "%s", arg);
		cmd = CMD_SEARCH_NEXT;
	}
	if (cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) {
		if (!*t->search) {
			tui_message(t, UI_WARN, "%s", _("Nothing to search for yet: / searches."));
			return;
		}
		arg = t->search;
	}
	long long before = t->sel_id;
	/* panes first: the overlay, the main view, the detail, the rail */
	int order[4], n = 0;
	if (t->help)
		order[n++] = PANE_HELP;
	if (a->zoom && t->view == VIEW_FINDINGS && cmd != CMD_OPEN && cmd != CMD_CANCEL && cmd != CMD_BACK) {
		/* zoomed: up/down scroll the detail */
		if (cmd == CMD_DOWN || cmd == CMD_PAGE_DOWN)
			cmd = CMD_DETAIL_DOWN;
		else if (cmd == CMD_UP || cmd == CMD_PAGE_UP)
			cmd = CMD_DETAIL_UP;
	}
	order[n++] = view_pane(t->view);
	if (t->view == VIEW_FINDINGS)
		order[n++] = PANE_DETAIL;
	order[n++] = PANE_RAIL;
	for (int i = 0; i < n; i++) {
		int flags = t->ops[order[i]]->handle(t->st[order[i]], t, cmd, arg);
		if (flags & PANE_HANDLED) {
			apply_flags(a, order[i], flags, before);
			return;
		}
	}
	switch (cmd) {
	case CMD_QUIT: a->quit = 1; break;
	case CMD_REPORT: do_report(a, arg); break;
	case CMD_INGEST: do_ingest(a, arg); break;
	case CMD_CONFIG: do_config(a, arg); break;
	case CMD_CONFIG_UNSET: do_config_unset(a, arg); break;
	case CMD_COMPARE: do_compare(a, arg); break;
	case CMD_EXPORT: do_export(a, arg); break;
	case CMD_VERIFY: do_verify(a); break;
	case CMD_UNWAIVE: do_unwaive(a, arg); break;
	case CMD_PROBE_SCRIPT: do_probe_script(a, arg); break;
	case CMD_AUDIT: set_view(a, VIEW_AUDIT); break;
	case CMD_SETTINGS: set_view(a, VIEW_SETTINGS); break;
	case CMD_MESSAGES: set_view(a, VIEW_MESSAGES); break;
	case CMD_SETTING_VALUE: {
		char line[700];
		snprintf(line, sizeof line, "%s %s", a->setting, arg ? arg : "");
		do_config(a, line);
		break;
	}
	case CMD_COPY: do_copy(a); break;
	case CMD_REPORT_PATH: write_report(a, a->report_format, arg ? arg : ""); break;
	case CMD_FIX_FINDING: fix_preview(a, FIX_FINDING, arg); break;
	case CMD_FIX_PLUGIN: fix_preview(a, FIX_PLUGIN, arg); break;
	case CMD_FIX_FILE: fix_preview(a, FIX_FILE, arg); break;
	case CMD_FIX_PHASE: fix_preview(a, FIX_PHASE, arg); break;
	case CMD_FIX_APPLY:
	case CMD_FIX_DISCARD:
		if (t->view != VIEW_FIX)
			tui_message(t, UI_WARN, "%s", _("No fix is being previewed."));
		else if (cmd == CMD_FIX_APPLY)
			fix_apply(a);
		else {
			set_view(a, VIEW_FINDINGS);
			tui_message(t, UI_NORMAL, "%s", _("Fix preview closed; nothing was changed."));
		}
		break;
	case CMD_BACK:
	case CMD_CANCEL:
		if (t->view == VIEW_FIX) {
			set_view(a, VIEW_FINDINGS);
			tui_message(t, UI_NORMAL, "%s", _("Fix preview closed; nothing was changed."));
		} else if (a->zoom) {
			a->zoom = 0;
			a->dirty = D_ALL;
			a->touch = 1;
		} else if (t->view == VIEW_SHOW) {
			set_view(a, t->show_back);
		} else if (t->view != VIEW_FINDINGS) {
			set_view(a, VIEW_FINDINGS);
		} else if (cmd == CMD_BACK) {
			a->quit = 1;
		}
		break;
	case CMD_OPEN:
		if (t->view == VIEW_FINDINGS) {
			a->zoom = !a->zoom;
			a->dirty = D_ALL;
			a->touch = 1;
		}
		break;
	case CMD_FINDINGS: set_view(a, VIEW_FINDINGS); break;
	case CMD_TIMELINE: set_view(a, VIEW_TIMELINE); break;
	case CMD_GUIDE: set_view(a, VIEW_GUIDE); break;
	case CMD_CHART: set_view(a, VIEW_CHART); break;
	case CMD_ARTIFACTS: set_view(a, VIEW_ARTIFACTS); break;
	case CMD_HELP:
		t->help = 1;
		a->dirty |= D_OVERLAY;
		break;
	case CMD_PALETTE: prompt_start(a, CMD_PALETTE, 0, ":", NULL); break;
	case CMD_RUN_PHASE: run_checks(a, 0); break;
	case CMD_RUN_ALL: run_checks(a, 1); break;
	case CMD_WAIVE: do_waive(a, arg); break;
	case CMD_SIGNOFF: do_signoff(a, arg); break;
	case CMD_EDIT: do_edit(a); break;
	case CMD_REVERT: do_revert(a); break;
	case CMD_LANG:
		if (arg && *arg && strcmp(arg, "en") != 0 && strcmp(arg, "zh") != 0) {
			tui_message(t, UI_ERROR, _("lang %s: not one of en, zh"), arg);
			break;
		}
		intl_set_lang(arg && *arg ? arg : intl_zh() ? "en" : "zh");
		reload(a); /* the findings' texts are translated as they load */
		a->dirty = D_ALL;
		a->touch = 1;
		tui_message(t, UI_NORMAL, "%s", _("Interface language: English"));
		break;
	case CMD_RELOAD:
		layout(a);
		reload(a);
		break;
	case CMD_SAVE_SCREEN: {
		char *abs = NULL, *shown = NULL;
		while (*arg == ' ')
			arg++;
		draw(a);
		if (!*arg)
			tui_message(t, UI_ERROR, "%s", _("A screen dump needs a file to write to."));
		else if (own_path(&abs, &shown, t->m.ws, arg, "screens") != 0 || ui_save(abs) != 0)
			tui_message(t, UI_ERROR, "%s", err_message());
		else
			tui_message(t, UI_OK, _("Screen saved to %s."), shown);
		a->dirty |= D_MSG; /* draw() above took the flag */
		free(abs);
		free(shown);
		break;
	}
	case CMD_SEARCH_NEXT:
	case CMD_SEARCH_PREV:
		tui_message(t, UI_WARN, _("No match for “%s” here."), t->search);
		break;
	default:
		if (cmd >= CMD_DETAIL_UP && cmd <= CMD_DETAIL_DOWN)
			break;
		tui_message(t, UI_DIM, "%s", _("That key does nothing here (? lists the keys)."));
	}
}

/* --- start-up --- */

/* Asks whether to start an engagement in dir. 1 yes, 0 no. */
static int ask_init(const char *dir)
{
	for (;;) {
		int cols, rows;
		ui_size(&cols, &rows);
		ui_win *w = ui_win_new(0, 0, rows, cols);
		ui_erase(w);
		char b[1024], abs[PATH_MAX];
		int y = rows / 2 - 4 > 0 ? rows / 2 - 4 : 0;
		snprintf(b, sizeof b, _("There is no engagement in %s yet."), realpath(dir, abs) ? abs : dir);
		y += pane_wrap(w, y, 2, UI_TITLE, b, 0, 3) + 1;
		y += pane_wrap(w, y, 2, UI_NORMAL,
		               _("Start one here? ferry records the code as received (the baseline) in .ferry/ and never touches your own .git."),
		               0, 4) + 1;
		pane_wrap(w, y, 2, UI_KEY, _("y: start the engagement    n: leave"), 0, 2);
		ui_win_show(w);
		ui_flush(NULL, 0, 0);
		ui_win_free(w);
		int k = ui_getkey(-1);
		if (k == 'y' || k == 'Y')
			return 1;
		if (k == UI_KEY_RESIZE)
			continue;
		if (k == 'n' || k == 'N' || k == 'q' || k == UI_KEY_ESC || k == UI_KEY_EOF || k == UI_KEY_SIGNAL ||
		    k == UI_KEY_CTRL('c'))
			return 0;
	}
}

/* How often, while idle, the workbench looks for changes made underneath it: the
 * database (another ferry process, the CLI) and the project's files (an editor). */
#define WATCH_MS 400
#define TREE_EVERY_S 1.5

/* Reloads when another process committed to the engagement or the project's files
 * changed (those are recorded as a manual-edit checkpoint first, as every command
 * does); the cursor stays on the same finding. Not while a prompt is open. */
static void watch(app *a)
{
	tui *t = &a->t;
	if (a->p.active || t->view == VIEW_FIX)
		return;
	long long v = model_db_version(&t->m);
	int db = v != a->db_version, tree = 0, made = 0;
	double n = now_s();
	if (n - a->tree_at >= TREE_EVERY_S) {
		unsigned long long st = model_tree_stamp(&t->m);
		tree = st != a->tree_stamp;
		a->tree_stamp = st;
		a->tree_at = n;
	}
	if (!db && !tree)
		return;
	if (tree && lock_synced(a, &made) == 0)
		ws_unlock(t->m.ws);
	a->db_version = model_db_version(&t->m);
	if (!db && !made)
		return;
	reload(a);
	if (made)
		tui_message(t, UI_INFO, _("Edits made outside ferry were recorded as checkpoint #%lld (manual edit)."), t->m.head_cp);
	else
		tui_message(t, UI_DIM, "%s", _("The engagement changed outside the workbench; reloaded."));
}

static void loop(app *a)
{
	a->db_version = model_db_version(&a->t.m);
	a->tree_stamp = model_tree_stamp(&a->t.m);
	a->tree_at = now_s();
	while (!a->quit) {
		draw(a);
		int k = ui_getkey(WATCH_MS);
		if (k == UI_KEY_EOF || k == UI_KEY_SIGNAL)
			break;
		if (k == UI_KEY_NONE) {
			if (!a->small)
				watch(a);
			continue;
		}
		if (k == UI_KEY_RESIZE) {
			layout(a);
			continue;
		}
		if (a->small) {
			if (k == 'q' || k == 'Q' || k == UI_KEY_CTRL('c'))
				break;
			continue;
		}
		if (a->p.active) {
			prompt_key(a, k);
			continue;
		}
		if (a->t.msg) { /* a message stays until the next key */
			a->t.msg = NULL;
			a->dirty |= D_MSG;
		}
		dispatch(a, keymap_lookup(k, a->t.view), NULL);
	}
}

/* The first line a user sees, naming the keys as they are bound now (the user may have
 * moved them). */
static void welcome(tui *t)
{
	char help[32], guide[32];
	snprintf(help, sizeof help, "%s", keymap_label(keymap_by_cmd(CMD_HELP)));
	snprintf(guide, sizeof guide, "%s", keymap_label(keymap_by_cmd(CMD_GUIDE)));
	/* TRANSLATORS: the first %s is the help key, the second the guide key */
	tui_message(t, UI_DIM, _("Welcome. %s lists the keys, %s opens the guide for this phase."), help, guide);
}

int tui_main(const char *dir)
{
	intl_utf8_ctype(); /* wide characters need it, whoever called */
	workspace *ws = NULL;
	app *a = NULL;
	int rc = ui_open();
	if (rc)
		return rc;
	rc = ws_open(&ws, dir);
	if (rc == FERRY_ENOTFOUND) {
		char *why = xstrdup(err_message());
		if (ask_init(dir)) {
			err_clear();
			rc = ws_init(&ws, dir, &(ws_init_opts){ 0 });
		} else {
			rc = 0;
		}
		free(why);
		if (!ws)
			goto out;
	} else if (rc) {
		goto out;
	}
	a = xcalloc(1, sizeof *a);
	tui *t = &a->t;
	t->msgs = msglog_new();
	ws->warn = warn_on_screen;
	ws->warn_payload = t;
	model_init(&t->m, ws);
	const pane_ops *ops[PANE_COUNT] = {
		[PANE_RAIL] = &pane_rail_ops,         [PANE_FINDINGS] = &pane_findings_ops,
		[PANE_DETAIL] = &pane_detail_ops,     [PANE_TIMELINE] = &pane_timeline_ops,
		[PANE_GUIDE] = &pane_guide_ops,       [PANE_CHART] = &pane_chart_ops,
		[PANE_ARTIFACTS] = &pane_artifacts_ops, [PANE_HELP] = &pane_help_ops,
		[PANE_PALETTE] = &pane_palette_ops,   [PANE_STATUS] = &pane_status_ops,
		[PANE_FIX] = &pane_fix_ops,           [PANE_AUDIT] = &pane_audit_ops,
		[PANE_SHOW] = &pane_show_ops,         [PANE_SETTINGS] = &pane_settings_ops,
		[PANE_MESSAGES] = &pane_messages_ops,
	};
	for (int i = 0; i < PANE_COUNT; i++) {
		t->ops[i] = ops[i];
		t->st[i] = ops[i]->open(t);
	}
	t->view = VIEW_FINDINGS;
	/* record edits made outside ferry before showing anything, like every command */
	int made = 0;
	if (lock_synced(a, &made) == 0)
		ws_unlock(ws);
	else
		tui_message(t, UI_WARN, "%s", err_message());
	layout(a);
	reload(a);
	/* the user's key bindings: $XDG_CONFIG_HOME/ferry/keys, else ~/.config/ferry/keys */
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	char *keys = xdg && *xdg ? xasprintf("%s/ferry/keys", xdg) : home && *home ? xasprintf("%s/.config/ferry/keys", home) : NULL;
	int bad_keys = keys && keymap_load(keys) != 0;
	free(keys);
	if (bad_keys)
		tui_message(t, UI_WARN, "%s", err_message());
	else if (made)
		tui_message(t, UI_INFO, "%s", _("Edits made outside ferry were recorded as a manual-edit checkpoint."));
	else if (!t->msg && engagement_complete(t))
		tui_message(t, UI_OK, "%s", _("The engagement is complete: every phase is signed off. p writes the final report."));
	else if (!t->msg)
		welcome(t);
	loop(a);
	rc = ui_signalled() ? err_set(FERRY_ECANCEL, "%s", _("workbench: stopped by a signal; the terminal was restored")) : 0;
	drop_plan(t);
	drop_shown(t);
	free(t->verify);
	for (int i = 0; i < PANE_COUNT; i++)
		if (t->ops[i])
			t->ops[i]->close(t->st[i]);
	model_done(&t->m);
	msglog_free(t->msgs);
	free_windows(a);
out:
	free(a);
	ui_close();
	ws_close(ws);
	return rc;
}
