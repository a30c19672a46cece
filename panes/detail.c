/* detail — the selected finding: what was found, the source around it with the
 * matched range highlighted, the suggestion, and the proposed fix as a coloured
 * diff computed from the finding's edits. The source is the file as the check run that
 * last saw the finding read it (from that run's checkpoint), so its line and its edits
 * point at the code they were computed on; when the file has changed since, the pane
 * says so. */
#include "diffview.h"
#include "err.h"
#include "intl.h"
#include "keymap.h"
#include "pane.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define CONTEXT_LINES 3

typedef struct dstate {
	char *path;         /* cached file (relative) */
	char *text;         /* its contents, or NULL when unreadable */
	size_t len;
	int absent;         /* the file does not exist (a fix may create it) */
	long long run;      /* the check run the cache is for */
	int changed;        /* text is the file as that run read it, which differs from now */
	unsigned gen;       /* reload generation of the cache */
	long long shown;    /* finding id last drawn (scroll resets on change) */
	int scroll;         /* first virtual row shown */
	int hscroll;        /* columns of code scrolled off to the left (< and >) */
	int total;          /* virtual rows at the last draw */
	int h;
} dstate;

/* A drawing cursor over virtual rows, of which only [skip, skip+h) are painted; code
 * starts at column code_x, scrolled sideways by hscroll columns. */
typedef struct out {
	ui_win *w;
	int row, skip, h;
	int code_x, hscroll;
} out;

static int visible(const out *o)
{
	return o->row >= o->skip && o->row < o->skip + o->h;
}

static void line(out *o, int x, int attr, const char *s)
{
	if (visible(o))
		ui_put(o->w, o->row - o->skip, x, attr, s, 0);
	o->row++;
}

static void wrapped(out *o, int x, int attr, const char *s)
{
	int cols = ui_win_width(o->w) - x - 1;
	if (cols < 8)
		cols = 8;
	while (*s) {
		size_t len, next = text_wrap(s, cols, &len);
		if (visible(o))
			ui_putn(o->w, o->row - o->skip, x, attr, s, len, cols);
		o->row++;
		if (!next)
			break;
		s += next;
	}
}

/* Draws bytes [a, b) of a source line at code column *col (0 where the code starts)
 * with tabs expanded; what is scrolled off to the left is not drawn. */
static void segment(out *o, int *col, int attr, const char *s, size_t a, size_t b)
{
	size_t i = a;
	while (i < b) {
		size_t j = i;
		while (j < b && s[j] != '\t')
			j++;
		if (j > i)
			*col += ui_putn_clip(o->w, o->row - o->skip, o->code_x, o->code_x + *col - o->hscroll, attr, s + i, j - i);
		if (j < b) { /* tab to the next multiple of 4 */
			*col += 4 - *col % 4;
			j++;
		}
		i = j;
	}
}

/* One numbered source line with bytes [ha, hb) highlighted. */
static void source_line(out *o, int num, int marked, const char *s, size_t len, size_t ha, size_t hb)
{
	if (visible(o)) {
		char nb[16];
		snprintf(nb, sizeof nb, "%5d %s", num, marked ? "▶" : " ");
		ui_put(o->w, o->row - o->skip, 0, marked ? UI_TITLE : UI_DIM, nb, 0);
		int x = 0;
		o->code_x = 8;
		if (ha > len)
			ha = len;
		if (hb > len)
			hb = len;
		if (hb < ha)
			hb = ha;
		segment(o, &x, UI_NORMAL, s, 0, ha);
		segment(o, &x, UI_MATCH, s, ha, hb);
		segment(o, &x, UI_NORMAL, s, hb, len);
	}
	o->row++;
}

/* Replaces the cached text with the file as run read it, when the record knows the
 * checkpoint the run checked and the file there differs from now. */
static void load_as_checked(dstate *d, workspace *ws, const char *rel, long long run)
{
	char head[41], *old = NULL;
	size_t oldlen = 0;
	if (run <= 0 || store_run_head(head, ws->db, run) != 0 || !head[0] ||
	    history_read_at(&old, &oldlen, ws->hist, head, rel) != 0) {
		err_clear(); /* no record of it: the file as it is now is all there is */
		return;
	}
	if (d->text && oldlen == d->len && memcmp(old, d->text, oldlen) == 0) {
		free(old);
		return;
	}
	free(d->text);
	d->text = old;
	d->len = oldlen;
	d->absent = 0;
	d->changed = 1;
}

static void load_file(dstate *d, tui *t, const char *rel, long long run)
{
	if (d->path && strcmp(d->path, rel) == 0 && d->run == run && d->gen == t->reload_gen)
		return;
	free(d->path);
	free(d->text);
	d->path = xstrdup(rel);
	d->text = NULL;
	d->len = 0;
	d->run = run;
	d->changed = 0;
	d->gen = t->reload_gen;
	char *abs = util_path_join(t->m.ws->root, rel);
	struct stat st;
	d->absent = lstat(abs, &st) != 0 && errno == ENOENT;
	if (util_read_file(&d->text, &d->len, abs) != 0) {
		err_clear();
		d->text = NULL;
	}
	free(abs);
	load_as_checked(d, t->m.ws, rel, run);
}

