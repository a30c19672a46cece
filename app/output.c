/* output — see output.h. */
#include "output.h"
#include "json.h"
#include "err.h"
#include "safetext.h"
#include "intl.h"
#include "text.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
		/* the severity in the reader's language, padded by display width (CJK takes two columns) */
		char *sev = text_cell(_(json_str(f, "severity")), 7, 0);
		sbuf_addf(b, "#%-5lld %s %-30s ", json_int(f, "id"), sev, json_str(f, "plugin"));
		free(sev);
		/* file names come from the client's disk and messages from plugins: a terminal
		 * shows their control characters escaped */
		safetext_add_terminal(b, *file ? file : "(project)");
		if (*file && json_int(f, "line") > 0)
			sbuf_addf(b, ":%lld:%lld", json_int(f, "line"), json_int(f, "col"));
		if (strcmp(json_str(f, "status"), "open") != 0)
			sbuf_addf(b, "  [%s]", _(json_str(f, "status")));
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")))
			sbuf_addf(b, "  [%s]", _("fixable"));
		sbuf_adds(b, "\n       ");
		safetext_add_terminal(b, json_str(f, "message"));
		sbuf_addc(b, '\n');
		if (*json_str(f, "suggestion")) {
			sbuf_adds(b, "       -> ");
			safetext_add_terminal(b, json_str(f, "suggestion"));
			sbuf_addc(b, '\n');
		}
		const cJSON *w = cJSON_GetObjectItem(f, "waiver");
		if (cJSON_IsObject(w)) {
			sbuf_adds(b, "       ");
			/* TRANSLATORS: "waived by Ann <ann@example.com> at 2026-11-28T10:00:00Z: the reason" */
			char *by = xasprintf(_("waived by %s at %s: "), json_str(w, "actor"), json_str(w, "at"));
			safetext_add_terminal(b, by);
			free(by);
			safetext_add_terminal(b, json_str(w, "reason"));
			if (json_int(w, "carried_from") > 0)
				sbuf_addf(b, _(" (carried from #%lld)"), json_int(w, "carried_from"));
			sbuf_addc(b, '\n');
		}
	}
	if (!n)
		sbuf_adds(b, _("no findings\n"));
}

static const char *const finding_fields[] = { "id", "plugin", "phase", "severity", "category", "file",
	                                           "line", "col", "end_line", "end_col", "message",
	                                           "suggestion", "fixable", "automatic", "status", "fingerprint", "waiver", "settled_by", NULL };

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

/* The vendor's public guide for a phase's checks (the pages the fact tables cite), or
 * NULL where no page covers the phase. */
static const char *sarif_help_uri(const char *phase)
{
	static const struct { const char *phase, *uri; } pages[] = {
		/* PyTorch training migration guide (cited in plugins/data/cuda_api_map.json) */
		{ "assess", "https://www.hiascend.com/document/detail/zh/Pytorch/700/ptmoddevg/trainingmigrguide/PT_LMTMOG_0014.html" },
		{ "adapt", "https://www.hiascend.com/document/detail/zh/Pytorch/700/ptmoddevg/trainingmigrguide/PT_LMTMOG_0014.html" },
		/* CANN release notes, version mapping (cited in plugins/data/cann_driver.json) */
		{ "environment", "https://www.hiascend.com/document/detail/en/canncommercial/850/releasenote/releasenote_0000.html" },
	};
	for (size_t i = 0; phase && i < sizeof pages / sizeof pages[0]; i++)
		if (strcmp(pages[i].phase, phase) == 0)
			return pages[i].uri;
	return NULL;
}

/* The rule for a plugin id; rules unknown to the host (e.g. ferry.source) are described
 * generically. advice (the first result's suggestion, may be empty) is the help text. */
