/* compare — see compare.h. */
#include "compare.h"
#include "accel.h"
#include "dump_input.h"
#include "dump_render.h"
#include "err.h"
#include "intl.h"
#include "json.h"
#include "store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int compare_parse_loss_tolerance(double *out, const char *text)
{
	char *end = NULL;
	double tol = strtod(text, &end);
	if (end != text && *end == '%' && !end[1]) {
		tol /= 100.0;
		end++;
	}
	if (end == text || *end || !(tol >= 0) || tol > 1e6)
		return err_set(FERRY_EUSAGE, _("config tolerance.loss %s: not a relative error (e.g. 0.02 or 2%%)"), text);
	*out = tol;
	return 0;
}

/* tolerance.loss as a fraction ("0.02" or "2%"), or the default when unset. */
static int loss_tolerance(double *out, workspace *ws)
{
	*out = COMPARE_LOSS_DEFAULT_TOLERANCE;
	char *text = store_config_get(ws->db, "tolerance.loss");
	if (!text)
		return 0;
	int rc = compare_parse_loss_tolerance(out, text);
	free(text);
	return rc;
}

static int run_loss(compare_outcome *o, cJSON *ev, workspace *ws, const compare_input *in, const compare_req *req)
{
	int rc = 0;
	if (req->tolerance > 0)
		o->tolerance = req->tolerance;
	else
		rc = loss_tolerance(&o->tolerance, ws);
	char sha[2][65];
	for (int i = 0; i < 2 && !rc; i++) {
		char *text = NULL;
		size_t len = 0;
		struct stat st; /* a FIFO or a device would block the read or never end */
		if (stat(in[i].path, &st) == 0 && !S_ISREG(st.st_mode)) {
			rc = err_set(FERRY_EIO, _("%s: not a regular file"), in[i].path);
			break;
		}
		if (!(rc = util_read_file(&text, &len, in[i].path)) &&
		    !(rc = loss_parse(i ? &o->sb : &o->sa, in[i].path, text, len, req->column)))
			util_sha256_hex(sha[i], text, len);
		free(text);
	}
	if (rc)
		return rc;
	loss_pair_by_position(&o->sa, &o->sb);
	loss_compare(&o->lr, &o->sa, &o->sb, o->tolerance);
	o->pass = o->lr.pass;
	o->in_a = compare_input_json(&in[0], sha[0], ws->root);
	o->in_b = compare_input_json(&in[1], sha[1], ws->root);
	const loss_result *lr = &o->lr;
	cJSON_AddNumberToObject(ev, "tolerance", o->tolerance);
	cJSON_AddNumberToObject(ev, "aligned_steps", (double)lr->n);
	if (lr->n) /* how far the comparison reached, for a later one to answer it (review.c) */
		cJSON_AddNumberToObject(ev, "last_step", (double)lr->rows[lr->n - 1].step);
	if (lr->only_a || lr->only_b) { /* steps one log lacks, for the report to say */
		cJSON_AddNumberToObject(ev, "only_a", (double)lr->only_a);
		cJSON_AddNumberToObject(ev, "only_b", (double)lr->only_b);
	}
	if (lr->n) {
		cJSON_AddNumberToObject(ev, "mean_rel_err", lr->mean_rel);
		cJSON_AddNumberToObject(ev, "max_rel_err", lr->max_rel);
	}
	if (lr->exceeded)
		cJSON_AddNumberToObject(ev, "first_exceed_step", (double)lr->first_exceed_step);
	/* what the verdict rests on, for the checks that read the record (tune.acceptance) */
	if (lr->nonfinite_b) {
		cJSON_AddNumberToObject(ev, "first_nonfinite_step", (double)lr->first_nonfinite_step);
		cJSON_AddNumberToObject(ev, "nonfinite_steps", (double)lr->nonfinite_b);
	}
	if (lr->blowup)
		cJSON_AddNumberToObject(ev, "blowup_step", (double)lr->blowup_step);
	if (lr->blowup_a)
		cJSON_AddNumberToObject(ev, "blowup_step_a", (double)lr->blowup_step_a);
	if (lr->truncated) {
		cJSON_AddBoolToObject(ev, "truncated", 1);
		cJSON_AddNumberToObject(ev, "final_step_a", (double)lr->final_step_a);
		cJSON_AddNumberToObject(ev, "final_step_b", (double)lr->final_step_b);
		cJSON_AddNumberToObject(ev, "coverage", lr->coverage);
	}
	if (lr->incomplete) {
		cJSON_AddBoolToObject(ev, "incomplete", 1);
		cJSON_AddNumberToObject(ev, "a_points", (double)lr->a_points);
		cJSON_AddNumberToObject(ev, "aligned_coverage", lr->aligned_coverage);
	}
	if (lr->end_exceeded) {
		cJSON_AddNumberToObject(ev, "end_mean_rel_err", lr->end_mean_rel);
		cJSON_AddNumberToObject(ev, "end_steps", (double)lr->end_n);
		cJSON_AddNumberToObject(ev, "end_from_step", (double)lr->end_from_step);
	}
	char why[256];
	cJSON_AddStringToObject(ev, "reason", loss_fail_reason(why, sizeof why, lr));
	return 0;
}

