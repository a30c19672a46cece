/* status — see status.h. */
#include "status.h"
#include "assessment.h"
#include "json.h"
#include "review.h"
#include "store.h"

int status_json(cJSON **out, workspace *ws)
{
	cJSON *eng = NULL, *phases = NULL, *cps = NULL, *metrics = NULL, *config = NULL;
	int rc = store_engagement_get(&eng, ws->db);
	if (!rc)
		rc = store_phases(&phases, ws->db);
	if (!rc)
		rc = store_checkpoints(&cps, ws->db);
	if (!rc)
		rc = store_metrics_latest(&metrics, ws->db);
	if (!rc)
		rc = store_config_all(&config, ws->db);
	if (rc)
		goto out;
	cJSON *st = cJSON_CreateObject();
	cJSON_AddItemToObject(st, "engagement", eng);
	eng = NULL;
	cJSON_AddStringToObject(st, "root", ws->root);
	cJSON_AddStringToObject(st, "actor", ws->actor);
	cJSON *head = cJSON_AddObjectToObject(st, "head");
	cJSON *newest = cJSON_GetArrayItem(cps, 0);
	cJSON_AddStringToObject(head, "commit", json_str(newest, "commit"));
	cJSON_AddNumberToObject(head, "checkpoint", (double)json_int(newest, "id"));
	cJSON_AddStringToObject(head, "kind", json_str(newest, "kind"));
	cJSON_AddNumberToObject(st, "checkpoints", cJSON_GetArraySize(cps));
	long long total[5] = { 0 }; /* errors, warnings, info, fixed, waived */
	cJSON *p;
	review_phase_states(phases);
	cJSON_ArrayForEach(p, phases) {
		total[0] += json_int(p, "open_errors");
		total[1] += json_int(p, "open_warnings");
		total[2] += json_int(p, "open_info");
		total[3] += json_int(p, "fixed");
		total[4] += json_int(p, "waived");
	}
	cJSON_AddItemToObject(st, "phases", phases);
	phases = NULL;
	cJSON *counts = cJSON_AddObjectToObject(st, "findings");
	cJSON_AddNumberToObject(counts, "open", (double)(total[0] + total[1] + total[2]));
	cJSON_AddNumberToObject(counts, "errors", (double)total[0]);
	cJSON_AddNumberToObject(counts, "warnings", (double)total[1]);
	cJSON_AddNumberToObject(counts, "info", (double)total[2]);
	cJSON_AddNumberToObject(counts, "fixed", (double)total[3]);
	cJSON_AddNumberToObject(counts, "waived", (double)total[4]);
	cJSON_AddItemToObject(st, "config", config);
	config = NULL;
	cJSON_AddItemToObject(st, "metrics", metrics);
	metrics = NULL;
	cJSON *assessment = NULL;
	if ((rc = assessment_compute(&assessment, ws->db))) {
		cJSON_Delete(st);
		goto out;
	}
	cJSON_AddItemToObject(st, "assessment", assessment);
	*out = st;
out:
	cJSON_Delete(eng);
	cJSON_Delete(phases);
	cJSON_Delete(cps);
	cJSON_Delete(metrics);
	cJSON_Delete(config);
	return rc;
}
