/* review — see review.h. */
#include "intl.h"
#include "phase.h"
#include "review.h"
#include "json.h"
#include "audit.h"
#include "check.h"
#include "compare_loss.h"
#include "plugin_host.h"
#include "err.h"
#include "history.h"
#include "sign.h"
#include "store.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FERRY_ENOTFOUND for an id that does not exist, FERRY_EREFUSED ("only WHAT") for a
 * finding whose status is not status. */
static int require_status(workspace *ws, const long long *ids, size_t n, finding_status status, const char *what)
{
	finding *rows = NULL;
	size_t nrows = 0;
	store_finding_filter fl = { NULL, NULL, NULL, ids, n, 1 };
	int rc = store_finding_list(&rows, &nrows, ws->db, &fl);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < n; i++) {
		const finding *row = NULL;
		for (size_t k = 0; k < nrows; k++)
			if (rows[k].id == ids[i])
				row = &rows[k];
		if (!row)
			rc = err_set(FERRY_ENOTFOUND, _("finding %lld: no such finding"), ids[i]);
		else if (row->status != status)
			rc = err_set(FERRY_EREFUSED, _("finding %lld: is %s, only %s"), ids[i], status_name(row->status), what);
	}
	finding_list_free(rows, nrows);
	return rc;
}

int review_reason_given(const char *reason)
{
	for (const unsigned char *p = (const unsigned char *)reason; p && *p;) {
		if (*p == ' ' || (*p >= '\t' && *p <= '\r'))
			p++;
		else if (p[0] == 0xC2 && p[1] == 0xA0) /* U+00A0 */
			p += 2;
		else if (p[0] == 0xE3 && p[1] == 0x80 && p[2] == 0x80) /* U+3000 */
			p += 3;
		else
			return 1;
	}
	return 0;
}

int review_waive(workspace *ws, const long long *ids, size_t n, const char *reason)
{
	if (!review_reason_given(reason))
		return err_set(FERRY_EUSAGE, _("waive: a waiver needs --reason TEXT (auditors read it)"));
	int rc = require_status(ws, ids, n, STATUS_OPEN, _("open findings can be waived"));
	if (rc || (rc = store_begin(ws->db)))
		return rc;
	for (size_t i = 0; !rc && i < n; i++) {
		rc = store_waiver_add(ws->db, ids[i], reason, ws->actor);
		if (!rc) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddNumberToObject(d, "finding", (double)ids[i]);
			cJSON_AddNumberToObject(d, "waiver", (double)store_last_insert_id(ws->db));
			cJSON_AddStringToObject(d, "reason", reason);
			rc = audit_append(NULL, ws->db, "waive", ws->actor, d);
		}
	}
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}

/* Withdraws, with the same reason, the waivers carried from finding id's (and those
 * carried from them): a waiver has no basis once the one it came from is withdrawn. Each
 * finding whose waiver goes is appended to done. */
static int withdraw_carried(cJSON *done, workspace *ws, long long id, const char *reason)
{
	cJSON *rows = NULL, *r;
	int rc = store_waivers_carried_from(&rows, ws->db, id);
	cJSON_ArrayForEach(r, rows) {
		long long fid = json_int(r, "finding_id");
		rc = store_waiver_withdraw(ws->db, fid, reason, ws->actor);
		cJSON_AddItemToArray(done, cJSON_CreateNumber((double)fid));
		if (!rc)
			rc = withdraw_carried(done, ws, fid, reason);
		if (rc)
			break;
	}
	cJSON_Delete(rows);
	return rc;
}

