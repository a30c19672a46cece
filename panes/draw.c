/* draw — small drawing helpers shared by the panes (see pane.h). No curses here. */
#include "intl.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The English words and sentences app modules put into their results and the panes
 * show: marked here so that they are in the catalog whichever module marks them too,
 * and translated where they are drawn (pane_word). */
static const char *const app_words[] __attribute__((unused)) = {
	/* readiness classes (assessment.c) */
	N_("ready"), N_("ready with conditions"), N_("needs manual porting"), N_("blocked"),
	/* (the strategy reasons are marked where they are made: assessment_reasons) */
	/* phase statuses */
	N_("not started"), N_("in progress"), N_("signed off"), N_("reopened"),
	/* finding statuses */
	N_("open"), N_("fixed"), N_("waived"),
	/* severities */
	N_("error"), N_("warning"), N_("info"),
	/* checkpoint kinds (store.h) */
	N_("baseline"), N_("fix"), N_("manual"), N_("revert"), N_("generated"), N_("recovered"),
	/* the artifacts pane's own kinds (model.c) */
	N_("report"), N_("compare"),
	/* audit event kinds (audit.c and its callers) */
	N_("init"), N_("checkpoint"), N_("check"), N_("waive"), N_("unwaive"), N_("signoff"), N_("ingest"),
	N_("config"), N_("export"), N_("signature"),
	/* the phases (phases.json): their titles, phase_title in phase.c */
	N_("assess"), N_("design"), N_("environment"), N_("adapt"), N_("tune"), N_("infer-convert"),
	N_("infer-optimize"),
};

const char *pane_word(const char *english)
{
	/* gettext("") is the catalog's header: an empty word stays empty */
	return english && *english ? _(english) : english ? english : "";
}

const char *pane_status_word(const char *status)
{
	static const char *const known[] = { "signed off", "blocked", "reopened", "in progress" };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(status, known[i]) == 0)
			return _(known[i]);
	return _("not started");
}

int pane_severity_attr(int severity)
{
	switch (severity) {
	case SEVERITY_ERROR: return UI_ERROR;
	case SEVERITY_WARNING: return UI_WARN;
	case SEVERITY_INFO: return UI_INFO;
	default: return UI_NORMAL;
	}
}

const char *pane_severity_label(int severity)
{
	switch (severity) {
	case SEVERITY_ERROR: return _("ERR ");
	case SEVERITY_WARNING: return _("WARN");
	case SEVERITY_INFO: return _("INFO");
	default: return "    ";
	}
}

int pane_title(ui_win *w, int y, const char *title)
{
	ui_fill_row(w, y, UI_NORMAL);
	ui_put(w, y, 1, UI_TITLE, title, 0);
	return y + 1;
}

int pane_wrap(ui_win *w, int y, int x, int attr, const char *text, int skip, int maxrows)
{
	int cols = ui_win_width(w) - x - 1;
	if (cols < 8)
		cols = 8;
	int rows = 0;
	const char *s = text;
	if (!*s)
		return 0;
	while (*s) {
		size_t len;
		size_t next = text_wrap(s, cols, &len);
		if (rows >= skip && rows - skip < maxrows)
			ui_putn(w, y + rows - skip, x, attr, s, len, cols);
		rows++;
		if (next == 0)
			break;
		s += next;
	}
	return rows;
}

void pane_scroll(int *top, int cur, int h, int n)
{
	if (h < 1)
		h = 1;
	if (cur < *top)
		*top = cur;
	if (cur >= *top + h)
		*top = cur - h + 1;
	if (*top > n - h)
		*top = n - h;
	if (*top < 0)
		*top = 0;
}

int pane_move(int *cur, int n, int h, int cmd)
{
	int c = *cur;
	switch (cmd) {
	case CMD_UP: c--; break;
	case CMD_DOWN: c++; break;
	case CMD_PAGE_UP: c -= h > 1 ? h - 1 : 1; break;
	case CMD_PAGE_DOWN: c += h > 1 ? h - 1 : 1; break;
	case CMD_TOP: c = 0; break;
	case CMD_BOTTOM: c = n - 1; break;
	default: return 0;
	}
	if (c >= n)
		c = n - 1;
	if (c < 0)
		c = 0;
	*cur = c;
	return 1;
}