/* Start of line n (1-based) in text, or len when past the end; line 1 starts after a
 * byte-order mark, as the findings' columns count. */
static size_t line_start(const char *text, size_t len, int n)
{
	size_t i = util_utf8_bom(text, len);
	for (int k = 1; k < n && i < len; i++)
		if (text[i] == '\n')
			k++;
	return i;
}

static size_t line_end(const char *text, size_t len, size_t i)
{
	while (i < len && text[i] != '\n')
		i++;
	return i;
}

static void draw_source(out *o, dstate *d, const finding *f)
{
	if (!d->text) {
		line(o, 2, UI_DIM, d->absent ? _("(the file does not exist yet)") : _("(the file cannot be read)"));
		return;
	}
	int first = f->line - CONTEXT_LINES < 1 ? 1 : f->line - CONTEXT_LINES;
	int end_line = f->end_line >= f->line ? f->end_line : f->line;
	int last = end_line + CONTEXT_LINES;
	size_t i = line_start(d->text, d->len, first);
	for (int n = first; n <= last && i < d->len; n++) {
		size_t e = line_end(d->text, d->len, i), len = e - i;
		size_t ha = 0, hb = 0;
		if (n >= f->line && n <= end_line) {
			ha = n == f->line && f->col > 0 ? (size_t)(f->col - 1) : 0;
			hb = n == end_line && f->end_col > 0 ? (size_t)(f->end_col - 1) : len;
			if (n == f->line && n == end_line && hb <= ha)
				hb = len;
		}
		source_line(o, n, n >= f->line && n <= end_line, d->text + i, len, ha, hb);
		i = e + 1;
	}
}

/* The fix as a diff: for each group of edits touching the same lines, the old lines
 * (red, "-") and the lines with the edits applied (green, "+"). */
static void draw_fix(out *o, dstate *d, const finding *f)
{
	if (!f->nedits) {
		line(o, 2, UI_DIM, _("(no automatic fix: this one needs a person)"));
		return;
	}
	if (!d->text && !d->absent) {
		line(o, 2, UI_DIM, _("(the file cannot be read)"));
		return;
	}
	if (!d->text) /* a fix that creates the file: its edits apply to nothing */
		line(o, 2, UI_DIM, _("(a new file)"));
	const char *text = d->text ? d->text : "";
	size_t tlen = d->text ? d->len : 0;
	size_t k = 0;
	while (k < f->nedits) {
		const finding_edit *e = &f->edits[k];
		if (e->start_byte > tlen || e->end_byte > tlen || e->end_byte < e->start_byte) {
			line(o, 2, UI_ERROR, _("(the fix no longer matches the file; run the checks again)"));
			return;
		}
		size_t a = e->start_byte;
		while (a > 0 && text[a - 1] != '\n')
			a--;
		size_t b = line_end(text, tlen, e->end_byte);
		size_t k2 = k + 1;
		while (k2 < f->nedits && f->edits[k2].start_byte <= b && f->edits[k2].end_byte <= tlen &&
		       f->edits[k2].start_byte >= f->edits[k2 - 1].end_byte) {
			b = line_end(text, tlen, f->edits[k2].end_byte);
			k2++;
		}
		int lineno = 1;
		for (size_t i = 0; i < a; i++)
			lineno += text[i] == '\n';
		char hunk[64];
		snprintf(hunk, sizeof hunk, "@@ %s:%d @@", f->file, lineno);
		line(o, 2, UI_HUNK, hunk);
		sbuf nb;
		sbuf_init(&nb);
		size_t pos = a;
		for (size_t j = k; j < k2; j++) {
			sbuf_add(&nb, text + pos, f->edits[j].start_byte - pos);
			sbuf_adds(&nb, f->edits[j].text);
			pos = f->edits[j].end_byte;
		}
		sbuf_add(&nb, text + pos, b - pos);
		for (int pass = d->text ? 0 : 1; pass < 2; pass++) { /* a new file has no old lines */
			const char *s = pass ? nb.buf : text + a;
			size_t len = pass ? nb.len : b - a;
			for (size_t i = 0;;) {
				size_t e2 = i;
				while (e2 < len && s[e2] != '\n')
					e2++;
				if (visible(o)) {
					int y = o->row - o->skip, x = 2;
					ui_put(o->w, y, x, pass ? UI_ADD : UI_DEL, pass ? "+ " : "- ", 0);
					o->code_x = x + 2;
					int col = 0;
					segment(o, &col, pass ? UI_ADD : UI_DEL, s, i, e2);
				}
				o->row++;
				if (e2 >= len)
					break;
				i = e2 + 1;
			}
		}
		sbuf_done(&nb);
		k = k2;
	}
}

static void *detail_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(dstate));
}

