/* replay — see replay.h. */
#include "intl.h"
#include "replay.h"
#include "audit.h"
#include "err.h"
#include "util.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Row ids above this in an event are refused rather than allocated for. */
#define REPLAY_MAX_ID 100000000LL

/* Entries indexed by a row id (ids are dense from 1). */
typedef struct idmap {
	cJSON **v;
	long long cap;
} idmap;

struct replay {
	idmap findings;         /* id → {fingerprint?, status, fixed_by} */
	idmap waivers;          /* id → {finding_id, reason, actor, _revoked?} */
	idmap artifacts;        /* id → {kind, label, path, sha256, size, actor} */
	cJSON *signoffs;        /* phase → {signed_off_by, note} */
	cJSON *checkpoints;     /* commit → {id?, kind, actor, message?, …, _seq, _prev, _kind, _audit} */
	int findings_partial;   /* a check event without "changes": statuses before it are unknown */
	long long waiver_ordinal; /* waivers seen so far: older waive events carry no id */
};

static cJSON **idmap_slot(idmap *m, long long id)
{
	if (id <= 0 || id > REPLAY_MAX_ID)
		return NULL;
	if (id >= m->cap) {
		long long cap = m->cap ? m->cap : 64;
		while (cap <= id)
			cap *= 2;
		m->v = xrealloc(m->v, (size_t)cap * sizeof *m->v);
		memset(m->v + m->cap, 0, (size_t)(cap - m->cap) * sizeof *m->v);
		m->cap = cap;
	}
	return &m->v[id];
}

static cJSON *idmap_get(const idmap *m, long long id)
{
	return id > 0 && id < m->cap ? m->v[id] : NULL;
}

static void idmap_done(idmap *m)
{
	for (long long i = 0; i < m->cap; i++)
		cJSON_Delete(m->v[i]);
	free(m->v);
}

replay *replay_new(void)
{
	replay *r = xcalloc(1, sizeof *r);
	r->signoffs = cJSON_CreateObject();
	r->checkpoints = cJSON_CreateObject();
	return r;
}

void replay_free(replay *r)
{
	if (!r)
		return;
	idmap_done(&r->findings);
	idmap_done(&r->waivers);
	idmap_done(&r->artifacts);
	cJSON_Delete(r->signoffs);
	cJSON_Delete(r->checkpoints);
	free(r);
}

void replay_problem(cJSON *problems, const char *kind, const char *table, const char *id, const char *field,
                    const char *fmt, ...)
{
	cJSON *p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "kind", kind);
	cJSON_AddStringToObject(p, "table", table);
	int digits = *id != '\0';
	for (const char *c = id; *c; c++)
		digits &= isdigit((unsigned char)*c) != 0;
	if (digits)
		cJSON_AddNumberToObject(p, "id", (double)strtoll(id, NULL, 10));
	else if (*id)
		cJSON_AddStringToObject(p, "id", id);
	else
		cJSON_AddNullToObject(p, "id");
	if (field)
		cJSON_AddStringToObject(p, "field", field);
	else
		cJSON_AddNullToObject(p, "field");
	va_list ap;
	va_start(ap, fmt);
	sbuf b;
	sbuf_init(&b);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(p, "detail", b.buf ? b.buf : "");
	sbuf_done(&b);
	cJSON_AddItemToArray(problems, p);
}

/* --- small readers --- */

static long long num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	return cJSON_IsNumber(v) ? (long long)v->valuedouble : 0;
}

