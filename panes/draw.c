/* draw — small drawing helpers shared by the panes (see pane.h). No curses here. */
#include "i18n.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <string.h>

const char *pane_status_word(const char *status)
{
	if (strcmp(status, "signed off") == 0)
		return T("signed off");
	if (strcmp(status, "blocked") == 0)
		return T("blocked");
	if (strcmp(status, "reopened") == 0)
		return T("reopened");
	if (strcmp(status, "in progress") == 0)
		return T("in progress");
	return T("not started");
}

int pane_severity_attr(const char *severity)
{
	switch (model_severity_rank(severity)) {
	case 3: return UI_ERROR;
	case 2: return UI_WARN;
	case 1: return UI_INFO;
	default: return UI_NORMAL;
	}
}

const char *pane_severity_label(const char *severity)
{
	switch (model_severity_rank(severity)) {
	case 3: return T("ERR ");
	case 2: return T("WARN");
	case 1: return T("INFO");
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
		return T("automatic migration (transfer_to_npu)");
	if (strcmp(strategy, "tool") == 0)
		return T("explicit rewrite with ferry fix");
	if (strcmp(strategy, "manual") == 0)
		return T("manual porting first");
	return strategy;
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
