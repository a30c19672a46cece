/* changes — see changes.h. */
#include "changes.h"
#include "json.h"
#include "err.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The before/after text kept in a row is capped: the diff itself is in the history. */
#define TEXT_CAP 2000

/* Checkpoint kinds whose changes ferry made (and lists). */
static int listed_kind(const char *kind)
{
	return strcmp(kind, "fix") == 0 || strcmp(kind, "generated") == 0 || strcmp(kind, "recovered") == 0;
}

/* Text capped at TEXT_CAP bytes, cut on a UTF-8 boundary, with a marker when cut. */
static cJSON *capped(const char *text)
{
	size_t n = strlen(text);
	if (n <= TEXT_CAP)
		return cJSON_CreateString(text);
	size_t k = TEXT_CAP;
	while (k > 0 && ((unsigned char)text[k] & 0xC0) == 0x80)
		k--;
	char *t = xasprintf("%.*s\n[… %zu more bytes]", (int)k, text, n - k);
	cJSON *v = cJSON_CreateString(t);
	free(t);
	return v;
}

struct hunk_ctx {
	cJSON *rows;            /* where rows go */
	const cJSON *cp;        /* the checkpoint */
	const cJSON *findings;  /* its findings */
};

/* A finding's line falls in the part of the old file this hunk replaced (an insertion
 * counts the line it follows and the one after). */
static int finding_in_hunk(const cJSON *f, const history_hunk *hk)
{
	long long line = json_int(f, "line");
	if (strcmp(json_str(f, "file"), hk->path) != 0)
		return 0;
	if (hk->status == 'A' || hk->status == 'D' || hk->binary || line <= 0)
		return 1;
	long long lo = hk->old_start, hi = hk->old_lines > 0 ? hk->old_start + hk->old_lines - 1 : hk->old_start + 1;
	return line >= lo && line <= hi;
}

static int add_hunk(const history_hunk *hk, void *payload)
{
	struct hunk_ctx *c = payload;
	const char *op;
	int start, end;
	if (hk->binary || (hk->old_lines == 0 && hk->new_lines == 0)) {
		op = hk->status == 'A' ? "INSERT" : hk->status == 'D' ? "DELETE" : "MODIFY";
		start = end = 0;
	} else if (hk->old_lines == 0) {
		op = "INSERT";
		start = hk->new_start;
		end = hk->new_start + hk->new_lines - 1;
	} else if (hk->new_lines == 0) {
		op = "DELETE";
		start = hk->old_start;
		end = hk->old_start + hk->old_lines - 1;
	} else {
		op = "MODIFY";
		start = hk->new_start;
		end = hk->new_start + hk->new_lines - 1;
	}
	cJSON *ids = cJSON_CreateArray();
	sbuf msg, advice;
	sbuf_init(&msg);
	sbuf_init(&advice);
	/* the findings this hunk fixed: by line, else every finding of the checkpoint in this file */
	for (int pass = 0; pass < 2 && !cJSON_GetArraySize(ids); pass++) {
		const cJSON *f;
		cJSON_ArrayForEach(f, c->findings) {
			if (pass == 0 ? !finding_in_hunk(f, hk) : strcmp(json_str(f, "file"), hk->path) != 0)
				continue;
			cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)json_int(f, "id")));
			if (!strstr(msg.buf, json_str(f, "message"))) {
				sbuf_addf(&msg, "%s%s", msg.len ? " | " : "", json_str(f, "message"));
				if (*json_str(f, "suggestion") && !strstr(advice.buf, json_str(f, "suggestion")))
					sbuf_addf(&advice, "%s%s", advice.len ? " | " : "", json_str(f, "suggestion"));
			}
		}
	}
	if (!msg.len) {
		const char *m = json_str(c->cp, "message");
		sbuf_add(&msg, m, strcspn(m, "\n"));
	}
	cJSON *row = cJSON_CreateObject();
	cJSON_AddStringToObject(row, "file", hk->path);
	cJSON_AddNumberToObject(row, "start_line", start);
	cJSON_AddNumberToObject(row, "end_line", end);
	cJSON_AddStringToObject(row, "operation", op);
	cJSON_AddStringToObject(row, "message", msg.buf);
	cJSON_AddStringToObject(row, "advice", advice.buf);
	cJSON_AddStringToObject(row, "plugin", json_str(c->cp, "plugin"));
	cJSON_AddStringToObject(row, "phase", json_str(c->cp, "phase"));
	cJSON_AddItemToObject(row, "findings", ids);
	cJSON_AddNumberToObject(row, "checkpoint", (double)json_int(c->cp, "id"));
	cJSON_AddStringToObject(row, "commit", json_str(c->cp, "commit"));
	cJSON_AddStringToObject(row, "severity", "");
	cJSON_AddItemToObject(row, "before", capped(hk->binary ? "" : hk->old_text));
	cJSON_AddItemToObject(row, "after", capped(hk->binary ? "" : hk->new_text));
	cJSON_AddItemToArray(c->rows, row);
	sbuf_done(&msg);
	sbuf_done(&advice);
	return 0;
}