static const char *str(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Sets key of o to a copy of v (null when v is NULL). */
static void put(cJSON *o, const char *key, const cJSON *v)
{
	cJSON *copy = v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull();
	if (cJSON_GetObjectItem(o, key))
		cJSON_ReplaceItemInObject(o, key, copy);
	else
		cJSON_AddItemToObject(o, key, copy);
}

static void put_str(cJSON *o, const char *key, const char *s)
{
	cJSON *v = s ? cJSON_CreateString(s) : cJSON_CreateNull();
	put(o, key, v);
	cJSON_Delete(v);
}

static void put_num(cJSON *o, const char *key, long long n)
{
	cJSON *v = n ? cJSON_CreateNumber((double)n) : cJSON_CreateNull();
	put(o, key, v);
	cJSON_Delete(v);
}

/* The entry for id in m, created empty when absent; NULL for an impossible id. */
static cJSON *entry(idmap *m, long long id)
{
	cJSON **slot = idmap_slot(m, id);
	if (!slot)
		return NULL;
	if (!*slot)
		*slot = cJSON_CreateObject();
	return *slot;
}

static void bad_event(cJSON *problems, long long seq, const char *kind, const char *what)
{
	char id[32];
	snprintf(id, sizeof id, "%lld", seq);
	replay_problem(problems, "chain", "audit", id, "data", _("audit event %lld: %s event %s"), seq, kind, what);
}

/* --- one handler per event kind --- */

typedef struct ev_ctx {
	replay *r;
	cJSON *problems;
	long long seq;
	const char *kind;
	const char *actor;
	const char *prev;
	const cJSON *data;
} ev_ctx;

static void set_finding(ev_ctx *c, long long id, const char *status, long long fixed_by)
{
	cJSON *f = entry(&c->r->findings, id);
	if (!f) {
		bad_event(c->problems, c->seq, c->kind, _("names an impossible finding id"));
		return;
	}
	put_str(f, "status", status);
	put_num(f, "fixed_by", fixed_by);
}

/* The finding ids an event names: "finding" (one), or an array under "findings",
 * "finding_ids" or "ids". */
static cJSON *finding_ids(const cJSON *data)
{
	cJSON *ids = cJSON_CreateArray();
	const cJSON *one = cJSON_GetObjectItem(data, "finding");
	if (cJSON_IsNumber(one))
		cJSON_AddItemToArray(ids, cJSON_CreateNumber(one->valuedouble));
	static const char *const keys[] = { "findings", "finding_ids", "ids", "carried" /* unwaive: carried waivers */ };
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const cJSON *a = cJSON_GetObjectItem(data, keys[k]), *v;
		cJSON_ArrayForEach(v, a)
			if (cJSON_IsNumber(v))
				cJSON_AddItemToArray(ids, cJSON_CreateNumber(v->valuedouble));
	}
	return ids;
}

/* A check run that met a construct waived in an earlier phase wrote a new waiver row for
 * the new finding, with the reason and actor of the standing waiver it came from. */
static void carry_waivers(ev_ctx *c, const cJSON *carried)
{
	const cJSON *cw;
	cJSON_ArrayForEach(cw, carried) {
		long long fid = num(cw, "finding"), from = num(cw, "from");
		const cJSON *src = NULL;
		for (long long w = 0; w < c->r->waivers.cap && fid > 0 && from > 0; w++) {
			const cJSON *v = c->r->waivers.v[w];
			if (v && num(v, "finding_id") == from && !num(v, "_revoked"))
				src = v;
		}
		cJSON *w = src ? entry(&c->r->waivers, c->r->waiver_ordinal + 1) : NULL;
		if (!w) {
			bad_event(c->problems, c->seq, c->kind, _("carries a waiver that was never given"));
			continue;
		}
		c->r->waiver_ordinal++;
		put_num(w, "finding_id", fid);
		put_str(w, "reason", str(src, "reason"));
		put_str(w, "actor", str(src, "actor"));
	}
}

static void on_check(ev_ctx *c)
{
	const cJSON *changes = cJSON_GetObjectItem(c->data, "changes"), *ch;
	if (!changes) {
		/* recorded before check events named their changes: what it did is unknown */
		for (long long i = 0; i < c->r->findings.cap; i++) {
			cJSON_Delete(c->r->findings.v[i]);
			c->r->findings.v[i] = NULL;
		}
		c->r->findings_partial = 1;
		return;
	}
	cJSON_ArrayForEach(ch, changes) {
		const cJSON *id = cJSON_GetArrayItem(ch, 0), *fp = cJSON_GetArrayItem(ch, 1), *st = cJSON_GetArrayItem(ch, 2);
		if (!cJSON_IsNumber(id) || !cJSON_IsString(fp) || !cJSON_IsString(st)) {
			bad_event(c->problems, c->seq, c->kind, _("has a malformed change"));
			continue;
		}
		set_finding(c, (long long)id->valuedouble, st->valuestring, 0);
		cJSON *f = idmap_get(&c->r->findings, (long long)id->valuedouble);
		if (f)
			put(f, "fingerprint", fp);
	}
	carry_waivers(c, cJSON_GetObjectItem(c->data, "carried_waivers"));
}

static void on_fix(ev_ctx *c)
{
	long long cp = num(c->data, "checkpoint");
	const cJSON *ids = cJSON_GetObjectItem(c->data, "findings"), *id;
	cJSON_ArrayForEach(id, ids)
		if (cJSON_IsNumber(id))
			set_finding(c, (long long)id->valuedouble, "fixed", cp);
}

