/*
 * changes — the change list and the unsupported list of DESIGN §2 (adapt), in the
 * shape of the vendor migration tool's report: one row per change that a ferry
 * checkpoint still in effect made to the project, hunk by hunk, and one row per open
 * finding that no automatic fix handles (a construct that needs a person).
 *
 * Reads the store and the history; writes nothing. Rows are cJSON objects
 *   {file, start_line, end_line, operation, edit, message, advice, plugin, phase,
 *    findings[ids], checkpoint, commit, severity, before, after}
 * with operation INSERT, MODIFY, DELETE or UNSUPPORTED. Line numbers of INSERT and
 * MODIFY rows are those of the file as the checkpoint left it; DELETE rows give the
 * removed lines as they were before it. Arrays returned through **out belong to the
 * caller (cJSON_Delete). CSV goes into a caller-owned sbuf.
 */
#ifndef FERRY_CHANGES_H
#define FERRY_CHANGES_H

#include "history.h"
#include "store.h"
#include "util.h"

#include <cjson/cJSON.h>

/* The change list: every hunk of every fix, generated or recovered checkpoint that is
 * still in effect (not undone by a revert that is itself in effect, nor by a hand edit:
 * the text it put in gone from the newest checkpoint, as hold.h judges it, taken out by
 * a manual checkpoint — a change a later fix rewrote stays), oldest first. When
 * reverted is not NULL it receives the reverted checkpoints [{id, commit, plugin,
 * message, reverted_by}]; when by_hand is not NULL, the rows a hand edit undid, each
 * with undone_by (the manual checkpoint that took its text out). */
int changes_list(cJSON **out, cJSON **reverted, cJSON **by_hand, store *s, history *h);

/* The unsupported list: open error and warning findings at a place in a file that
 * carry no automatic fix and that no later phase's check rewrites (automatic), one
 * row per construct (the same construct reported by two checks of one category
 * counts once), in phase, file and line order. */
int changes_unsupported(cJSON **out, store *s);

/* What a hunk did to the code, in words, from its text before and after (either may be
 * empty): "`torch.cuda.synchronize()` → `torch.npu.synchronize()`" for changed lines (the
 * words that differ, at most three lines named), "added `import torch_npu`" for an
 * insertion, "removed ..." for a deletion. Malloc'd; "" when both are empty. */
char *changes_edit_text(const char *before, const char *after);
/* A change row in one text: its edit, then the findings it settles ("edit — message");
 * an unsupported row's message alone. Malloc'd. */
char *changes_row_text(const cJSON *row);

/* RFC 4180 CSV of rows (change-list or unsupported rows): a header line, then one
 * line per row, CRLF line ends, fields quoted when they hold a comma, a quote, CR or
 * LF (quotes doubled). */
void changes_csv(sbuf *b, const cJSON *rows);
/* The same rows in the vendor migration tool's columns, for spreadsheets built on its
 * reports: the change list as File, Start Line, End Line, Operation Type, Message; the
 * unsupported list (unsupported = 1) with API Name (the first `quoted` name of the
 * message, else the category) in place of the operation. */
void changes_csv_msft(sbuf *b, const cJSON *rows, int unsupported);

#endif
