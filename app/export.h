/*
 * export — delivering the checkpoints to the client, recorded: `ferry export patches
 * DIR` and `ferry export branch NAME --to REPO` and the workbench's `:export` run
 * these. Each writes the delivery through history.h, then the record's anchor
 * (HASH:N, see audit_anchor) and the "export" audit event. The caller holds the
 * writer lock. Nothing is allocated for the caller.
 */
#ifndef FERRY_EXPORT_H
#define FERRY_EXPORT_H

#include "workspace.h"

/* One mbox patch per checkpoint since the baseline into dir, and dir/AUDIT-ANCHOR;
 * ends each patch with Signed-off-by: the actor when export.signoff is true. anchor
 * receives the anchor. Returns 0 or an err.h code. */
int export_patches(char anchor[96], workspace *ws, const char *dir);

/* The checkpoints as branch name of the client's repository repo, from base (NULL: the
 * newest commit holding the baseline's files; see history_export_branch). anchor
 * receives the anchor. Returns 0 or an err.h code. */
int export_branch(char anchor[96], workspace *ws, const char *name, const char *repo, const char *base);

#endif
