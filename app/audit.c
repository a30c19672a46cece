/* audit — see audit.h. */
#include "intl.h"
#include "audit.h"
#include "err.h"
#include "replay.h"
#include "sign.h"
#include "util.h"

#include <stdio.h>

#include <stdlib.h>
#include <string.h>

/* Sorts an object's children by key in place (stable insertion sort on the list),
 * recursing into every value. */
static void sort_keys(cJSON *v)
{
	if (!v)
		return;
	for (cJSON *c = v->child; c; c = c->next)
		sort_keys(c);
	if (!cJSON_IsObject(v) || !v->child)
		return;
	cJSON *sorted = NULL;
	cJSON *c = v->child;
	while (c) {
		cJSON *next = c->next;
		c->prev = c->next = NULL;
		if (!sorted || strcmp(c->string, sorted->string) < 0) {
			c->next = sorted;
			sorted = c;
		} else {
			cJSON *p = sorted;
			while (p->next && strcmp(p->next->string, c->string) <= 0)
				p = p->next;
			c->next = p->next;
			p->next = c;
		}
		c = next;
	}
	/* cJSON keeps child->prev pointing at the last element */
	cJSON *last = sorted;
	for (cJSON *p = sorted; p; p = p->next) {
		if (p->next)
			p->next->prev = p;
		last = p;
	}
	sorted->prev = last;
	v->child = sorted;
}

char *audit_canonical(const cJSON *v)
{
	cJSON *copy = cJSON_Duplicate(v, 1);
	sort_keys(copy);
	char *text = cJSON_PrintUnformatted(copy);
	cJSON_Delete(copy);
	return text;
}

static void chain_hash(char out[65], const char *prev, const char *payload)
{
	sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, prev);
	sbuf_addc(&b, '\n');
	sbuf_adds(&b, payload);
	util_sha256_hex(out, b.buf, b.len);
	sbuf_done(&b);
}

int audit_head(char head[65], store *s)
{
	long long seq;
	return store_audit_last(&seq, head, s);
}

int audit_append(char head[65], store *s, const char *kind, const char *actor, cJSON *data)
{
	long long seq;
	char prev[65], hash[65], now[32];
	int rc = store_audit_last(&seq, prev, s);
	if (rc) {
		cJSON_Delete(data);
		return rc;
	}
	util_now_iso(now);
	cJSON *ev = cJSON_CreateObject();
	cJSON_AddNumberToObject(ev, "seq", (double)(seq + 1));
	cJSON_AddStringToObject(ev, "time", now);
	cJSON_AddStringToObject(ev, "actor", actor);
	cJSON_AddStringToObject(ev, "kind", kind);
	cJSON_AddItemToObject(ev, "data", data ? data : cJSON_CreateObject());
	char *payload = audit_canonical(ev);
	cJSON_Delete(ev);
	chain_hash(hash, prev, payload);
	rc = store_audit_insert(s, seq + 1, prev, payload, hash);
	free(payload);
	if (!rc && head)
		memcpy(head, hash, 65);
	return rc;
}

struct verify_state {
	store *s;
	history *h;           /* for commit checks; may be NULL */
	char prev[65];        /* hash of the previous row */
	long long expect;     /* next seq expected */
	long long bad;        /* first bad seq */
	int broken;           /* the links are broken from bad on: later rows are not link-checked */
	cJSON *problems;
	replay *r;
	char **hashes;        /* hashes[seq] as stored, for anchors */
	long long nhashes;
	cJSON *signatures;    /* signature events, checked after the walk */
};

static void chain_problem(struct verify_state *vs, long long seq, const char *fmt, const char *detail)
{
	char id[32];
	snprintf(id, sizeof id, "%lld", seq);
	char *msg = xasprintf(fmt, detail);
	replay_problem(vs->problems, "chain", "audit", id, NULL, _("audit event %lld: %s"), seq, msg);
	free(msg);
}

static void chain_broken(struct verify_state *vs, long long seq, const char *fmt, const char *detail)
{
	chain_problem(vs, seq, fmt, detail);
	if (!vs->broken)
		vs->bad = seq;
	vs->broken = 1;
}

