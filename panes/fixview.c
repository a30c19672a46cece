/* fixview — the fix preview: what a fix plan would change, before anything is
 * written. The plan (app/fix.h) is made and owned by the main loop, which asks for
 * it with F, P or A and applies it on y; this pane shows the question, the findings
 * the plan refuses with their reasons (red, first) and the plan's unified diff in
 * the shared diff viewer, scrollable with the movement keys. As in a staging view,
 * Space leaves the current hunk (] and [ move between hunks) out of the fix or
 * takes it back: a left-out hunk is dimmed, its findings are not fixed and stay
 * open (fixview_left_out gives them to the main loop, which withdraws them from the
 * plan before applying). */
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
	int *hunk_at;   /* the diff line of each hunk's "@@" header */
	size_t nhunks;
	int cur;        /* the hunk Space acts on (] and [ move it) */
	long long *out; /* findings left out by the person */
	size_t nout;
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
	free(s->hunk_at);
	s->hunk_at = NULL;
	s->nhunks = 0;
	for (int i = pre; i < s->dv.nlines; i++)
		if (strncmp(s->dv.text + s->dv.lines[i], "@@", 2) == 0) {
			s->hunk_at = xrealloc(s->hunk_at, (s->nhunks + 1) * sizeof *s->hunk_at);
			s->hunk_at[s->nhunks++] = i;
		}
	if (s->gen != t->plan_gen) { /* a new plan: everything taken */
		s->cur = 0;
		free(s->out);
		s->out = NULL;
		s->nout = 0;
	}
	s->gen = t->plan_gen;
	s->width = width;
	s->built = 1;
}

static int left_out(const xstate *s, long long id)
{
	for (size_t i = 0; i < s->nout; i++)
		if (s->out[i] == id)
			return 1;
	return 0;
}

/* The hunk the keys act on, or -1 when the diff has none. */
static int current_hunk(const xstate *s)
{
	if (!s->nhunks)
		return -1;
	return s->cur < (int)s->nhunks ? s->cur : (int)s->nhunks - 1;
}

/* A hunk is out when any of its findings is: a finding is fixed whole or not at all. */
static int hunk_out(const xstate *s, const fix_hunk *h)
{
	for (size_t i = 0; i < h->nids; i++)
		if (left_out(s, h->ids[i]))
			return 1;
	return 0;
}

/* Dims the hunks left out and marks the current one. */
static void mark_hunks(xstate *s, tui *t)
{
	size_t nh = 0;
	const fix_hunk *h = fix_plan_hunks(t->plan, &nh);
	diffview_dim(&s->dv, 0, s->dv.nlines, 0);
	for (size_t k = 0; k < s->nhunks && k < nh; k++) {
		int end = k + 1 < s->nhunks ? s->hunk_at[k + 1] : s->dv.nlines;
		for (int i = s->hunk_at[k] + 1; i < end; i++) /* a next file's header ends it */
			if (strncmp(s->dv.text + s->dv.lines[i], "diff ", 5) == 0) {
				end = i;
				break;
			}
		if (hunk_out(s, &h[k]))
			diffview_dim(&s->dv, s->hunk_at[k], end, 1);
	}
	int cur = current_hunk(s);
	s->dv.mark = cur >= 0 ? s->hunk_at[cur] : -1;
}

/* Space: the current hunk's findings out of the fix, or back in. */
static void toggle_hunk(xstate *s, tui *t)
{
	size_t nh = 0;
	const fix_hunk *h = fix_plan_hunks(t->plan, &nh);
	int cur = current_hunk(s);
	if (cur < 0 || (size_t)cur >= nh)
		return;
	const fix_hunk *hk = &h[cur];
	if (!hk->nids) {
		tui_message(t, UI_WARN, "%s", _("This hunk belongs to no finding of its own and cannot be left out alone."));
		return;
	}
	if (hunk_out(s, hk)) {
		size_t k = 0;
		for (size_t i = 0; i < s->nout; i++) {
			int mine = 0;
			for (size_t j = 0; j < hk->nids; j++)
				mine |= s->out[i] == hk->ids[j];
			if (!mine)
				s->out[k++] = s->out[i];
		}
		s->nout = k;
	} else {
		s->out = xrealloc(s->out, (s->nout + hk->nids + 1) * sizeof *s->out);
		for (size_t j = 0; j < hk->nids; j++)
			if (!left_out(s, hk->ids[j]))
				s->out[s->nout++] = hk->ids[j];
	}
}