int review_unwaive(workspace *ws, const long long *ids, size_t n, const char *reason)
{
	if (!review_reason_given(reason))
		return err_set(FERRY_EUSAGE, _("unwaive: withdrawing a waiver needs --reason TEXT (auditors read it)"));
	int rc = require_status(ws, ids, n, STATUS_WAIVED, _("waived findings can be unwaived"));
	if (rc || (rc = store_begin(ws->db)))
		return rc;
	cJSON *d = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(d, "ids");
	cJSON *carried = cJSON_CreateArray();
	for (size_t i = 0; !rc && i < n; i++) {
		rc = store_waiver_withdraw(ws->db, ids[i], reason, ws->actor);
		cJSON_AddItemToArray(list, cJSON_CreateNumber((double)ids[i]));
		if (!rc)
			rc = withdraw_carried(carried, ws, ids[i], reason);
	}
	cJSON_AddStringToObject(d, "reason", reason);
	if (cJSON_GetArraySize(carried))
		cJSON_AddItemToObject(d, "carried", carried);
	else
		cJSON_Delete(carried);
	if (!rc)
		rc = audit_append(NULL, ws->db, "unwaive", ws->actor, d);
	else
		cJSON_Delete(d);
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}

/* Whether comparison c is of the same baseline as the passing comparison p: the same
 * A data (its SHA-256), or the same labels on both sides (the runs made again and
 * ingested under their labels). */
static int same_baseline(const cJSON *c, const cJSON *p)
{
	const cJSON *ca = cJSON_GetObjectItem(c, "a"), *pa = cJSON_GetObjectItem(p, "a");
	const char *cs = json_str(ca, "sha256"), *ps = json_str(pa, "sha256");
	if (*cs && strcmp(cs, ps) == 0)
		return 1;
	const cJSON *cb = cJSON_GetObjectItem(c, "b"), *pb = cJSON_GetObjectItem(p, "b");
	const char *cla = json_str(ca, "label"), *clb = json_str(cb, "label");
	return *cla && *clb && strcmp(cla, json_str(pa, "label")) == 0 && strcmp(clb, json_str(pb, "label")) == 0;
}

/* What tells how much of the runs comparison c (and p, when given) looked at: a dump's
 * tensor "pairs"; a loss comparison's "last_step" where both record it, else its
 * "aligned_steps" (comparisons recorded before the last step was). */
static const char *reach_field(const cJSON *c, const cJSON *p)
{
	if (strcmp(json_str(c, "what"), "dump") == 0)
		return "pairs";
	return cJSON_IsNumber(cJSON_GetObjectItem(c, "last_step")) &&
	               (!p || cJSON_IsNumber(cJSON_GetObjectItem(p, "last_step")))
	           ? "last_step"
	           : "aligned_steps";
}

/* Whether passing comparison p looked at as much as failing comparison c of the same
 * baseline: as far as c's last aligned step, or as many tensor pairs. The first 40 steps
 * of two runs that part at step 50 answer nothing. */
static int covers(const cJSON *p, const cJSON *c)
{
	const char *field = reach_field(c, p);
	return json_num(p, field) >= json_num(c, field);
}

/* The comparison of kind `what` that decides, from events newest first: the newest
 * failing one that no later passing comparison of the same baseline answers, else the
 * newest. A newer comparison of other data (inference outputs after a failing training
 * dump) does not clear a failure it never looked at, nor does one of the same runs that
 * looked at less of them ("shorter_event" names it). */