static void verify_commit(struct verify_state *vs, long long seq, const cJSON *data)
{
	const cJSON *commit = cJSON_GetObjectItem(data, "commit");
	const cJSON *before = cJSON_GetObjectItem(data, "audit");
	if (!cJSON_IsString(commit)) {
		chain_problem(vs, seq, "%s", _("checkpoint event without a commit"));
		return;
	}
	if (!vs->h)
		return;
	if (!history_has_commit(vs->h, commit->valuestring)) {
		chain_problem(vs, seq, _("commit %s is missing from the history"), commit->valuestring);
		return;
	}
	history_commit_info info;
	if (history_commit_info_get(&info, vs->h, commit->valuestring)) {
		err_clear();
		chain_problem(vs, seq, _("commit %s cannot be read"), commit->valuestring);
		return;
	}
	char *trailer = history_trailer_value(info.message, "Audit");
	const cJSON *kind = cJSON_GetObjectItem(data, "kind");
	/* the baseline is committed before the chain exists and records no head */
	int baseline = cJSON_IsString(kind) && strcmp(kind->valuestring, "baseline") == 0 && !trailer &&
	               cJSON_IsString(before) && !*before->valuestring;
	int ok = baseline || (cJSON_IsString(before) && trailer && strcmp(trailer, before->valuestring) == 0);
	free(trailer);
	history_commit_info_done(&info);
	if (!ok)
		chain_problem(vs, seq, _("commit %s does not carry the audit head this event records"), commit->valuestring);
}

static int verify_row(long long seq, const char *prev_hash, const char *payload, const char *hash, void *arg)
{
	struct verify_state *vs = arg;
	char want[65];
	if (!vs->broken) {
		if (seq != vs->expect)
			chain_broken(vs, vs->expect, "%s", _("missing (the sequence has a gap)"));
		else if (strcmp(prev_hash, vs->prev) != 0)
			chain_broken(vs, seq, "%s", _("does not follow the previous event (removed or reordered)"));
		else {
			chain_hash(want, prev_hash, payload);
			if (strcmp(want, hash) != 0)
				chain_broken(vs, seq, "%s", _("its content was altered (hash mismatch)"));
		}
	}
	if (seq >= 1 && seq <= vs->nhashes + 1000000) {
		if (seq >= vs->nhashes) {
			long long cap = seq * 2 + 16;
			vs->hashes = xrealloc(vs->hashes, (size_t)cap * sizeof *vs->hashes);
			memset(vs->hashes + vs->nhashes, 0, (size_t)(cap - vs->nhashes) * sizeof *vs->hashes);
			vs->nhashes = cap;
		}
		free(vs->hashes[seq]);
		vs->hashes[seq] = xstrdup(hash);
	}
	cJSON *ev = cJSON_Parse(payload);
	const cJSON *evseq = cJSON_GetObjectItem(ev, "seq");
	const cJSON *kind = cJSON_GetObjectItem(ev, "kind");
	if (!ev || !cJSON_IsNumber(evseq) || (long long)evseq->valuedouble != seq || !cJSON_IsString(kind)) {
		chain_problem(vs, seq, "%s", _("payload is not a well-formed event"));
	} else {
		if (strcmp(kind->valuestring, "checkpoint") == 0)
			verify_commit(vs, seq, cJSON_GetObjectItem(ev, "data"));
		if (strcmp(kind->valuestring, "signature") == 0)
			cJSON_AddItemToArray(vs->signatures, cJSON_Duplicate(ev, 1));
		replay_event(vs->r, vs->problems, ev, prev_hash);
	}
	cJSON_Delete(ev);
	memcpy(vs->prev, hash, 65);
	vs->expect = seq + 1;
	return 0;
}

/* The hash of event seq as stored, or NULL. */
static const char *hash_at(const struct verify_state *vs, long long seq)
{
	return seq >= 1 && seq < vs->nhashes ? vs->hashes[seq] : NULL;
}

/* Every commit reachable from the history's head must be recorded by a checkpoint event,
 * and the audit head its Audit trailer carries must still be in the chain just before that
 * event: truncating the chain or recomputing it after an edit breaks one or the other. */
