/* output — see output.h. */
#include "output.h"
#include "json.h"
#include "err.h"

#include <stdlib.h>
#include <string.h>

void output_json(FILE *f, const cJSON *v)
{
	char *text = cJSON_Print(v);
	fputs(text, f);
	fputc('\n', f);
	free(text);
}

int output_emit(const sbuf *b, const char *path)
{
	if (!path || strcmp(path, "-") == 0) {
		fwrite(b->buf, 1, b->len, stdout);
		return 0;
	}
	return util_write_atomic(path, b->buf, b->len, 0644);
}

void output_findings_text(sbuf *b, const cJSON *findings)
{
	const cJSON *f;
	int n = 0;
	cJSON_ArrayForEach(f, findings) {
		n++;
		const char *file = json_str(f, "file");
		sbuf_addf(b, "#%-5lld %-7s %-30s ", json_int(f, "id"), json_str(f, "severity"), json_str(f, "plugin"));
		if (*file && json_int(f, "line") > 0)
			sbuf_addf(b, "%s:%lld:%lld", file, json_int(f, "line"), json_int(f, "col"));
		else if (*file)
			sbuf_adds(b, file);
		else
			sbuf_adds(b, "(project)");
		if (strcmp(json_str(f, "status"), "open") != 0)
			sbuf_addf(b, "  [%s]", json_str(f, "status"));
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")))
			sbuf_adds(b, "  [fixable]");
		sbuf_addf(b, "\n       %s\n", json_str(f, "message"));
		if (*json_str(f, "suggestion"))
			sbuf_addf(b, "       -> %s\n", json_str(f, "suggestion"));
		const cJSON *w = cJSON_GetObjectItem(f, "waiver");
		if (cJSON_IsObject(w)) {
			sbuf_addf(b, "       waived by %s at %s: %s", json_str(w, "actor"), json_str(w, "at"), json_str(w, "reason"));
			if (json_int(w, "carried_from") > 0)
				sbuf_addf(b, " (carried from #%lld)", json_int(w, "carried_from"));
			sbuf_addc(b, '\n');
		}
	}
	if (!n)
		sbuf_adds(b, "no findings\n");
}

static const char *const finding_fields[] = { "id", "plugin", "phase", "severity", "category", "file",
	                                           "line", "col", "end_line", "end_col", "message",
	                                           "suggestion", "fixable", "automatic", "status", "fingerprint", "waiver", NULL };

void output_findings_json(sbuf *b, const cJSON *findings, long long run, const char *const *errors,
                          size_t nerrors)
{
	cJSON *doc = cJSON_CreateObject();
	if (run)
		cJSON_AddNumberToObject(doc, "run", (double)run);
	cJSON *arr = cJSON_AddArrayToObject(doc, "findings");
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		cJSON *o = cJSON_CreateObject();
		for (size_t i = 0; finding_fields[i]; i++) {
			const cJSON *v = cJSON_GetObjectItem(f, finding_fields[i]);
			cJSON_AddItemToObject(o, finding_fields[i], v ? cJSON_Duplicate(v, 1) : cJSON_CreateNull());
		}
		cJSON_AddItemToArray(arr, o);
	}
	cJSON *errs = cJSON_AddArrayToObject(doc, "plugin_errors");
	for (size_t i = 0; i < nerrors; i++)
		cJSON_AddItemToArray(errs, cJSON_CreateString(errors[i]));
	char *text = cJSON_Print(doc);
	sbuf_adds(b, text);
	sbuf_addc(b, '\n');
	free(text);
	cJSON_Delete(doc);
}

static const char *sarif_level(const char *severity)
{
	return strcmp(severity, "error") == 0 ? "error" : strcmp(severity, "warning") == 0 ? "warning" : "note";
}

static cJSON *sarif_text(const char *text)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "text", text && *text ? text : "-");
	return o;
}

/* The rule for a plugin id; rules unknown to the host (e.g. ferry.source) are described generically. */
static cJSON *sarif_rule(const char *id, const plugin_info *pi)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "id", id);
	if (pi) {
		cJSON_AddStringToObject(r, "name", pi->id);
		cJSON_AddItemToObject(r, "shortDescription", sarif_text(pi->title));
		cJSON_AddItemToObject(r, "fullDescription", sarif_text(pi->description ? pi->description : pi->title));
		cJSON_AddItemToObject(r, "help", sarif_text(pi->description ? pi->description : pi->title));
		cJSON *cfg = cJSON_AddObjectToObject(r, "defaultConfiguration");
		cJSON_AddStringToObject(cfg, "level", sarif_level(pi->severity));
		cJSON *props = cJSON_AddObjectToObject(r, "properties");
		cJSON_AddStringToObject(props, "phase", pi->phase);
	} else {
		cJSON_AddItemToObject(r, "shortDescription", sarif_text("source file problem"));
		cJSON_AddItemToObject(r, "help", sarif_text("A project file could not be read or parsed; fix or exclude it."));
	}
	return r;
}

