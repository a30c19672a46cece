/* artifact — see artifact.h. */
#include "artifact.h"
#include "bench.h"
#include "compare_loss.h"
#include "ptfile.h"
#include "profile.h"
#include "err.h"
#include "intl.h"
#include "onnx.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const artifact_kinds[] = { ARTIFACT_KINDS(ARTIFACT_KIND_NAME, ARTIFACT_KIND_COMMA), NULL };

static int has_nul(const char *data, size_t len) { return memchr(data, '\0', len) != NULL; }

/* data parsed as one JSON document (*out, caller frees), or the reason it is none. */
static int parse_json(const char *name, const char *data, size_t len, cJSON **out)
{
	if (has_nul(data, len))
		return err_set(FERRY_ECORRUPT, _("%s: binary data where a JSON document was expected"), name);
	const char *end = NULL;
	*out = cJSON_ParseWithLengthOpts(data, len, &end, 0);
	if (!*out) {
		size_t off = end ? (size_t)(end - data) : 0;
		return err_set(FERRY_ECORRUPT, _("%s: not valid JSON (broken or truncated near byte %zu)"), name, off);
	}
	return 0;
}

/* A JSON document whose "schema" starts with prefix. */
static int validate_json_schema(const char *name, const char *data, size_t len, const char *prefix,
                                cJSON **out)
{
	cJSON *doc = NULL;
	int rc = parse_json(name, data, len, &doc);
	if (rc)
		return rc;
	const cJSON *schema = cJSON_GetObjectItem(doc, "schema");
	if (!cJSON_IsObject(doc) || !cJSON_IsString(schema) || !util_starts_with(schema->valuestring, prefix)) {
		cJSON_Delete(doc);
		return err_set(FERRY_ECORRUPT, _("%s: not a %s document (its \"schema\" field is missing or different)"), name,
		               prefix);
	}
	if (out)
		*out = doc;
	else
		cJSON_Delete(doc);
	return 0;
}

static int validate_env_probe(const char *name, const char *data, size_t len)
{
	cJSON *doc = NULL;
	int rc = validate_json_schema(name, data, len, "ferry-env-probe/", &doc);
	if (rc)
		return rc;
	static const char *const sections[] = { "host", "python", "npu", "env", NULL };
	for (size_t i = 0; sections[i]; i++)
		if (!cJSON_IsObject(cJSON_GetObjectItem(doc, sections[i]))) {
			rc = err_set(FERRY_ECORRUPT, _("%s: environment probe without its \"%s\" section (truncated?)"), name,
			             sections[i]);
			goto out;
		}
	/* optional parts the environment checks read: when present, of the right shape */
	static const char *const objects[] = { "cann", "driver", NULL };
	for (size_t i = 0; objects[i]; i++) {
		const cJSON *o = cJSON_GetObjectItem(doc, objects[i]);
		if (o && !cJSON_IsObject(o)) {
			rc = err_set(FERRY_ECORRUPT, _("%s: environment probe whose \"%s\" is not an object"), name, objects[i]);
			goto out;
		}
	}
	const cJSON *missing = cJSON_GetObjectItem(doc, "missing");
	if (missing && !cJSON_IsArray(missing)) {
		rc = err_set(FERRY_ECORRUPT, _("%s: environment probe whose \"missing\" is not a list"), name);
		goto out;
	}
	const cJSON *chips = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "npu"), "chips");
	if (chips && !cJSON_IsArray(chips)) {
		rc = err_set(FERRY_ECORRUPT, _("%s: environment probe whose npu \"chips\" is not a list"), name);
		goto out;
	}
	const cJSON *chip;
	cJSON_ArrayForEach(chip, chips)
	{
		if (!cJSON_IsObject(chip)) {
			rc = err_set(FERRY_ECORRUPT, _("%s: environment probe with an npu chip that is not an object"), name);
			goto out;
		}
	}
	const cJSON *packages = cJSON_GetObjectItem(cJSON_GetObjectItem(doc, "python"), "packages");
	if (packages && !cJSON_IsObject(packages)) {
		rc = err_set(FERRY_ECORRUPT, _("%s: environment probe whose python \"packages\" is not an object"), name);
		goto out;
	}
