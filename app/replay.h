/*
 * replay — the state tables rebuilt from the audit chain, and compared with the store.
 *
 * The audit chain is the record; the tables (finding status, waivers, sign-offs,
 * checkpoints, artifacts) are what commands read. Replaying every event in chain order
 * says what each row must hold; replay_compare names every row that disagrees. Event
 * kinds are handled through one table in replay.c (adding a kind is one entry); a kind
 * it does not know changes nothing. Events recorded before a field was added are
 * checked for what they carry: a field an event lacks is not compared.
 *
 * A replay owns everything it holds (replay_free). Problems are appended to a caller's
 * cJSON array as {kind, table, id, field, detail}; detail is one complete line.
 */
#ifndef FERRY_REPLAY_H
#define FERRY_REPLAY_H

#include "history.h"
#include "store.h"

#include <cjson/cJSON.h>

typedef struct replay replay;

replay *replay_new(void);
void replay_free(replay *r);

/* Feeds one parsed event ({seq, time, actor, kind, data}) in chain order; prev_hash is
 * its row's link. A malformed event's data is reported into problems. */
void replay_event(replay *r, cJSON *problems, const cJSON *ev, const char *prev_hash);

/* Compares the replayed state with the store's tables (h, when not NULL, supplies the
 * commit messages older checkpoint events did not carry). Appends a problem per
 * disagreement. Returns 0, or an error code when the store cannot be read. */
int replay_compare(cJSON *problems, replay *r, store *s, history *h);

/* The checkpoint event that recorded commit oid, as {seq, prev, kind, audit} (borrowed),
 * or NULL when no event records it. */
const cJSON *replay_checkpoint_event(const replay *r, const char *oid);

/* Appends {kind, table, id, field, detail} to problems; id "" means none, an all-digit
 * id becomes a number; field may be NULL. */
void replay_problem(cJSON *problems, const char *kind, const char *table, const char *id, const char *field,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* --- what the events carry (used by the commands that record them) --- */

/* [[id, fingerprint, status], ...] for every finding in after (rows of
 * STORE_STATE_FINDINGS) that is new or whose status or fixed_by differs from before. */
cJSON *replay_finding_changes(const cJSON *before, const cJSON *after);
/* Adds message, phase, check, findings and reverts of a checkpoint row to its event's
 * data (null where the row has none). */
void replay_checkpoint_fields(cJSON *data, const store_checkpoint *c);

#endif
