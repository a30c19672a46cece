/* fixview — the fix preview: what a fix plan would change, before anything is
 * written. The plan (app/fix.h) is made and owned by the main loop, which asks for
 * it with F, P or A and applies it on y; this pane shows the question, the findings
 * the plan refuses with their reasons (red, first) and the plan's unified diff in
 * the shared diff viewer, scrollable with the movement keys. */
#include "diffview.h"
#include "fix.h"
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct xstate {
	diffview dv;    /* refusals (preamble) and the diff */
	unsigned gen;   /* plan_gen the document was built for */
	int width;      /* window width it was wrapped for */
	int built;
} xstate;

/* Appends s wrapped at cols columns, each row indented by indent spaces. */
static int add_wrapped(sbuf *b, const char *s, int cols, int indent)
{
	int rows = 0;
	if (cols < 10)
		cols = 10;
	while (*s) {
		size_t len, next = text_wrap(s, cols, &len);
		sbuf_addf(b, "%*s%.*s\n", indent, "", (int)len, s);
		rows++;
		if (!next)
			break;
		s += next;
		indent = indent < 4 ? 4 : indent;
	}
	return rows;
}

static void build(xstate *s, tui *t, int width)
{
	sbuf b;
	sbuf_init(&b);
	size_t nref = 0, nerr = 0;
	const char *const *refused = fix_plan_refused(t->plan, &nref);
	const char *const *errors = fix_plan_errors(t->plan, &nerr); /* whole plugins refused */
	int pre = 0;
	if (nref + nerr) {
		char head[128];
		snprintf(head, sizeof head, _("Refused (%zu), nothing is written for these:"), nref + nerr);
		pre += add_wrapped(&b, head, width - 2, 0);
		for (size_t i = 0; i < nerr; i++)
			pre += add_wrapped(&b, errors[i], width - 4, 2);
		for (size_t i = 0; i < nref; i++)
			pre += add_wrapped(&b, refused[i], width - 4, 2);
		sbuf_adds(&b, "\n");
		pre++;
	}
	const char *diff = fix_plan_diff(t->plan);
	if (*diff)
		sbuf_adds(&b, diff);
	else {
		sbuf_adds(&b, _("(no file would change)"));
		sbuf_adds(&b, "\n");
	}
	diffview_set(&s->dv, b.buf);
	s->dv.npre = pre;
	s->dv.pre_attr = UI_ERROR;
	sbuf_done(&b);
	s->gen = t->plan_gen;
	s->width = width;
	s->built = 1;
}

static void *fix_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(xstate));
}

static void fix_close(void *st)
{
	xstate *s = st;
	if (!s)
		return;
	diffview_clear(&s->dv);
	free(s);
}

static void fix_draw(void *st, tui *t, ui_win *w)
{
	xstate *s = st;
	ui_erase(w);
	int width = ui_win_width(w), h = ui_win_height(w);
	char head[400];
	snprintf(head, sizeof head, "%s · %s", _("Fix preview"), t->plan_what);
	pane_title(w, 0, head);
	if (!t->plan) {
		ui_put(w, 2, 2, UI_DIM, _("No fix is being previewed."), 0);
		return;
	}
	if (!s->built || s->gen != t->plan_gen || s->width != width) {
		int scroll = s->built && s->gen == t->plan_gen ? s->dv.scroll : 0;
		build(s, t, width);
		s->dv.scroll = scroll;
	}
	size_t nfind = 0, nfiles = 0, nplug = 0;
	fix_plan_counts(t->plan, &nfind, &nfiles, &nplug);
	char q[400];
	if (nfind) {
		char fx[64], fl[64], cp[64];
		snprintf(fx, sizeof fx, P_("%zu fix", "%zu fixes", nfind), nfind);
		snprintf(fl, sizeof fl, P_("%zu file", "%zu files", nfiles), nfiles);
		snprintf(cp, sizeof cp, P_("%zu checkpoint", "%zu checkpoints", nplug), nplug);
		/* TRANSLATORS: "Apply 2 fixes to 1 file as 1 checkpoint?" */
		snprintf(q, sizeof q, _("Apply %s to %s as %s?  y applies, n discards."), fx, fl, cp);
	} else
		snprintf(q, sizeof q, "%s", _("Nothing can be applied: every selected fix was refused. n or Esc closes."));
	int y = 1 + pane_wrap(w, 1, 1, nfind ? UI_WARN : UI_ERROR, q, 0, 2);
	diffview_draw(&s->dv, w, y + 1, 1, h - y - 1);
}

static int fix_handle(void *st, tui *t, int cmd, const char *arg)
{
	xstate *s = st;
	if (t->view != VIEW_FIX || !t->plan)
		return 0;
	if (s->built && s->gen == t->plan_gen)
		return diffview_handle(&s->dv, cmd, arg);
	return 0;
}

const pane_ops pane_fix_ops = { "fix", fix_open, fix_close, fix_draw, fix_handle };