out:
	cJSON_Delete(doc);
	return rc;
}

/* A benchmark: a ferry-bench/1 document, an ais_bench / msit benchmark summary JSON
 * (--output: {"NPU_compute_time": {"mean": …}, "throughput": …}), or the Performance
 * Summary it prints. */
/* scripts/first_step.py's result: its steps in order, each named and passed or not. */
static int validate_first_step(const char *name, const char *data, size_t len)
{
	cJSON *doc = NULL;
	int rc = validate_json_schema(name, data, len, "ferry-first-step/", &doc);
	if (rc)
		return rc;
	const cJSON *steps = cJSON_GetObjectItem(doc, "steps"), *step;
	if (!cJSON_IsBool(cJSON_GetObjectItem(doc, "ok")) || !cJSON_IsString(cJSON_GetObjectItem(doc, "device")) ||
	    !cJSON_IsArray(steps) || !steps->child)
		rc = err_set(FERRY_ECORRUPT, _("%s: first-step result without its \"ok\", \"device\" or \"steps\" (truncated?)"),
		             name);
	for (step = rc ? NULL : steps->child; step; step = step->next)
		if (!cJSON_IsString(cJSON_GetObjectItem(step, "name")) || !cJSON_IsBool(cJSON_GetObjectItem(step, "ok"))) {
			rc = err_set(FERRY_ECORRUPT, _("%s: a first-step step without its \"name\" or \"ok\""), name);
			break;
		}
	cJSON_Delete(doc);
	return rc;
}

/* msaccucmp's JSON of an offline model's overflow data (OpDebug): at least one unit's
 * section with the AI Core status register it records. */
static int validate_overflow(const char *name, const char *data, size_t len)
{
	cJSON *doc = NULL;
	int rc = parse_json(name, data, len, &doc);
	if (rc)
		return rc;
	static const char *const units[] = { "AI Core", "DHA Atomic Add", "L2 Atomic Add", NULL };
	int found = 0;
	for (size_t i = 0; units[i]; i++)
		found |= cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetObjectItem(doc, units[i]), "status"));
	cJSON_Delete(doc);
	if (!found)
		return err_set(FERRY_ECORRUPT,
		               _("%s: not overflow data converted by msaccucmp (no \"AI Core\", \"DHA Atomic Add\" or "
		                 "\"L2 Atomic Add\" section with a numeric \"status\")"),
		               name);
	return 0;
}

static int validate_bench(const char *name, const char *data, size_t len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)data[i]))
		i++;
	if (i < len && data[i] != '{' && !has_nul(data, len)) {
		cJSON *summary = bench_decode(data, len); /* the Performance Summary ais_bench prints */
		int found = summary != NULL;
		cJSON_Delete(summary);
		if (!found)
			return err_set(FERRY_ECORRUPT,
			               _("%s: not a benchmark (neither ferry-bench/1 JSON, an ais_bench summary.json nor "
			               "ais_bench's printed \"Performance Summary\")"),
			               name);
		return 0;
	}
	cJSON *doc = cJSON_ParseWithLength(data, len);
	const cJSON *npu = cJSON_GetObjectItem(doc, "NPU_compute_time");
	int ais = cJSON_IsObject(doc) && !cJSON_GetObjectItem(doc, "schema") &&
	          cJSON_IsNumber(cJSON_GetObjectItem(npu, "mean")) && cJSON_IsNumber(cJSON_GetObjectItem(doc, "throughput"));
	cJSON_Delete(doc);
	if (ais)
		return 0;
	int rc = validate_json_schema(name, data, len, "ferry-bench/", &doc);
	if (rc)
		return rc;
	const cJSON *m = cJSON_GetObjectItem(doc, "metrics"), *w = cJSON_GetObjectItem(doc, "workload");
	if (w && !(cJSON_IsString(w) && bench_workload_parse(w->valuestring) >= 0))
		rc = err_set(FERRY_ECORRUPT, _("%s: \"workload\" is \"training\" or \"inference\""), name);
	else if (!cJSON_IsObject(m) || !m->child)
		rc = err_set(FERRY_ECORRUPT, _("%s: benchmark without \"metrics\" (accuracy, throughput …)"), name);
	for (const cJSON *v = m ? m->child : NULL; !rc && v; v = v->next)
		if (!cJSON_IsNumber(v))
			rc = err_set(FERRY_ECORRUPT, _("%s: metric \"%s\" is not a number"), name, v->string);
		else if (!isfinite(v->valuedouble)) /* 1e400 parses as infinity */
			rc = err_set(FERRY_ECORRUPT, _("%s: metric \"%s\" is not a finite number"), name, v->string);
		else if (strcmp(v->string, "throughput") == 0 && !(v->valuedouble > 0))
			rc = err_set(FERRY_ECORRUPT, _("%s: throughput %g is no measurement (a run measures more than 0)"),
			             name, v->valuedouble);
	cJSON_Delete(doc);
	return rc;
}