/* The findings a checkpoint names (its "findings" array of ids). */
static int checkpoint_findings(cJSON **out, store *s, const cJSON *cp)
{
	const cJSON *ids = cJSON_GetObjectItem(cp, "findings"), *v;
	size_t n = 0, k = 0;
	*out = NULL;
	cJSON_ArrayForEach(v, ids)
		n += cJSON_IsNumber(v);
	if (!n) {
		*out = cJSON_CreateArray();
		return 0;
	}
	long long *idv = xcalloc(n, sizeof *idv);
	cJSON_ArrayForEach(v, ids)
		if (cJSON_IsNumber(v))
			idv[k++] = (long long)v->valuedouble;
	store_finding_filter fl = { NULL, NULL, NULL, idv, n, 0 };
	int rc = store_findings(out, s, &fl);
	free(idv);
	return rc;
}

int changes_list(cJSON **out, cJSON **reverted, store *s, history *h)
{
	cJSON *cps = NULL, *rows = cJSON_CreateArray(), *undone_list = cJSON_CreateArray();
	cJSON *undone = cJSON_CreateObject(); /* checkpoint id → id of the revert that undid it */
	*out = NULL;
	if (reverted)
		*reverted = NULL;
	int rc = store_checkpoints(&cps, s);
	if (rc)
		goto out;
	/* newest first: a revert in effect undoes its target; an undone revert undoes nothing */
	const cJSON *cp;
	cJSON_ArrayForEach(cp, cps) {
		char key[32];
		snprintf(key, sizeof key, "%lld", json_int(cp, "id"));
		const cJSON *by = cJSON_GetObjectItem(undone, key);
		if (by) {
			if (listed_kind(json_str(cp, "kind"))) {
				cJSON *r = cJSON_CreateObject();
				cJSON_AddNumberToObject(r, "id", (double)json_int(cp, "id"));
				cJSON_AddStringToObject(r, "commit", json_str(cp, "commit"));
				cJSON_AddStringToObject(r, "plugin", json_str(cp, "plugin"));
				const char *m = json_str(cp, "message");
				char *first = xstrndup(m, strcspn(m, "\n"));
				cJSON_AddStringToObject(r, "message", first);
				free(first);
				cJSON_AddNumberToObject(r, "reverted_by", by->valuedouble);
				cJSON_AddItemToArray(undone_list, r);
			}
			continue;
		}
		if (strcmp(json_str(cp, "kind"), "revert") == 0 && json_int(cp, "reverts") > 0) {
			snprintf(key, sizeof key, "%lld", json_int(cp, "reverts"));
			if (!cJSON_GetObjectItem(undone, key))
				cJSON_AddNumberToObject(undone, key, (double)json_int(cp, "id"));
		}
	}
	/* oldest first, the order the changes were made */
	for (int i = cJSON_GetArraySize(cps) - 1; i >= 0; i--) {
		cp = cJSON_GetArrayItem(cps, i);
		char key[32];
		snprintf(key, sizeof key, "%lld", json_int(cp, "id"));
		if (!listed_kind(json_str(cp, "kind")) || cJSON_GetObjectItem(undone, key))
			continue;
		cJSON *fs = NULL;
		if ((rc = checkpoint_findings(&fs, s, cp)))
			goto out;
		struct hunk_ctx hc = { rows, cp, fs };
		rc = history_diff_hunks(h, json_str(cp, "commit"), add_hunk, &hc);
		cJSON_Delete(fs);
		if (rc) {
			err_prefix("checkpoint %lld", json_int(cp, "id"));
			goto out;
		}
	}
	*out = rows;
	rows = NULL;
	if (reverted) {
		*reverted = undone_list;
		undone_list = NULL;
	}
out:
	cJSON_Delete(cps);
	cJSON_Delete(rows);
	cJSON_Delete(undone);
	cJSON_Delete(undone_list);
	return rc;
}