const long long *fixview_left_out(tui *t, size_t *n)
{
	xstate *s = t->st[PANE_FIX];
	*n = s && s->gen == t->plan_gen ? s->nout : 0;
	return *n ? s->out : NULL;
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
	free(s->hunk_at);
	free(s->out);
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
	size_t nfind = 0, nfiles = 0, nplug = 0, nleft = 0;
	fix_plan_counts(t->plan, &nfind, &nfiles, &nplug);
	for (size_t i = 0; i < s->nout; i++)
		nleft += fix_plan_has(t->plan, s->out[i]);
	nfind -= nleft;
	char q[600];
	if (nfind && nleft) {
		char fx[64], lo[64];
		snprintf(fx, sizeof fx, P_("%zu fix", "%zu fixes", nfind), nfind);
		snprintf(lo, sizeof lo, P_("%zu finding", "%zu findings", nleft), nleft);
		/* TRANSLATORS: "Apply 2 fixes, leaving 1 finding open (dimmed)? ..." */
		snprintf(q, sizeof q, _("Apply %s, leaving %s open (dimmed)?  y applies, n discards, Space takes a hunk back."), fx, lo);
	} else if (nfind) {
		char fx[64], fl[64], cp[64];
		snprintf(fx, sizeof fx, P_("%zu fix", "%zu fixes", nfind), nfind);
		snprintf(fl, sizeof fl, P_("%zu file", "%zu files", nfiles), nfiles);
		snprintf(cp, sizeof cp, P_("%zu checkpoint", "%zu checkpoints", nplug), nplug);
		/* TRANSLATORS: "Apply 2 fixes to 1 file as 1 checkpoint?" */
		snprintf(q, sizeof q, _("Apply %s to %s as %s?  y applies, n discards, Space leaves a hunk out."), fx, fl, cp);
	} else if (nleft)
		snprintf(q, sizeof q, "%s", _("Every hunk is left out: nothing would be applied. Space takes one back; n or Esc closes."));
	else
		snprintf(q, sizeof q, "%s", _("Nothing can be applied: every selected fix was refused. n or Esc closes."));
	int y = 1 + pane_wrap(w, 1, 1, nfind ? UI_WARN : UI_ERROR, q, 0, 2);
	mark_hunks(s, t);
	diffview_draw(&s->dv, w, y + 1, 1, h - y - 1);
}

static int fix_handle(void *st, tui *t, int cmd, const char *arg)
{
	xstate *s = st;
	if (t->view != VIEW_FIX || !t->plan)
		return 0;
	if (!s->built || s->gen != t->plan_gen)
		return 0;
	if (cmd == CMD_FIX_TOGGLE) {
		toggle_hunk(s, t);
		return PANE_HANDLED | PANE_REDRAW;
	}
	if ((cmd == CMD_PHASE_NEXT || cmd == CMD_PHASE_PREV) && s->nhunks) {
		/* ] and [ move the current hunk and bring it into view */
		int k = current_hunk(s) + (cmd == CMD_PHASE_NEXT ? 1 : -1);
		s->cur = k < 0 ? 0 : k >= (int)s->nhunks ? (int)s->nhunks - 1 : k;
		int line = s->hunk_at[s->cur], max = s->dv.nlines - s->dv.h > 0 ? s->dv.nlines - s->dv.h : 0;
		if (line < s->dv.scroll || line >= s->dv.scroll + s->dv.h)
			s->dv.scroll = line > max ? max : line;
		return PANE_HANDLED | PANE_REDRAW;
	}
	return diffview_handle(&s->dv, cmd, arg);
}

const pane_ops pane_fix_ops = { "fix", fix_open, fix_close, fix_draw, fix_handle };