/* A text log: UTF-8-ish (no NUL bytes) and not empty. */
int artifact_validate_text(const char *name, const char *data, size_t len)
{
	if (!len)
		return err_set(FERRY_ECORRUPT, _("%s: the log is empty"), name);
	if (has_nul(data, len))
		return err_set(FERRY_ECORRUPT, _("%s: binary data where a text log was expected"), name);
	return 0;
}

/* Finds a "loss" number on a line: loss=1.23, loss: 1.23, 'loss': 1.23, "loss" 1.23 */
static int line_has_loss(const char *s, size_t n)
{
	for (size_t i = 0; i + 4 <= n; i++) {
		if (strncasecmp(s + i, "loss", 4) != 0)
			continue;
		size_t k = i + 4;
		while (k < n && (s[k] == '"' || s[k] == '\'' || s[k] == ' ' || s[k] == ':' || s[k] == '=' || s[k] == '\t'))
			k++;
		if (k < n && (isdigit((unsigned char)s[k]) || ((s[k] == '-' || s[k] == '.') && k + 1 < n &&
		                                                 isdigit((unsigned char)s[k + 1]))))
			return 1;
	}
	return 0;
}

/* A loss log is read by the reader `ferry compare loss` uses, so ingest takes what the
 * comparison reads and refuses what it refuses (a CSV export, a trainer_state.json cut
 * short). Several loss columns are fine here: the comparison's --column chooses. */
static int validate_loss_log(const char *name, const char *data, size_t len)
{
	int rc = artifact_validate_text(name, data, len);
	if (rc)
		return rc;
	loss_series s;
	rc = loss_parse(&s, name, data, len, NULL);
	loss_series_done(&s);
	if (rc == FERRY_EUSAGE) { /* several loss columns: a --column question, not bad input */
		err_clear();
		rc = 0;
	}
	return rc;
}

/* An ONNX ModelProto, read by the one ONNX reader (onnx.h): every message of the model
 * decodes, ir_version and graph are present; weights are skipped, not read, so a model of
 * any size is walked with bounded memory. */
static int validate_onnx_source(const char *name, const artifact_source *src)
{
	onnx_model *m = NULL;
	int rc = onnx_read(&m, name, src);
	onnx_model_free(m);
	return rc;
}

long long artifact_mem_read_at(void *ctx, unsigned long long off, void *buf, size_t n)
{
	const artifact_mem *m = ctx;
	if (off >= m->len)
		return 0;
	if (n > m->len - off)
		n = (size_t)(m->len - off);
	if (m->piece && n > m->piece)
		n = m->piece;
	memcpy(buf, (const char *)m->data + off, n);
	return (long long)n;
}

static int validate_onnx(const char *name, const char *data, size_t len)
{
	artifact_mem m = { data, len, 0 };
	artifact_source src = { artifact_mem_read_at, &m, len };
	return validate_onnx_source(name, &src);
}

