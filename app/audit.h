/*
 * audit — the append-only, hash-chained event log (DESIGN §4).
 *
 * Each event is canonical JSON {"actor","data","kind","seq","time"} (keys sorted at
 * every level, no white space); its hash is SHA-256(prev_hash "\n" payload). The
 * rows live in the store (audit table); this module owns the chain rules. Callers
 * append inside their own store transaction so the event and the change it records
 * commit together. Data objects passed in are consumed (deleted) by audit_append.
 */
#ifndef FERRY_AUDIT_H
#define FERRY_AUDIT_H

#include "history.h"
#include "store.h"

#include <cjson/cJSON.h>

/* Appends an event; writes the new chain head into head (may be NULL). */
int audit_append(char head[65], store *s, const char *kind, const char *actor, cJSON *data);

/* The current chain head (64 zeros when empty). */
int audit_head(char head[65], store *s);

/* Recomputes the chain and checks every referenced commit exists in h and carries the
 * matching Audit trailer, and that every checkpoint row is recorded in the chain.
 * Returns 0 when intact; FERRY_EFAIL with a one-line message naming the first bad
 * event (and *bad_seq) when not; other codes for runtime errors. *nevents counts. */
int audit_verify(long long *bad_seq, long long *nevents, store *s, history *h);

/* Events newest first, each {seq, time, actor, kind, data, hash}. */
int audit_events(cJSON **out, store *s);

/* Canonical JSON text of v (keys sorted recursively); caller frees. */
char *audit_canonical(const cJSON *v);

#endif
