/*
 * status — the status document of `ferry status --json`, also what the workbench
 * draws: the engagement, the actor, the checkpoint head, the finding counts, each
 * phase's state, the settings, the latest metrics and the assessment. Reads the
 * store only; changes nothing.
 */
#ifndef FERRY_STATUS_H
#define FERRY_STATUS_H

#include "workspace.h"

#include <cjson/cJSON.h>

/* Builds the document into *out (the caller deletes it). Store errors are returned
 * as err.h codes with nothing allocated. */
int status_json(cJSON **out, workspace *ws);

#endif
