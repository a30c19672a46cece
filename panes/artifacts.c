/* artifacts — what was ingested into the engagement (logs, probes, profiles,
 * models), then the comparisons recorded (`ferry compare` or :compare) and the
 * reports generated (`ferry report` or p here), as the audit chain records them.
 * Enter opens the one under the cursor (tui_open_artifact): a comparison as its
 * curves or pairs, a bench as its sweep, a report in $PAGER. */
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct astate {
	tui_artifact *a;   /* ingested artifacts, then comparisons, then reports: one list */
	size_t n;
	size_t ncompare;   /* comparisons, before the reports */
	size_t nreports;   /* the last nreports entries are reports */
	int loaded;
	unsigned gen;
	int cur, top, h;
	char err[256];
} astate;

/* Appends what get lists to s->a; returns how many. */
static size_t append(astate *s, int (*get)(tui_artifact **, size_t *, model *), model *m)
{
	tui_artifact *r = NULL;
	size_t nr = 0;
	if (get(&r, &nr, m) != 0 || !nr) {
		model_artifacts_free(r, nr);
		return 0;
	}
	s->a = xrealloc(s->a, (s->n + nr) * sizeof *s->a);
	memcpy(s->a + s->n, r, nr * sizeof *r);
	free(r); /* the strings moved into s->a */
	s->n += nr;
	return nr;
}

static void load(astate *s, tui *t)
{
	if (s->loaded && s->gen == t->reload_gen)
		return;
	model_artifacts_free(s->a, s->n);
	s->a = NULL;
	s->n = s->ncompare = s->nreports = 0;
	s->err[0] = '\0';
	if (model_artifacts(&s->a, &s->n, &t->m) != 0) {
		snprintf(s->err, sizeof s->err, "%s", _("cannot read the artifacts"));
	} else {
		s->ncompare = append(s, model_comparisons, &t->m);
		s->nreports = append(s, model_reports, &t->m);
	}
	s->loaded = 1;
	s->gen = t->reload_gen;
	if (s->cur >= (int)s->n)
		s->cur = s->n ? (int)s->n - 1 : 0;
}

static void *artifacts_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(astate));
}

static void artifacts_close(void *st)
{
	astate *s = st;
	if (!s)
		return;
	model_artifacts_free(s->a, s->n);
	free(s);
}

static void human_size(char *out, size_t n, long long size)
{
	if (size >= 1LL << 30)
		snprintf(out, n, "%.1f GiB", (double)size / (double)(1LL << 30));
	else if (size >= 1LL << 20)
		snprintf(out, n, "%.1f MiB", (double)size / (double)(1LL << 20));
	else if (size >= 1024)
		snprintf(out, n, "%.1f KiB", (double)size / 1024.0);
	else
		snprintf(out, n, "%lld B", size);
}

static void artifacts_draw(void *st, tui *t, ui_win *w)
{
	astate *s = st;
	load(s, t);
	ui_erase(w);
	int width = ui_win_width(w);
	char head[128];
	snprintf(head, sizeof head, _("Artifacts (%zu), comparisons (%zu) and reports (%zu) · Enter opens"),
	         s->n - s->nreports - s->ncompare, s->ncompare, s->nreports);
	pane_title(w, 0, head);
	if (*s->err) {
		ui_put(w, 2, 2, UI_ERROR, s->err, 0);
		return;
	}
	if (!s->n) {
		pane_wrap(w, 2, 2, UI_DIM,
		          _("No artifacts yet. Ingest logs, probes, profiles or models with :ingest KIND PATH"), 0, 4);
		pane_wrap(w, 5, 2, UI_DIM, _("No reports yet. Press p to write one (md, html, json, sarif or csv)."), 0, 3);
		return;
	}
	s->h = (ui_win_height(w) - 1) / 2;
	pane_scroll(&s->top, s->cur, s->h, (int)s->n);
	for (int r = 0; r < s->h && s->top + r < (int)s->n; r++) {
		int i = s->top + r, y = 1 + 2 * r, sel = i == s->cur;
		const tui_artifact *a = &s->a[i];
		int attr = sel ? UI_SELECT : UI_NORMAL;
		ui_fill_row(w, y, attr);
		char size[32] = "-", row[512];
		if (strcmp(a->kind, "compare") != 0) /* a comparison is a record, not a file */
			human_size(size, sizeof size, a->size);
		char *kind = text_cell(pane_word(a->kind), 10, 0);
		char *label = text_cell(a->label, 24, 0);
		char id[24] = "";
		if (i < (int)(s->n - s->nreports - s->ncompare)) /* comparisons and reports have no artifact id */
			snprintf(id, sizeof id, "#%lld", a->id);
		snprintf(row, sizeof row, "%-5s %s %s %10s  %s", id, kind, label, size, a->time);
		free(label);
		free(kind);
		ui_put(w, y, 1, attr, row, width - 2);
		char sub[600];
		snprintf(sub, sizeof sub, "%s  (%s)", a->path, a->actor);
		ui_put(w, y + 1, 7, UI_DIM, sub, width - 8);
	}
}

/* Search: "#N" an ingested artifact's id; words its kind, label, path or who brought it. */
static int artifact_match(int i, const char *text, void *ctx)
{
	const astate *s = ctx;
	const tui_artifact *a = &s->a[i];
	int id = pane_id_match(text, a->id);
	if (id >= 0)
		return id && i < (int)(s->n - s->nreports - s->ncompare);
	return pane_has(text, a->kind, pane_word(a->kind), a->label, a->path, a->actor, a->time, (char *)NULL);
}

static int artifacts_handle(void *st, tui *t, int cmd, const char *arg)
{
	astate *s = st;
	/* read again when next shown, not now */
	if (cmd == CMD_RELOAD) {
		s->loaded = 0;
		return 0;
	}
	load(s, t);
	if ((cmd == CMD_SEARCH_NEXT || cmd == CMD_SEARCH_PREV) && s->n)
		return pane_find(&s->cur, (int)s->n, cmd == CMD_SEARCH_NEXT ? 1 : -1, arg, artifact_match, s)
		           ? PANE_HANDLED | PANE_REDRAW : 0;
	if (pane_move(&s->cur, (int)s->n, s->h, cmd))
		return PANE_HANDLED | PANE_REDRAW;
	if (cmd == CMD_OPEN && s->n)
		return tui_open_artifact(t, &s->a[s->cur]);
	return 0;
}

const pane_ops pane_artifacts_ops = { "artifacts", artifacts_open, artifacts_close, artifacts_draw, artifacts_handle };