static void detail_close(void *st)
{
	dstate *d = st;
	if (!d)
		return;
	free(d->path);
	free(d->text);
	free(d);
}

static void detail_draw(void *st, tui *t, ui_win *w)
{
	dstate *d = st;
	const finding *f = t->sel;
	ui_erase(w);
	d->h = ui_win_height(w);
	if (!f) {
		d->total = 0;
		pane_title(w, 0, _("Detail"));
		pane_wrap(w, 2, 2, UI_DIM, _("Select a finding to see its source, the suggestion and the proposed fix."), 0, d->h - 2);
		return;
	}
	if (f->id != d->shown) {
		d->shown = f->id;
		d->scroll = d->hscroll = 0;
	}
	out o = { w, 0, d->scroll, d->h, 8, d->hscroll };
	char head[256];
	snprintf(head, sizeof head, "#%lld  %s  %s  [%s]", f->id, pane_word(severity_name(f->severity)), f->plugin,
	         f->settled.finding ? _("settled") : pane_word(status_name(f->status)));
	line(&o, 1, pane_severity_attr(f->severity), head);
	wrapped(&o, 1, UI_TITLE, f->message);
	if (*f->file) {
		char loc[512];
		if (f->line > 0)
			snprintf(loc, sizeof loc, "%s:%d:%d", f->file, f->line, f->col);
		else
			snprintf(loc, sizeof loc, "%s", f->file);
		load_file(d, t, f->file, f->last_run);
		line(&o, 1, UI_HUNK, loc);
		if (d->changed) {
			char *note = xasprintf(_("The code as check run %lld read it; the file has changed since (%s runs the checks again)."),
			                       f->last_run, keymap_label(keymap_by_cmd(CMD_RUN_PHASE)));
			wrapped(&o, 2, UI_DIM, note);
			free(note);
		}
		draw_source(&o, d, f);
	}
	if (f->suggestion && *f->suggestion) {
		line(&o, 1, UI_TITLE, _("Suggestion"));
		wrapped(&o, 2, UI_NORMAL, f->suggestion);
	}
	if (f->waiver) {
		const finding_waiver *fw = f->waiver;
		char *by = fw->carried_from > 0
		               ? xasprintf("%s, %s: %s (#%lld)", fw->actor, fw->at, fw->reason, fw->carried_from)
		               : xasprintf("%s, %s: %s", fw->actor, fw->at, fw->reason);
		line(&o, 1, UI_TITLE, _("Waived by"));
		wrapped(&o, 2, UI_NORMAL, by);
		free(by);
	}
	if (f->settled.finding) {
		const finding_settlement *s = &f->settled;
		const char *phase = phase_title(phase_name((size_t)s->phase)), *run = keymap_label(keymap_by_cmd(CMD_RUN_PHASE));
		char *later = s->status == STATUS_WAIVED
		                  ? xasprintf(_("Waived in phase %s as #%lld. The survey lists the code as received; %s on the assess phase surveys the code as it is now."), phase, s->finding, run)
		              : s->checkpoint
		                  ? xasprintf(_("Fixed in phase %s as #%lld by checkpoint %lld. The survey lists the code as received; %s on the assess phase surveys the code as it is now."), phase, s->finding, s->checkpoint, run)
		                  : xasprintf(_("Fixed in phase %s as #%lld. The survey lists the code as received; %s on the assess phase surveys the code as it is now."), phase, s->finding, run);
		line(&o, 1, UI_TITLE, _("Settled later"));
		wrapped(&o, 2, UI_NORMAL, later);
		free(later);
	}
	line(&o, 1, UI_TITLE, _("Proposed fix"));
	if (f->file && *f->file)
		draw_fix(&o, d, f);
	else
		line(&o, 2, UI_DIM, _("(no automatic fix: this one needs a person)"));
	d->total = o.row;
	/* a text longer than the pane gives its last row to the marker: scrolling counts
	 * the rows left above it */
	pane_more(w, 0, d->h, d->scroll, d->total, NULL);
	d->h = pane_text_rows(d->total, d->h);
}

static int detail_handle(void *st, tui *t, int cmd, const char *arg)
{
	dstate *d = st;
	(void)t, (void)arg;
	int max = d->total - d->h > 0 ? d->total - d->h : 0;
	if (cmd == CMD_DETAIL_DOWN)
		d->scroll = d->scroll + 3 > max ? max : d->scroll + 3;
	else if (cmd == CMD_DETAIL_UP)
		d->scroll = d->scroll > 3 ? d->scroll - 3 : 0;
	else if (cmd == CMD_SCROLL_RIGHT && t->sel)
		d->hscroll += DIFFVIEW_HSTEP;
	else if (cmd == CMD_SCROLL_LEFT && t->sel)
		d->hscroll = d->hscroll > DIFFVIEW_HSTEP ? d->hscroll - DIFFVIEW_HSTEP : 0;
	else
		return 0;
	return PANE_HANDLED | PANE_REDRAW;
}

const pane_ops pane_detail_ops = { "detail", detail_open, detail_close, detail_draw, detail_handle };