int changes_unsupported(cJSON **out, store *s)
{
	cJSON *all = NULL, *seen = cJSON_CreateObject();
	store_finding_filter fl = { NULL, "open", NULL, NULL, 0, 0 };
	*out = NULL;
	int rc = store_findings(&all, s, &fl);
	if (rc)
		goto out;
	cJSON *rows = cJSON_CreateArray();
	const cJSON *f;
	cJSON_ArrayForEach(f, all) {
		const char *sev = json_str(f, "severity");
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")) || !*json_str(f, "file") ||
		    (strcmp(sev, "error") != 0 && strcmp(sev, "warning") != 0))
			continue;
		char *key = xasprintf("%s:%lld:%lld:%s", json_str(f, "file"), json_int(f, "line"), json_int(f, "col"),
		                      *json_str(f, "category") ? json_str(f, "category") : json_str(f, "plugin"));
		int dup = cJSON_GetObjectItem(seen, key) != NULL;
		if (!dup)
			cJSON_AddTrueToObject(seen, key);
		free(key);
		if (dup)
			continue;
		cJSON *row = cJSON_CreateObject();
		cJSON_AddStringToObject(row, "file", json_str(f, "file"));
		cJSON_AddNumberToObject(row, "start_line", (double)json_int(f, "line"));
		long long end = json_int(f, "end_line");
		cJSON_AddNumberToObject(row, "end_line", (double)(end >= json_int(f, "line") ? end : json_int(f, "line")));
		cJSON_AddStringToObject(row, "operation", "UNSUPPORTED");
		cJSON_AddStringToObject(row, "message", json_str(f, "message"));
		cJSON_AddStringToObject(row, "advice", json_str(f, "suggestion"));
		cJSON_AddStringToObject(row, "plugin", json_str(f, "plugin"));
		cJSON_AddStringToObject(row, "phase", json_str(f, "phase"));
		cJSON *ids = cJSON_AddArrayToObject(row, "findings");
		cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)json_int(f, "id")));
		cJSON_AddNullToObject(row, "checkpoint");
		cJSON_AddStringToObject(row, "commit", "");
		cJSON_AddStringToObject(row, "severity", sev);
		cJSON_AddStringToObject(row, "category", json_str(f, "category"));
		cJSON_AddItemToArray(rows, row);
	}
	*out = rows;
out:
	cJSON_Delete(all);
	cJSON_Delete(seen);
	return rc;
}

void changes_csv(sbuf *b, const cJSON *rows)
{
	sbuf_adds(b, "file,start_line,end_line,operation,message,advice,plugin,findings,checkpoint,commit\r\n");
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		sbuf_add_csv(b, json_str(r, "file"));
		sbuf_addf(b, ",%lld,%lld,", json_int(r, "start_line"), json_int(r, "end_line"));
		sbuf_add_csv(b, json_str(r, "operation"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(r, "message"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(r, "advice"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(r, "plugin"));
		sbuf_addc(b, ',');
		const cJSON *id;
		int first = 1;
		cJSON_ArrayForEach(id, cJSON_GetObjectItem(r, "findings")) {
			sbuf_addf(b, "%s%lld", first ? "" : " ", (long long)id->valuedouble);
			first = 0;
		}
		sbuf_addc(b, ',');
		if (json_int(r, "checkpoint") > 0)
			sbuf_addf(b, "%lld", json_int(r, "checkpoint"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(r, "commit"));
		sbuf_adds(b, "\r\n");
	}
}