/* A dump: a .npy array, a torch.save file (its tensors are checked by ptfile where it is
 * read from disk: ingest and compare), or an msprobe dump.json. */
static int validate_dump(const char *name, const char *data, size_t len)
{
	if (len >= 4 && memcmp(data, "PK\x03\x04", 4) == 0)
		return 0;
	if (len >= 10 && memcmp(data, "\x93NUMPY", 6) == 0) {
		unsigned major = (unsigned char)data[6];
		size_t hlen = major == 1 ? (size_t)(unsigned char)data[8] | (size_t)(unsigned char)data[9] << 8
		            : len >= 12 ? (size_t)(unsigned char)data[8] | (size_t)(unsigned char)data[9] << 8 |
		                              (size_t)(unsigned char)data[10] << 16 | (size_t)(unsigned char)data[11] << 24
		                        : 0;
		size_t hstart = major == 1 ? 10 : 12;
		if ((major < 1 || major > 3) || hlen == 0 || hstart + hlen > len)
			return err_set(FERRY_ECORRUPT, _("%s: truncated .npy header"), name);
		if (!memmem(data + hstart, hlen, "descr", 5) || !memmem(data + hstart, hlen, "shape", 5))
			return err_set(FERRY_ECORRUPT, _("%s: .npy header without descr/shape"), name);
		return 0;
	}
	if (ptfile_is_legacy((const unsigned char *)data, len))
		return ptfile_refuse_legacy(name);
	if (has_nul(data, len))
		return err_set(FERRY_ECORRUPT, _("%s: neither a .npy array, a .pt file nor a dump.json"), name);
	cJSON *doc = cJSON_ParseWithLength(data, len);
	int ok = cJSON_IsObject(doc) && cJSON_IsObject(cJSON_GetObjectItem(doc, "data"));
	cJSON_Delete(doc);
	if (!ok)
		return err_set(FERRY_ECORRUPT, _("%s: not a dump (expected a .npy array or an msprobe dump.json with \"data\")"),
		               name);
	return 0;
}

/* A trace profile of any size, streamed by profile.c: refused when it is no trace or
 * breaks off before its first event; one cut off later (a profiler killed while writing)
 * is kept, and the check says where its data ends. */
static int trace_verdict(const char *name, int rc, profile *p)
{
	if (!rc && !p->rows)
		rc = p->stopped ? err_set(FERRY_ECORRUPT, _("%s: not a trace (%s)"), name, p->stopped)
		                : err_set(FERRY_ECORRUPT, _("%s: a trace without events"), name);
	profile_free(p);
	return rc;
}

/* 1 when s[0..n) holds anything but white space: a row after a CSV header. */
static int has_text_after(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isspace((unsigned char)s[i]))
			return 1;
	return 0;
}

/* A profile: a Chrome trace (JSON array or {"traceEvents":[…]}) or a CSV with a header
 * and at least one row (a header alone measured nothing: judged, it would pass). */
static int validate_profile(const char *name, const char *data, size_t len)
{
	if (!len || has_nul(data, len))
		return err_set(FERRY_ECORRUPT, _("%s: empty or binary; expected a trace JSON or a CSV table"), name);
	size_t i = 0;
	while (i < len && isspace((unsigned char)data[i]))
		i++;
	if (i < len && (data[i] == '[' || data[i] == '{')) {
		profile *p = NULL;
		artifact_mem m = { data, len, 0 };
		artifact_source src = { artifact_mem_read_at, &m, len };
		int rc = profile_read(&p, name, &src);
		return trace_verdict(name, rc, p);
	}
	const char *nl = memchr(data, '\n', len);
	if (!nl || !memchr(data, ',', (size_t)(nl - data)))
		return err_set(FERRY_ECORRUPT, _("%s: not a CSV table (no header line with columns)"), name);
	if (!has_text_after(nl + 1, len - (size_t)(nl + 1 - data)))
		return err_set(FERRY_ECORRUPT, _("%s: a CSV table without data rows (only its header)"), name);
	return 0;
}

