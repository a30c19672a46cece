/* chart — findings by category per phase as horizontal bars of Unicode blocks
 * (eighths for the fractional end). When there is nothing to chart it says so.
 * On the assess phase the readiness verdict comes first: the score as a bar with
 * its class, the effort in person-days with its formula, the recommended strategy
 * and the top risks (app/assessment.h, copied into the model). */
#include "category.h"
#include "intl.h"
#include "phase.h"
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
	finding *f = NULL;
	size_t nf = 0, cap = 0;
	if (model_all_findings(&f, &nf, &t->m) != 0) {
		snprintf(s->err, sizeof s->err, "%s", _("cannot read the findings"));
		return;
	}
	for (size_t i = 0; i < nf; i++) {
		int ph = f[i].phase >= 0 ? f[i].phase : 0;
		const char *cat = f[i].category && *f[i].category ? f[i].category : f[i].plugin;
		size_t j = 0;
		while (j < s->n && !(s->bars[j].phase == ph && strcmp(s->bars[j].category, cat) == 0))
			j++;
		if (j == s->n) {
			if (s->n == cap)
				s->bars = xrealloc(s->bars, (cap = cap ? cap * 2 : 16) * sizeof *s->bars);
			s->bars[s->n++] = (bar){ ph, xstrdup(cat), 0, 0, 0 };
		}
		if (f[i].status == STATUS_OPEN)
			s->bars[j].open++;
		else if (f[i].status == STATUS_WAIVED)
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

/* A cursor over virtual rows; only rows [skip, skip + h) are painted, from row 1. */
typedef struct vrow {
	ui_win *w;
	int row, skip, h;
} vrow;

static int vvis(const vrow *v)
{
	return v->row >= v->skip && v->row - v->skip < v->h;
}

static int vy(const vrow *v)
{
	return 1 + v->row - v->skip;
}

/* Wraps text at column x (rows after the first also start at x). */
static void vwrap(vrow *v, int x, int attr, const char *text)
{
	int cols = ui_win_width(v->w) - x - 1;
	if (cols < 8)
		cols = 8;
	const char *p = text;
	while (*p) {
		size_t len, next = text_wrap(p, cols, &len);
		if (vvis(v))
			ui_putn(v->w, vy(v), x, attr, p, len, cols);
		v->row++;
		if (!next)
			break;
		p += next;
	}
}

/* A label in the readiness section, padded to 10 columns at column 2. */
static void vlabel(vrow *v, const char *label)
{
	if (!vvis(v))
		return;
	char *cell = text_cell(label, 10, 0);
	ui_put(v->w, vy(v), 2, UI_TITLE, cell, 0);
	free(cell);
}

/* The quote by service line: each line with days, its days (agreed or estimated) and,
 * once quote.rate is set, its amount; then the total in person-days. */
static void draw_quote(vrow *v, const tui_readiness *r, int width)
{
	if (!r->nquote)
		return;
	vlabel(v, _("Quote"));
	int titlew = width - 13 - 18 - (r->priced ? 16 : 0);
	titlew = titlew > 36 ? 36 : titlew < 12 ? 12 : titlew;
	int days_x = 13 + titlew + 1, amount_x = days_x + 18;
	char b[160];
	for (int i = 0; i <= r->nquote; i++) {
		int total = i == r->nquote;
		const struct tui_quote_line *q = total ? NULL : &r->quote[i];
		if (vvis(v)) {
			int y = vy(v), attr = total ? UI_TITLE : UI_NORMAL;
			ui_put(v->w, y, 13, attr, total ? _("Total") : service_title(q->name), titlew);
			if (total)
				snprintf(b, sizeof b, _("%5.1f person-days"), r->quote_days);
			else
				snprintf(b, sizeof b, q->agreed ? _("%5.1f agreed") : "%5.1f", q->days);
			ui_put(v->w, y, days_x, attr, b, amount_x - days_x - 1);
			if (r->priced && amount_x < width - 1) {
				snprintf(b, sizeof b, "%10.2f %s", total ? r->quote_amount : q->amount, r->currency ? r->currency : "");
				ui_put(v->w, y, amount_x, total ? UI_TITLE : UI_DIM, b, width - amount_x - 1);
			}
		}
		v->row++;
	}
	if (!r->priced)
		vwrap(v, 13, UI_DIM, _("Estimates from the open assess findings: price them with quote.rate in the settings (o), agree a line's days with :config quote.days.<line> DAYS."));
}

static void draw_readiness(vrow *v, const tui *t)
{
	const tui_readiness *r = &t->m.ready;
	int width = ui_win_width(v->w);
	if (!r->ran) {
		vwrap(v, 2, UI_DIM,
		      _("No assessment yet: the assess checks have not run, so there is no readiness score or effort estimate. Press r on phase 1 (assess) to run them."));
		v->row++;
		return;
	}
	int attr = pane_class_attr(r->klass);
	int barw = width - 46;
	barw = barw < 10 ? 10 : barw > 40 ? 40 : barw;
	vlabel(v, _("Score"));
	if (vvis(v)) {
		char *sb = pane_score_bar(r->score, barw);
		int x = 13 + ui_put(v->w, vy(v), 13, attr, sb, barw);
		free(sb);
		char tail[160];
		snprintf(tail, sizeof tail, "  %d/100  %s", r->score, pane_word(r->klass));
		ui_put(v->w, vy(v), x, attr, tail, 0);
	}
	v->row++;
	char b[160];
	vlabel(v, _("Effort"));
	snprintf(b, sizeof b, _("%.1f person-days"), r->effort_days);
	if (vvis(v))
		ui_put(v->w, vy(v), 13, UI_NORMAL, b, 0);
	v->row++;
	vwrap(v, 13, UI_DIM, r->formula);
	draw_quote(v, r, width);
	vlabel(v, _("Strategy"));
	char st[400];
	if (r->chosen && strcmp(r->chosen, r->strategy) != 0)
		snprintf(st, sizeof st, _("%s (recommended); chosen: %s"), pane_strategy_words(r->strategy),
		         pane_strategy_words(r->chosen));
	else
		snprintf(st, sizeof st, _("%s (recommended)"), pane_strategy_words(r->strategy));
	vwrap(v, 13, UI_NORMAL, st);
	vwrap(v, 13, UI_DIM, pane_word(r->reason));
	if (r->nrisks) {
		vlabel(v, _("Top risks"));
		for (int i = 0; i < r->nrisks; i++) {
			const tui_risk *k = &r->risks[i];
			if (vvis(v)) {
				int y = vy(v), x = 13;
				x += ui_put(v->w, y, x, pane_severity_attr(severity_parse(k->severity)), pane_severity_label(severity_parse(k->severity)), 0) + 1;
				char loc[600];
				if (k->line > 0)
					snprintf(loc, sizeof loc, "%s:%d  ", k->file, k->line);
				else
					snprintf(loc, sizeof loc, "%s  ", k->file);
				x += ui_put(v->w, y, x, UI_HUNK, loc, width - x - 1);
				if (x < width - 1)
					ui_put(v->w, y, x, UI_NORMAL, k->message, width - x - 1);
			}
			v->row++;
		}
	}
	v->row++;
}

static void chart_draw(void *st, tui *t, ui_win *w)
{
	cstate *s = st;
	load(s, t);
	ui_erase(w);
	int width = ui_win_width(w);
	s->h = ui_win_height(w) - 1;
	int assess = t->m.phase == 0;
	pane_title(w, 0, assess ? _("Readiness of the project (assess)") : _("Open findings by category, per phase"));
	vrow v = { w, 0, s->scroll, s->h };
	if (assess) {
		draw_readiness(&v, t);
		if (vvis(&v))
			ui_put(w, vy(&v), 1, UI_TITLE, _("Open findings by category, per phase"), 0);
		v.row++;
	}
	if (*s->err) {
		if (vvis(&v))
			ui_put(w, vy(&v), 2, UI_ERROR, s->err, 0);
		s->total = v.row + 1;
		return;
	}
	int max = 0, any = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->bars[i].open > max)
			max = s->bars[i].open;
		any += s->bars[i].open + s->bars[i].waived + s->bars[i].fixed;
	}
	if (!any) {
		v.row++;
		vwrap(&v, 2, UI_DIM,
		      _("Nothing to chart yet: no findings have been recorded. Run the checks with r (this phase) or R (all phases)."));
		s->total = v.row;
		return;
	}
	int labelw = width >= 100 ? 28 : 22, numw = 16;
	int barw = width - labelw - numw - 4;
	if (barw < 10)
		barw = 10;
	int last_phase = -1;
	for (size_t i = 0; i < s->n; i++) {
		const bar *b = &s->bars[i];
		if (b->phase != last_phase) {
			if (last_phase >= 0)
				v.row++;
			if (vvis(&v)) {
				char head[64];
				snprintf(head, sizeof head, "%d %s", b->phase + 1, phase_title(t->m.phases[b->phase].name));
				ui_put(w, vy(&v), 1, UI_TITLE, head, 0);
			}
			v.row++;
			last_phase = b->phase;
		}
		if (vvis(&v)) {
			int y = vy(&v);
			char *label = text_cell(category_title(b->category), labelw, 0);
			ui_put(w, y, 2, UI_NORMAL, label, labelw);
			free(label);
			char *bl = blocks(b->open, max, barw);
			int used = ui_put(w, y, 3 + labelw, b->phase == t->m.phase ? UI_WARN : UI_INFO, bl, barw);
			free(bl);
			char num[64];
			if (b->waived || b->fixed)
				snprintf(num, sizeof num, " %d (+%d %s)", b->open, b->waived + b->fixed, _("closed"));
			else
				snprintf(num, sizeof num, " %d", b->open);
			ui_put(w, y, 3 + labelw + used, UI_DIM, num, 0);
		}
		v.row++;
	}
	s->total = v.row;
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
	return pane_scroll_cmd(&s->scroll, s->total, s->h, cmd);
}

const pane_ops pane_chart_ops = { "chart", chart_open, chart_close, chart_draw, chart_handle };
