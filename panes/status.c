/* status — the status bar: engagement, actor, checkpoint head, finding counts
 * and the running-work indicator. */
#include "intl.h"
#include "pane.h"
#include "text.h"

#include <stdio.h>
#include <stdlib.h>
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

/* The bytes of actor's name, without " <mail>". */
static size_t actor_name_len(const char *actor)
{
	size_t n = strcspn(actor, "<");
	while (n && actor[n - 1] == ' ')
		n--;
	return n;
}

/* " · Name <mail>" in the room left: without the address when it does not fit, then
 * the name shortened with "…", so the engagement and the counts are never cut for it. */
static void draw_actor(ui_win *w, int x, int room, const char *actor)
{
	if (room < 6 || !*actor)
		return;
	size_t name_len = actor_name_len(actor);
	char full[400], name[400];
	snprintf(full, sizeof full, " · %s", actor);
	snprintf(name, sizeof name, " · %.*s", (int)name_len, actor);
	const char *shown = text_width(full) <= room || !name_len ? full : name;
	char *cell = text_cell(shown, room, 0);
	ui_put(w, 0, x, UI_BAR, cell, room);
	free(cell);
}

/* The columns the actor asks of a narrow bar: " · " and the name without the address,
 * up to 16 (draw_actor shortens a longer one). */
static int actor_room(const char *actor)
{
	if (!actor || !*actor)
		return 0;
	char name[400];
	snprintf(name, sizeof name, " · %.*s", (int)actor_name_len(actor), actor);
	int w = text_width(name);
	return w < 16 ? w : 16;
}

/* The bar's left part at a level of detail: 0 all (engagement / client, head commit and
 * checkpoint), 1 without the commit, 2 without the client either. */
static void status_left(char *buf, size_t n, const model *m, int level)
{
	const char *eng = m->engagement ? m->engagement : "";
	const char *client = level < 2 && m->client && *m->client ? m->client : NULL;
	if (level == 0)
		snprintf(buf, n, " ferry · %s%s%s · %s %.7s #%lld", eng, client ? " / " : "", client ? client : "", _("head"),
		         m->head, m->head_cp);
	else
		snprintf(buf, n, " ferry · %s%s%s · #%lld", eng, client ? " / " : "", client ? client : "", m->head_cp);
}

static void status_draw(void *st, tui *t, ui_win *w)
{
	(void)st;
	const model *m = &t->m;
	int width = ui_win_width(w);
	ui_fill_row(w, 0, UI_BAR);
	char counts[400];
	snprintf(counts, sizeof counts, " · %s %d (E%d W%d I%d) %s %d %s %d", _("open"), m->open, m->errors, m->warnings,
	         m->info, _("fixed"), m->fixed, _("waived"), m->waived);
	int rw = 0;
	char run[200] = "";
	if (t->running) {
		snprintf(run, sizeof run, " ⟳ %s ", t->progress);
		rw = text_width(run);
		if (rw > width / 2)
			rw = width / 2;
	}
	/* the counts and who acts matter more than the commit and the client's name: those
	 * give way first in a narrow window */
	char left[600];
	int room = width - rw - text_width(counts) - actor_room(m->actor);
	for (int level = 0; level < 3; level++) {
		status_left(left, sizeof left, m, level);
		if (text_width(left) <= room)
			break;
	}
	int x = ui_put(w, 0, 0, UI_BAR, left, width);
	x += ui_put(w, 0, x, UI_BAR, counts, width - x - rw);
	draw_actor(w, x, width - x - rw, m->actor ? m->actor : "");
	if (rw)
		ui_put(w, 0, width - rw, UI_WARN, run, rw);
}

static int status_handle(void *st, tui *t, int cmd, const char *arg)
{
	(void)st, (void)t, (void)cmd, (void)arg;
	return 0;
}

const pane_ops pane_status_ops = { "status", status_open, status_close, status_draw, status_handle };
