/* status — the status bar: engagement, actor, checkpoint head, finding counts
 * and the running-work indicator. */
#include "intl.h"
#include "pane.h"
#include "text.h"

#include <stdio.h>
#include <string.h>

static void *status_open(tui *t)
{
	(void)t;
	return NULL;
}

static void status_close(void *st)
{
	(void)st;
}

static void status_draw(void *st, tui *t, ui_win *w)
{
	(void)st;
	const model *m = &t->m;
	int width = ui_win_width(w);
	ui_fill_row(w, 0, UI_BAR);
	char left[600];
	snprintf(left, sizeof left, " ferry · %s%s%s · %s %.7s #%lld", m->engagement ? m->engagement : "",
	         m->client && *m->client ? " / " : "", m->client ? m->client : "", _("head"), m->head, m->head_cp);
	int x = ui_put(w, 0, 0, UI_BAR, left, width);
	char rest[800];
	snprintf(rest, sizeof rest, " · %s %d (E%d W%d I%d) %s %d %s %d · %s", _("open"), m->open, m->errors, m->warnings,
	         m->info, _("fixed"), m->fixed, _("waived"), m->waived, m->actor ? m->actor : "");
	if (t->running) {
		char run[200];
		snprintf(run, sizeof run, " ⟳ %s ", t->progress);
		int rw = text_width(run);
		if (rw > width / 2)
			rw = width / 2;
		ui_put(w, 0, x, UI_BAR, rest, width - x - rw);
		ui_put(w, 0, width - rw, UI_WARN, run, rw);
	} else {
		ui_put(w, 0, x, UI_BAR, rest, width - x);
	}
}

static int status_handle(void *st, tui *t, int cmd, const char *arg)
{
	(void)st, (void)t, (void)cmd, (void)arg;
	return 0;
}

const pane_ops pane_status_ops = { "status", status_open, status_close, status_draw, status_handle };