static int verify_history_anchors(struct verify_state *vs)
{
	char oid[41];
	int rc = history_head(oid, vs->h);
	if (rc)
		return rc;
	cJSON *todo = cJSON_CreateArray(), *seen = cJSON_CreateObject();
	cJSON_AddItemToArray(todo, cJSON_CreateString(oid));
	while (!rc && cJSON_GetArraySize(todo)) {
		cJSON *item = cJSON_DetachItemFromArray(todo, 0);
		char *c = xstrdup(item->valuestring);
		cJSON_Delete(item);
		if (cJSON_GetObjectItem(seen, c)) {
			free(c);
			continue;
		}
		cJSON_AddTrueToObject(seen, c);
		history_commit_info info;
		if (history_commit_info_get(&info, vs->h, c)) {
			err_clear();
			replay_problem(vs->problems, "anchor", "history", c, NULL, _("history commit %.12s cannot be read"), c);
			free(c);
			continue;
		}
		for (size_t i = 0; i < info.nparents; i++)
			cJSON_AddItemToArray(todo, cJSON_CreateString(info.parents[i]));
		char *trailer = history_trailer_value(info.message, "Audit");
		const cJSON *ev = replay_checkpoint_event(vs->r, c);
		if (!ev && strcmp(c, oid) == 0 && trailer && hash_at(vs, vs->expect - 1) &&
		    strcmp(trailer, hash_at(vs, vs->expect - 1)) == 0) {
			replay_problem(vs->problems, "anchor", "history", c, "Audit",
			               _("history commit %.12s is not recorded by any audit event: its events were removed, or "
			               "a command was interrupted (the next ferry command records it as recovered)"), c);
		} else if (!ev) {
			replay_problem(vs->problems, "anchor", "history", c, "Audit",
			               _("history commit %.12s is not recorded by any audit event (events removed?)"), c);
		} else if (trailer && *trailer && !vs->broken) {
			long long seq = (long long)cJSON_GetObjectItem(ev, "_seq")->valuedouble;
			const cJSON *kind = cJSON_GetObjectItem(ev, "kind");
			int recovered = cJSON_IsString(kind) && strcmp(kind->valuestring, "recovered") == 0;
			/* the head just before the event; a recovered commit's event may come later */
			long long at = 0;
			for (long long k = seq - 1; k >= (recovered ? 1 : seq - 1) && !at; k--)
				if (hash_at(vs, k) && strcmp(hash_at(vs, k), trailer) == 0)
					at = k;
			if (!at)
				replay_problem(vs->problems, "anchor", "history", c, "Audit",
				               _("history commit %.12s carries audit head %.16s which the chain no longer holds "
				               "before event %lld (events removed or the chain recomputed)"),
				               c, trailer, seq);
		}
		free(trailer);
		history_commit_info_done(&info);
		free(c);
	}
	cJSON_Delete(todo);
	cJSON_Delete(seen);
	return rc;
}

int audit_anchor_parse(size_t *hlen, long long *n, const char *anchor)
{
	const char *colon = strchr(anchor, ':');
	*hlen = colon ? (size_t)(colon - anchor) : strlen(anchor);
	*n = 0;
	if (colon) {
		char *end = NULL;
		*n = strtoll(colon + 1, &end, 10);
		if (!colon[1] || *end || *n <= 0)
			*n = -1;
	}
	if (*hlen < 12 || *hlen > 64 || strspn(anchor, "0123456789abcdef") < *hlen || *n < 0)
		return err_set(FERRY_EUSAGE,
		               _("--head %s: not an anchor HASH or HASH:N (HASH: 12 to 64 lowercase hex digits; N: 1 or more)"),
		               anchor);
	return 0;
}

/* Whether the chain holds anchor (well-formed, audit_anchor_parse: HASH of hlen digits
 * and N, 0 when absent): event N, or else some event, has a hash HASH begins. */