static void on_waive(ev_ctx *c)
{
	cJSON *ids = finding_ids(c->data), *id;
	const char *reason = str(c->data, "reason");
	if (!cJSON_GetArraySize(ids) || !reason)
		bad_event(c->problems, c->seq, c->kind, _("names no finding or no reason"));
	cJSON_ArrayForEach(id, ids) {
		long long fid = (long long)id->valuedouble;
		set_finding(c, fid, "waived", 0);
		/* one waiver row per finding; older events carry no waiver id: rows are numbered in order */
		long long wid = cJSON_GetArraySize(ids) == 1 && num(c->data, "waiver") ? num(c->data, "waiver")
		                                                                       : c->r->waiver_ordinal + 1;
		if (wid > c->r->waiver_ordinal)
			c->r->waiver_ordinal = wid;
		cJSON *w = entry(&c->r->waivers, wid);
		if (!w) {
			bad_event(c->problems, c->seq, c->kind, _("names an impossible waiver id"));
			continue;
		}
		put_num(w, "finding_id", fid);
		put_str(w, "reason", reason);
		put_str(w, "actor", c->actor);
	}
	cJSON_Delete(ids);
}

static void on_unwaive(ev_ctx *c)
{
	cJSON *ids = finding_ids(c->data), *id;
	cJSON_ArrayForEach(id, ids) {
		long long fid = (long long)id->valuedouble;
		set_finding(c, fid, "open", 0);
		/* the waiver rows may stay as history or go: either is consistent */
		for (long long w = 0; w < c->r->waivers.cap; w++)
			if (c->r->waivers.v[w] && num(c->r->waivers.v[w], "finding_id") == fid)
				put_num(c->r->waivers.v[w], "_revoked", 1);
	}
	cJSON_Delete(ids);
}

/* A fresh entry in table under the event's field (replacing an older one); NULL, reported,
 * when the event lacks that field. */
static cJSON *named_entry(ev_ctx *c, cJSON *table, const char *field)
{
	const char *name = str(c->data, field);
	if (!name) {
		char what[48];
		snprintf(what, sizeof what, "names no %s", field);
		bad_event(c->problems, c->seq, c->kind, what);
		return NULL;
	}
	cJSON *e = cJSON_CreateObject();
	cJSON_DeleteItemFromObject(table, name);
	cJSON_AddItemToObject(table, name, e);
	return e;
}

static void on_signoff(ev_ctx *c)
{
	cJSON *s = named_entry(c, c->r->signoffs, "phase");
	if (!s)
		return;
	put_str(s, "signed_off_by", c->actor);
	if (cJSON_GetObjectItem(c->data, "note"))
		put(s, "note", cJSON_GetObjectItem(c->data, "note"));
}

static void on_checkpoint(ev_ctx *c)
{
	cJSON *e = named_entry(c, c->r->checkpoints, "commit");
	if (!e)
		return;
	if (num(c->data, "checkpoint"))
		put_num(e, "id", num(c->data, "checkpoint"));
	put_str(e, "kind", str(c->data, "kind"));
	put_str(e, "actor", c->actor);
	static const char *const carried[][2] = { { "message", "message" }, { "phase", "phase" },
		                                      { "check", "plugin" },    { "findings", "findings" },
		                                      { "reverts", "reverts" } };
	for (size_t i = 0; i < sizeof carried / sizeof carried[0]; i++)
		if (cJSON_GetObjectItem(c->data, carried[i][0]))
			put(e, carried[i][1], cJSON_GetObjectItem(c->data, carried[i][0]));
	put_num(e, "_seq", c->seq);
	put_str(e, "_prev", c->prev);
	put_str(e, "_audit", str(c->data, "audit"));
	/* a revert reopens what the reverted checkpoint fixed */
	long long reverted = num(c->data, "reverts");
	for (long long i = 0; reverted && i < c->r->findings.cap; i++) {
		cJSON *f = c->r->findings.v[i];
		if (f && num(f, "fixed_by") == reverted && str(f, "status") && strcmp(str(f, "status"), "fixed") == 0) {
			put_str(f, "status", "open");
			put_num(f, "fixed_by", 0);
		}
	}
}

static void on_ingest(ev_ctx *c)
{
	cJSON *a = entry(&c->r->artifacts, num(c->data, "artifact"));
	if (!a) {
		bad_event(c->problems, c->seq, c->kind, _("names no artifact id"));
		return;
	}
	static const char *const fields[] = { "kind", "label", "path", "sha256", "size" };
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
		if (cJSON_GetObjectItem(c->data, fields[i]))
			put(a, fields[i], cJSON_GetObjectItem(c->data, fields[i]));
	put_str(a, "actor", c->actor);
}