static cJSON *deciding_comparison(const cJSON *events, const char *what)
{
	const cJSON *e, *newest = NULL, *standing = NULL, *shorter = NULL;
	const cJSON **passed = NULL;
	size_t npassed = 0;
	cJSON_ArrayForEach(e, events) {
		const cJSON *d = cJSON_GetObjectItem(e, "data");
		if (strcmp(json_str(e, "kind"), "compare") != 0 || strcmp(json_str(d, "what"), what) != 0)
			continue;
		if (!newest)
			newest = e;
		if (strcmp(json_str(d, "verdict"), "fail") != 0) {
			/* itself against itself, or a GPU run against a GPU run, answers nothing */
			if (!cJSON_IsTrue(cJSON_GetObjectItem(d, "same_input")) && strcmp(json_str(d, "b_names"), "gpu") != 0) {
				passed = xrealloc(passed, (npassed + 1) * sizeof *passed);
				passed[npassed++] = e;
			}
			continue;
		}
		const cJSON *answer = NULL;
		shorter = NULL;
		for (size_t k = 0; k < npassed && !answer; k++) {
			const cJSON *pd = cJSON_GetObjectItem(passed[k], "data");
			if (!same_baseline(d, pd))
				continue;
			if (covers(pd, d))
				answer = passed[k];
			else if (!shorter)
				shorter = passed[k];
		}
		if (!answer) {
			standing = e;
			break;
		}
	}
	free(passed);
	const cJSON *pick = standing ? standing : newest;
	if (!pick)
		return NULL;
	cJSON *c = cJSON_Duplicate(cJSON_GetObjectItem(pick, "data"), 1);
	compare_input_shown(cJSON_GetObjectItem(c, "a"), NULL); /* recorded before the name was */
	compare_input_shown(cJSON_GetObjectItem(c, "b"), NULL);
	cJSON_AddNumberToObject(c, "event", json_num(pick, "seq"));
	cJSON_AddStringToObject(c, "time", json_str(pick, "time"));
	cJSON_AddStringToObject(c, "actor", json_str(pick, "actor"));
	if (standing && shorter) { /* a later comparison of the same runs looked at less of them */
		const cJSON *sd = cJSON_GetObjectItem(shorter, "data"), *fd = cJSON_GetObjectItem(standing, "data");
		const char *field = reach_field(fd, sd); /* the measure covers() judged by */
		cJSON_AddNumberToObject(c, "shorter_event", json_num(shorter, "seq"));
		cJSON_AddStringToObject(c, "shorter_by", field);
		cJSON_AddNumberToObject(c, "shorter_reach", json_num(sd, field));
		cJSON_AddNumberToObject(c, "reach", json_num(fd, field));
	} else if (pick != newest) { /* a later comparison of other data passed; this one still stands */
		cJSON_AddNumberToObject(c, "newer_event", json_num(newest, "seq"));
	}
	return c;
}

/* {"loss": …, "dump": …}: the deciding comparison of each kind recorded in events. */
static cJSON *deciding_comparisons(const cJSON *events)
{
	cJSON *res = cJSON_CreateObject();
	static const char *const kinds[] = { "loss", "dump" };
	for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
		cJSON *c = deciding_comparison(events, kinds[k]);
		if (c)
			cJSON_AddItemToObject(res, kinds[k], c);
	}
	return res;
}

int review_comparisons(cJSON **out, store *s)
{
	cJSON *events = NULL;
	*out = NULL;
	int rc = audit_events(&events, s);
	if (rc == 0)
		*out = deciding_comparisons(events);
	cJSON_Delete(events);
	return rc;
}

/* The audit event from which B's run is on record: the first event that holds its bytes
 * (an ingest of an artifact of the same SHA-256, under any label, or a comparison that
 * read them), else the comparison itself. The same file ingested again is the same run. */
static long long evidence_seq(const cJSON *events, const cJSON *cmp)
{
	long long seq = (long long)json_num(cmp, "event");
	const char *sha = json_str(cJSON_GetObjectItem(cmp, "b"), "sha256");
	const cJSON *e;
	if (!*sha)
		return seq;
	cJSON_ArrayForEach(e, events) {
		const cJSON *d = cJSON_GetObjectItem(e, "data");
		const char *kind = json_str(e, "kind");
		int holds = strcmp(kind, "ingest") == 0 ? strcmp(json_str(d, "sha256"), sha) == 0
		            : strcmp(kind, "compare") == 0
		                ? strcmp(json_str(cJSON_GetObjectItem(d, "b"), "sha256"), sha) == 0 ||
		                      strcmp(json_str(cJSON_GetObjectItem(d, "a"), "sha256"), sha) == 0
		                : 0;
		if (holds && json_num(e, "seq") < seq)
			seq = (long long)json_num(e, "seq");
	}
	return seq;
}

/* 1 when path was in the project's record at commit was and reads otherwise at commit
 * now (changed or deleted since). */
