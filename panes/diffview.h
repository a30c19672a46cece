/*
 * diffview — a scrollable view of unified diff text, shared by the timeline (a
 * checkpoint's diff) and the fix preview (a plan's diff). It owns a copy of the
 * text and the offsets of its lines; lines are coloured by their prefix (+ added,
 * - removed, @@ hunk header, file headers as titles). A preamble of the first
 * lines may be given its own attribute (the fix preview's refusals).
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
} diffview;

/* Replaces the text with a copy of text (NULL empties it); the scroll goes back to
 * the top and the preamble is cleared. */
void diffview_set(diffview *d, const char *text);
void diffview_clear(diffview *d);
/* The ui attribute of one diff line by its prefix. */
int diffview_attr(const char *line);
/* Draws lines from d->scroll into rows [y, y + h) of w from column x; shows "↓ N"
 * at the bottom right when more lines follow. */
void diffview_draw(diffview *d, ui_win *w, int y, int x, int h);
/* Applies a movement command (keymap.h) to the scroll; 1 when it was one. The phase
 * commands (] [ l h) move to the next or previous hunk (or file) instead. */
int diffview_scroll(diffview *d, int cmd);

#endif