char *pane_score_bar(int score, int cols)
{
	static const char *const eighths[8] = { "", "▏", "▎", "▍", "▌", "▋", "▊", "▉" };
	if (score < 0)
		score = 0;
	if (score > 100)
		score = 100;
	if (cols < 1)
		cols = 1;
	long units = (long)score * cols * 8 / 100;
	if (score > 0 && units == 0)
		units = 1;
	sbuf b;
	sbuf_init(&b);
	int used = 0;
	for (long i = 0; i < units / 8; i++, used++)
		sbuf_adds(&b, "█");
	if (units % 8) {
		sbuf_adds(&b, eighths[units % 8]);
		used++;
	}
	for (; used < cols; used++)
		sbuf_adds(&b, "░");
	return sbuf_detach(&b);
}

int pane_class_attr(const char *klass)
{
	if (!klass)
		return UI_DIM;
	if (strcmp(klass, "ready") == 0)
		return UI_OK;
	if (strcmp(klass, "ready with conditions") == 0)
		return UI_INFO;
	if (strcmp(klass, "blocked") == 0)
		return UI_ERROR;
	return UI_WARN;
}

const char *pane_strategy_words(const char *strategy)
{
	if (!strategy || !*strategy)
		return "";
	if (strcmp(strategy, "auto") == 0)
		return _("automatic migration (transfer_to_npu)");
	if (strcmp(strategy, "tool") == 0)
		return _("explicit rewrite with ferry fix");
	if (strcmp(strategy, "manual") == 0)
		return _("manual porting first");
	return strategy;
}

int pane_text_rows(int total, int h)
{
	return total > h && h > 1 ? h - 1 : h;
}

void pane_more(ui_win *w, int y, int h, int top, int total, const char *hint)
{
	int rows = pane_text_rows(total, h);
	if (rows == h)
		return;
	y += rows;
	int below = total - top - rows;
	char mark[256];
	if (below > 0)
		snprintf(mark, sizeof mark, P_("↓ %d more line", "↓ %d more lines", (unsigned long)below), below);
	else
		snprintf(mark, sizeof mark, P_("↑ %d line above", "↑ %d lines above", (unsigned long)top), top);
	if (hint && *hint) {
		size_t n = strlen(mark);
		snprintf(mark + n, sizeof mark - n, " · %s", hint);
	}
	/* a row of its own, right-aligned by display columns: the text above keeps every cell */
	int width = ui_win_width(w), mw = text_width(mark);
	ui_fill_row(w, y, UI_NORMAL);
	ui_put(w, y, mw < width - 1 ? width - 1 - mw : 0, UI_DIM, mark, width);
}

int pane_scroll_cmd(int *scroll, int total, int h, int cmd)
{
	int max = total - h > 0 ? total - h : 0, sc = *scroll;
	if (cmd == CMD_BOTTOM)
		sc = max;
	else if (!pane_move(&sc, max + 1, h, cmd))
		return 0;
	*scroll = sc;
	return PANE_HANDLED | PANE_REDRAW;
}

int pane_find(int *cur, int n, int dir, const char *text, int (*match)(int i, const char *text, void *ctx), void *ctx)
{
	for (int k = 1; k <= n; k++) {
		int i = ((*cur + dir * k) % n + n) % n;
		if (match(i, text, ctx)) {
			*cur = i;
			return 1;
		}
	}
	return 0;
}

int pane_id_match(const char *text, long long id)
{
	if (text[0] != '#' || !isdigit((unsigned char)text[1]))
		return -1;
	char *end;
	long long v = strtoll(text + 1, &end, 10);
	if (*end)
		return -1;
	return v == id;
}

int pane_has(const char *text, ...)
{
	va_list ap;
	va_start(ap, text);
	int found = 0;
	for (const char *s; !found && (s = va_arg(ap, const char *));)
		found = strcasestr(s, text) != NULL;
	va_end(ap);
	return found;
}