/* The dump thresholds the engagement agreed (tolerance.dump_atol, tolerance.dump_rtol;
 * the one left unset is 0), or msprobe's rule when neither is set. */
static int dump_threshold_agreed(dump_threshold *th, workspace *ws)
{
	static const char *const keys[2] = { "tolerance.dump_atol", "tolerance.dump_rtol" };
	double v[2] = { 0, 0 };
	memset(th, 0, sizeof *th);
	for (int i = 0; i < 2; i++) {
		char *text = store_config_get(ws->db, keys[i]), *end = NULL;
		if (!text)
			continue;
		v[i] = strtod(text, &end);
		int bad = end == text || *end || !(v[i] >= 0) || !isfinite(v[i]);
		if (bad)
			err_set(FERRY_EUSAGE, _("config %s %s: not a threshold (a number of at least 0, e.g. 1e-5)"), keys[i], text);
		free(text);
		if (bad)
			return FERRY_EUSAGE;
		th->agreed = 1;
	}
	th->atol = v[0];
	th->rtol = v[1];
	return 0;
}

static int run_dump(compare_outcome *o, cJSON *ev, workspace *ws, const compare_input *in, const compare_req *req,
                    int record)
{
	dump_opts opts = { req->threads, 0, req->dtype_a, req->dtype_b, req->th };
	if (!req->th_given) {
		int trc = dump_threshold_agreed(&opts.th, ws);
		if (trc)
			return trc;
	}
	dump_threshold_json(ev, &opts.th); /* a verdict is audited against what it used */
	if (record)
		ws_unlock(ws); /* a large comparison must not hold other writers off */
	int rc = dump_compare(&o->dr, in[0].path, in[1].path, &opts);
	/* a failing pair may be a damaged .pt rather than a divergence: before a FAIL is
	 * recorded, both inputs are checked to the byte (a passing comparison reads them once) */
	for (int i = 0; !rc && !o->dr.pass && i < 2; i++)
		rc = dump_input_verify(in[i].path);
	int lrc = record ? ws_lock(ws) : 0;
	if (rc || (rc = lrc))
		return rc;
	const dump_result *dr = &o->dr;
	o->pass = dr->pass;
	o->in_a = compare_input_json(&in[0], dr->sha_a, ws->root);
	o->in_b = compare_input_json(&in[1], dr->sha_b, ws->root);
	cJSON_AddNumberToObject(ev, "pairs", (double)dr->n);
	cJSON_AddNumberToObject(ev, "failed", (double)dr->nfailed);
	if (dr->nstats) /* pairs the agreed thresholds did not judge */
		cJSON_AddNumberToObject(ev, "by_statistics", (double)dr->nstats);
	if (dr->first_fail >= 0)
		cJSON_AddStringToObject(ev, "first_diverging_layer", dr->pairs[dr->first_fail].layer);
	if (dr->nempty) /* tensor pairs without a finite element: they compared nothing */
		cJSON_AddNumberToObject(ev, "empty", (double)dr->nempty);
	if (dr->only_a || dr->only_b) { /* tensors one side lacks, for the report to say */
		cJSON_AddNumberToObject(ev, "only_a", (double)dr->only_a);
		cJSON_AddNumberToObject(ev, "only_b", (double)dr->only_b);
	}
	if (dr->incomplete) {
		cJSON_AddBoolToObject(ev, "incomplete", 1);
		cJSON_AddNumberToObject(ev, "tensors_a", (double)(dr->n + dr->only_a));
		cJSON_AddNumberToObject(ev, "coverage", dr->coverage);
		if (dr->unchecked) {
			cJSON_AddNumberToObject(ev, "unchecked", (double)dr->unchecked);
			cJSON_AddStringToObject(ev, "first_unchecked", dr->first_unchecked);
		}
	}
	return 0;
}

