/* finding — see finding.h. */
#include "finding.h"
#include "phase.h"
#include "util.h"

#include <cjson/cJSON.h>

#include <stdlib.h>
#include <string.h>

static const char *const severity_names[] = {
	[SEVERITY_INFO] = "info", [SEVERITY_WARNING] = "warning", [SEVERITY_ERROR] = "error",
};

static const char *const status_names[] = {
	[STATUS_OPEN] = "open", [STATUS_FIXED] = "fixed", [STATUS_WAIVED] = "waived",
};

#define NAMES(t) (sizeof(t) / sizeof((t)[0]))

const char *severity_name(finding_severity s)
{
	return (size_t)s < NAMES(severity_names) && severity_names[s] ? severity_names[s] : "";
}

int severity_parse(const char *name)
{
	for (size_t i = 0; name && i < NAMES(severity_names); i++)
		if (severity_names[i] && strcmp(severity_names[i], name) == 0)
			return (int)i;
	return 0;
}

const char *status_name(finding_status s)
{
	return (size_t)s < NAMES(status_names) ? status_names[s] : "";
}

int status_parse(const char *name)
{
	for (size_t i = 0; name && i < NAMES(status_names); i++)
		if (strcmp(status_names[i], name) == 0)
			return (int)i;
	return -1;
}

void finding_clear(finding *f)
{
	if (!f)
		return;
	free(f->plugin);
	free(f->category);
	free(f->file);
	free(f->message);
	free(f->suggestion);
	free(f->i18n);
	free(f->fingerprint);
	free(f->construct);
	free(f->unit);
	free(f->anchor);
	free(f->follows);
	if (f->waiver) {
		free(f->waiver->reason);
		free(f->waiver->actor);
		free(f->waiver->at);
		free(f->waiver);
	}
	for (size_t i = 0; i < f->nedits; i++)
		free(f->edits[i].text);
	free(f->edits);
}

void finding_free(finding *f)
{
	finding_clear(f);
	free(f);
}

void finding_list_free(finding *f, size_t n)
{
	for (size_t i = 0; f && i < n; i++)
		finding_clear(&f[i]);
	free(f);
}

static void add_text_or_null(cJSON *o, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *edits_json(const finding *f)
{
	if (!f->nedits)
		return cJSON_CreateNull();
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < f->nedits; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "start_byte", f->edits[i].start_byte);
		cJSON_AddNumberToObject(e, "end_byte", f->edits[i].end_byte);
		cJSON_AddStringToObject(e, "text", f->edits[i].text ? f->edits[i].text : "");
		cJSON_AddItemToArray(arr, e);
	}
	return arr;
}

static cJSON *waiver_json(const finding_waiver *w)
{
	if (!w)
		return cJSON_CreateNull();
	cJSON *o = cJSON_CreateObject();
	add_text_or_null(o, "reason", w->reason);
	add_text_or_null(o, "actor", w->actor);
	add_text_or_null(o, "at", w->at);
	if (w->carried_from)
		cJSON_AddNumberToObject(o, "carried_from", (double)w->carried_from);
	else
		cJSON_AddNullToObject(o, "carried_from");
	return o;
}

cJSON *finding_json(const finding *f, int brief)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "id", (double)f->id);
	add_text_or_null(o, "plugin", f->plugin);
	add_text_or_null(o, "phase", phase_name((size_t)f->phase));
	cJSON_AddStringToObject(o, "severity", severity_name(f->severity));
	cJSON_AddStringToObject(o, "category", f->category ? f->category : "");
	add_text_or_null(o, "file", f->file);
	cJSON_AddNumberToObject(o, "line", f->line);
	if (!brief) {
		cJSON_AddNumberToObject(o, "col", f->col);
		cJSON_AddNumberToObject(o, "end_line", f->end_line);
		cJSON_AddNumberToObject(o, "end_col", f->end_col);
	}
	add_text_or_null(o, "message", f->message);
	if (!brief)
		add_text_or_null(o, "suggestion", f->suggestion);
	cJSON_AddBoolToObject(o, "fixable", f->fixable || f->nedits);
	cJSON_AddBoolToObject(o, "automatic", f->automatic);
	cJSON_AddStringToObject(o, "status", status_name(f->status));
	if (!brief) {
		add_text_or_null(o, "fingerprint", f->fingerprint);
		cJSON_AddItemToObject(o, "edits", edits_json(f));
		if (f->last_run)
			cJSON_AddNumberToObject(o, "last_run", (double)f->last_run);
		else
			cJSON_AddNullToObject(o, "last_run");
		add_text_or_null(o, "construct", f->construct);
	}
	cJSON_AddItemToObject(o, "waiver", waiver_json(f->waiver));
	if (f->settled.finding) {
		cJSON *s = cJSON_AddObjectToObject(o, "settled_by");
		cJSON_AddNumberToObject(s, "id", (double)f->settled.finding);
		add_text_or_null(s, "phase", phase_name((size_t)f->settled.phase));
		cJSON_AddStringToObject(s, "status", status_name(f->settled.status));
		if (f->settled.checkpoint)
			cJSON_AddNumberToObject(s, "checkpoint", (double)f->settled.checkpoint);
		else
			cJSON_AddNullToObject(s, "checkpoint");
	}
	return o;
}

/* Appends text[from, to) with runs of white space folded to one space. */
static void add_folded(sbuf *b, const char *text, size_t from, size_t to)
{
	int in_space = 0;
	for (size_t i = from; i < to; i++) {
		char c = text[i];
		if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
			in_space = 1;
			continue;
		}
		if (in_space && b->len)
			sbuf_addc(b, ' ');
		in_space = 0;
		sbuf_addc(b, c);
	}
}

char *finding_fingerprint(const char *plugin, const char *file, const char *text, size_t len,
                          size_t start, size_t end, const char *key)
{
	sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, "%s\n%s\n%s\n", plugin, file ? file : "", key ? key : "");
	if (text && start <= end && end <= len) {
		/* context: the line before, the matched line(s), the line after */
		size_t from = start, to = end;
		int nl = 0;
		while (from > 0 && nl < 2) {
			if (text[from - 1] == '\n')
				nl++;
			if (nl < 2)
				from--;
		}
		nl = 0;
		while (to < len && nl < 2) {
			if (text[to] == '\n')
				nl++;
			to++;
		}
		add_folded(&b, text, start, end);
		sbuf_addc(&b, '\n');
		add_folded(&b, text, from, to);
	}
	char hex[65];
	util_sha256_hex(hex, b.buf, b.len);
	sbuf_done(&b);
	return xstrndup(hex, 24);
}

char *finding_anchor(const char *plugin, const char *file, const char *text, size_t len, size_t start,
                     size_t end, const char *key)
{
	sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, "anchor\n%s\n%s\n%s\n", plugin, file ? file : "", key ? key : "");
	if (text && start <= end && end <= len)
		add_folded(&b, text, start, end);
	char hex[65];
	util_sha256_hex(hex, b.buf, b.len);
	sbuf_done(&b);
	return xstrndup(hex, 24);
}

char *finding_construct(const char *file, const char *text, size_t len, size_t start, size_t end)
{
	return finding_fingerprint("", file, text, len, start, end, NULL);
}
