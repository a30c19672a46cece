/* event_text — see event_text.h. */
#include "event_text.h"
#include "compare.h"
#include "phase.h"
#include "intl.h"
#include "json.h"
#include "subject.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "#1, #2, #3" of a list of finding ids (at most eight, then "…"). */
static void add_ids(sbuf *b, const cJSON *ids)
{
	const cJSON *id;
	int n = 0;
	cJSON_ArrayForEach(id, ids) {
		if (n++ == 8) {
			sbuf_adds(b, ", …");
			break;
		}
		sbuf_addf(b, "%s#%lld", n > 1 ? ", " : "", (long long)id->valuedouble);
	}
}

static char *init_text(const cJSON *d)
{
	const char *client = json_str(d, "client");
	return *client ? xasprintf(_("engagement %s, project %s, client %s"), json_str(d, "engagement"), json_str(d, "project"), client)
	               : xasprintf(_("engagement %s, project %s"), json_str(d, "engagement"), json_str(d, "project"));
}

static char *checkpoint_text(const cJSON *d)
{
	char *subject = subject_show(json_str(d, "message")), *t;
	if (!cJSON_IsNumber(cJSON_GetObjectItem(d, "checkpoint"))) /* the baseline */
		t = xasprintf(_("%.12s: %s"), json_str(d, "commit"), subject);
	else
		t = xasprintf(_("checkpoint %lld (%.12s): %s"), json_int(d, "checkpoint"), json_str(d, "commit"), subject);
	free(subject);
	return t;
}

static char *check_text(const cJSON *d)
{
	long long n = json_int(d, "findings"), closed = json_int(d, "closed"), errors = json_int(d, "plugin_errors");
	char *found = xasprintf(P_("%lld finding", "%lld findings", (unsigned long)n), n);
	char *gone = xasprintf(P_("%lld no longer seen", "%lld no longer seen", (unsigned long)closed), closed);
	char *failed = xasprintf(P_("%lld plugin error", "%lld plugin errors", (unsigned long)errors), errors);
	char *t = xasprintf(_("run %lld: %s, %s, %s"), json_int(d, "run"), found, gone, failed);
	free(found);
	free(gone);
	free(failed);
	return t;
}

static char *fix_text(const cJSON *d)
{
	sbuf b;
	sbuf_init(&b);
	add_ids(&b, cJSON_GetObjectItem(d, "findings"));
	char *t = xasprintf(_("%s fixed %s in checkpoint %lld"), json_str(d, "plugin"), b.buf,
	                    json_int(d, "checkpoint"));
	sbuf_done(&b);
	return t;
}

static char *waive_text(const cJSON *d)
{
	return xasprintf(_("finding #%lld waived: %s"), json_int(d, "finding"), json_str(d, "reason"));
}

static char *unwaive_text(const cJSON *d)
{
	sbuf b;
	sbuf_init(&b);
	add_ids(&b, cJSON_GetObjectItem(d, "ids"));
	char *t = xasprintf(_("waiver of %s withdrawn: %s"), b.buf, json_str(d, "reason"));
	sbuf_done(&b);
	return t;
}

static char *config_text(const cJSON *d)
{
	const cJSON *v = cJSON_GetObjectItem(d, "value"), *was = cJSON_GetObjectItem(d, "previous");
	if (cJSON_IsString(v))
		return xasprintf(_("%s = %s"), json_str(d, "key"), v->valuestring);
	return cJSON_IsString(was) ? xasprintf(_("%s unset (was %s)"), json_str(d, "key"), was->valuestring)
	                           : xasprintf(_("%s unset"), json_str(d, "key"));
}

static char *ingest_text(const cJSON *d)
{
	const char *label = json_str(d, "label");
	return *label ? xasprintf(_("%s \"%s\" as artifact %lld (sha256 %.12s)"), json_str(d, "kind"), label,
	                          json_int(d, "artifact"), json_str(d, "sha256"))
	              : xasprintf(_("%s as artifact %lld (sha256 %.12s)"), json_str(d, "kind"), json_int(d, "artifact"),
	                          json_str(d, "sha256"));
}

static char *compare_text(const cJSON *d)
{
	const char *verdict = strcmp(json_str(d, "verdict"), "fail") == 0 ? _("FAIL")
	                      : compare_event_proves_nothing(d)              ? _("PROVES NOTHING")
	                                                                     : _("PASS");
	const char *a = json_str(cJSON_GetObjectItem(d, "a"), "shown"), *b = json_str(cJSON_GetObjectItem(d, "b"), "shown");
	if (*json_str(d, "column"))
		return xasprintf(_("%s %s: %s against %s, column %s"), json_str(d, "what"), verdict, a, b, json_str(d, "column"));
	return xasprintf(_("%s %s: %s against %s"), json_str(d, "what"), verdict, a, b);
}

static char *signoff_text(const cJSON *d)
{
	const char *note = json_str(d, "note");
	return *note ? xasprintf(_("%s signed off: %s"), phase_title(json_str(d, "phase")), note)
	             : xasprintf(_("%s signed off"), phase_title(json_str(d, "phase")));
}

static char *signature_text(const cJSON *d)
{
	return xasprintf(_("audit head at event %lld signed (%s) by %s"), json_int(d, "signed_seq"), json_str(d, "method"),
	                 json_str(d, "signer"));
}

static char *export_text(const cJSON *d)
{
	const char *branch = json_str(d, "branch");
	return *branch ? xasprintf(_("branch %s to %s"), branch, json_str(d, "repo"))
	               : xasprintf(_("patches to %s"), json_str(d, "dir"));
}

static char *report_text(const cJSON *d)
{
	return xasprintf(_("%s report (%s, %s) to %s, sha256 %.12s"), json_str(d, "format"), json_str(d, "section"),
	                 json_str(d, "lang"), json_str(d, "path"), json_str(d, "sha256"));
}

static const struct {
	const char *kind;
	char *(*text)(const cJSON *data);
} summarizers[] = {
	{ "init", init_text },       { "checkpoint", checkpoint_text }, { "check", check_text },
	{ "fix", fix_text },         { "waive", waive_text },           { "unwaive", unwaive_text },
	{ "config", config_text },   { "ingest", ingest_text },         { "compare", compare_text },
	{ "signoff", signoff_text }, { "signature", signature_text },   { "export", export_text },
	{ "report", report_text },
};

char *event_text(const char *kind, const cJSON *data)
{
	if (!cJSON_IsObject(data))
		return NULL;
	for (size_t i = 0; i < sizeof summarizers / sizeof *summarizers; i++)
		if (strcmp(summarizers[i].kind, kind) == 0)
			return summarizers[i].text(data);
	return NULL;
}