int compare_req_check(const compare_req *req)
{
	const char *dtype[2] = { req->dtype_a, req->dtype_b };
	for (int side = 0; side < 2; side++)
		if (dtype[side] && !dump_dtype_is_bf16(dtype[side]))
			return err_set(FERRY_EUSAGE, _("--dtype-%c %s: the override names bfloat16 (bf16)"), side ? 'b' : 'a',
			               dtype[side]);
	if (!req->loss && req->column)
		return err_set(FERRY_EUSAGE, _("compare dump: --column applies to compare loss only"));
	if (req->loss && (req->dtype_a || req->dtype_b))
		return err_set(FERRY_EUSAGE, _("compare loss: --dtype-a/--dtype-b apply to compare dump only"));
	return 0;
}

int compare_b_is_gpu(const compare_outcome *o)
{
	return (accel_named(json_str(o->in_b, "label")) | accel_named(json_str(o->in_b, "shown"))) == ACCEL_GPU;
}

int compare_same_input(const compare_outcome *o, int *decimals)
{
	const char *a = json_str(o->in_a, "sha256"), *b = json_str(o->in_b, "sha256");
	if (decimals)
		*decimals = -1;
	if (*a && strcmp(a, b) == 0)
		return COMPARE_SAME_BYTES;
	if (!o->loss)
		return dump_result_same_values(&o->dr) ? COMPARE_SAME_VALUES : 0;
	return loss_series_same(&o->sa, &o->sb, decimals) ? COMPARE_SAME_LOSSES : 0;
}

const char *compare_same_text(char *buf, size_t size, const compare_outcome *o, int same, int decimals)
{
	if (same == COMPARE_SAME_BYTES)
		snprintf(buf, size, _("A and B are the same data (sha256 %.12s): a run compared with itself says nothing about the NPU"),
		         json_str(o->in_a, "sha256"));
	else if (same == COMPARE_SAME_VALUES)
		snprintf(buf, size, "%s",
		         _("A and B hold the same values in every tensor, though their files differ: one run's dump twice says "
		           "nothing about the NPU"));
	else if (same == COMPARE_SAME_LOSSES && decimals >= 0)
		snprintf(buf, size,
		         _("A and B hold the same losses at every step, to the %d decimals the less precise of them prints, "
		           "though their files differ: one run's log twice (in two formats?) says nothing about the NPU; if B "
		           "is the NPU run, log the loss with more decimals"),
		         decimals);
	else if (same == COMPARE_SAME_LOSSES)
		snprintf(buf, size, "%s",
		         _("A and B hold the same losses at every step, though their files differ: one run's log twice (in two "
		           "formats?) says nothing about the NPU"));
	else
		return NULL;
	return buf;
}

/* An ingested artifact whose file no longer hashes to the SHA-256 recorded at ingest was
 * replaced or damaged behind the record: nothing is compared or recorded on its bytes.
 * (A dump ingested as its dump.json alone was hashed as that file, and is compared as the
 * dump it names, under its manifest's hash: the two are not the same measure.) */
static int check_stored_hashes(const compare_input in[2], const compare_outcome *o)
{
	for (int i = 0; i < 2; i++) {
		const char *now = json_str(i ? o->in_b : o->in_a, "sha256");
		if (!o->loss && in[i].path && util_ends_with(in[i].path, ".json"))
			continue;
		if (in[i].artifact && in[i].sha256 && *now && strcmp(now, in[i].sha256) != 0)
			return err_set(FERRY_ECORRUPT,
			               _("%s: artifact %lld's stored copy no longer matches the SHA-256 recorded when it was "
			                 "ingested (recorded %.12s, now %.12s); nothing was compared: ingest the file again"),
			               in[i].arg, in[i].artifact, in[i].sha256, now);
	}
	return 0;
}

