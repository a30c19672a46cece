/* show — one thing opened from the artifacts pane or made by :compare. A loss
 * comparison is drawn as both curves on one scale in braille dots (A, the GPU
 * baseline, and B, the NPU run, in two colours; where they coincide in a third),
 * with its verdict and a table of the aligned steps; a dump comparison as its
 * summary, the first diverging layer and the pairs, failing ones worst first.
 * Anything else is text (an artifact's summary) that scrolls both ways and can be
 * searched; the dump's pairs can be searched by tensor name. */
#include "compare.h"
#include "dump_render.h"
#include "diffview.h"
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sstate {
	unsigned gen;   /* show_gen drawn */
	int scroll;     /* first row of the table or text */
	int rows, h;    /* rows of the table or text; rows it can show */
	size_t *order;  /* dump: pair indices, failing worst first */
	size_t norder;
	diffview text;  /* the text shown when it is no comparison */
} sstate;

static void *show_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(sstate));
}

static void show_close(void *st)
{
	sstate *s = st;
	if (!s)
		return;
	free(s->order);
	diffview_clear(&s->text);
	free(s);
}

/* The braille dot of (dx 0..1, dy 0..3) in a cell. */
static unsigned dot(int dx, int dy)
{
	static const unsigned bits[2][4] = { { 0x01, 0x02, 0x04, 0x40 }, { 0x08, 0x10, 0x20, 0x80 } };
	return bits[dx][dy];
}

typedef struct plot {
	int cw, ch;                /* cells */
	unsigned char *a, *b;      /* dots of each series per cell */
	long long x0, x1;
	double y0, y1;
} plot;

static void plot_point(plot *p, unsigned char *grid, double px, double py)
{
	int X = (int)lround(px), Y = (int)lround(py);
	if (X < 0 || Y < 0 || X >= p->cw * 2 || Y >= p->ch * 4)
		return;
	grid[(Y / 4) * p->cw + X / 2] |= (unsigned char)dot(X % 2, Y % 4);
}

/* Plots a series, joining consecutive finite points with dots. */
static void plot_series(plot *p, unsigned char *grid, const loss_series *s)
{
	double W = p->cw * 2 - 1, H = p->ch * 4 - 1;
	double xs = p->x1 > p->x0 ? W / (double)(p->x1 - p->x0) : 0, ys = p->y1 > p->y0 ? H / (p->y1 - p->y0) : 0;
	int have = 0;
	double lx = 0, ly = 0;
	for (size_t i = 0; i < s->n; i++) {
		double v = s->pts[i].loss;
		if (!isfinite(v)) {
			have = 0;
			continue;
		}
		double x = (double)(s->pts[i].step - p->x0) * xs, y = (p->y1 - v) * ys;
		if (have) {
			int steps = (int)fmax(fabs(x - lx), fabs(y - ly));
			for (int k = 1; k < steps; k++)
				plot_point(p, grid, lx + (x - lx) * k / steps, ly + (y - ly) * k / steps);
		}
		plot_point(p, grid, x, y);
		lx = x, ly = y, have = 1;
	}
}

static void range(plot *p, const loss_series *s, int *any)
{
	for (size_t i = 0; i < s->n; i++) {
		double v = s->pts[i].loss;
		if (!isfinite(v))
			continue;
		if (!*any) {
			p->x0 = p->x1 = s->pts[i].step;
			p->y0 = p->y1 = v;
			*any = 1;
		}
		p->x0 = s->pts[i].step < p->x0 ? s->pts[i].step : p->x0;
		p->x1 = s->pts[i].step > p->x1 ? s->pts[i].step : p->x1;
		p->y0 = v < p->y0 ? v : p->y0;
		p->y1 = v > p->y1 ? v : p->y1;
	}
}

