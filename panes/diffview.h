/*
 * diffview — a scrollable view of unified diff text, shared by the timeline (a
 * checkpoint's diff) and the fix preview (a plan's diff). It owns a copy of the
 * text and the offsets of its lines; lines are coloured by their prefix (+ added,
 * - removed, @@ hunk header, file headers as titles). A preamble of the first
 * lines may be given its own attribute (the fix preview's refusals). Long lines scroll
 * sideways (< and >); a search moves to the next line holding a text. Plain text (an
 * artifact) is shown the same way without the diff colours.
 *
 * diffview_set copies the text; diffview_clear frees it (a zeroed diffview is
 * empty and needs no clearing). No curses here: drawing goes through ui.h.
 */
#ifndef FERRY_DIFFVIEW_H
#define FERRY_DIFFVIEW_H

#include "ui.h"

#include <stddef.h>

typedef struct diffview {
	char *text;      /* owned copy of the shown text, or NULL */
	size_t *lines;   /* offset of each line in text */
	int nlines;      /* lines in text */
	int scroll;      /* first line shown */
	int h;           /* rows shown at the last draw */
	int npre;        /* the first npre lines are a preamble drawn in pre_attr */
	int pre_attr;    /* ui attribute of the preamble */
	int hscroll;     /* display columns scrolled off to the left */
	int plain;       /* not a diff: every line is drawn as normal text */
	int match;       /* the line the last search found, or -1 (drawn highlighted) */
	unsigned char *dim; /* per line: 1 draws it dimmed (a hunk left out); owned, NULL until set */
	int mark;        /* a line marked ▶ in the margin left of x (the hunk a key acts on), or -1 */
} diffview;

#define DIFFVIEW_HSTEP 16 /* columns one < or > scrolls */

/* Replaces the text with a copy of text (NULL empties it); the scrolls go back to
 * the top left, the preamble and the search match are cleared. */
void diffview_set(diffview *d, const char *text);
void diffview_clear(diffview *d);
/* Dims lines [from, to) (dim 1) or undims them (0). */
void diffview_dim(diffview *d, int from, int to, int dim);
/* The ui attribute of one diff line by its prefix. */
int diffview_attr(const char *line);
/* Draws lines from d->scroll into rows [y, y + h) of w from column x; when they do not
 * all fit, the last row is the scroll marker's (pane_more) and d->h counts the rows
 * above it. */
void diffview_draw(diffview *d, ui_win *w, int y, int x, int h);
/* Applies a movement command (keymap.h) to the scroll; 1 when it was one. The phase
 * commands (] [ l h) move to the next or previous hunk (or file) instead; < and >
 * scroll sideways. */
int diffview_scroll(diffview *d, int cmd);
/* Moves to the next (dir > 0) or previous line after the current match (or the first
 * line shown) that holds text, ignoring case, wrapping around; 1 when one was found. */
int diffview_find(diffview *d, const char *text, int dir);
/* A pane command for the view: movement (diffview_scroll) or a search (CMD_SEARCH_NEXT
 * and CMD_SEARCH_PREV with the text in arg). Returns PANE_* flags, 0 when not taken
 * (also for a search without a match, so the caller says so). */
int diffview_handle(diffview *d, int cmd, const char *arg);

#endif
