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

/* What verify found: owned by the report (audit_report_done). */
typedef struct audit_report {
	long long events;    /* rows in the chain */
	char head[65];       /* the last row's hash */
	long long bad_seq;   /* first event whose link is broken; 0 when the links hold */
	cJSON *problems;     /* [{kind, table, id, field, detail}]: chain, mismatch, unrecorded,
	                      * missing, anchor, signature */
	cJSON *signatures;   /* [{seq, signed_seq, head, method, signer, valid}] */
} audit_report;

/* Recomputes the chain; replays it against the state tables (replay.h); checks every
 * referenced commit exists in h (may be NULL) and carries the Audit trailer its event
 * records, every commit reachable in h is recorded by an event whose preceding head is
 * the one the commit carries; checks anchor ("HASH" or "HASH:N" given out earlier, may be
 * NULL) and every signature event. Returns 0 when the check ran (problems may be
 * non-empty); FERRY_EUSAGE for an anchor that is neither (audit_anchor_parse); other
 * codes for runtime errors (nothing to free then). */
int audit_check(audit_report *out, store *s, history *h, const char *anchor);

/* Reads an anchor `ferry verify --head` is given, "HASH" or "HASH:N" (HASH: 12 to 64
 * lowercase hex digits, N > 0): *hlen the length of HASH, *n the N (0 when absent).
 * FERRY_EUSAGE naming it when it is neither: bad input, not a broken chain. */
int audit_anchor_parse(size_t *hlen, long long *n, const char *anchor);
void audit_report_done(audit_report *r);

/* What `ferry verify` runs: the database's integrity check, the shadow history's own
 * check, then audit_check. A damaged database or history is what verify reports, so
 * those fail with FERRY_EFAIL (nothing to free); other codes are runtime errors. */
int audit_check_record(audit_report *out, store *s, history *h, const char *anchor);

/* audit_check without an anchor, reduced to a code: 0 when intact; FERRY_EFAIL with the
 * first problem as the one-line message (and *bad_seq: the first broken link) when not.
 * *nevents counts. */
int audit_verify(long long *bad_seq, long long *nevents, store *s, history *h);

/* "HASH:N": the current head and event count, the anchor reports and exports print. */
int audit_anchor(char out[96], store *s);

/* Events newest first, each {seq, time, actor, kind, data, hash}. */
int audit_events(cJSON **out, store *s);

/* Canonical JSON text of v (keys sorted recursively); caller frees. */
char *audit_canonical(const cJSON *v);

#endif