static int run(compare_outcome *out, workspace *ws, const compare_req *req, int record)
{
	memset(out, 0, sizeof *out);
	out->loss = req->loss;
	cJSON *arts = NULL, *ev = NULL;
	compare_input in[2];
	memset(in, 0, sizeof in);
	char *artdir = NULL;
	int rc = store_artifacts(&arts, ws->db, NULL);
	if (rc)
		goto out;
	artdir = util_path_join(ws->dir, "artifacts");
	for (int i = 0; i < 2; i++)
		if ((rc = compare_resolve(&in[i], arts, artdir, i ? req->b : req->a, req->loss ? "loss-log" : "dump")))
			goto out;
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "what", req->loss ? "loss" : "dump");
	/* the options, so that showing the comparison again computes the same one */
	if (req->column)
		cJSON_AddStringToObject(ev, "column", req->column);
	if (req->dtype_a)
		cJSON_AddStringToObject(ev, "dtype_a", req->dtype_a);
	if (req->dtype_b)
		cJSON_AddStringToObject(ev, "dtype_b", req->dtype_b);
	rc = req->loss ? run_loss(out, ev, ws, in, req) : run_dump(out, ev, ws, in, req, record);
	if (!rc)
		rc = check_stored_hashes(in, out);
	if (!rc)
		compare_inputs_tell_apart(out->in_a, out->in_b, ws->root);
	if (rc || !record)
		goto out;
	cJSON_AddItemToObject(ev, "a", cJSON_Duplicate(out->in_a, 1));
	cJSON_AddItemToObject(ev, "b", cJSON_Duplicate(out->in_b, 1));
	if (compare_b_is_gpu(out))
		cJSON_AddStringToObject(ev, "b_names", "gpu");
	int same = compare_same_input(out, NULL);
	if (same) {
		cJSON_AddBoolToObject(ev, "same_input", 1);
		cJSON_AddStringToObject(ev, "same", same == COMPARE_SAME_BYTES ? "bytes" : same == COMPARE_SAME_LOSSES ? "losses" : "values");
	}
	cJSON_AddStringToObject(ev, "verdict", out->pass ? "pass" : "fail");
	rc = ws_event(ws, "compare", ev);
	ev = NULL;
out:
	if (rc)
		compare_outcome_done(out);
	cJSON_Delete(arts);
	cJSON_Delete(ev);
	for (int i = 0; i < 2; i++)
		compare_input_done(&in[i]);
	free(artdir);
	return rc;
}

int compare_record(compare_outcome *out, workspace *ws, const compare_req *req)
{
	return run(out, ws, req, 1);
}

int compare_compute(compare_outcome *out, workspace *ws, const compare_req *req)
{
	return run(out, ws, req, 0);
}

void compare_outcome_done(compare_outcome *o)
{
	if (!o)
		return;
	loss_series_done(&o->sa);
	loss_series_done(&o->sb);
	loss_result_done(&o->lr);
	dump_result_done(&o->dr);
	cJSON_Delete(o->in_a);
	cJSON_Delete(o->in_b);
	int loss = o->loss;
	memset(o, 0, sizeof *o);
	o->loss = loss;
}

int compare_failure(const compare_outcome *o, const compare_req *req)
{
	if (o->pass)
		return 0;
	char why[240];
	if (o->loss)
		return err_set(FERRY_EFAIL, _("compare loss %s %s: %s"), req->a, req->b, loss_fail_reason_shown(why, sizeof why, &o->lr));
	if (!o->dr.n)
		return err_set(FERRY_EFAIL, _("compare dump %s %s: the two dumps share no tensor name"), req->a, req->b);
	if (o->dr.first_fail < 0)
		return err_set(FERRY_EFAIL, _("compare dump %s %s: %s"), req->a, req->b,
		               dump_unjudged_reason(why, sizeof why, &o->dr));
	return err_set(FERRY_EFAIL, _("compare dump %s %s: %zu of %zu tensor pairs fail; first diverging layer %s"), req->a,
	               req->b, o->dr.nfailed, o->dr.n, o->dr.pairs[o->dr.first_fail].layer);
}

