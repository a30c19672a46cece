/*
 * fix — applies findings' proposed edits to project files, safely (DESIGN §4, §6).
 *
 * A plan is built from a fresh check run of the plugins involved, so byte offsets
 * match the files as they are now. Edits are byte-exact replacements; everything
 * outside them stays identical. Per file, the edits of all selected findings are
 * applied in one pass on the original text (identical duplicates merged, overlapping
 * ones refused); an edited Python file must still parse or that plugin's edits to it
 * are refused. Edits to a file that does not exist create it (a generated script or
 * plan: one insertion at byte 0). Every path goes through projfs (project sources
 * only); a plugin naming a path it must not write is an error and none of its edits is
 * planned. Before each write the file must still be exactly as it was read (size, time,
 * content): a file saved meanwhile is never overwritten. Applying makes one checkpoint per plugin, in phase and id order, and
 * marks its findings fixed by that checkpoint.
 *
 * The diff is also given as hunks, each naming the findings whose edits it shows, so a
 * person can leave some out (fix_plan_withdraw) before applying the rest: what is left
 * out stays an open finding.
 *
 * A plan owns all its memory (fix_plan_free).
 */
#ifndef FERRY_FIX_H
#define FERRY_FIX_H

#include "workspace.h"

#include <stddef.h>

typedef struct fix_plan fix_plan;

typedef struct fix_select {
	const long long *ids;   /* explicit finding ids (none = by plugin / all) */
	size_t nids;
	const char *plugin;     /* one plugin, or NULL */
	const char *file;       /* only findings in this file (with plugin or all), or NULL */
	const char *phase;      /* restrict to a phase, or NULL */
	int all;                /* every fixable open finding */
} fix_select;

/* Re-runs the relevant checks and builds the plan. Fails with FERRY_EUSAGE when the
 * selection names no fixable open finding. Findings asked for by id are each fixed or
 * refused with a reason (fix_plan_refused): fixed or waived, outside the phase or file, or
 * closed by the fresh run because their code changed (fix_plan_superseded names the
 * finding at their place now, which is not fixed in their stead). Fails with
 * FERRY_ENOTFOUND, before running anything, for an id the engagement does not hold, and
 * with FERRY_EREFUSED, in one line of those reasons, when no id asked for is open. */
int fix_plan_new(fix_plan **out, workspace *ws, const fix_select *sel);
void fix_plan_free(fix_plan *p);

/* Unified diff of every change the plan would make (empty when none). Borrowed. */
const char *fix_plan_diff(const fix_plan *p);
/* Counts: findings that will be fixed, files touched, plugins (checkpoints). */
void fix_plan_counts(const fix_plan *p, size_t *findings, size_t *files, size_t *plugins);
/* Lines explaining refused findings ("finding N (file:line): reason"). Borrowed. */
const char *const *fix_plan_refused(const fix_plan *p, size_t *n);

/* A finding asked for by id that the plan's fresh run closed: its code changed since it
 * was reported, so the check reports it again under another id (by), or no longer (0). */
typedef struct fix_superseded {
	long long finding; /* the id asked for */
	long long by;      /* the open finding of the same check at its place now; 0 for none */
} fix_superseded;
/* The findings asked for that the fresh run closed, in the order asked. Borrowed. */
const fix_superseded *fix_plan_superseded(const fix_plan *p, size_t *n);

/* Lines naming plugins whose fix was refused as a whole because it writes where ferry
 * never writes (projfs.h: .git/, .ferry/, through a link, a FIFO, a hard-linked file …);
 * none of their edits is in the plan. Borrowed. */
const char *const *fix_plan_errors(const fix_plan *p, size_t *n);

/* One hunk of the plan's diff: the file, the lines it replaces in the file as it is
 * (start, count: as "@@ -start,count"), and the findings whose edits it shows. */
typedef struct fix_hunk {
	char *file;
	int line, count;
	long long *ids;
	size_t nids;
} fix_hunk;

/* The diff's hunks in the order the diff shows them. Borrowed, valid until the plan
 * changes. */
const fix_hunk *fix_plan_hunks(const fix_plan *p, size_t *n);
/* 1 when finding id is planned to be fixed. */
int fix_plan_has(const fix_plan *p, long long id);
/* Leaves the findings ids out of the plan: the rest is planned again from the files as
 * read (each file still checked to parse), and the diff and hunks are rebuilt. The
 * findings left out stay open. Returns 0 or an err.h code. */
int fix_plan_withdraw(fix_plan *p, workspace *ws, const long long *ids, size_t n);
/* How many findings were left out by fix_plan_withdraw. */
size_t fix_plan_withdrawn(const fix_plan *p);

/* Writes the files (atomically) and makes one checkpoint per plugin. *ncheckpoints
 * receives how many were made. */
int fix_plan_apply(size_t *ncheckpoints, fix_plan *p, workspace *ws);

#endif