void output_sarif(sbuf *b, const cJSON *findings, const plugin_host *h, const char *version)
{
	size_t np = 0;
	const plugin_info *pi = h ? plugin_host_plugins(h, &np) : NULL;
	cJSON *log = cJSON_CreateObject();
	cJSON_AddStringToObject(log, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
	cJSON_AddStringToObject(log, "version", "2.1.0");
	cJSON *run = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(log, "runs"), run);
	cJSON *driver = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "tool"), "driver");
	cJSON_AddStringToObject(driver, "name", "ferry");
	cJSON_AddStringToObject(driver, "version", version);
	cJSON *rules = cJSON_AddArrayToObject(driver, "rules");
	cJSON *index = cJSON_CreateObject(); /* rule id → index */
	cJSON *results = cJSON_AddArrayToObject(run, "results");
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		const char *rid = json_str(f, "plugin");
		if (!cJSON_GetObjectItem(index, rid)) {
			const plugin_info *info = NULL;
			for (size_t i = 0; i < np; i++)
				if (strcmp(pi[i].id, rid) == 0)
					info = &pi[i];
			cJSON_AddNumberToObject(index, rid, cJSON_GetArraySize(rules));
			cJSON_AddItemToArray(rules, sarif_rule(rid, info));
		}
		cJSON *res = cJSON_CreateObject();
		cJSON_AddStringToObject(res, "ruleId", rid);
		cJSON_AddNumberToObject(res, "ruleIndex", cJSON_GetObjectItem(index, rid)->valuedouble);
		cJSON_AddStringToObject(res, "level", sarif_level(json_str(f, "severity")));
		sbuf msg;
		sbuf_init(&msg);
		sbuf_adds(&msg, json_str(f, "message"));
		if (*json_str(f, "suggestion"))
			sbuf_addf(&msg, " %s", json_str(f, "suggestion"));
		cJSON_AddItemToObject(res, "message", sarif_text(msg.buf));
		sbuf_done(&msg);
		if (*json_str(f, "file")) {
			cJSON *loc = cJSON_CreateObject();
			cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "locations"), loc);
			cJSON *phys = cJSON_AddObjectToObject(loc, "physicalLocation");
			cJSON *art = cJSON_AddObjectToObject(phys, "artifactLocation");
			cJSON_AddStringToObject(art, "uri", json_str(f, "file"));
			cJSON_AddStringToObject(art, "uriBaseId", "%SRCROOT%");
			if (json_int(f, "line") > 0) {
				cJSON *reg = cJSON_AddObjectToObject(phys, "region");
				cJSON_AddNumberToObject(reg, "startLine", (double)json_int(f, "line"));
				if (json_int(f, "col") > 0)
					cJSON_AddNumberToObject(reg, "startColumn", (double)json_int(f, "col"));
				if (json_int(f, "end_line") >= json_int(f, "line"))
					cJSON_AddNumberToObject(reg, "endLine", (double)json_int(f, "end_line"));
				if (json_int(f, "end_col") > 0 && (json_int(f, "end_line") > json_int(f, "line") || json_int(f, "end_col") > json_int(f, "col")))
					cJSON_AddNumberToObject(reg, "endColumn", (double)json_int(f, "end_col"));
			}
		}
		cJSON *fp = cJSON_AddObjectToObject(res, "partialFingerprints");
		cJSON_AddStringToObject(fp, "ferry/v1", json_str(f, "fingerprint"));
		cJSON *props = cJSON_AddObjectToObject(res, "properties");
		cJSON_AddNumberToObject(props, "findingId", (double)json_int(f, "id"));
		cJSON_AddStringToObject(props, "status", json_str(f, "status"));
		cJSON_AddStringToObject(props, "phase", json_str(f, "phase"));
		if (strcmp(json_str(f, "status"), "waived") == 0) {
			cJSON *sup = cJSON_CreateObject();
			cJSON_AddStringToObject(sup, "kind", "external");
			cJSON_AddStringToObject(sup, "status", "accepted");
			const cJSON *w = cJSON_GetObjectItem(f, "waiver");
			if (cJSON_IsObject(w)) {
				cJSON_AddStringToObject(sup, "justification", json_str(w, "reason"));
				cJSON *wp = cJSON_AddObjectToObject(sup, "properties");
				cJSON_AddStringToObject(wp, "actor", json_str(w, "actor"));
				cJSON_AddStringToObject(wp, "time", json_str(w, "at"));
			}
			cJSON_AddItemToArray(cJSON_AddArrayToObject(res, "suppressions"), sup);
		}
		cJSON_AddItemToArray(results, res);
	}
	cJSON_Delete(index);
	char *text = cJSON_Print(log);
	sbuf_adds(b, text);
	sbuf_addc(b, '\n');
	free(text);
	cJSON_Delete(log);
}
