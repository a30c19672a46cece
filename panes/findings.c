/* findings — the main list: the selected phase's findings, filtered (severity,
 * status, plugin, text) and sorted. The visible order is an index array rebuilt
 * only when the model's findings or the filter change, never on cursor moves. */
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fstate {
	size_t *idx;       /* visible rows: indexes into t->m.f */
	size_t n;          /* visible count */
	unsigned gen;      /* model generation idx was built from */
	char filter[256];  /* filter text idx was built with */
	int sev, status, sort;
	int built;         /* idx valid */
	int cur, top;      /* cursor row and first visible row */
	int h;             /* rows available for the list at the last draw */
	/* what the window shows, so a cursor move repaints two rows only */
	int painted;       /* the fields below are valid */
	int p_cur, p_top, p_width, p_zh;
	int pos_x; /* where the header's "row n of N" goes; 0: no room for it */
	unsigned p_gen, p_paint, p_filter_id;
	unsigned filter_id; /* bumped on every rebuild */
	int phase;          /* phase the cursor belongs to */
} fstate;

static const model *sort_model; /* qsort has no context argument in C11 */

static int cmp_loc(const finding *a, const finding *b)
{
	int c = strcmp(a->file, b->file);
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_file(const void *x, const void *y)
{
	return cmp_loc(&sort_model->f[*(const size_t *)x], &sort_model->f[*(const size_t *)y]);
}

static int cmp_sev(const void *x, const void *y)
{
	const finding *a = &sort_model->f[*(const size_t *)x], *b = &sort_model->f[*(const size_t *)y];
	if (a->severity != b->severity)
		return a->severity > b->severity ? -1 : 1;
	return cmp_loc(a, b);
}

static int cmp_plugin(const void *x, const void *y)
{
	const finding *a = &sort_model->f[*(const size_t *)x], *b = &sort_model->f[*(const size_t *)y];
	int c = strcmp(a->plugin, b->plugin);
	return c ? c : cmp_loc(a, b);
}

static int status_ok(const finding *f, int want)
{
	switch (want) {
	case 0: return f->status != STATUS_FIXED;
	case 1: return f->status == STATUS_OPEN;
	case 2: return f->status == STATUS_WAIVED;
	case 3: return f->status == STATUS_FIXED;
	default: return 1;
	}
}

/* "PATH:LINE" (a path or its end, and a line the finding covers): 1 when f is there,
 * 0 when not, -1 when w is not of that form. */
static int location_ok(const finding *f, const char *w)
{
	const char *colon = strrchr(w, ':');
	if (!colon || colon == w || !colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1))
		return -1;
	size_t plen = (size_t)(colon - w), flen = strlen(f->file);
	if (plen > flen || strncmp(f->file + flen - plen, w, plen) != 0 || (plen < flen && f->file[flen - plen - 1] != '/'))
		return 0;
	int line = atoi(colon + 1), last = f->end_line > f->line ? f->end_line : f->line;
	return line >= f->line && line <= last;
}

/* One filter or search word: #ID, PATH:LINE, sev:X, status:X, plugin:X, file:X,
 * category:X, fix:yes|no or free text. */
static int word_ok(const finding *f, const char *w)
{
	int exact = pane_id_match(w, f->id);
	if (exact >= 0)
		return exact;
	const char *v = strchr(w, ':');
	if (v) {
		size_t k = (size_t)(v - w);
		v++;
		if ((k == 3 && strncmp(w, "sev", 3) == 0) || (k == 8 && strncmp(w, "severity", 8) == 0))
			return util_starts_with(severity_name(f->severity), v);
		if (k == 6 && strncmp(w, "status", 6) == 0)
			return util_starts_with(status_name(f->status), v);
		if (k == 6 && strncmp(w, "plugin", 6) == 0)
			return strstr(f->plugin, v) != NULL;
		if (k == 4 && strncmp(w, "file", 4) == 0)
			return strstr(f->file, v) != NULL;
		if (k == 8 && strncmp(w, "category", 8) == 0)
			return strstr(f->category, v) != NULL;
		if (k == 3 && strncmp(w, "fix", 3) == 0) /* fix:yes, fix:no */
			return (f->nedits > 0) == (*v == 'y');
		if ((exact = location_ok(f, w)) >= 0)
			return exact;
	}
	return strcasestr(f->message, w) || strcasestr(f->file, w) || strcasestr(f->plugin, w) ||
	       strcasestr(f->category, w);
}