/* Both curves (b may be NULL for one log) from row y, ch rows high; returns the next row. */
static int draw_curves(ui_win *w, int y, int ch, const loss_series *a, const loss_series *b)
{
	int width = ui_win_width(w);
	plot p = { width - 14, ch, NULL, NULL, 0, 0, 0, 0 };
	if (p.cw < 10 || ch < 2)
		return y;
	int any = 0;
	range(&p, a, &any);
	if (b)
		range(&p, b, &any);
	if (!any) {
		ui_put(w, y, 2, UI_DIM, _("no finite loss values to draw"), 0);
		return y + 1;
	}
	p.a = xcalloc((size_t)(p.cw * ch), 1);
	p.b = xcalloc((size_t)(p.cw * ch), 1);
	plot_series(&p, p.a, a);
	if (b)
		plot_series(&p, p.b, b);
	for (int r = 0; r < ch; r++) {
		char lab[32] = "";
		if (r == 0 || r == ch - 1)
			snprintf(lab, sizeof lab, "%10.4g", r == 0 ? p.y1 : p.y0);
		ui_put(w, y + r, 1, UI_DIM, lab, 10);
		ui_put(w, y + r, 11, UI_DIM, "┤", 0);
		for (int c = 0; c < p.cw; c++) {
			unsigned da = p.a[r * p.cw + c], db = p.b[r * p.cw + c];
			if (!da && !db)
				continue;
			unsigned cp = 0x2800 + (da | db);
			char cell[4] = { (char)(0xE0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3F)), (char)(0x80 | (cp & 0x3F)), 0 };
			ui_put(w, y + r, 12 + c, da && db ? UI_OK : db ? UI_WARN : UI_INFO, cell, 1);
		}
	}
	char axis[128];
	snprintf(axis, sizeof axis, _("step %lld … %lld"), p.x0, p.x1);
	ui_put(w, y + ch, 12, UI_DIM, axis, 0);
	int x = 12 + text_width(axis) + 3;
	x += ui_put(w, y + ch, x, UI_INFO, "⣿", 0) + 1;
	x += ui_put(w, y + ch, x, UI_NORMAL, _("A (GPU)"), 0) + 2;
	if (b) {
		x += ui_put(w, y + ch, x, UI_WARN, "⣿", 0) + 1;
		x += ui_put(w, y + ch, x, UI_NORMAL, _("B (NPU)"), 0) + 2;
		x += ui_put(w, y + ch, x, UI_OK, "⣿", 0) + 1;
		ui_put(w, y + ch, x, UI_NORMAL, _("both"), 0);
	}
	free(p.a);
	free(p.b);
	return y + ch + 1;
}

/* A table's heading: each cell right-aligned to its width in display columns (widths[i]
 * < 0: left-aligned to -widths[i]), joined by sep; the words may be Chinese, which
 * printf's %10s would pad by bytes. */
static void heading(char *out, size_t n, const char *sep, int count, const char *const *cells, const int *widths)
{
	size_t used = 0;
	out[0] = '\0';
	for (int i = 0; i < count && used < n; i++) {
		char *cell = text_cell(cells[i], widths[i] < 0 ? -widths[i] : widths[i], widths[i] > 0);
		used += (size_t)snprintf(out + used, n - used, "%s%s", i ? sep : "", cell);
		free(cell);
	}
}

/* The verdict's word and colour: a pass of the same data on both sides proves nothing and
 * is no PASS (*says gets why, in full); else PASS or FAIL. */
static const char *verdict_word(int *attr, const char **says, char *buf, size_t size, const compare_outcome *o)
{
	int decimals, same = compare_same_input(o, &decimals);
	*says = o->pass ? compare_same_text(buf, size, o, same, decimals) : NULL;
	*attr = !o->pass ? UI_ERROR : *says ? UI_WARN : UI_OK;
	return !o->pass ? _("FAIL") : *says ? _("PROVES NOTHING") : _("PASS");
}

/* What a side of a loss comparison was read from: its column or key, or the loss. */
static void loss_source(char *out, size_t n, const loss_series *s)
{
	if (!s->column)
		snprintf(out, n, "%s", _("the training loss"));
	else if (s->column_is_key)
		snprintf(out, n, _("key %s"), s->column);
	else
		snprintf(out, n, _("column %s"), s->column);
}

/* Which column of each log was compared, and what a point of a console loss table is. */
static int draw_loss_sources(ui_win *w, int y, const compare_outcome *o)
{
	int width = ui_win_width(w);
	char sa[200], sb[200], line[512];
	loss_source(sa, sizeof sa, &o->sa);
	loss_source(sb, sizeof sb, &o->sb);
	if (strcmp(sa, sb) == 0)
		snprintf(line, sizeof line, _("compared: %s"), sa);
	else
		snprintf(line, sizeof line, _("compared: %s (A), %s (B)"), sa, sb);
	ui_put(w, y++, 7, UI_DIM, line, width - 8);
	if (o->sa.table == LOSS_TABLE_EPOCHS || o->sb.table == LOSS_TABLE_EPOCHS)
		y += pane_wrap(w, y, 7, UI_DIM,
		               _("one point per epoch from the console's loss table: the epoch's mean loss (the progress bar's "
		                 "running mean at its last batch), not a per-step loss"),
		               0, 3);
	return y;
}

