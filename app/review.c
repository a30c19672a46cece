/* review — see review.h. */
#include "review.h"
#include "json.h"
#include "audit.h"
#include "err.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* FERRY_ENOTFOUND for an id that does not exist, FERRY_EREFUSED ("only WHAT") for a
 * finding whose status is not status. */
static int require_status(workspace *ws, const long long *ids, size_t n, const char *status, const char *what)
{
	cJSON *rows = NULL;
	store_finding_filter fl = { NULL, NULL, NULL, ids, n, 1 };
	int rc = store_findings(&rows, ws->db, &fl);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < n; i++) {
		const cJSON *row = NULL, *r;
		cJSON_ArrayForEach(r, rows)
			if (json_int(r, "id") == ids[i])
				row = r;
		if (!row)
			rc = err_set(FERRY_ENOTFOUND, "finding %lld: no such finding", ids[i]);
		else if (strcmp(json_str(row, "status"), status) != 0)
			rc = err_set(FERRY_EREFUSED, "finding %lld: is %s, only %s", ids[i], json_str(row, "status"), what);
	}
	cJSON_Delete(rows);
	return rc;
}

int review_waive(workspace *ws, const long long *ids, size_t n, const char *reason)
{
	if (!reason || !*reason)
		return err_set(FERRY_EUSAGE, "waive: a waiver needs --reason TEXT (auditors read it)");
	int rc = require_status(ws, ids, n, "open", "open findings can be waived");
	if (rc || (rc = store_begin(ws->db)))
		return rc;
	for (size_t i = 0; !rc && i < n; i++) {
		rc = store_waiver_add(ws->db, ids[i], reason, ws->actor);
		if (!rc) {
			cJSON *d = cJSON_CreateObject();
			cJSON_AddNumberToObject(d, "finding", (double)ids[i]);
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

int review_unwaive(workspace *ws, const long long *ids, size_t n, const char *reason)
{
	if (!reason || !*reason)
		return err_set(FERRY_EUSAGE, "unwaive: withdrawing a waiver needs --reason TEXT (auditors read it)");
	int rc = require_status(ws, ids, n, "waived", "waived findings can be unwaived");
	if (rc || (rc = store_begin(ws->db)))
		return rc;
	cJSON *d = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(d, "ids");
	for (size_t i = 0; !rc && i < n; i++) {
		rc = store_waiver_withdraw(ws->db, ids[i], reason, ws->actor);
		cJSON_AddItemToArray(list, cJSON_CreateNumber((double)ids[i]));
	}
	cJSON_AddStringToObject(d, "reason", reason);
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

int review_signoff_check(review_refusal *why, workspace *ws, const char *phase)
{
	memset(why, 0, sizeof *why);
	int idx = ws_phase_index(phase);
	if (idx < 0)
		return err_set(FERRY_EUSAGE, "signoff %s: not a phase", phase);
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
			snprintf(why->other, sizeof why->other, "%s", ws_phases[i]);
	}
	const cJSON *p = cJSON_GetArrayItem(phases, idx);
	if (!why->kind && cJSON_IsString(cJSON_GetObjectItem(p, "signed_off_at"))) {
		why->kind = REVIEW_ALREADY_SIGNED;
		snprintf(why->by, sizeof why->by, "%s", json_str(p, "signed_off_by"));
	}
	const cJSON *errors = cJSON_GetObjectItem(p, "open_errors");
	if (!why->kind && cJSON_IsNumber(errors) && errors->valuedouble > 0) {
		why->kind = REVIEW_OPEN_ERRORS;
		why->count = (long long)errors->valuedouble;
	}
	cJSON_Delete(phases);
	return 0;
}

int review_signoff(workspace *ws, const char *phase, const char *note)
{
	review_refusal why;
	int rc = review_signoff_check(&why, ws, phase);
	if (rc)
		return rc;
	switch (why.kind) {
	case REVIEW_EARLIER_OPEN:
		return err_set(FERRY_EREFUSED, "signoff %s: the earlier phase %s is not signed off yet", phase, why.other);
	case REVIEW_EARLIER_REOPENED:
		return err_set(FERRY_EREFUSED, "signoff %s: the earlier phase %s was reopened by new error findings; fix or waive them first",
		               phase, why.other);
	case REVIEW_ALREADY_SIGNED:
		return err_set(FERRY_EREFUSED, "signoff %s: already signed off by %s", phase, why.by);
	case REVIEW_OPEN_ERRORS:
		return err_set(FERRY_EREFUSED, "signoff %s: %lld open error finding%s must be fixed or waived first", phase,
		               why.count, why.count == 1 ? "" : "s");
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
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}

void review_phase_states(cJSON *phases)
{
	char reopened[160] = ""; /* the reopened phases so far, in order */
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
		}
		if (strcmp(status, "reopened") == 0)
			snprintf(reopened + strlen(reopened), sizeof reopened - strlen(reopened), "%s%s", *reopened ? ", " : "",
			         json_str(p, "name"));
	}
}