static int changed_since(workspace *ws, const char *was, const char *now, const char *path)
{
	char *ta = NULL, *tb = NULL;
	size_t la = 0, lb = 0;
	int ha = history_read_at(&ta, &la, ws->hist, was, path) == 0;
	int hb = ha && history_read_at(&tb, &lb, ws->hist, now, path) == 0;
	err_clear();
	int changed = ha && (!hb || la != lb || memcmp(ta, tb, la) != 0);
	free(ta);
	free(tb);
	return changed;
}

/* 1 when path is among the n strings of v. */
static int listed(char **v, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], path) == 0)
			return 1;
	return 0;
}

/* code_changed for one comparison (see review_comparisons_code); events newest first. A
 * file counts once, and only when it reads otherwise now than when B's run came on record
 * (a fix reverted and made again leaves it as it was). */
static int comparison_code_changed(cJSON *cmp, const cJSON *events, workspace *ws)
{
	long long since = evidence_seq(events, cmp);
	const cJSON *e, *then = NULL;
	size_t n = (size_t)cJSON_GetArraySize(events);
	const cJSON **after = xcalloc(n ? n : 1, sizeof *after);
	size_t nafter = 0;
	cJSON_ArrayForEach(e, events) {
		if (strcmp(json_str(e, "kind"), "checkpoint") != 0)
			continue;
		if (json_num(e, "seq") > since)
			after[nafter++] = e;
		else if (!then)
			then = e; /* the project as it was when B's run came on record */
	}
	const char *was = then ? json_str(cJSON_GetObjectItem(then, "data"), "commit") : "";
	const char *now = nafter ? json_str(cJSON_GetObjectItem(after[0], "data"), "commit") : "";
	cJSON *files = cJSON_CreateArray(), *first = NULL;
	char **seen = NULL;
	size_t nseen = 0;
	int count = 0, rc = 0;
	for (size_t i = nafter; then && i > 0 && rc == 0; i--) { /* oldest first */
		const cJSON *d = cJSON_GetObjectItem(after[i - 1], "data");
		char **paths = NULL;
		size_t np = 0;
		if ((rc = history_commit_paths(&paths, &np, ws->hist, json_str(d, "commit"))))
			break;
		for (size_t k = 0; k < np; k++) {
			if (listed(seen, nseen, paths[k]) || !changed_since(ws, was, now, paths[k])) {
				free(paths[k]);
				continue;
			}
			seen = xrealloc(seen, (nseen + 1) * sizeof *seen);
			seen[nseen++] = paths[k];
			count++;
			if (cJSON_GetArraySize(files) < 5)
				cJSON_AddItemToArray(files, cJSON_CreateString(paths[k]));
			if (!first)
				first = (cJSON *)after[i - 1];
		}
		free(paths);
	}
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	if (rc == 0 && first) {
		const cJSON *d = cJSON_GetObjectItem(first, "data");
		cJSON *cc = cJSON_CreateObject();
		cJSON_AddNumberToObject(cc, "event", json_num(first, "seq"));
		cJSON_AddStringToObject(cc, "kind", json_str(d, "kind"));
		cJSON_AddStringToObject(cc, "message", json_str(d, "message"));
		cJSON_AddStringToObject(cc, "commit", json_str(d, "commit"));
		cJSON_AddItemToObject(cc, "files", files);
		cJSON_AddNumberToObject(cc, "count", count);
		cJSON_AddItemToObject(cmp, "code_changed", cc);
		files = NULL;
	}
	cJSON_Delete(files);
	free(after);
	return rc;
}

/* {artifact, sha256} of one side of a recorded comparison. */
static cJSON *compared_side(const cJSON *side)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *art = cJSON_GetObjectItem(side, "artifact");
	if (cJSON_IsNumber(art))
		cJSON_AddNumberToObject(o, "artifact", art->valuedouble);
	cJSON_AddStringToObject(o, "sha256", json_str(side, "sha256"));
	return o;
}