static int filter_ok(const finding *f, const tui *t, char **words, size_t nwords)
{
	if (t->filter_sev && (int)f->severity != t->filter_sev)
		return 0;
	if (!status_ok(f, t->filter_status))
		return 0;
	for (size_t i = 0; i < nwords; i++)
		if (!word_ok(f, words[i]))
			return 0;
	return 1;
}

/* Search: every word of the text holds for the shown row i. */
static int row_match(int i, const char *text, void *ctx)
{
	void **c = ctx;
	const fstate *s = c[0];
	const tui *t = c[1];
	char *copy = xstrdup(text), *save = NULL, *words[32];
	size_t n = 0;
	for (char *w = strtok_r(copy, " ", &save); w && n < 32; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	int ok = 1;
	for (size_t k = 0; ok && k < n; k++)
		ok = word_ok(&t->m.f[s->idx[i]], words[k]);
	free(copy);
	return ok && n;
}

static void select_row(fstate *s, tui *t)
{
	t->sel = s->n ? &t->m.f[s->idx[s->cur]] : NULL;
	t->sel_id = t->sel ? t->sel->id : 0;
}

static void rebuild(fstate *s, tui *t)
{
	const model *m = &t->m;
	if (s->built && s->gen == m->gen && strcmp(s->filter, t->filter) == 0 && s->sev == t->filter_sev &&
	    s->status == t->filter_status && s->sort == t->sort)
		return;
	long long keep = t->sel_id;
	char *copy = xstrdup(t->filter), *save = NULL;
	char *words[32];
	size_t nwords = 0;
	for (char *w = strtok_r(copy, " ", &save); w && nwords < 32; w = strtok_r(NULL, " ", &save))
		words[nwords++] = w;
	free(s->idx);
	s->idx = xmalloc((m->nf ? m->nf : 1) * sizeof *s->idx);
	s->n = 0;
	for (size_t i = 0; i < m->nf; i++)
		if (filter_ok(&m->f[i], t, words, nwords))
			s->idx[s->n++] = i;
	free(copy);
	sort_model = m;
	qsort(s->idx, s->n, sizeof *s->idx, t->sort == 1 ? cmp_sev : t->sort == 2 ? cmp_plugin : cmp_file);
	sort_model = NULL;
	s->gen = m->gen;
	snprintf(s->filter, sizeof s->filter, "%s", t->filter);
	s->sev = t->filter_sev;
	s->status = t->filter_status;
	s->sort = t->sort;
	s->built = 1;
	s->filter_id++;
	if (s->phase != m->phase) { /* another phase: start at its top */
		s->phase = m->phase;
		s->cur = s->top = 0;
		keep = 0;
	}
	if (keep && !t->running)
		for (size_t i = 0; i < s->n; i++)
			if (m->f[s->idx[i]].id == keep) {
				s->cur = (int)i;
				break;
			}
	if (s->cur >= (int)s->n)
		s->cur = s->n ? (int)s->n - 1 : 0;
	select_row(s, t);
}

static void *findings_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(fstate));
}

static void findings_close(void *st)
{
	fstate *s = st;
	if (!s)
		return;
	free(s->idx);
	free(s);
}

static const char *sort_name(int sort)
{
	return sort == 1 ? _("severity") : sort == 2 ? _("plugin") : _("file");
}

static const char *status_filter_name(int st)
{
	static const char *const names[] = { N_("active"), N_("open"), N_("waived"), N_("fixed"), N_("all") };
	return _(names[st >= 0 && st < 5 ? st : 0]);
}