/* The loss comparison's reason (see compare_event_reason). */
static const char *loss_event_reason(char *buf, size_t size, const cJSON *ev)
{
	/* the grounds as loss_compare found them, for the reason its verdict gives */
	loss_result r;
	memset(&r, 0, sizeof r);
	r.n = (size_t)json_int(ev, "aligned_steps");
	r.finite = r.n;
	r.tolerance = json_num(ev, "tolerance");
	r.mean_rel = json_num(ev, "mean_rel_err");
	r.blowup = cJSON_IsNumber(cJSON_GetObjectItem(ev, "blowup_step"));
	r.blowup_step = json_int(ev, "blowup_step");
	r.blowup_a = cJSON_IsNumber(cJSON_GetObjectItem(ev, "blowup_step_a"));
	r.blowup_step_a = json_int(ev, "blowup_step_a");
	r.first_nonfinite_step = json_int(ev, "first_nonfinite_step");
	r.nonfinite_b = cJSON_IsNumber(cJSON_GetObjectItem(ev, "first_nonfinite_step"))
	                    ? (size_t)(json_int(ev, "nonfinite_steps") > 0 ? json_int(ev, "nonfinite_steps") : 1)
	                    : 0;
	r.truncated = cJSON_IsTrue(cJSON_GetObjectItem(ev, "truncated"));
	r.final_step_a = json_int(ev, "final_step_a");
	r.final_step_b = json_int(ev, "final_step_b");
	r.coverage = json_num(ev, "coverage");
	r.incomplete = cJSON_IsTrue(cJSON_GetObjectItem(ev, "incomplete"));
	r.a_points = (size_t)json_int(ev, "a_points");
	r.aligned_coverage = json_num(ev, "aligned_coverage");
	r.end_exceeded = cJSON_IsNumber(cJSON_GetObjectItem(ev, "end_mean_rel_err"));
	r.end_mean_rel = json_num(ev, "end_mean_rel_err");
	r.end_n = (size_t)json_int(ev, "end_steps");
	r.end_from_step = json_int(ev, "end_from_step");
	/* the mean's own failure is said by the caller */
	if (!r.blowup && !r.blowup_a && !r.nonfinite_b && r.finite && !r.truncated &&
	    (r.mean_rel > r.tolerance || (!r.incomplete && !r.end_exceeded)))
		return NULL;
	if (r.truncated && !cJSON_IsNumber(cJSON_GetObjectItem(ev, "final_step_b"))) {
		snprintf(buf, size, "%s", _("B stops long before A"));
		return buf;
	}
	return loss_fail_reason_shown(buf, size, &r);
}

/* The dump comparison's reason: how much of A an incomplete B holds (see
 * compare_event_reason). */
static const char *dump_event_reason(char *buf, size_t size, const cJSON *ev)
{
	dump_result r;
	memset(&r, 0, sizeof r);
	r.n = (size_t)json_int(ev, "pairs");
	r.nempty = (size_t)json_int(ev, "empty");
	r.incomplete = cJSON_IsTrue(cJSON_GetObjectItem(ev, "incomplete"));
	if (!r.incomplete && !(r.n && r.n == r.nempty && !json_int(ev, "failed")))
		return NULL;
	r.only_a = (size_t)json_int(ev, "tensors_a") - r.n;
	r.coverage = json_num(ev, "coverage");
	r.unchecked = (size_t)json_int(ev, "unchecked");
	char *first = xstrdup(json_str(ev, "first_unchecked"));
	r.first_unchecked = first;
	dump_unjudged_reason(buf, size, &r);
	free(first);
	return buf;
}

const char *compare_event_reason(char *buf, size_t size, const cJSON *ev)
{
	if (strcmp(json_str(ev, "verdict"), "fail") != 0)
		return NULL;
	return strcmp(json_str(ev, "what"), "loss") == 0 ? loss_event_reason(buf, size, ev) : dump_event_reason(buf, size, ev);
}

int compare_event_proves_nothing(const cJSON *ev)
{
	return strcmp(json_str(ev, "verdict"), "pass") == 0 && cJSON_IsTrue(cJSON_GetObjectItem(ev, "same_input"));
}

static const char *option_of(const cJSON *ev, const char *key)
{
	const cJSON *v = cJSON_GetObjectItem(ev, key);
	return cJSON_IsString(v) && *v->valuestring ? v->valuestring : NULL;
}

void compare_event_threshold(dump_threshold *th, const cJSON *ev)
{
	const cJSON *t = cJSON_GetObjectItem(ev, "threshold");
	memset(th, 0, sizeof *th);
	if (strcmp(json_str(t, "rule"), "allclose") != 0)
		return;
	th->agreed = 1;
	th->atol = json_num(t, "atol");
	th->rtol = json_num(t, "rtol");
}

void compare_req_options(compare_req *req, const cJSON *ev)
{
	req->column = option_of(ev, "column");
	req->dtype_a = option_of(ev, "dtype_a");
	req->dtype_b = option_of(ev, "dtype_b");
	req->th_given = 1;
	compare_event_threshold(&req->th, ev);
}
