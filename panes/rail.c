/* rail — the phase rail: the seven phases with their status and open counts, and
 * at its foot a one-line readiness summary of the assess phase (score and effort).
 * Selecting a phase changes the model's selected phase and asks for a reload. */
#include "intl.h"
#include "phase.h"
#include "pane.h"
#include "text.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *rail_open(tui *t)
{
	(void)t;
	return NULL;
}

static void rail_close(void *st)
{
	(void)st;
}

static const char *status_glyph(const char *status)
{
	if (strcmp(status, "signed off") == 0)
		return "✔";
	if (strcmp(status, "blocked") == 0)
		return "✖";
	if (strcmp(status, "reopened") == 0)
		return "↺";
	if (strcmp(status, "in progress") == 0)
		return "◐";
	return "○";
}

static int status_attr(const char *status)
{
	if (strcmp(status, "signed off") == 0)
		return UI_OK;
	if (strcmp(status, "blocked") == 0 || strcmp(status, "reopened") == 0)
		return UI_ERROR;
	if (strcmp(status, "in progress") == 0)
		return UI_WARN;
	return UI_DIM;
}

static void rail_draw(void *st, tui *t, ui_win *w)
{
	(void)st;
	int width = ui_win_width(w), h = ui_win_height(w);
	ui_erase(w);
	int y = pane_title(w, 0, _("Phases"));
	int nph = (int)phase_count();
	int per = h >= 1 + nph * 3 ? 3 : 2; /* rows per phase */
	for (int i = 0; i < nph && y < h; i++) {
		const tui_phase *p = &t->m.phases[i];
		int sel = i == t->m.phase;
		int attr = sel ? UI_SELECT : UI_NORMAL;
		ui_fill_row(w, y, attr);
		char head[64];
		snprintf(head, sizeof head, "%d %s", i + 1, phase_title(p->name));
		ui_put(w, y, 1, attr, status_glyph(p->status), 2);
		ui_put(w, y, 3, sel ? UI_SELECT : UI_TITLE, head, width - 4);
		if (y + 1 < h) {
			char counts[64] = "";
			if (p->errors || p->warnings)
				snprintf(counts, sizeof counts, " E%d W%d", p->errors, p->warnings);
			int used = ui_put(w, y + 1, 3, status_attr(p->status), pane_status_word(p->status), width - 4);
			if (*counts)
				ui_put(w, y + 1, 3 + used, p->errors ? UI_ERROR : UI_WARN, counts, width - 4 - used);
		}
		y += per;
	}
	/* the readiness summary at the foot, when there is room below the phases */
	if (h - 2 > y) {
		const tui_readiness *r = &t->m.ready;
		ui_put(w, h - 2, 1, UI_DIM, _("Readiness"), width - 2);
		char b[128];
		if (r->ran)
			snprintf(b, sizeof b, _("%d/100 · %.1f days"), r->score, r->effort_days);
		else
			snprintf(b, sizeof b, "%s", _("not assessed yet"));
		ui_put(w, h - 1, 1, r->ran ? pane_class_attr(r->klass) : UI_DIM, b, width - 2);
	}
}

static int rail_handle(void *st, tui *t, int cmd, const char *arg)
{
	(void)st;
	int phase = t->m.phase;
	if (cmd == CMD_PHASE_NEXT && phase < 6)
		phase++;
	else if (cmd == CMD_PHASE_PREV && phase > 0)
		phase--;
	else if (cmd >= CMD_PHASE_1 && cmd <= CMD_PHASE_7) {
		phase = cmd - CMD_PHASE_1;
		if (arg && *arg) {
			char *end = NULL;
			long n = strtol(arg, &end, 10);
			phase = -1;
			if (end && !*end && n >= 1 && n <= (long)phase_count())
				phase = (int)n - 1;
			for (int i = 0; i < (int)phase_count() && phase < 0; i++)
				if (util_starts_with(t->m.phases[i].name, arg))
					phase = i;
			if (phase < 0) {
				tui_message(t, UI_ERROR, _("%s: not a phase (1-%zu or a name such as adapt)"), arg, phase_count());
				return PANE_HANDLED;
			}
		}
	} else if (cmd != CMD_PHASE_NEXT && cmd != CMD_PHASE_PREV)
		return 0;
	if (phase == t->m.phase)
		return PANE_HANDLED;
	t->m.phase = phase;
	return PANE_HANDLED | PANE_REDRAW | PANE_RELOAD;
}

const pane_ops pane_rail_ops = { "rail", rail_open, rail_close, rail_draw, rail_handle };