/* A survey finding a later phase settled (finding_settlement) is marked as what settled it. */
static const char *status_mark(const finding *f)
{
	switch (f->settled.finding ? f->settled.status : f->status) {
	case STATUS_WAIVED: return "w";
	case STATUS_FIXED: return "✓";
	default: return "•";
	}
}

static void draw_row(ui_win *w, int y, const finding *f, int sel, int width)
{
	int base = sel ? UI_SELECT : f->status != STATUS_OPEN || f->settled.finding ? UI_DIM : UI_NORMAL;
	ui_fill_row(w, y, base);
	int x = 1;
	x += ui_put(w, y, x, base, status_mark(f), 1) + 1;
	x += ui_put(w, y, x, sel ? UI_SELECT : pane_severity_attr(f->severity), pane_severity_label(f->severity), 4) + 1;
	int locw = width >= 110 ? 34 : width >= 90 ? 28 : 22;
	char loc[512];
	if (*f->file && f->line > 0)
		snprintf(loc, sizeof loc, "%s:%d", f->file, f->line);
	else if (*f->file)
		snprintf(loc, sizeof loc, "%s", f->file);
	else
		snprintf(loc, sizeof loc, "%s", _("(project)"));
	/* keep the end of a long path: the file name and line matter most */
	char *cell;
	if (text_width(loc) > locw) {
		const char *tail = loc;
		while (*tail && text_width(tail) > locw - 1)
			tail++;
		while ((*tail & 0xC0) == 0x80)
			tail++;
		char *t2 = xasprintf("…%s", tail);
		cell = text_cell(t2, locw, 0);
		free(t2);
	} else {
		cell = text_cell(loc, locw, 0);
	}
	x += ui_put(w, y, x, base, cell, locw) + 1;
	free(cell);
	if (width >= 120) {
		char *pc = text_cell(f->plugin, 26, 0);
		x += ui_put(w, y, x, sel ? UI_SELECT : UI_DIM, pc, 26) + 1;
		free(pc);
	}
	ui_put(w, y, x, base, f->message, width - x - 1);
}

/* "row 3 of 40" at the right end of the header line (as less and tig show it), when
 * the header left room for it. */
static void draw_position(ui_win *w, const fstate *s)
{
	if (!s->pos_x)
		return;
	char pos[64];
	snprintf(pos, sizeof pos, _("row %d of %zu"), s->cur + 1, s->n);
	char *cell = text_cell(pos, 18, 1);
	ui_put(w, 0, s->pos_x, UI_DIM, cell, 18);
	free(cell);
}