/* Adds "compared" to each comparison of c: every recorded comparison of its kind. */
static void add_compared(cJSON *c, const cJSON *events)
{
	cJSON *kind;
	cJSON_ArrayForEach(kind, c) {
		cJSON *list = cJSON_AddArrayToObject(kind, "compared");
		const cJSON *e;
		cJSON_ArrayForEach(e, events) {
			const cJSON *d = cJSON_GetObjectItem(e, "data");
			if (strcmp(json_str(e, "kind"), "compare") != 0 || strcmp(json_str(d, "what"), kind->string) != 0)
				continue;
			cJSON *o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "event", json_num(e, "seq"));
			cJSON_AddStringToObject(o, "verdict", json_str(d, "verdict"));
			cJSON_AddItemToObject(o, "a", compared_side(cJSON_GetObjectItem(d, "a")));
			cJSON_AddItemToObject(o, "b", compared_side(cJSON_GetObjectItem(d, "b")));
			cJSON_AddItemToArray(list, o);
		}
	}
}

int review_comparisons_judged(cJSON **out, workspace *ws)
{
	cJSON *events = NULL, *cmp;
	*out = NULL;
	int rc = audit_events(&events, ws->db);
	if (rc == 0) {
		*out = deciding_comparisons(events);
		cJSON_ArrayForEach(cmp, *out) {
			if (rc == 0)
				rc = comparison_code_changed(cmp, events, ws);
		}
		add_compared(*out, events);
	}
	cJSON_Delete(events);
	if (rc) {
		cJSON_Delete(*out);
		*out = NULL;
	}
	return rc;
}

/* The open error findings of phase as "#ID PLUGIN: MESSAGE; …" (at most three). */
static int blockers(char *buf, size_t n, workspace *ws, const char *phase)
{
	finding *rows = NULL;
	size_t nrows = 0;
	store_finding_filter fl = { phase, "open", NULL, NULL, 0, 1 };
	int rc = store_finding_list(&rows, &nrows, ws->db, &fl);
	if (rc)
		return rc;
	size_t used = 0;
	int shown = 0;
	buf[0] = 0;
	for (size_t i = 0; i < nrows; i++) {
		const finding *f = &rows[i];
		if (f->severity != SEVERITY_ERROR)
			continue;
		if (shown++ == 3) {
			snprintf(buf + used, n - used, "; …");
			break;
		}
		int w = snprintf(buf + used, n - used, "%s#%lld %s: %s", used ? "; " : "", f->id, f->plugin,
		                 f->message ? f->message : "");
		if (w < 0 || (size_t)w >= n - used)
			break;
		used += (size_t)w;
	}
	finding_list_free(rows, nrows);
	return 0;
}

int review_signoff_gate(workspace *ws, const char *phase)
{
	plugin_host *h = NULL;
	int rc = check_host_new(&h, ws);
	if (rc)
		return rc;
	size_t n = 0, k = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	const char **ids = xcalloc(n + 1, sizeof *ids);
	for (size_t i = 0; i < n; i++)
		if (pi[i].evidence && strcmp(pi[i].phase, phase) == 0)
			ids[k++] = pi[i].id;
	if (k) {
		check_opts o = { NULL, 0, ids, k, NULL, NULL, NULL, NULL, NULL, 0 };
		check_result res;
		rc = check_run_with(&res, ws, h, &o);
		if (!rc && res.nerrors)
			rc = err_set(FERRY_EREFUSED, _("signoff %s: a check of the phase could not judge its evidence: %s"), phase,
			             res.errors[0]);
		check_result_done(&res);
	}
	free(ids);
	plugin_host_free(h);
	return rc;
}

