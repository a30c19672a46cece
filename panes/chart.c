/* chart — findings by category per phase as horizontal bars of Unicode blocks
 * (eighths for the fractional end). When there is nothing to chart it says so. */
#include "i18n.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct bar {
	int phase;
	char *category;
	int open, waived, fixed;
} bar;

typedef struct cstate {
	bar *bars;
	size_t n;
	int loaded;
	unsigned gen;
	int scroll, total, h;
	char err[256];
} cstate;

static void drop(cstate *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->bars[i].category);
	free(s->bars);
	s->bars = NULL;
	s->n = 0;
}

static int bar_cmp(const void *x, const void *y)
{
	const bar *a = x, *b = y;
	if (a->phase != b->phase)
		return a->phase - b->phase;
	if (a->open != b->open)
		return b->open - a->open;
	return strcmp(a->category, b->category);
}

static void load(cstate *s, tui *t)
{
	if (s->loaded && s->gen == t->reload_gen)
		return;
	drop(s);
	s->err[0] = '\0';
	s->loaded = 1;
	s->gen = t->reload_gen;
	tui_finding *f = NULL;
	size_t nf = 0, cap = 0;
	if (model_all_findings(&f, &nf, &t->m) != 0) {
		snprintf(s->err, sizeof s->err, "%s", T("cannot read the findings"));
		return;
	}
	for (size_t i = 0; i < nf; i++) {
		int ph = 0;
		for (int k = 0; k < 7; k++)
			if (strcmp(t->m.phases[k].name, f[i].phase) == 0)
				ph = k;
		const char *cat = *f[i].category ? f[i].category : f[i].plugin;
		size_t j = 0;
		while (j < s->n && !(s->bars[j].phase == ph && strcmp(s->bars[j].category, cat) == 0))
			j++;
		if (j == s->n) {
			if (s->n == cap)
				s->bars = xrealloc(s->bars, (cap = cap ? cap * 2 : 16) * sizeof *s->bars);
			s->bars[s->n++] = (bar){ ph, xstrdup(cat), 0, 0, 0 };
		}
		if (strcmp(f[i].status, "open") == 0)
			s->bars[j].open++;
		else if (strcmp(f[i].status, "waived") == 0)
			s->bars[j].waived++;
		else
			s->bars[j].fixed++;
	}
	model_findings_free(f, nf);
	if (s->n)
		qsort(s->bars, s->n, sizeof *s->bars, bar_cmp);
}

/* A bar of value/max scaled to cols columns, in eighth blocks. Caller frees. */
static char *blocks(int value, int max, int cols)
{
	static const char *const eighths[8] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	sbuf b;
	sbuf_init(&b);
	long units = max > 0 ? (long)value * cols * 8 / max : 0;
	if (value > 0 && units == 0)
		units = 1;
	for (long i = 0; i < units / 8; i++)
		sbuf_adds(&b, "█");
	sbuf_adds(&b, eighths[units % 8]);
	return sbuf_detach(&b);
}

static void *chart_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(cstate));
}

static void chart_close(void *st)
{
	cstate *s = st;
	if (!s)
		return;
	drop(s);
	free(s);
}

static void chart_draw(void *st, tui *t, ui_win *w)
{
	cstate *s = st;
	load(s, t);
	ui_erase(w);
	int width = ui_win_width(w);
	s->h = ui_win_height(w) - 1;
	pane_title(w, 0, T("Open findings by category, per phase"));
	if (*s->err) {
		ui_put(w, 2, 2, UI_ERROR, s->err, 0);
		return;
	}
	int max = 0, any = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->bars[i].open > max)
			max = s->bars[i].open;
		any += s->bars[i].open + s->bars[i].waived + s->bars[i].fixed;
	}
	if (!any) {
		pane_wrap(w, 2, 2, UI_DIM,
		          T("Nothing to chart yet: no findings have been recorded. Run the checks with r (this phase) or R (all phases)."),
		          0, s->h - 1);
		s->total = 0;
		return;
	}
	int labelw = width >= 100 ? 28 : 22, numw = 16;
	int barw = width - labelw - numw - 4;
	if (barw < 10)
		barw = 10;
	int row = 0;
	int last_phase = -1;
	for (size_t i = 0; i < s->n; i++) {
		const bar *b = &s->bars[i];
		if (b->phase != last_phase) {
			if (last_phase >= 0)
				row++;
			if (row >= s->scroll && row - s->scroll < s->h) {
				char head[64];
				snprintf(head, sizeof head, "%d %s", b->phase + 1, t->m.phases[b->phase].name);
				ui_put(w, 1 + row - s->scroll, 1, UI_TITLE, head, 0);
			}
			row++;
			last_phase = b->phase;
		}
		if (row >= s->scroll && row - s->scroll < s->h) {
			int y = 1 + row - s->scroll;
			char *label = text_cell(b->category, labelw, 0);
			ui_put(w, y, 2, UI_NORMAL, label, labelw);
			free(label);
			char *bl = blocks(b->open, max, barw);
			int used = ui_put(w, y, 3 + labelw, b->phase == t->m.phase ? UI_WARN : UI_INFO, bl, barw);
			free(bl);
			char num[64];
			if (b->waived || b->fixed)
				snprintf(num, sizeof num, " %d (+%d %s)", b->open, b->waived + b->fixed, T("closed"));
			else
				snprintf(num, sizeof num, " %d", b->open);
			ui_put(w, y, 3 + labelw + used, UI_DIM, num, 0);
		}
		row++;
	}
	s->total = row;
}

static int chart_handle(void *st, tui *t, int cmd, const char *arg)
{
	cstate *s = st;
	(void)arg;
	if (cmd == CMD_RELOAD) {
		s->loaded = 0;
		return 0;
	}
	(void)t;
	int max = s->total - s->h > 0 ? s->total - s->h : 0;
	int sc = s->scroll;
	if (cmd == CMD_BOTTOM)
		sc = max;
	else if (!pane_move(&sc, max + 1, s->h, cmd))
		return 0;
	s->scroll = sc;
	return PANE_HANDLED | PANE_REDRAW;
}

const pane_ops pane_chart_ops = { "chart", chart_open, chart_close, chart_draw, chart_handle };