/* text logs need no more than artifact_validate_text */
#define validate_atc_log artifact_validate_text
#define validate_run_log artifact_validate_text

typedef enum { FORM_JSON, FORM_TEXT, FORM_LOSS, FORM_SNIFFED, FORM_ONNX } kind_form;

static const struct kind_def {
	const char *kind;
	kind_form form;
	int (*validate)(const char *name, const char *data, size_t len);
} kinds[] = {
#define KIND_ROW(name, id, form) { name, FORM_##form, validate_##id }
	ARTIFACT_KINDS(KIND_ROW, ARTIFACT_KIND_COMMA),
#undef KIND_ROW
	{ NULL, FORM_TEXT, NULL },
};

static const struct kind_def *kind_find(const char *kind)
{
	for (const struct kind_def *k = kinds; k->kind; k++)
		if (strcmp(k->kind, kind) == 0)
			return k;
	return NULL;
}

int artifact_kind_known(const char *kind) { return kind_find(kind) != NULL; }

int artifact_validate(const char *kind, const char *name, const char *data, size_t len)
{
	const struct kind_def *k = kind_find(kind);
	if (k)
		return k->validate(name, data, len);
	return err_set(FERRY_EUSAGE, _("ingest %s: unknown kind (%s)"), kind, ARTIFACT_KIND_LIST(", "));
}

/* ---- artifacts of any size ---------------------------------------------------------- */

#define HEAD_BYTES ((size_t)1 << 20) /* what the kind of a large dump or profile is told by */
#define LINE_MAX_SCAN 4096           /* a loss line is looked for in a line's first bytes */
#define LOSS_PARSE_MAX ((unsigned long long)256 << 20) /* larger loss logs are scanned line by line */