int review_revert(long long *cp_id, char oid[41], workspace *ws, const char *rev)
{
	char target[41];
	cJSON *cp = NULL;
	int rc = ws_resolve(target, ws, rev);
	if (!rc)
		rc = store_checkpoint_by_commit(&cp, ws->db, target);
	if (rc)
		return rc;
	const cJSON *pl = cJSON_GetObjectItem(cp, "plugin");
	char *plugin = cJSON_IsString(pl) && *pl->valuestring ? xstrdup(pl->valuestring) : NULL;
	cJSON_Delete(cp);
	rc = ws_revert(cp_id, oid, ws, rev);
	if (!rc && plugin) {
		const char *ids[] = { plugin };
		check_opts o = { NULL, 0, ids, 1, NULL, NULL, NULL, NULL, NULL, 0 };
		check_result res;
		rc = check_run(&res, ws, &o);
		check_result_done(&res);
	}
	free(plugin);
	return rc;
}

char *review_reopened_text(workspace *ws, long long cp)
{
	cJSON *rows = NULL;
	if (store_findings_declined(&rows, ws->db)) {
		err_clear(); /* the revert stands; only the sentence is missing */
		return NULL;
	}
	sbuf ids;
	sbuf_init(&ids);
	size_t n = 0;
	long long first = 0;
	const cJSON *r;
	cJSON_ArrayForEach(r, rows)
		if (json_int(r, "reverted_by") == cp) {
			sbuf_addf(&ids, "%s#%lld", n ? " " : "", json_int(r, "id"));
			first = n++ ? first : json_int(r, "id");
		}
	cJSON_Delete(rows);
	char *text = n ? xasprintf(P_("Finding %s is open again; a fix of many findings leaves it out (`ferry fix --finding %lld` applies it again).",
	                              "Findings %s are open again; a fix of many findings leaves them out (`ferry fix --finding %lld` applies one again).", n),
	                           ids.buf, first)
	               : NULL;
	sbuf_done(&ids);
	return text;
}

int review_rejudge(check_result *out, workspace *ws, unsigned evidence)
{
	check_opts o = { NULL, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, evidence };
	return check_run(out, ws, &o);
}

int review_signoff_check(review_refusal *why, workspace *ws, const char *phase)
{
	memset(why, 0, sizeof *why);
	int idx = phase_index(phase);
	if (idx < 0)
		return err_set(FERRY_EUSAGE, _("signoff %s: not a phase"), phase);
	cJSON *phases = NULL;
	int rc = store_phases(&phases, ws->db);
	if (rc)
		return rc;
	for (int i = 0; i < idx && !why->kind; i++) {
		const cJSON *e = cJSON_GetArrayItem(phases, i);
		if (!cJSON_IsString(cJSON_GetObjectItem(e, "signed_off_at")))
			why->kind = REVIEW_EARLIER_OPEN;
		else if (json_int(e, "open_errors") > 0)
			why->kind = REVIEW_EARLIER_REOPENED;
		if (why->kind)
			snprintf(why->other, sizeof why->other, "%s", phase_name(i));
	}
	/* open errors first: a phase signed off and reopened by new errors is not "already
	 * signed off" while they stand (its sign-off holds again once they are fixed or waived) */
	const cJSON *p = cJSON_GetArrayItem(phases, idx);
	const cJSON *errors = cJSON_GetObjectItem(p, "open_errors");
	if (!why->kind && cJSON_IsNumber(errors) && errors->valuedouble > 0) {
		why->kind = REVIEW_OPEN_ERRORS;
		why->count = (long long)errors->valuedouble;
	}
	if (!why->kind && cJSON_IsString(cJSON_GetObjectItem(p, "signed_off_at"))) {
		why->kind = REVIEW_ALREADY_SIGNED;
		snprintf(why->by, sizeof why->by, "%s", json_str(p, "signed_off_by"));
	}
	cJSON_Delete(phases);
	if (why->kind == REVIEW_OPEN_ERRORS)
		return blockers(why->blockers, sizeof why->blockers, ws, phase);
	return 0;
}