static void verify_anchor(struct verify_state *vs, const char *anchor, size_t hlen, long long n, long long nevents)
{
	if (n) {
		char id[32];
		snprintf(id, sizeof id, "%lld", n);
		const char *h = hash_at(vs, n);
		if (n > nevents || !h)
			replay_problem(vs->problems, "anchor", "audit", id, NULL,
			               _("anchor %.*s:%lld: event %lld is missing; the chain ends at event %lld (truncated)"),
			               (int)hlen, anchor, n, n, nevents);
		else if (strncmp(h, anchor, hlen) != 0)
			replay_problem(vs->problems, "anchor", "audit", id, NULL,
			               _("anchor %.*s:%lld: event %lld now has hash %.16s (the chain was rewritten)"), (int)hlen,
			               anchor, n, n, h);
		return;
	}
	for (long long k = 1; k <= nevents; k++)
		if (hash_at(vs, k) && strncmp(hash_at(vs, k), anchor, hlen) == 0)
			return;
	replay_problem(vs->problems, "anchor", "audit", "", NULL,
	               _("anchor %.*s: no event of the chain has this hash (truncated or rewritten)"), (int)hlen, anchor);
}

int audit_check(audit_report *out, store *s, history *h, const char *anchor)
{
	memset(out, 0, sizeof *out);
	struct verify_state vs = { .s = s, .h = h, .expect = 1, .problems = cJSON_CreateArray(), .r = replay_new(),
		                       .signatures = cJSON_CreateArray() };
	memset(vs.prev, '0', 64);
	vs.prev[64] = '\0';
	size_t hlen = 0;
	long long n = 0;
	int rc = anchor ? audit_anchor_parse(&hlen, &n, anchor) : 0;
	if (!rc)
		rc = store_audit_each(s, verify_row, &vs);
	long long seq = 0;
	if (!rc)
		rc = store_audit_last(&seq, out->head, s);
	if (!rc)
		rc = replay_compare(vs.problems, vs.r, s, h);
	if (!rc && h)
		rc = verify_history_anchors(&vs);
	if (!rc && anchor)
		verify_anchor(&vs, anchor, hlen, n, seq);
	if (!rc)
		rc = sign_verify_events(vs.problems, &out->signatures, vs.signatures, (const char *const *)vs.hashes,
		                        vs.nhashes);
	out->events = seq;
	out->bad_seq = vs.bad;
	out->problems = vs.problems;
	for (long long i = 0; i < vs.nhashes; i++)
		free(vs.hashes[i]);
	free(vs.hashes);
	replay_free(vs.r);
	cJSON_Delete(vs.signatures);
	if (rc)
		audit_report_done(out);
	return rc;
}

void audit_report_done(audit_report *r)
{
	cJSON_Delete(r->problems);
	cJSON_Delete(r->signatures);
	r->problems = r->signatures = NULL;
}

int audit_verify(long long *bad_seq, long long *nevents, store *s, history *h)
{
	audit_report rep;
	int rc = audit_check(&rep, s, h, NULL);
	if (rc)
		return rc;
	if (bad_seq)
		*bad_seq = rep.bad_seq;
	if (nevents)
		*nevents = rep.events;
	const cJSON *first = cJSON_GetArrayItem(rep.problems, 0);
	if (first)
		rc = err_set(FERRY_EFAIL, "%s", cJSON_GetObjectItem(first, "detail")->valuestring);
	audit_report_done(&rep);
	return rc;
}

static int collect_row(long long seq, const char *prev_hash, const char *payload, const char *hash, void *arg)
{
	(void)prev_hash;
	cJSON *ev = cJSON_Parse(payload);
	if (!ev)
		ev = cJSON_CreateObject();
	cJSON_DeleteItemFromObject(ev, "seq");
	cJSON_AddNumberToObject(ev, "seq", (double)seq);
	cJSON_AddStringToObject(ev, "hash", hash);
	cJSON_InsertItemInArray(arg, 0, ev);
	return 0;
}

int audit_events(cJSON **out, store *s)
{
	*out = cJSON_CreateArray();
	return store_audit_each(s, collect_row, *out);
}

int audit_anchor(char out[96], store *s)
{
	long long seq = 0;
	char head[65];
	int rc = store_audit_last(&seq, head, s);
	if (!rc)
		snprintf(out, 96, "%s:%lld", head, seq);
	return rc;
}

int audit_check_record(audit_report *out, store *s, history *h, const char *anchor)
{
	int rc = store_integrity(s);
	if (!rc)
		rc = history_check(h);
	if (!rc)
		rc = audit_check(out, s, h, anchor);
	if (rc == FERRY_ECORRUPT || rc == FERRY_EGIT)
		rc = err_recode(FERRY_EFAIL);
	return rc;
}