static void findings_draw(void *st, tui *t, ui_win *w)
{
	fstate *s = st;
	rebuild(s, t);
	int width = ui_win_width(w), h = ui_win_height(w);
	if (s->painted && s->n && !t->running && s->p_width == width && s->p_zh == intl_zh() &&
	    s->p_gen == t->m.gen && s->p_paint == t->paint_gen && s->p_filter_id == s->filter_id && s->h == h - 1) {
		int top = s->top;
		pane_scroll(&top, s->cur, s->h, (int)s->n);
		if (top == s->p_top) { /* only the cursor moved: repaint its old and new rows */
			if (s->p_cur != s->cur && s->p_cur < (int)s->n)
				draw_row(w, 1 + s->p_cur - top, &t->m.f[s->idx[s->p_cur]], 0, width);
			draw_row(w, 1 + s->cur - top, &t->m.f[s->idx[s->cur]], 1, width);
			draw_position(w, s);
			s->p_cur = s->cur;
			return;
		}
	}
	ui_erase(w);
	s->painted = 0;
	char head[512];
	const tui_phase *ph = &t->m.phases[t->m.phase];
	snprintf(head, sizeof head, "%s · %s  %zu/%zu", _("Findings"), pane_word(ph->name), s->n, t->m.nf);
	int x = ui_put(w, 0, 1, UI_TITLE, head, 0) + 3;
	if (t->running && *t->progress) { /* the list stays as it was while checks run */
		char run[200];
		snprintf(run, sizeof run, "⟳ %s", t->progress);
		x += ui_put(w, 0, x, UI_WARN, run, width - x - 1) + 3;
	}
	char info[512];
	snprintf(info, sizeof info, "%s:%s  %s:%s%s%s%s%s", _("sort"), sort_name(t->sort), _("show"),
	         status_filter_name(t->filter_status), t->filter_sev ? "  " : "",
	         t->filter_sev ? pane_severity_label(t->filter_sev) : "",
	         *t->filter ? "  /" : "", t->filter);
	x += ui_put(w, 0, x, UI_DIM, info, width - x - 1);
	s->pos_x = s->n && x + 2 + 18 < width ? width - 19 : 0;
	draw_position(w, s);
	s->h = h - 1;
	if (s->n == 0) {
		const char *why = ph->runs == 0 && t->m.nf == 0 && !t->running
		                      ? _("No checks have run for this phase yet. Press r to run them.")
		                  : t->m.nf == 0 ? _("No findings in this phase.")
		                                 : _("No findings match the filter (\\ clears it).");
		pane_wrap(w, 2, 2, UI_DIM, why, 0, h - 2);
		return;
	}
	pane_scroll(&s->top, s->cur, s->h, (int)s->n);
	for (int r = 0; r < s->h && s->top + r < (int)s->n; r++) {
		int i = s->top + r;
		draw_row(w, 1 + r, &t->m.f[s->idx[i]], i == s->cur, width);
	}
	s->painted = 1;
	s->p_cur = s->cur;
	s->p_top = s->top;
	s->p_width = width;
	s->p_zh = intl_zh();
	s->p_gen = t->m.gen;
	s->p_paint = t->paint_gen;
	s->p_filter_id = s->filter_id;
}

static int findings_handle(void *st, tui *t, int cmd, const char *arg)
{
	fstate *s = st;
	switch (cmd) {
	case CMD_UP:
	case CMD_DOWN:
	case CMD_PAGE_UP:
	case CMD_PAGE_DOWN:
	case CMD_TOP:
	case CMD_BOTTOM: {
		rebuild(s, t);
		int before = s->cur;
		pane_move(&s->cur, (int)s->n, s->h > 0 ? s->h : 10, cmd);
		select_row(s, t);
		return PANE_HANDLED | (before != s->cur ? PANE_REDRAW : 0);
	}
	case CMD_SEARCH_NEXT:
	case CMD_SEARCH_PREV: {
		rebuild(s, t);
		void *ctx[2] = { s, t };
		if (!s->n || !pane_find(&s->cur, (int)s->n, cmd == CMD_SEARCH_NEXT ? 1 : -1, arg, row_match, ctx))
			return 0;
		select_row(s, t);
		return PANE_HANDLED | PANE_REDRAW;
	}
	case CMD_FILTER:
		snprintf(t->filter, sizeof t->filter, "%s", arg ? arg : "");
		break;
	case CMD_FILTER_SEVERITY:
		t->filter_sev = t->filter_sev == 0 ? 3 : t->filter_sev - 1;
		break;
	case CMD_FILTER_STATUS:
		t->filter_status = (t->filter_status + 1) % 5;
		break;
	case CMD_FILTER_CLEAR:
		t->filter[0] = '\0';
		t->filter_sev = 0;
		t->filter_status = 0;
		break;
	case CMD_SORT:
		t->sort = (t->sort + 1) % 3;
		break;
	case CMD_NONE: /* prepare: make t->sel valid after a reload */
		rebuild(s, t);
		return 0;
	case CMD_RELOAD:
		s->built = 0;
		return 0; /* others reload too */
	default:
		return 0;
	}
	rebuild(s, t);
	return PANE_HANDLED | PANE_REDRAW;
}

const pane_ops pane_findings_ops = { "findings", findings_open, findings_close, findings_draw, findings_handle };