int review_signoff(workspace *ws, const char *phase, const char *note)
{
	review_refusal why;
	/* what the record already settles is refused before the gate runs any check */
	int rc = review_signoff_check(&why, ws, phase);
	if (!rc && why.kind != REVIEW_EARLIER_OPEN && why.kind != REVIEW_EARLIER_REOPENED &&
	    why.kind != REVIEW_ALREADY_SIGNED && !(rc = review_signoff_gate(ws, phase)))
		rc = review_signoff_check(&why, ws, phase);
	if (rc)
		return rc;
	switch (why.kind) {
	case REVIEW_EARLIER_OPEN:
		return err_set(FERRY_EREFUSED, _("signoff %s: the earlier phase %s is not signed off yet"), phase, phase_title(why.other));
	case REVIEW_EARLIER_REOPENED:
		return err_set(FERRY_EREFUSED, _("signoff %s: the earlier phase %s was reopened by new error findings; fix or waive them first"),
		               phase, phase_title(why.other));
	case REVIEW_ALREADY_SIGNED:
		return err_set(FERRY_EREFUSED, _("signoff %s: already signed off by %s"), phase, why.by);
	case REVIEW_OPEN_ERRORS:
		return err_set(FERRY_EREFUSED, P_("signoff %s: %lld open error finding must be fixed or waived first: %s",
		                                       "signoff %s: %lld open error findings must be fixed or waived first: %s",
		                                       (unsigned long)why.count), phase, why.count, why.blockers);
	case REVIEW_ALLOWED:
		break;
	}
	if ((rc = store_begin(ws->db)))
		return rc;
	rc = store_phase_signoff(ws->db, phase, ws->actor, note);
	if (!rc) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "phase", phase);
		cJSON_AddStringToObject(d, "note", note ? note : "");
		rc = audit_append(NULL, ws->db, "signoff", ws->actor, d);
	}
	if (!rc)
		rc = sign_head_if_configured(ws->db, ws->actor);
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}

void review_phase_states(cJSON *phases)
{
	char reopened[160] = ""; /* the reopened phases so far, in order */
	cJSON *reopened_list = cJSON_CreateArray();
	cJSON *p;
	cJSON_ArrayForEach(p, phases) {
		int signed_off = cJSON_IsString(cJSON_GetObjectItem(p, "signed_off_at"));
		const char *status = "not started";
		if (signed_off && json_int(p, "open_errors") > 0)
			status = "reopened";
		else if (signed_off)
			status = "signed off";
		else if (json_int(p, "open_errors") > 0)
			status = "blocked";
		else if (json_int(p, "runs") > 0 || json_int(p, "open_warnings") + json_int(p, "open_info") +
		                                         json_int(p, "fixed") + json_int(p, "waived") > 0)
			status = "in progress";
		cJSON_DeleteItemFromObject(p, "status");
		cJSON_AddStringToObject(p, "status", status);
		if (signed_off && *reopened) {
			char *why = xasprintf("signed off before %s reopened", reopened);
			cJSON_AddStringToObject(p, "flagged", why);
			free(why);
			cJSON_AddItemToObject(p, "flagged_by", cJSON_Duplicate(reopened_list, 1));
		}
		if (strcmp(status, "reopened") == 0) {
			snprintf(reopened + strlen(reopened), sizeof reopened - strlen(reopened), "%s%s", *reopened ? ", " : "",
			         json_str(p, "name"));
			cJSON_AddItemToArray(reopened_list, cJSON_CreateString(json_str(p, "name")));
		}
	}
	cJSON_Delete(reopened_list);
}

char *review_flag_text(const cJSON *phase)
{
	const cJSON *by = cJSON_GetObjectItem(phase, "flagged_by"), *n;
	if (!cJSON_GetArraySize(by))
		return NULL;
	sbuf names;
	sbuf_init(&names);
	cJSON_ArrayForEach(n, by) {
		if (names.len)
			sbuf_adds(&names, _(", "));
		sbuf_adds(&names, cJSON_IsString(n) ? _(n->valuestring) : "?");
	}
	char *text = xasprintf(_("signed off before %s reopened"), names.buf);
	sbuf_done(&names);
	return text;
}