static cJSON *sarif_rule(const char *id, const plugin_info *pi, const char *advice)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "id", id);
	if (pi) {
		const char *about = pi->description ? pi->description : pi->title;
		cJSON_AddStringToObject(r, "name", pi->id);
		cJSON_AddItemToObject(r, "shortDescription", sarif_text(pi->title));
		cJSON_AddItemToObject(r, "fullDescription", sarif_text(about));
		cJSON_AddItemToObject(r, "help", sarif_text(advice && *advice ? advice : about));
		if (sarif_help_uri(pi->phase))
			cJSON_AddStringToObject(r, "helpUri", sarif_help_uri(pi->phase));
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

/* The script a project-level finding points at: an entry script the inventory found,
 * else a usual name, else the first Python file, else the first file at the root
 * (malloc'd; NULL for an empty project). */
static char *sarif_entry(const cJSON *findings, const char *root)
{
	static const char *const usual[] = { "train.py", "main.py", "run.py", "pretrain.py", "finetune.py", "setup.py" };
	const cJSON *f;
	struct stat st;
	char *best = NULL, *first_py = NULL, *first = NULL;
	cJSON_ArrayForEach(f, findings) {
		char *path = util_path_join(root, json_str(f, "file"));
		int ok = strcmp(json_str(f, "plugin"), "assess.inventory") == 0 && strstr(json_str(f, "message"), "entry script") &&
		         *json_str(f, "file") && stat(path, &st) == 0 && S_ISREG(st.st_mode);
		free(path);
		if (ok)
			return xstrdup(json_str(f, "file"));
	}
	for (size_t i = 0; i < sizeof usual / sizeof usual[0] && !best; i++) {
		char *path = util_path_join(root, usual[i]);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			best = xstrdup(usual[i]);
		free(path);
	}
	struct dirent **names = NULL;
	int n = best ? 0 : scandir(root, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char *path = util_path_join(root, names[i]->d_name);
		if (names[i]->d_name[0] != '.' && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (!first_py && util_ends_with(names[i]->d_name, ".py"))
				first_py = xstrdup(names[i]->d_name);
			if (!first)
				first = xstrdup(names[i]->d_name);
		}
		free(path);
		free(names[i]);
	}
	free(names);
	if (!best)
		best = first_py ? first_py : first;
	if (best != first_py)
		free(first_py);
	if (best != first)
		free(first);
	return best;
}

/* Characters (code points) in the first bytes of line number line of text, plus one:
 * the 1-based character column of 1-based byte column col (line 1 starting after a
 * byte-order mark, which findings do not count either). */
static long long char_column(const char *text, size_t len, long long line, long long col)
{
	size_t at = util_utf8_bom(text, len);
	for (long long l = 1; l < line && at < len; at++)
		l += text[at] == '\n';
	long long chars = 1;
	for (size_t i = at; i < len && i < at + (size_t)(col - 1) && text[i] != '\n'; i++)
		chars += ((unsigned char)text[i] & 0xC0) != 0x80;
	return chars;
}

static void set_number(cJSON *f, const char *key, long long v)
{
	cJSON_ReplaceItemInObject(f, key, cJSON_CreateNumber((double)v));
}

void output_sarif_locate(cJSON *findings, const char *root)
{
	char *entry = NULL, *cached = NULL, *text = NULL;
	size_t len = 0;
	int looked = 0;
	cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		const char *file = json_str(f, "file");
		char *path = util_path_join(root, file);
		struct stat st;
		int exists = *file && stat(path, &st) == 0 && S_ISREG(st.st_mode);
		free(path);
		if (!exists) {
			if (!looked)
				entry = sarif_entry(findings, root);
			looked = 1;
			if (!entry)
				continue;
			cJSON_ReplaceItemInObject(f, "file", cJSON_CreateString(entry));
			set_number(f, "line", 1);
			set_number(f, "col", 0);
			set_number(f, "end_line", 0);
			set_number(f, "end_col", 0);
			continue;
		}
		if (json_int(f, "line") <= 0 || (json_int(f, "col") <= 0 && json_int(f, "end_col") <= 0))
			continue;
		if (!cached || strcmp(cached, file) != 0) {
			free(cached);
			free(text);
			text = NULL;
			len = 0;
			cached = xstrdup(file);
			char *abs = util_path_join(root, file);
			if (util_read_file(&text, &len, abs) != 0)
				text = NULL;
			free(abs);
		}
		if (!text)
			continue;
		if (json_int(f, "col") > 0)
			set_number(f, "col", char_column(text, len, json_int(f, "line"), json_int(f, "col")));
		if (json_int(f, "end_col") > 0 && json_int(f, "end_line") > 0)
			set_number(f, "end_col", char_column(text, len, json_int(f, "end_line"), json_int(f, "end_col")));
	}
	free(entry);
	free(cached);
	free(text);
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
	/* every location is relative to the project root */
	cJSON *base = cJSON_AddObjectToObject(cJSON_AddObjectToObject(run, "originalUriBaseIds"), "%SRCROOT%");
	cJSON_AddItemToObject(base, "description", sarif_text("the root of the migrated project"));
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
			cJSON_AddItemToArray(rules, sarif_rule(rid, info, json_str(f, "suggestion")));
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
			{ /* a region always: code scanning needs one (line 1 for a whole file) */
				cJSON *reg = cJSON_AddObjectToObject(phys, "region");
				cJSON_AddNumberToObject(reg, "startLine", (double)(json_int(f, "line") > 0 ? json_int(f, "line") : 1));
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

void output_sarif_invocations(sbuf *b, const char *const *plugins, const char *const *messages, size_t n)
{
	cJSON *log = b->len ? cJSON_ParseWithLength(b->buf, b->len) : NULL;
	cJSON *run = cJSON_GetArrayItem(cJSON_GetObjectItem(log, "runs"), 0);
	if (!run) {
		cJSON_Delete(log);
		return;
	}
	cJSON *inv = cJSON_CreateObject();
	cJSON_AddItemToArray(cJSON_AddArrayToObject(run, "invocations"), inv);
	cJSON_AddBoolToObject(inv, "executionSuccessful", n == 0);
	cJSON *notes = cJSON_AddArrayToObject(inv, "toolExecutionNotifications");
	for (size_t i = 0; i < n; i++) {
		cJSON *note = cJSON_CreateObject();
		cJSON_AddStringToObject(note, "level", "error");
		cJSON_AddItemToObject(note, "message", sarif_text(messages[i]));
		cJSON_AddStringToObject(cJSON_AddObjectToObject(note, "descriptor"), "id", plugins[i]);
		cJSON_AddItemToArray(notes, note);
	}
	char *text = cJSON_Print(log);
	b->len = 0;
	sbuf_adds(b, text);
	sbuf_addc(b, '\n');
	free(text);
	cJSON_Delete(log);
}