/* Reads [0, n) of src into a malloc'd buffer (*out, caller frees). */
static int read_head(char **out, size_t *len, const char *name, const artifact_source *src, size_t n)
{
	if (n > src->size)
		n = (size_t)src->size;
	char *buf = xmalloc(n + 1);
	size_t got = 0;
	while (got < n) {
		long long r = src->read_at(src->ctx, got, buf + got, n - got);
		if (r < 0) {
			free(buf);
			return err_set(FERRY_EIO, _("%s: read error at byte %zu"), name, got);
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	*out = buf;
	*len = got;
	return 0;
}

/* Scans a text artifact whole: not empty, no NUL byte; with need_loss, at least one
 * line carries a loss value; with need_header, its first line has columns and some line
 * after it holds data. */
static int validate_text_source(const char *name, const artifact_source *src, int need_loss, int need_header)
{
	if (!src->size)
		return err_set(FERRY_ECORRUPT, _("%s: the log is empty"), name);
	char *buf = xmalloc(HEAD_BYTES);
	char line[LINE_MAX_SCAN];
	size_t line_len = 0;
	int found_loss = !need_loss, first_line = 1, found_row = !need_header, rc = 0;
	for (unsigned long long off = 0; !rc && off < src->size;) {
		size_t want = src->size - off < HEAD_BYTES ? (size_t)(src->size - off) : HEAD_BYTES;
		long long got = src->read_at(src->ctx, off, buf, want);
		if (got <= 0) {
			rc = got < 0 ? err_set(FERRY_EIO, _("%s: read error at byte %llu"), name, off)
			             : err_set(FERRY_ECORRUPT, _("%s: shorter than its size (%llu of %llu bytes)"), name, off,
			                       src->size);
			break;
		}
		const char *nul = memchr(buf, '\0', (size_t)got);
		if (nul) {
			rc = err_set(FERRY_ECORRUPT, _("%s: binary data where a text log was expected (a NUL byte at byte %llu)"),
			             name, off + (unsigned long long)(nul - buf));
			break;
		}
		for (size_t i = 0; (!found_loss || first_line || !found_row) && i < (size_t)got; i++) {
			if (!first_line && !found_row && !isspace((unsigned char)buf[i]))
				found_row = 1;
			if (buf[i] != '\n') {
				if (line_len < sizeof line)
					line[line_len++] = buf[i];
				continue;
			}
			if (first_line && need_header && !memchr(line, ',', line_len))
				rc = err_set(FERRY_ECORRUPT, _("%s: not a CSV table (no header line with columns)"), name);
			first_line = 0;
			found_loss |= line_has_loss(line, line_len);
			line_len = 0;
		}
		off += (unsigned long long)got;
	}
	if (!rc && first_line && need_header)
		rc = err_set(FERRY_ECORRUPT, _("%s: not a CSV table (no header line with columns)"), name);
	if (!rc && !found_row)
		rc = err_set(FERRY_ECORRUPT, _("%s: a CSV table without data rows (only its header)"), name);
	if (!rc && !found_loss && !line_has_loss(line, line_len))
		rc = err_set(FERRY_ECORRUPT, _("%s: no loss values found (expected lines such as \"step 10 loss 2.31\")"), name);
	free(buf);
	return rc;
}

int artifact_validate_source(const char *kind, const char *name, const artifact_source *src)
{
	const struct kind_def *k = kind_find(kind);
	if (!k)
		return artifact_validate(kind, name, "", 0); /* the unknown-kind error */
	if (k->form == FORM_ONNX)
		return validate_onnx_source(name, src);
	if (k->form == FORM_LOSS && src->size <= LOSS_PARSE_MAX) {
		/* whole, through the comparison's reader */
		char *text = NULL;
		size_t n = 0;
		int rc = read_head(&text, &n, name, src, (size_t)src->size);
		if (!rc && n < src->size)
			rc = err_set(FERRY_ECORRUPT, _("%s: shorter than its size (%zu of %llu bytes)"), name, n, src->size);
		if (!rc)
			rc = validate_loss_log(name, text, n);
		free(text);
		return rc;
	}
	if (k->form == FORM_LOSS || k->form == FORM_TEXT)
		return validate_text_source(name, src, k->form == FORM_LOSS, 0);
	char *head = NULL;
	size_t n = 0;
	int rc = 0;
	if (k->form == FORM_SNIFFED) {
		/* a dump or a profile: its first bytes tell a .npy array or a CSV from JSON */
		if ((rc = read_head(&head, &n, name, src, HEAD_BYTES)))
			return rc;
		size_t i = 0;
		while (i < n && isspace((unsigned char)head[i]))
			i++;
		int json = i < n && (head[i] == '[' || head[i] == '{');
		if (!json && strcmp(kind, "dump") == 0)
			rc = (n >= 6 && memcmp(head, "\x93NUMPY", 6) == 0) || (n >= 4 && memcmp(head, "PK\x03\x04", 4) == 0)
			         ? validate_dump(name, head, n)
			     : ptfile_is_legacy((const unsigned char *)head, n)
			         ? ptfile_refuse_legacy(name)
			         : err_set(FERRY_ECORRUPT, _("%s: neither a .npy array, a .pt file nor a dump.json"), name);
		else if (!json)
			rc = validate_text_source(name, src, 0, 1);
		free(head);
		if (!json)
			return rc;
		if (strcmp(kind, "profile") == 0) {
			profile *p = NULL;
			rc = profile_read(&p, name, src);
			return trace_verdict(name, rc, p);
		}
	}
	if (src->size > ARTIFACT_JSON_LIMIT)
		return err_set(FERRY_ECORRUPT,
		               _("%s: %llu MiB, larger than the %llu MiB up to which ferry validates a %s JSON document; "
		               "not ingested"),
		               name, src->size >> 20, ARTIFACT_JSON_LIMIT >> 20, kind);
	if ((rc = read_head(&head, &n, name, src, (size_t)src->size)))
		return rc;
	rc = n < src->size ? err_set(FERRY_ECORRUPT, _("%s: shorter than its size (%zu of %llu bytes)"), name, n, src->size)
	                   : artifact_validate(kind, name, head, n);
	free(head);
	return rc;
}