static void draw_loss(sstate *s, ui_win *w, int y, const compare_outcome *o)
{
	const loss_result *r = &o->lr;
	int width = ui_win_width(w), h = ui_win_height(w), attr;
	char line[512], why[256], same[512];
	const char *says, *word = verdict_word(&attr, &says, same, sizeof same, o);
	if (r->n)
		snprintf(line, sizeof line,
		         P_("%s  mean relative error %.3g%% (tolerance %.3g%%), max %.3g%% at step %lld; %zu aligned step",
		            "%s  mean relative error %.3g%% (tolerance %.3g%%), max %.3g%% at step %lld; %zu aligned steps", r->n),
		         word, r->mean_rel * 100, r->tolerance * 100, r->max_rel * 100, r->max_rel_step, r->n);
	else
		snprintf(line, sizeof line, "%s  %s", word, loss_fail_reason_shown(why, sizeof why, r));
	ui_put(w, y++, 1, attr, line, width - 2);
	if (says)
		y += pane_wrap(w, y, 7, UI_WARN, says, 0, 3);
	if (!o->pass && r->n)
		ui_put(w, y++, 7, UI_ERROR, loss_fail_reason_shown(why, sizeof why, r), width - 8);
	y = draw_loss_sources(w, y, o);
	snprintf(line, sizeof line, _("final loss A %.5g (step %lld), B %.5g (step %lld)"), r->final_a, r->final_step_a, r->final_b,
	         r->final_step_b);
	ui_put(w, y++, 7, UI_DIM, line, width - 8);
	int ch = (h - y) / 2 - 1;
	ch = ch > 12 ? 12 : ch;
	y = draw_curves(w, y, ch, &o->sa, &o->sb) + 1;
	if (y >= h)
		return;
	const char *const cols[] = { _("step"), _("A (GPU)"), _("B (NPU)"), _("rel. error") };
	static const int widths[] = { 10, 14, 14, 10 };
	heading(line, sizeof line, "  ", 4, cols, widths);
	ui_put(w, y++, 1, UI_TITLE, line, width - 2);
	s->h = h - y;
	s->rows = (int)r->n;
	for (int i = s->scroll; i < (int)r->n && y < h; i++, y++) {
		const loss_row *lr = &r->rows[i];
		/* as the CLI's table: no error figure where a side is NaN/inf, and the marks */
		if (isnan(lr->rel_err))
			snprintf(line, sizeof line, "%10lld  %14.6g  %14.6g  %10s  %s", lr->step, lr->a, lr->b, "-",
			         isfinite(lr->b) ? "" : _("NaN/inf"));
		else
			snprintf(line, sizeof line, "%10lld  %14.6g  %14.6g  %9.4g%%  %s", lr->step, lr->a, lr->b, lr->rel_err * 100,
			         lr->rel_err > r->tolerance ? _("over") : "");
		ui_put(w, y, 1, lr->rel_err > r->tolerance || !isfinite(lr->b) ? UI_ERROR : UI_NORMAL, line, width - 2);
	}
}

/* s in at most cols columns: whole when it fits, else its start and its end around "…"
 * ("Functional.linear.0.forward.output.0" -> "Functional.li…ward.output.0"). Caller frees. */
static char *cut_middle(const char *s, int cols)
{
	int total = text_width(s);
	if (total <= cols || cols < 3)
		return xstrdup(s);
	int head = (cols - 1) / 2, tail = cols - 1 - head, used = 0;
	size_t h = text_fit(s, head, &used), n = strlen(s), t = h;
	int acc = used;
	while (t < n && total - acc > tail) { /* skip to where the last `tail` columns begin */
		unsigned cp;
		int w;
		size_t k = text_next(s + t, n - t, &cp, &w);
		acc += w;
		t += k;
	}
	return xasprintf("%.*s…%s", (int)h, s, s + t);
}

/* A pair's verdict as the table shows it. */
static const char *pair_verdict(const dump_pair *p)
{
	if (!p->pass)
		return p->note ? _(p->note) : _("FAIL");
	return p->warn ? _("pass (warning)") : _("pass");
}

