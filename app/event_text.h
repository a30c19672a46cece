/*
 * event_text — one line saying what an audit event recorded ("compare loss FAIL:
 * gpu.log against npu.log", "config tolerance.loss = 0.02"), for `ferry log --events`.
 * One summarizer per event kind, in a table; a kind without one says nothing more.
 * The line is in the reader's language; the caller frees it.
 */
#ifndef FERRY_EVENT_TEXT_H
#define FERRY_EVENT_TEXT_H

#include <cjson/cJSON.h>

/* What the event of this kind with this data recorded, or NULL when nothing more than
 * its kind can be said. Caller frees. */
char *event_text(const char *kind, const cJSON *data);

#endif
