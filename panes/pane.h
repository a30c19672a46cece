/*
 * pane — the contract between the workbench's main loop (tui.c) and its panes.
 *
 * A pane is a table of functions plus private state: open makes the state, close
 * frees it (NULL is harmless), draw paints the pane into the window it is given,
 * handle receives a command (keymap.h) with an optional argument and returns
 * PANE_* flags. Handlers never repaint; the main loop decides what to redraw.
 * Panes read the shared workbench state (struct tui) and the model; they change
 * only their own state, the selection fields documented below, and the model's
 * selected phase.
 */
#ifndef FERRY_PANE_H
#define FERRY_PANE_H

#include "keymap.h"
#include "model.h"
#include "ui.h"

enum pane_flag {
	PANE_HANDLED = 1, /* the command was taken */
	PANE_REDRAW = 2,  /* the pane's window must be repainted */
	PANE_RELOAD = 4,  /* the model must be reloaded from the engagement */
	PANE_QUIT = 8,    /* leave the workbench */
	PANE_LAYOUT = 16, /* every window must be repainted */
};

typedef struct tui tui;
struct fix_plan;

typedef struct pane_ops {
	const char *name;
	void *(*open)(tui *t);
	void (*close)(void *st);
	void (*draw)(void *st, tui *t, ui_win *w);
	int (*handle)(void *st, tui *t, int cmd, const char *arg);
} pane_ops;

enum pane_id {
	PANE_RAIL,
	PANE_FINDINGS,
	PANE_DETAIL,
	PANE_TIMELINE,
	PANE_GUIDE,
	PANE_CHART,
	PANE_ARTIFACTS,
	PANE_HELP,
	PANE_PALETTE,
	PANE_STATUS,
	PANE_FIX,
	PANE_AUDIT,
	PANE_SHOW,
	PANE_SETTINGS,
	PANE_MESSAGES,
	PANE_COUNT
};

/* The shared state of the workbench. Owned by tui.c. */
struct tui {
	model m;                   /* what is shown */
	int view;                  /* enum tui_view of the main area */
	int help;                  /* help overlay shown */
	const finding *sel;    /* selected finding (into m.f) or NULL; set by findings.c */
	long long sel_id;          /* its id, kept across reloads */
	long long sel_cp;          /* selected checkpoint id or 0; set by timeline.c */
	char sel_cp_commit[41];    /* its commit */
	char filter[256];          /* the findings filter text ("sev:error cuda") */
	int filter_sev;            /* 0 all, 3 error, 2 warning, 1 info */
	int filter_status;         /* 0 active (open+waived), 1 open, 2 waived, 3 fixed, 4 all */
	int sort;                  /* 0 file, 1 severity, 2 plugin */
	char search[256];          /* the last search text (/ outside the findings list, n, N) */
	unsigned reload_gen;       /* bumped on every reload: panes drop caches */
	unsigned paint_gen;        /* bumped when windows were recreated or overlapped:
	                              panes must repaint whole, not just changed rows */
	const char *msg;           /* the message line's text: the newest of msgs (borrowed), or
	                              NULL when the line shows none */
	int msg_attr;              /* its ui attribute */
	struct msglog *msgs;       /* every message shown, for the messages view (owned by tui.c) */
	int running;               /* checks are running */
	char progress[160];        /* running-work indicator text */
	const char *prompt_buf;    /* palette: the text typed so far (borrowed) */
	struct fix_plan *plan;     /* the fix preview's plan (owned by tui.c) or NULL */
	unsigned plan_gen;         /* bumped for every new plan: the preview resets */
	char plan_what[320];       /* what the plan fixes, in words */
	char plan_head[41];        /* head commit when the plan was made */
	struct compare_outcome *cmp; /* the comparison VIEW_SHOW draws (owned by tui.c) or NULL */
	char show_title[256];      /* what VIEW_SHOW shows, in words */
	char *show_text;           /* VIEW_SHOW's text when it shows no comparison (owned by tui.c) */
	unsigned show_gen;         /* bumped whenever what VIEW_SHOW shows changes */
	int show_back;             /* the view q returns to from VIEW_SHOW */
	char *verify;              /* the last verify's result, one line per problem (owned by tui.c) */
	int verify_ok;             /* that verify found nothing wrong */
	const pane_ops *ops[PANE_COUNT];
	void *st[PANE_COUNT];
};

extern const pane_ops pane_rail_ops, pane_findings_ops, pane_detail_ops, pane_timeline_ops,
	pane_guide_ops, pane_chart_ops, pane_artifacts_ops, pane_help_ops, pane_palette_ops,
	pane_status_ops, pane_fix_ops, pane_audit_ops, pane_show_ops, pane_settings_ops, pane_messages_ops;

