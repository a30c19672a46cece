/* review — see review.h. */
#include "review.h"
#include "json.h"
#include "audit.h"
#include "err.h"
#include "sign.h"

#include <stdio.h>
#include <string.h>

int review_waive(workspace *ws, const long long *ids, size_t n, const char *reason)
{
	if (!reason || !*reason)
		return err_set(FERRY_EUSAGE, "waive: a waiver needs --reason TEXT (auditors read it)");
	cJSON *rows = NULL;
	store_finding_filter fl = { NULL, NULL, NULL, ids, n, 0 };
	int rc = store_findings(&rows, ws->db, &fl);
	if (rc)
		return rc;
	for (size_t i = 0; !rc && i < n; i++) {
		const cJSON *row = NULL, *r;
		cJSON_ArrayForEach(r, rows)
			if ((long long)cJSON_GetObjectItem(r, "id")->valuedouble == ids[i])
				row = r;
		if (!row)
			rc = err_set(FERRY_ENOTFOUND, "finding %lld: no such finding", ids[i]);
		else if (strcmp(json_str(row, "status"), "open") != 0)
			rc = err_set(FERRY_EREFUSED, "finding %lld: is %s, only open findings can be waived", ids[i],
			             json_str(row, "status"));
	}
	cJSON_Delete(rows);
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
	for (int i = 0; i < idx && !why->kind; i++)
		if (!cJSON_IsString(cJSON_GetObjectItem(cJSON_GetArrayItem(phases, i), "signed_off_at"))) {
			why->kind = REVIEW_EARLIER_OPEN;
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
		rc = sign_head_if_configured(ws->db, ws->actor);
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}
