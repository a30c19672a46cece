/*
 * msglog — the messages the workbench has shown on its message line, kept so they can be
 * read again whole (the messages view, like vim's :messages): a message longer than the
 * line's room, or one the next key cleared. Each entry holds a copy of the text, its ui
 * attribute (the level it was shown at) and when it was shown. The log keeps the newest
 * MSGLOG_MAX; an older one gives way to a new one. No curses here.
 *
 * msglog_new makes an empty log, msglog_free frees it with every text (NULL is harmless).
 * Entries returned by msglog_get are borrowed: valid until the next msglog_add.
 */
#ifndef FERRY_MSGLOG_H
#define FERRY_MSGLOG_H

#include <stddef.h>
#include <time.h>

#define MSGLOG_MAX 200

typedef struct msglog_entry {
	char *text; /* the message as shown (owned by the log) */
	int attr;   /* its ui attribute (ui.h) */
	time_t at;  /* when it was shown */
} msglog_entry;

typedef struct msglog msglog;

msglog *msglog_new(void);
void msglog_free(msglog *l);
/* Keeps a copy of text shown at attr now; returns the kept copy (borrowed, as
 * msglog_get's). */
const char *msglog_add(msglog *l, int attr, const char *text);
/* How many messages the log holds. */
size_t msglog_count(const msglog *l);
/* Message i, 0 the newest; NULL past the oldest. */
const msglog_entry *msglog_get(const msglog *l, size_t i);

#endif