/* The pairs whose dump.json states another dtype than a file holds: how many, then the
 * first of them with what its side says, a line each from *y on. */
static void draw_stated_dtype(ui_win *w, int *y, int width, const dump_result *r)
{
	for (size_t i = 0; r->ndtype && i < r->n; i++) {
		const dump_pair *p = &r->pairs[i];
		if (!p->dtype_json_a[0] && !p->dtype_json_b[0])
			continue;
		int b = !p->dtype_json_a[0];
		char line[600];
		snprintf(line, sizeof line,
		         P_("%zu tensor pair whose dump.json states another dtype than its file holds: the file's was compared",
		            "%zu tensor pairs whose dump.json states another dtype than their files hold: the file's was compared",
		            r->ndtype),
		         r->ndtype);
		ui_put(w, (*y)++, 7, UI_WARN, line, width - 8);
		snprintf(line, sizeof line, _("first %s: %s's dump.json says %s, its file holds %s"), p->name, b ? "B" : "A",
		         b ? p->dtype_json_b : p->dtype_json_a, b ? p->dtype_held_b : p->dtype_held_a);
		ui_put(w, (*y)++, 9, UI_WARN, line, width - 10);
		return;
	}
}

static int worst_first(const void *x, const void *y, const dump_result *r)
{
	const dump_pair *a = &r->pairs[*(const size_t *)x], *b = &r->pairs[*(const size_t *)y];
	if (a->pass != b->pass)
		return a->pass - b->pass;
	double ca = isnan(a->m.cosine) ? -2 : a->m.cosine, cb = isnan(b->m.cosine) ? -2 : b->m.cosine;
	if (ca != cb)
		return ca < cb ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static const dump_result *sort_target;
static int worst_cmp(const void *x, const void *y)
{
	return worst_first(x, y, sort_target);
}

static void draw_dump(sstate *s, tui *t, ui_win *w, int y, const compare_outcome *o)
{
	const dump_result *r = &o->dr;
	int width = ui_win_width(w), h = ui_win_height(w);
	if (s->gen != t->show_gen || s->norder != r->n) {
		free(s->order);
		s->order = xcalloc(r->n ? r->n : 1, sizeof *s->order);
		s->norder = r->n;
		for (size_t i = 0; i < r->n; i++)
			s->order[i] = i;
		sort_target = r;
		qsort(s->order, r->n, sizeof *s->order, worst_cmp);
	}
	char line[600], same[512];
	int attr;
	const char *says, *word = verdict_word(&attr, &says, same, sizeof same, o);
	snprintf(line, sizeof line,
	         P_("%s  %zu tensor pair compared, %zu fail (%zu read, %zu by statistics, %zu not comparable: shape or dtype)",
	            "%s  %zu tensor pairs compared, %zu fail (%zu read, %zu by statistics, %zu not comparable: shape or dtype)", r->n),
	         word, r->n, r->nfailed, r->nreal, r->nstats, r->nunmatched);
	ui_put(w, y++, 1, attr, line, width - 2);
	if (says)
		y += pane_wrap(w, y, 7, UI_WARN, says, 0, 3);
	ui_put(w, y++, 7, UI_DIM, dump_threshold_text(line, sizeof line, &r->th, r->nstats, r->n), width - 8);
	if (r->first_fail >= 0) {
		snprintf(line, sizeof line, _("first diverging layer: %s"), r->pairs[r->first_fail].layer);
		ui_put(w, y++, 7, UI_ERROR, line, width - 8);
	}
	if (r->incomplete || (r->n && r->nempty == r->n))
		ui_put(w, y++, 7, UI_ERROR, dump_unjudged_reason(line, sizeof line, r), width - 8);
	if (r->only_a || r->only_b) {
		snprintf(line, sizeof line, P_("%zu tensor only in A, %zu only in B", "%zu tensors only in A, %zu only in B", r->only_a), r->only_a, r->only_b);
		ui_put(w, y++, 7, UI_DIM, line, width - 8);
	}
	if (r->stats_reason)
		ui_put(w, y++, 7, UI_DIM, r->stats_reason, width - 8);
	draw_stated_dtype(w, &y, width, r);
	y++;
	/* columns as wide as their heading (Chinese ones are wider than the figures), the
	 * verdict as wide as its longest text, the names as wide as the longest name in the
	 * room that leaves */
	const char *const cols[] = { _("tensor"), _("cosine"), _("max abs"), _("max rel"), _("<0.1%"), _("verdict") };
	int widths[6] = { 0, 9, 11, 11, 8, 0 };
	for (int k = 1; k < 6; k++)
		if (text_width(cols[k]) > widths[k])
			widths[k] = text_width(cols[k]);
	int longest = text_width(cols[0]);
	for (size_t i = 0; i < r->n; i++) {
		const dump_pair *p = &r->pairs[i];
		int nw = text_width(p->name), vw = text_width(pair_verdict(p));
		longest = nw > longest ? nw : longest;
		widths[5] = vw > widths[5] ? vw : widths[5];
	}
	int room = width - 2 - 5 - (widths[1] + widths[2] + widths[3] + widths[4] + widths[5]);
	int namew = longest < room ? longest : room < 12 ? 12 : room;
	widths[0] = -namew;
	widths[5] = -widths[5];
	heading(line, sizeof line, " ", 6, cols, widths);
	ui_put(w, y++, 1, UI_TITLE, line, width - 2);
	s->h = h - y;
	s->rows = (int)r->n;
	for (int i = s->scroll; i < (int)r->n && y < h; i++, y++) {
		const dump_pair *p = &r->pairs[s->order[i]];
		char num[4][32];
		if (p->mode == DUMP_REAL) {
			snprintf(num[0], sizeof num[0], "%.6f", p->m.cosine);
			snprintf(num[1], sizeof num[1], "%.4g", p->m.max_abs);
			snprintf(num[2], sizeof num[2], "%.4g", p->m.max_rel);
			snprintf(num[3], sizeof num[3], "%.1f%%", p->m.ratio_1e3 * 100);
		} else {
			for (int k = 0; k < 4; k++)
				snprintf(num[k], sizeof num[k], "-");
		}
		char *name = cut_middle(p->name, namew); /* both ends tell tensors apart */
		const char *cells[6] = { name, num[0], num[1], num[2], num[3], pair_verdict(p) };
		heading(line, sizeof line, " ", 6, cells, widths);
		free(name);
		ui_put(w, y, 1, p->pass ? (p->warn ? UI_WARN : UI_NORMAL) : UI_ERROR, line, width - 2);
	}
}

static void draw_text(sstate *s, tui *t, ui_win *w, int y)
{
	if (s->gen != t->show_gen || !s->text.text) {
		diffview_set(&s->text, t->show_text);
		s->text.plain = 1;
	}
	diffview_draw(&s->text, w, y, 1, ui_win_height(w) - y);
}

/* Search in a dump comparison: the tensor's or its layer's name. */
static int pair_match(int i, const char *text, void *ctx)
{
	const sstate *s = ((void **)ctx)[0];
	const dump_result *r = ((void **)ctx)[1];
	const dump_pair *p = &r->pairs[s->order[i]];
	return pane_has(text, p->name, p->layer, (char *)NULL);
}

static void show_draw(void *st, tui *t, ui_win *w)
{
	sstate *s = st;
	if (s->gen != t->show_gen)
		s->scroll = 0;
	ui_erase(w);
	int y = pane_title(w, 0, t->show_title);
	if (t->cmp && t->cmp->loss)
		draw_loss(s, w, y, t->cmp);
	else if (t->cmp)
		draw_dump(s, t, w, y, t->cmp);
	else if (t->show_text)
		draw_text(s, t, w, y);
	s->gen = t->show_gen;
}

static int show_handle(void *st, tui *t, int cmd, const char *arg)
{
	sstate *s = st;
	if (!t->cmp && t->show_text && s->text.text)
		return diffview_handle(&s->text, cmd, arg);
	if ((cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) && t->cmp && !t->cmp->loss && s->norder) {
		void *ctx[2] = { s, &t->cmp->dr };
		return pane_find(&s->scroll, (int)s->norder, cmd == CMD_SEARCH_NEXT ? 1 : -1, arg, pair_match, ctx)
		           ? PANE_HANDLED | PANE_REDRAW : 0;
	}
	return pane_scroll_cmd(&s->scroll, s->rows, s->h, cmd);
}

const pane_ops pane_show_ops = { "show", show_open, show_close, show_draw, show_handle };
