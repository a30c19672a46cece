/*
 * subject — the subjects of ferry's own checkpoints. They are written in English into
 * the history (commit messages, exported patches and branches, the record), as git
 * writes its own, and shown in the reader's language by the log and the workbench.
 *
 * Every function returns a malloc'd string the caller frees, but subject_reverted, which
 * writes into the caller's buffer.
 */
#ifndef FERRY_SUBJECT_H
#define FERRY_SUBJECT_H

#include <stddef.h>

/* The subjects of the baseline checkpoint and of a manual edit's checkpoint. */
extern const char *const subject_baseline;
extern const char *const subject_manual;

/* "adapt.amp: fix 2 findings (2 edits in 1 file)", always English. */
char *subject_fix(const char *plugin, int nfindings, size_t nedits, size_t nfiles);

/* The message of a revert of a commit whose subject is SUBJECT, always English:
 * "Revert \"SUBJECT\"\n\nThis reverts commit OID." */
char *subject_revert(const char *subject, const char *oid);

/* The commit a revert's MESSAGE (subject_revert's) says it reverts, into out as 40 hex
 * digits: 1, or 0 when the message names none. */
int subject_reverted(char out[41], const char *message);

/* The first line of a checkpoint MESSAGE in the reader's language: ferry's own subjects
 * translated (revert subjects nested), anyone else's as written. */
char *subject_show(const char *message);

#endif
