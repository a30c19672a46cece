/* audit — see audit.h. */
#include "audit.h"
#include "err.h"
#include "util.h"

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
	history *h;           /* for commit checks; may be NULL */
	char prev[65];        /* hash of the previous row */
	long long expect;     /* next seq expected */
	long long bad;        /* first bad seq */
	cJSON *commits;       /* object: commit oid → kind, from checkpoint events */
};

static int verify_fail(struct verify_state *vs, long long seq, const char *fmt, const char *detail)
{
	vs->bad = seq;
	char *msg = xasprintf(fmt, detail);
	err_set(FERRY_EFAIL, "audit event %lld: %s", seq, msg);
	free(msg);
	return FERRY_EFAIL;
}

static int verify_commit(struct verify_state *vs, long long seq, const cJSON *data)
{
	const cJSON *commit = cJSON_GetObjectItem(data, "commit");
	const cJSON *before = cJSON_GetObjectItem(data, "audit");
	if (!cJSON_IsString(commit))
		return verify_fail(vs, seq, "%s", "checkpoint event without a commit");
	cJSON_AddStringToObject(vs->commits, commit->valuestring, "");
	if (!vs->h)
		return 0;
	if (!history_has_commit(vs->h, commit->valuestring))
		return verify_fail(vs, seq, "commit %s is missing from the history", commit->valuestring);
	history_commit_info info;
	if (history_commit_info_get(&info, vs->h, commit->valuestring))
		return verify_fail(vs, seq, "commit %s cannot be read", commit->valuestring);
	char *trailer = history_trailer_value(info.message, "Audit");
	const cJSON *kind = cJSON_GetObjectItem(data, "kind");
	/* the baseline is committed before the chain exists and records no head */
	int baseline = cJSON_IsString(kind) && strcmp(kind->valuestring, "baseline") == 0 && !trailer &&
	               cJSON_IsString(before) && !*before->valuestring;
	int ok = baseline || (cJSON_IsString(before) && trailer && strcmp(trailer, before->valuestring) == 0);
	free(trailer);
	history_commit_info_done(&info);
	if (!ok)
		return verify_fail(vs, seq, "commit %s does not carry the audit head this event records",
		                   commit->valuestring);
	return 0;
}

static int verify_row(long long seq, const char *prev_hash, const char *payload, const char *hash, void *arg)
{
	struct verify_state *vs = arg;
	char want[65];
	if (seq != vs->expect)
		return verify_fail(vs, vs->expect, "%s", "missing (the sequence has a gap)");
	if (strcmp(prev_hash, vs->prev) != 0)
		return verify_fail(vs, seq, "%s", "does not follow the previous event (removed or reordered)");
	chain_hash(want, prev_hash, payload);
	if (strcmp(want, hash) != 0)
		return verify_fail(vs, seq, "%s", "its content was altered (hash mismatch)");
	cJSON *ev = cJSON_Parse(payload);
	const cJSON *evseq = cJSON_GetObjectItem(ev, "seq");
	const cJSON *kind = cJSON_GetObjectItem(ev, "kind");
	int rc = 0;
	if (!ev || !cJSON_IsNumber(evseq) || (long long)evseq->valuedouble != seq || !cJSON_IsString(kind))
		rc = verify_fail(vs, seq, "%s", "payload is not a well-formed event");
	else if (strcmp(kind->valuestring, "checkpoint") == 0)
		rc = verify_commit(vs, seq, cJSON_GetObjectItem(ev, "data"));
	cJSON_Delete(ev);
	memcpy(vs->prev, hash, 65);
	vs->expect++;
	return rc;
}

int audit_verify(long long *bad_seq, long long *nevents, store *s, history *h)
{
	struct verify_state vs = { .h = h, .expect = 1, .bad = 0, .commits = cJSON_CreateObject() };
	memset(vs.prev, '0', 64);
	vs.prev[64] = '\0';
	int rc = store_audit_each(s, verify_row, &vs);
	if (!rc) {
		/* every checkpoint row must have been recorded in the chain */
		cJSON *cps = NULL;
		rc = store_checkpoints(&cps, s);
		cJSON *cp;
		cJSON_ArrayForEach(cp, cps) {
			if (rc)
				break;
			const char *oid = cJSON_GetObjectItem(cp, "commit")->valuestring;
			if (!cJSON_GetObjectItem(vs.commits, oid))
				rc = err_set(FERRY_EFAIL, "checkpoint %lld: commit %s is not recorded in the audit chain",
				             (long long)cJSON_GetObjectItem(cp, "id")->valuedouble, oid);
		}
		cJSON_Delete(cps);
	}
	if (bad_seq)
		*bad_seq = vs.bad;
	if (nevents)
		*nevents = vs.expect - 1;
	cJSON_Delete(vs.commits);
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