/* Every kind ferry records; NULL handler: the event changes no replayed table. */
static const struct {
	const char *kind;
	void (*fn)(ev_ctx *c);
} handlers[] = {
	{ "init", NULL },        { "config", NULL },         { "check", on_check },   { "fix", on_fix },
	{ "waive", on_waive },   { "unwaive", on_unwaive },  { "signoff", on_signoff },
	{ "checkpoint", on_checkpoint }, { "ingest", on_ingest }, { "compare", NULL },
	{ "report", NULL },      { "export", NULL },         { "signature", NULL },
};

void replay_event(replay *r, cJSON *problems, const cJSON *ev, const char *prev_hash)
{
	const char *kind = str(ev, "kind");
	const cJSON *data = cJSON_GetObjectItem(ev, "data");
	ev_ctx c = { r, problems, num(ev, "seq"), kind, str(ev, "actor"), prev_hash, data };
	if (!kind)
		return;
	if (!c.actor)
		c.actor = "";
	for (size_t i = 0; i < sizeof handlers / sizeof handlers[0]; i++)
		if (strcmp(handlers[i].kind, kind) == 0) {
			if (!handlers[i].fn)
				return;
			if (!cJSON_IsObject(data))
				bad_event(problems, c.seq, kind, _("has no data"));
			else
				handlers[i].fn(&c);
			return;
		}
	/* a kind from a newer ferry: it is in the chain (hashed) but changes nothing here */
}

const cJSON *replay_checkpoint_event(const replay *r, const char *oid)
{
	return cJSON_GetObjectItem(r->checkpoints, oid);
}

/* --- comparison --- */

/* Canonical text of v, shortened for a message; caller frees. */
static char *shown(const cJSON *v)
{
	char *t = v ? audit_canonical(v) : xstrdup("(absent)");
	if (strlen(t) > 80)
		strcpy(t + 77, "...");
	return t;
}

/* Compares every field the chain entry carries (keys starting with '_' are bookkeeping)
 * with the row. */
static void compare_entry(cJSON *problems, const char *table, const char *id, const cJSON *row, const cJSON *e)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, e) {
		if (f->string[0] == '_')
			continue;
		const cJSON *rv = cJSON_GetObjectItem(row, f->string);
		char *a = rv ? audit_canonical(rv) : NULL, *b = audit_canonical(f);
		if (!a || strcmp(a, b) != 0) {
			char *sa = shown(rv), *sb = shown(f);
			replay_problem(problems, "mismatch", table, id, f->string,
			               _("%s %s: %s is %s in the table but %s in the audit chain"), table, id, f->string, sa, sb);
			free(sa);
			free(sb);
		}
		free(a);
		free(b);
	}
}

static void unrecorded(cJSON *problems, const char *table, const char *id)
{
	replay_problem(problems, "unrecorded", table, id, NULL, _("%s %s: the row is not recorded in the audit chain"), table,
	               id);
}

static void missing(cJSON *problems, const char *table, const char *id)
{
	replay_problem(problems, "missing", table, id, NULL,
	               _("%s %s: the audit chain records this row but the table does not have it"), table, id);
}

/* Rows keyed by numeric id against an idmap. partial: rows the chain cannot account for are
 * not reported (older events did not say). */
static void compare_idmap(cJSON *problems, const char *table, const cJSON *rows, const idmap *m, int partial)
{
	char *seen = xcalloc((size_t)(m->cap ? m->cap : 1), 1);
	const cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		long long id = num(row, "id");
		char ids[32];
		snprintf(ids, sizeof ids, "%lld", id);
		const cJSON *e = idmap_get(m, id);
		if (e) {
			seen[id] = 1;
			compare_entry(problems, table, ids, row, e);
		} else if (!partial) {
			unrecorded(problems, table, ids);
		}
	}
	for (long long i = 1; i < m->cap; i++)
		if (m->v[i] && !seen[i] && !num(m->v[i], "_revoked")) {
			char ids[32];
			snprintf(ids, sizeof ids, "%lld", i);
			missing(problems, table, ids);
		}
	free(seen);
}

/* Rows keyed by a text column against an object of entries. */
static void compare_named(cJSON *problems, const char *table, const char *key, cJSON *rows, const cJSON *entries)
{
	cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		const char *name = str(row, key);
		const cJSON *e = name ? cJSON_GetObjectItem(entries, name) : NULL;
		if (e) {
			compare_entry(problems, table, name, row, e);
			cJSON_AddTrueToObject(row, "_matched");
		} else {
			unrecorded(problems, table, name ? name : "?");
		}
	}
	const cJSON *e;
	cJSON_ArrayForEach(e, entries) {
		int found = 0;
		cJSON_ArrayForEach(row, rows) found |= str(row, key) && strcmp(str(row, key), e->string) == 0;
		if (!found)
			missing(problems, table, e->string);
	}
}