/* The findings the person left out of the fix being previewed (fixview.c), *n of
 * them; borrowed, NULL when none. */
const long long *fixview_left_out(tui *t, size_t *n);
/* The setting under the settings form's cursor, or NULL (settings.c). */
const tui_setting *settings_selected(tui *t);

/* Shows an artifact in VIEW_SHOW (tui.c): a comparison recomputed without recording
 * it, a loss log's curve, a bench's sweep, a profile's top operators, or the start of
 * the file; a report opens in $PAGER. Returns PANE_* flags for the caller. */
int tui_open_artifact(tui *t, const tui_artifact *a);

/* Sets the message line (printf-style; any length: the line grows to show it) and keeps
 * the message in the log the messages view lists; attr is a ui attribute. */
void tui_message(tui *t, int attr, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Helpers shared by panes (panes/draw.c). */
/* A word or sentence the record holds in English (a status, a severity, a readiness
 * class, a strategy reason, a checkpoint, artifact or audit event kind, a phase) in the interface
 * language; NULL and "" are returned as "". */
const char *pane_word(const char *english);
/* Translated phase status word. */
const char *pane_status_word(const char *status);
/* Ui attribute for a severity. */
int pane_severity_attr(int severity);
/* Short severity label ("ERR", "WARN", "INFO" or translations), padded to 4 columns. */
const char *pane_severity_label(int severity);
/* Draws a title row (bold, underlined by a rule) at row y; returns the next row. */
int pane_title(ui_win *w, int y, const char *title);
/* Wraps text into the window from row y at column x, at most maxrows rows (skipping
 * the first skip wrapped rows); returns the number of rows the full text needs. */
int pane_wrap(ui_win *w, int y, int x, int attr, const char *text, int skip, int maxrows);
/* The readiness score as a bar of cols columns: full and eighth blocks for the
 * score out of 100, light shade for the rest. Caller frees. */
char *pane_score_bar(int score, int cols);
/* Ui attribute for a readiness class ("ready" … "blocked"). */
int pane_class_attr(const char *klass);
/* A strategy name (auto, tool, manual) in words, in the interface language. */
const char *pane_strategy_words(const char *strategy);
/* Keeps *top so that cur is visible in a list of height h and count n. */
void pane_scroll(int *top, int cur, int h, int n);
/* The rows of a region h rows high that show a text of total rows: all h when it fits,
 * else h - 1, the last row being kept for pane_more's marker, so that the marker never
 * covers the text (scroll ranges are computed with this height). */
int pane_text_rows(int total, int h);
/* When a text of total rows shown from row top in rows [y, y + h) of w does not fit,
 * marks on the region's last row (the one pane_text_rows keeps: cleared whole, the
 * marker right-aligned by display columns) what lies beyond: "↓ N more lines" while
 * rows follow, "↑ N lines above" at the end; hint (NULL: none) follows it, e.g. the
 * key that shows the rest. */
void pane_more(ui_win *w, int y, int h, int top, int total, const char *hint);
/* Applies a movement command to the first shown row *scroll of total rows shown h at
 * a time (End/G goes to the last page); returns PANE_* flags, 0 when cmd is not a move. */
int pane_scroll_cmd(int *scroll, int total, int h, int cmd);
/* Applies a movement command to a cursor over n rows with page height h; returns
 * 1 when it was a movement command. */
int pane_move(int *cur, int n, int h, int cmd);

/* Moves *cur to the next (dir > 0) or previous row of n after *cur, wrapping around,
 * for which match(i, text, ctx) holds; 1 when there is one (the search of the lists). */
int pane_find(int *cur, int n, int dir, const char *text, int (*match)(int i, const char *text, void *ctx), void *ctx);
/* 1 when text is "#N" and N is id, 0 when it is "#N" and N is not, -1 when text is
 * not of that form. */
int pane_id_match(const char *text, long long id);
/* 1 when any of the strings (up to a NULL) holds text, ignoring case. */
int pane_has(const char *text, ...) __attribute__((sentinel));

/* The selected phase's checklist items that are not ticked (the sign-off item left
 * out), as English texts to translate with _(), at most max (guide.c). */
size_t guide_unticked(tui *t, const char **out, size_t max);

/* Palette completion (palette.c): the candidates for the word being typed (the last
 * word of line; the command name when line has no space), a NULL-terminated array
 * the caller frees with model_strings_free; *word receives where that word starts. */
char **palette_candidates(tui *t, const char *line, size_t *word);
/* Splits line in place into at most max words at spaces ("…" and '…' quote spaces);
 * returns the count. */
size_t palette_split(char **argv, size_t max, char *line);
/* path with a leading "~/" replaced by $HOME; caller frees. */
char *pane_expand_path(const char *path);

#endif