/* Checkpoint rows: the findings column is JSON text; older events carry no message, so the
 * row's message is checked against the commit's own. */
static void prepare_checkpoint_rows(cJSON *problems, cJSON *rows, const replay *r, history *h)
{
	cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		const char *text = str(row, "findings");
		if (text) {
			cJSON *parsed = cJSON_Parse(text);
			cJSON_ReplaceItemInObject(row, "findings", parsed ? parsed : cJSON_CreateString(text));
		}
		const char *oid = str(row, "commit");
		const cJSON *e = oid ? cJSON_GetObjectItem(r->checkpoints, oid) : NULL;
		history_commit_info info;
		if (!h || !e || cJSON_GetObjectItem(e, "message") || history_commit_info_get(&info, h, oid) != 0)
			continue;
		const char *msg = str(row, "message");
		if (!msg || !util_starts_with(info.message, msg))
			replay_problem(problems, "mismatch", "checkpoints", oid, "message",
			               _("checkpoints %s: message is not the one commit %.12s carries"), oid, oid);
		history_commit_info_done(&info);
	}
	err_clear();
}

int replay_compare(cJSON *problems, replay *r, store *s, history *h)
{
	cJSON *rows = NULL;
	int rc = store_state_rows(&rows, s, STORE_STATE_FINDINGS);
	if (!rc)
		compare_idmap(problems, "findings", rows, &r->findings, r->findings_partial);
	cJSON_Delete(rows);
	rows = NULL;
	if (!rc && !(rc = store_state_rows(&rows, s, STORE_STATE_WAIVERS)))
		compare_idmap(problems, "waivers", rows, &r->waivers, 0);
	cJSON_Delete(rows);
	rows = NULL;
	if (!rc && !(rc = store_state_rows(&rows, s, STORE_STATE_ARTIFACTS)))
		compare_idmap(problems, "artifacts", rows, &r->artifacts, 0);
	cJSON_Delete(rows);
	rows = NULL;
	if (!rc && !(rc = store_state_rows(&rows, s, STORE_STATE_SIGNOFFS)))
		compare_named(problems, "signoffs", "name", rows, r->signoffs);
	cJSON_Delete(rows);
	rows = NULL;
	if (!rc && !(rc = store_state_rows(&rows, s, STORE_STATE_CHECKPOINTS))) {
		prepare_checkpoint_rows(problems, rows, r, h);
		compare_named(problems, "checkpoints", "commit", rows, r->checkpoints);
	}
	cJSON_Delete(rows);
	return rc;
}

/* --- what the events carry --- */

cJSON *replay_finding_changes(const cJSON *before, const cJSON *after)
{
	cJSON *out = cJSON_CreateArray();
	const cJSON *b = before ? before->child : NULL, *a;
	/* both are ordered by id */
	cJSON_ArrayForEach(a, after) {
		long long id = num(a, "id");
		while (b && num(b, "id") < id)
			b = b->next;
		/* a finding paired with its old self after its surroundings changed keeps its id
		 * and status under a new fingerprint: that is a change too */
		int same = b && num(b, "id") == id && str(b, "status") && str(a, "status") &&
		           strcmp(str(b, "status"), str(a, "status")) == 0 && num(b, "fixed_by") == num(a, "fixed_by") &&
		           str(b, "fingerprint") && str(a, "fingerprint") &&
		           strcmp(str(b, "fingerprint"), str(a, "fingerprint")) == 0;
		if (same)
			continue;
		cJSON *ch = cJSON_CreateArray();
		cJSON_AddItemToArray(ch, cJSON_CreateNumber((double)id));
		cJSON_AddItemToArray(ch, cJSON_CreateString(str(a, "fingerprint") ? str(a, "fingerprint") : ""));
		cJSON_AddItemToArray(ch, cJSON_CreateString(str(a, "status") ? str(a, "status") : ""));
		cJSON_AddItemToArray(out, ch);
	}
	return out;
}

void replay_checkpoint_fields(cJSON *data, const store_checkpoint *c)
{
	put_str(data, "message", c->message);
	put_str(data, "phase", c->phase);
	put_str(data, "check", c->plugin);
	cJSON *f = c->findings ? cJSON_Parse(c->findings) : NULL;
	put(data, "findings", f);
	cJSON_Delete(f);
	put_num(data, "reverts", c->reverts);
}
