/* changes — see changes.h. */
#include "changes.h"
#include "hold.h"
#include "phase.h"
#include "json.h"
#include "err.h"
#include "intl.h"

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

/* Code quoted in an edit's text is cut at this many bytes. */
#define EDIT_QUOTE 80

/* Line i (from 0) of text: its start, and its length without the line end in *len;
 * NULL when the text has fewer lines. */
static const char *nth_line(const char *text, size_t i, size_t *len)
{
	const char *p = text;
	for (; i > 0 && *p; i--) {
		const char *nl = strchr(p, '\n');
		if (!nl)
			return NULL;
		p = nl + 1;
	}
	if (!*p)
		return NULL;
	*len = strcspn(p, "\n");
	if (*len && p[*len - 1] == '\r')
		(*len)--;
	return p;
}

static size_t line_count(const char *text)
{
	size_t n = 0, len;
	while (nth_line(text, n, &len))
		n++;
	return n;
}

/* s[0..n) without its indentation and trailing blanks, cut at EDIT_QUOTE bytes on a
 * UTF-8 boundary with "…" when cut; malloc'd. */
static char *quote_code(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n <= EDIT_QUOTE)
		return xstrndup(s, n);
	size_t k = EDIT_QUOTE;
	while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
		k--;
	return xasprintf("%.*s…", (int)k, s);
}

static int blank(char c) { return c == ' ' || c == '\t'; }

/* One line changed into another, as "`old` → `new`": the shortest run of whole words
 * (blank-separated) that holds every byte that differs, or both lines when one side of
 * that run is empty. */
static char *line_edit(const char *a, size_t an, const char *b, size_t bn)
{
	size_t p = 0, s = 0;
	while (p < an && p < bn && a[p] == b[p])
		p++;
	while (s < an - p && s < bn - p && a[an - 1 - s] == b[bn - 1 - s])
		s++;
	size_t start = p, ea = an - s, eb = bn - s;
	while (start > 0 && !blank(a[start - 1]))
		start--;
	while (ea < an && !blank(a[ea]))
		ea++, eb++;
	char *x, *y;
	if (ea > start && eb > start) {
		x = quote_code(a + start, ea - start);
		y = quote_code(b + start, eb - start);
	} else {
		x = quote_code(a, an);
		y = quote_code(b, bn);
	}
	char *t = xasprintf(_("`%s` → `%s`"), x, y);
	free(x);
	free(y);
	return t;
}

char *changes_edit_text(const char *before, const char *after)
{
	size_t nb = line_count(before), na = line_count(after), lb = 0, la = 0;
	const char *b0 = nth_line(before, 0, &lb), *a0 = nth_line(after, 0, &la);
	if (!nb && !na)
		return xstrdup("");
	if (!nb || !na) {
		const char *text = nb ? before : after;
		size_t n = nb ? nb : na, len = nb ? lb : la;
		const char *l = nb ? b0 : a0, *shown = l;
		size_t shown_len = len;
		/* the line that says most: not a blank, a comment or a bare `try:` */
		for (size_t i = 0; n > 1 && i < n; i++) {
			const char *c = nth_line(text, i, &len);
			size_t k = 0;
			while (k < len && blank(c[k]))
				k++;
			if (k < len && c[k] != '#' && c[len - 1] != ':') {
				shown = c, shown_len = len;
				break;
			}
		}
		char *q = quote_code(shown, shown_len);
		char *t = n == 1 ? xasprintf(nb ? _("removed `%s`") : _("added `%s`"), q)
		                 : xasprintf(nb ? _("removed %zu lines, with `%s`") : _("added %zu lines, with `%s`"), n, q);
		free(q);
		return t;
	}
	sbuf out;
	sbuf_init(&out);
	size_t shown = 0, changed = 0;
	for (size_t i = 0; i < nb && i < na; i++) {
		size_t x, y;
		const char *l = nth_line(before, i, &x), *r = nth_line(after, i, &y);
		if (x == y && memcmp(l, r, x) == 0)
			continue;
		changed++;
		if (shown < 3) {
			char *e = line_edit(l, x, r, y);
			sbuf_addf(&out, "%s%s", shown ? _("; ") : "", e);
			free(e);
			shown++;
		}
	}
	if (changed > shown)
		sbuf_addf(&out, P_("; and %zu more line changed", "; and %zu more lines changed", changed - shown), changed - shown);
	if (nb != na)
		sbuf_addf(&out, P_("%s(%zu line became %zu)", "%s(%zu lines became %zu)", nb), out.len ? " " : "", nb, na);
	return sbuf_detach(&out);
}

/* One hunk of a change from one version of the project to another. */
struct shift {
	char *path;
	int old_start, old_lines, new_start, new_lines;
};

/* The hunks of a change, file by file in order. */
struct shifts {
	struct shift *v;
	size_t n;
};

static int collect_shift(const history_hunk *hk, void *payload)
{
	struct shifts *sh = payload;
	sh->v = xrealloc(sh->v, (sh->n + 1) * sizeof *sh->v);
	struct shift *s = &sh->v[sh->n++];
	s->path = xstrdup(hk->path);
	s->old_start = hk->old_start;
	s->old_lines = hk->old_lines;
	s->new_start = hk->new_start;
	s->new_lines = hk->new_lines;
	return 0;
}

static void shifts_done(struct shifts *sh)
{
	for (size_t i = 0; i < sh->n; i++)
		free(sh->v[i].path);
	free(sh->v);
	sh->v = NULL;
	sh->n = 0;
}

/* The lines of path on the other side of the change that line l stands for (forward:
 * from the old version to the new, else back): l moved by the hunks above it, or the
 * range of the hunk that replaced it — empty (*hi < *lo, just after line *hi) when the
 * hunk left no lines there. */
static void map_line(long long *lo, long long *hi, const struct shifts *sh, const char *path, long long l,
                     int forward)
{
	long long delta = 0;
	for (size_t i = 0; i < sh->n; i++) {
		const struct shift *s = &sh->v[i];
		if (strcmp(s->path, path) != 0)
			continue;
		long long from = forward ? s->old_start : s->new_start, from_n = forward ? s->old_lines : s->new_lines;
		long long to = forward ? s->new_start : s->old_start, to_n = forward ? s->new_lines : s->old_lines;
		if (from_n > 0 && l >= from && l < from + from_n) {
			*lo = to_n > 0 ? to : to + 1;
			*hi = to + to_n - (to_n > 0);
			return;
		}
		if ((from_n > 0 ? from + from_n - 1 : from) < l)
			delta += to_n - from_n;
	}
	*lo = *hi = l + delta;
}

struct hunk_ctx {
	cJSON *rows;            /* where rows go */
	const cJSON *cp;        /* the checkpoint */
	const cJSON *findings;  /* its findings */
	history *h;
	const char *found_in;   /* V: the commit the findings' lines and edits refer to */
	struct shifts shifts;   /* the change from V to the checkpoint's parent P (none when V is P) */
	char *text_path;        /* the file of V last read, and its text */
	char *text;
	size_t text_len;
	int err;                /* the first error of a callback */
};

/* The lines of V that line l of P stands for: itself moved by the changes above it,
 * or the replaced range when it lies in a change (an insertion: the line it follows
 * and the one after). */
static void p_to_v(long long *lo, long long *hi, const struct hunk_ctx *c, const char *path, long long l)
{
	map_line(lo, hi, &c->shifts, path, l, 0);
	if (*hi < *lo) {
		*lo = *hi;
		*hi = *lo + 1;
	}
}

/* 1-based line of byte offset off in the text of V (clamped to its end). */
static long long line_of(const struct hunk_ctx *c, size_t off)
{
	long long line = 1;
	for (size_t i = 0; i < off && i < c->text_len; i++)
		line += c->text[i] == '\n';
	return line;
}

/* The lines of V a finding changes: those its edits replace (or insert at), else its
 * own line range. */
static int finding_lines(long long **out, size_t *n, struct hunk_ctx *c, const cJSON *f)
{
	const cJSON *edits = cJSON_GetObjectItem(f, "edits"), *e;
	const char *path = json_str(f, "file");
	*out = NULL;
	*n = 0;
	if (cJSON_GetArraySize(edits) > 0 && (!c->text_path || strcmp(c->text_path, path) != 0)) {
		free(c->text_path);
		free(c->text);
		c->text_path = xstrdup(path);
		c->text = NULL;
		c->text_len = 0;
		int rc = history_read_at(&c->text, &c->text_len, c->h, c->found_in, path);
		if (rc && rc != FERRY_ENOTFOUND)
			return rc;
	}
	cJSON_ArrayForEach(e, edits) {
		long long sb = json_int(e, "start_byte"), eb = json_int(e, "end_byte");
		if (sb < 0 || eb < sb || (size_t)eb > c->text_len)
			continue;
		*out = xrealloc(*out, (*n + 2) * sizeof **out);
		(*out)[(*n)++] = line_of(c, (size_t)sb);
		(*out)[(*n)++] = eb > sb ? line_of(c, (size_t)eb - 1) : line_of(c, (size_t)sb);
	}
	if (!*n) {
		long long line = json_int(f, "line"), end = json_int(f, "end_line");
		*out = xcalloc(2, sizeof **out);
		(*out)[0] = line;
		(*out)[1] = end >= line ? end : line;
		*n = 2;
	}
	return 0;
}

/* A finding was fixed by this hunk: one of the lines it changes, in the version it was
 * found in, lies in the part of that version the hunk replaced (an insertion counts the
 * line it follows and the one after). Both sides are read in V's lines. */
static int finding_in_hunk(int *in, struct hunk_ctx *c, const cJSON *f, const history_hunk *hk)
{
	*in = 0;
	if (strcmp(json_str(f, "file"), hk->path) != 0)
		return 0;
	if (hk->status == 'A' || hk->status == 'D' || hk->binary || json_int(f, "line") <= 0) {
		*in = 1;
		return 0;
	}
	long long lo, hi, unused;
	long long plo = hk->old_start, phi = hk->old_lines > 0 ? hk->old_start + hk->old_lines - 1 : hk->old_start + 1;
	p_to_v(&lo, &unused, c, hk->path, plo);
	p_to_v(&unused, &hi, c, hk->path, phi);
	long long *lines = NULL;
	size_t n = 0;
	int rc = finding_lines(&lines, &n, c, f);
	for (size_t i = 0; !rc && i + 1 < n && !*in; i += 2)
		*in = lines[i] <= hi && lines[i + 1] >= lo;
	free(lines);
	return rc;
}

/* Names finding f on a change row: its id, its message and advice (each once). */
static void row_add_finding(cJSON *row, const cJSON *f)
{
	cJSON *ids = cJSON_GetObjectItem(row, "findings");
	if (!cJSON_GetArraySize(ids))
		cJSON_ReplaceItemInObject(row, "message", cJSON_CreateString(""));
	cJSON_AddItemToArray(ids, cJSON_CreateNumber((double)json_int(f, "id")));
	const char *msg = json_str(row, "message"), *advice = json_str(row, "advice");
	if (strstr(msg, json_str(f, "message")))
		return;
	char *m = xasprintf("%s%s%s", msg, *msg ? " | " : "", json_str(f, "message"));
	cJSON_ReplaceItemInObject(row, "message", cJSON_CreateString(m));
	free(m);
	if (*json_str(f, "suggestion") && !strstr(advice, json_str(f, "suggestion"))) {
		char *a = xasprintf("%s%s%s", advice, *advice ? " | " : "", json_str(f, "suggestion"));
		cJSON_ReplaceItemInObject(row, "advice", cJSON_CreateString(a));
		free(a);
	}
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
	const char *m = json_str(c->cp, "message");
	char *first = xstrndup(m, strcspn(m, "\n"));
	cJSON *row = cJSON_CreateObject();
	cJSON_AddStringToObject(row, "file", hk->path);
	cJSON_AddNumberToObject(row, "start_line", start);
	cJSON_AddNumberToObject(row, "end_line", end);
	cJSON_AddStringToObject(row, "operation", op);
	cJSON_AddStringToObject(row, "message", first); /* replaced by the findings' messages */
	cJSON_AddStringToObject(row, "advice", "");
	cJSON_AddStringToObject(row, "plugin", json_str(c->cp, "plugin"));
	cJSON_AddStringToObject(row, "phase", json_str(c->cp, "phase"));
	cJSON_AddArrayToObject(row, "findings");
	cJSON_AddNumberToObject(row, "checkpoint", (double)json_int(c->cp, "id"));
	cJSON_AddStringToObject(row, "commit", json_str(c->cp, "commit"));
	cJSON_AddStringToObject(row, "severity", "");
	char *edit = hk->binary ? xstrdup("") : changes_edit_text(hk->old_text, hk->new_text);
	cJSON_AddStringToObject(row, "edit", edit);
	free(edit);
	cJSON_AddItemToObject(row, "before", capped(hk->binary ? "" : hk->old_text));
	cJSON_AddItemToObject(row, "after", capped(hk->binary ? "" : hk->new_text));
	cJSON_AddItemToArray(c->rows, row);
	free(first);
	const cJSON *f;
	cJSON_ArrayForEach(f, c->findings) {
		int in = 0;
		if ((c->err = finding_in_hunk(&in, c, f, hk)))
			return c->err;
		if (in)
			row_add_finding(row, f);
	}
	return 0;
}

/* One change a row lists, as its checkpoint made it: the lines lo..hi of path it wrote
 * at commit, and the whole text it replaced and wrote (a row keeps them capped). A
 * change that only deleted lines wrote none: it has deleted set, lo..hi are the lines
 * it took out of the version before, and after the line of commit's version they
 * followed (0: the file's start). */
struct change {
	const char *path, *commit;
	long long lo, hi;
	int deleted;
	long long after;
	char *old_text, *new_text;
};

static int find_change_texts(const history_hunk *hk, void *payload)
{
	struct change *c = payload;
	if (c->new_text || hk->binary || strcmp(hk->path, c->path) != 0)
		return 0;
	if (c->deleted ? hk->new_lines != 0 || hk->old_start != c->lo : hk->new_start != c->lo)
		return 0;
	c->old_text = xstrdup(hk->old_text);
	c->new_text = xstrdup(hk->new_text);
	c->after = hk->new_start;
	return 0;
}

/* The change a row lists (an INSERT or MODIFY), its texts read from the history (the
 * row's own hunk, so new_text stays NULL only if the history no longer has it). */
static int change_of_row(struct change *c, history *h, const cJSON *row)
{
	*c = (struct change){ json_str(row, "file"), json_str(row, "commit"), json_int(row, "start_line"),
		                  json_int(row, "end_line"), strcmp(json_str(row, "operation"), "DELETE") == 0, 0, NULL, NULL };
	return history_diff_hunks_from(h, NULL, c->commit, c->path, find_change_texts, c);
}

static void change_done(struct change *c)
{
	free(c->old_text);
	free(c->new_text);
}

/* Lines first..last of text (1-based), malloc'd; "" when there are none. */
static char *text_lines(const char *text, long long first, long long last)
{
	const char *p = text, *start = NULL;
	for (long long line = 1; *p && line <= last; line++) {
		if (line == first)
			start = p;
		const char *nl = strchr(p, '\n');
		p = nl ? nl + 1 : p + strlen(p);
	}
	return start ? xstrndup(start, (size_t)(p - start)) : xstrdup("");
}

/* The lines of at standing where deletion c took its lines out: those between the
 * lines of c's commit before and after the gap, as a diff from that commit to at maps
 * them. 0 in *known when either of those lines is gone since (the place is lost). */
static void deletion_gap(long long *first, long long *last, int *known, const struct shifts *sh,
                         const struct change *c)
{
	long long lo, hi;
	*known = 1;
	*first = 1;
	if (c->after > 0) {
		map_line(&lo, &hi, sh, c->path, c->after, 1);
		*known &= hi >= lo;
		*first = hi + 1;
	}
	map_line(&lo, &hi, sh, c->path, c->after + 1, 1);
	*known &= hi >= lo;
	*last = lo - 1;
}

/* Whether change c still holds at commit at (hold.h): its texts against the text that
 * descends from the lines it wrote — those a diff from its commit to at maps them to —
 * or, for a deletion, against what now stands where it took its lines out. */
static int change_holds_at(int *holds, history *h, const struct change *c, const char *at)
{
	struct shifts sh = { NULL, 0 };
	char *text = NULL, *now = NULL;
	long long first = 0, last = 0;
	int any = 0, rc = history_diff_hunks_from(h, c->commit, at, c->path, collect_shift, &sh);
	if (!rc && c->deleted) {
		deletion_gap(&first, &last, &any, &sh, c);
		*holds = 1; /* where it deleted cannot be told: nothing says it was undone */
		if (!any)
			goto out;
		any = last >= first;
	}
	for (long long l = c->lo; !rc && !c->deleted && l <= c->hi; l++) {
		long long lo, hi;
		map_line(&lo, &hi, &sh, c->path, l, 1);
		if (hi < lo)
			continue; /* a line deleted since */
		first = any && first < lo ? first : lo;
		last = any && last > hi ? last : hi;
		any = 1;
	}
	if (!rc && any && (rc = history_read_at(&text, NULL, h, at, c->path)) == FERRY_ENOTFOUND) {
		err_clear(); /* the file is gone: nothing of the change is left */
		rc = 0;
	}
	if (!rc) {
		now = text ? text_lines(text, first, last) : xstrdup("");
		*holds = hold_still(c->old_text, c->new_text, now);
	}
out:
	free(now);
	free(text);
	shifts_done(&sh);
	return rc;
}

/* Whether manual checkpoint m (an object of manual) changed path; the paths it changed
 * are read once and kept on it. */
static int manual_changed(int *changed, cJSON *m, history *h, const char *path)
{
	cJSON *paths = cJSON_GetObjectItem(m, "paths");
	if (!paths) {
		char **v = NULL;
		size_t n = 0;
		int rc = history_commit_paths(&v, &n, h, json_str(m, "commit"));
		if (rc)
			return rc;
		paths = cJSON_AddObjectToObject(m, "paths");
		for (size_t i = 0; i < n; i++) {
			if (!cJSON_GetObjectItem(paths, v[i]))
				cJSON_AddTrueToObject(paths, v[i]);
			free(v[i]);
		}
		free(v);
	}
	*changed = cJSON_GetObjectItem(paths, path) != NULL;
	return 0;
}

/* The hand edit that undid change c, made by checkpoint id: the newest manual
 * checkpoint after it at whose parent the change held and at which it no longer does;
 * 0 when no hand edit did (a later fix rewrote it, which that fix's row shows).
 * manual: the manual checkpoints, newest first. */
static int undoing_hand_edit(long long *by, cJSON *manual, history *h, const struct change *c, long long id)
{
	cJSON *m;
	*by = 0;
	cJSON_ArrayForEach(m, manual) {
		int changed = 0, before = 0, after = 1, rc;
		if (json_int(m, "id") <= id)
			break;
		if ((rc = manual_changed(&changed, m, h, c->path)))
			return rc;
		if (!changed)
			continue;
		history_commit_info info;
		if ((rc = history_commit_info_get(&info, h, json_str(m, "commit"))))
			return rc;
		if (info.nparents)
			rc = change_holds_at(&before, h, c, info.parents[0]);
		history_commit_info_done(&info);
		if (!rc && before)
			rc = change_holds_at(&after, h, c, json_str(m, "commit"));
		if (rc)
			return rc;
		if (before && !after) {
			*by = json_int(m, "id");
			return 0;
		}
	}
	return 0;
}

/* Whether a hand edit after checkpoint id changed path. */
static int hand_edited_after(int *edited, cJSON *manual, history *h, long long id, const char *path)
{
	cJSON *m;
	int rc = 0;
	*edited = 0;
	cJSON_ArrayForEach(m, manual) {
		if (rc || *edited || json_int(m, "id") <= id)
			break;
		rc = manual_changed(edited, m, h, path);
	}
	return rc;
}

/* The hand edit that undid the change a row lists (0: it is in effect, or no hand edit
 * undid it). A change is undone by a hand edit only when its text is gone from the
 * newest checkpoint (hold.h) — a line a person built on, or put back after deleting it,
 * still holds it — or, for a deletion, when the lines it took out stand again where they
 * were, and then by the hand edit that did it. Checked only for rows of lines (not of a
 * whole or binary file) in a file a hand edit changed after them. */
static int row_undone_by(long long *by, cJSON *manual, history *h, const char *head, const cJSON *row)
{
	long long id = json_int(row, "checkpoint");
	int edited = 0, holds = 1;
	*by = 0;
	if (json_int(row, "start_line") <= 0)
		return 0;
	int rc = hand_edited_after(&edited, manual, h, id, json_str(row, "file"));
	if (rc || !edited)
		return rc;
	struct change c;
	if (!(rc = change_of_row(&c, h, row)) && c.new_text)
		rc = change_holds_at(&holds, h, &c, head);
	if (!rc && !holds)
		rc = undoing_hand_edit(by, manual, h, &c, id);
	change_done(&c);
	return rc;
}

/* Moves out of rows the changes a hand edit undid (row_undone_by), each given
 * undone_by: the manual checkpoint that undid it. */
static int drop_undone_by_hand(cJSON *rows, cJSON *undone, const cJSON *cps, history *h)
{
	const cJSON *newest = cJSON_GetArrayItem(cps, 0), *cp;
	cJSON *manual = cJSON_CreateArray(); /* newest first, as cps */
	cJSON_ArrayForEach(cp, cps) {
		if (strcmp(json_str(cp, "kind"), "manual") == 0) {
			cJSON *m = cJSON_CreateObject();
			cJSON_AddNumberToObject(m, "id", (double)json_int(cp, "id"));
			cJSON_AddStringToObject(m, "commit", json_str(cp, "commit"));
			cJSON_AddItemToArray(manual, m);
		}
	}
	int rc = 0;
	for (int i = 0; cJSON_GetArraySize(manual) && i < cJSON_GetArraySize(rows) && !rc;) {
		long long by = 0;
		rc = row_undone_by(&by, manual, h, json_str(newest, "commit"), cJSON_GetArrayItem(rows, i));
		if (!rc && by) {
			cJSON *r = cJSON_DetachItemFromArray(rows, i);
			cJSON_AddNumberToObject(r, "undone_by", (double)by);
			cJSON_AddItemToArray(undone, r);
			continue;
		}
		i++;
	}
	cJSON_Delete(manual);
	return rc;
}

/* A finding whose edits no hunk shows (its change merged with another's) goes on the
 * first row of its file, so every fixed finding is on the list once. */
static void place_unmatched(cJSON *rows, int first_row, const cJSON *findings)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, findings) {
		cJSON *home = NULL;
		int placed = 0;
		for (int i = first_row; i < cJSON_GetArraySize(rows) && !placed; i++) {
			cJSON *r = cJSON_GetArrayItem(rows, i), *id;
			if (strcmp(json_str(r, "file"), json_str(f, "file")) != 0)
				continue;
			if (!home)
				home = r;
			cJSON_ArrayForEach(id, cJSON_GetObjectItem(r, "findings"))
				placed |= (long long)id->valuedouble == json_int(f, "id");
		}
		if (!placed && home)
			row_add_finding(home, f);
	}
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

int changes_list(cJSON **out, cJSON **reverted, cJSON **by_hand, store *s, history *h)
{
	cJSON *cps = NULL, *rows = cJSON_CreateArray(), *undone_list = cJSON_CreateArray();
	cJSON *hand = cJSON_CreateArray();
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
	/* oldest first, the order the changes were made. A checkpoint's findings give their
	 * lines and edits in the version their last check run read: the head that run began
	 * at, as the run records it. A run recorded without it is inferred: the findings of
	 * one fix command were found by one check run on the code as it was before the
	 * command's first checkpoint, so a later checkpoint's findings are read in that
	 * version, not in the checkpoint's parent. */
	const char *prev = NULL, *batch_from = NULL;
	char run_head[41];
	long long batch_run = 0;
	for (int i = cJSON_GetArraySize(cps) - 1; i >= 0; i--) {
		cp = cJSON_GetArrayItem(cps, i);
		const char *commit = json_str(cp, "commit");
		char key[32];
		snprintf(key, sizeof key, "%lld", json_int(cp, "id"));
		if (!listed_kind(json_str(cp, "kind")) || !prev) {
			batch_run = 0;
			prev = commit;
			continue;
		}
		cJSON *fs = NULL;
		if ((rc = checkpoint_findings(&fs, s, cp)))
			goto out;
		long long run = 0;
		const cJSON *f;
		cJSON_ArrayForEach(f, fs)
			if (json_int(f, "last_run") > run)
				run = json_int(f, "last_run");
		if (!run || run != batch_run)
			batch_from = prev;
		batch_run = run;
		if (run && !(rc = store_run_head(run_head, s, run)) && run_head[0])
			batch_from = run_head;
		if (rc) {
			cJSON_Delete(fs);
			goto out;
		}
		struct hunk_ctx hc = { rows, cp, fs, h, batch_from, { NULL, 0 }, NULL, NULL, 0, 0 };
		if (!cJSON_GetObjectItem(undone, key)) {
			int first_row = cJSON_GetArraySize(rows);
			if (strcmp(batch_from, prev) != 0)
				rc = history_diff_hunks_from(h, batch_from, prev, NULL, collect_shift, &hc.shifts);
			if (!rc)
				rc = history_diff_hunks(h, commit, add_hunk, &hc);
			if (hc.err)
				rc = hc.err;
			if (!rc)
				place_unmatched(rows, first_row, fs);
		}
		shifts_done(&hc.shifts);
		free(hc.text_path);
		free(hc.text);
		cJSON_Delete(fs);
		prev = commit;
		if (rc) {
			err_prefix("checkpoint %lld", json_int(cp, "id"));
			goto out;
		}
	}
	if ((rc = drop_undone_by_hand(rows, hand, cps, h)))
		goto out;
	*out = rows;
	rows = NULL;
	if (reverted) {
		*reverted = undone_list;
		undone_list = NULL;
	}
	if (by_hand) {
		*by_hand = hand;
		hand = NULL;
	}
out:
	cJSON_Delete(cps);
	cJSON_Delete(rows);
	cJSON_Delete(undone);
	cJSON_Delete(undone_list);
	cJSON_Delete(hand);
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
		/* a fix of this finding's own, or a later phase's check that rewrites it */
		if (cJSON_IsTrue(cJSON_GetObjectItem(f, "fixable")) || cJSON_IsTrue(cJSON_GetObjectItem(f, "automatic")) ||
		    !*json_str(f, "file") || !phase_ports_code(json_str(f, "phase")) ||
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
	sbuf_adds(b, "file,start_line,end_line,operation,edit,message,advice,plugin,findings,checkpoint,commit\r\n");
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		sbuf_add_csv(b, json_str(r, "file"));
		sbuf_addf(b, ",%lld,%lld,", json_int(r, "start_line"), json_int(r, "end_line"));
		sbuf_add_csv(b, json_str(r, "operation"));
		sbuf_addc(b, ',');
		sbuf_add_csv(b, json_str(r, "edit"));
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

char *changes_row_text(const cJSON *row)
{
	const char *edit = json_str(row, "edit"), *why = json_str(row, "message");
	if (!*edit || !*why)
		return xstrdup(*edit ? edit : why);
	return xasprintf(_("%s — %s"), edit, why);
}

/* The API a finding names: the first `quoted` span of its message, else its category. */
static char *api_name(const cJSON *r)
{
	const char *m = json_str(r, "message"), *a = strchr(m, '`'), *z = a ? strchr(a + 1, '`') : NULL;
	if (a && z && z > a + 1)
		return xstrndup(a + 1, (size_t)(z - a - 1));
	return xstrdup(*json_str(r, "category") ? json_str(r, "category") : json_str(r, "plugin"));
}

void changes_csv_msft(sbuf *b, const cJSON *rows, int unsupported)
{
	sbuf_adds(b, unsupported ? "File,Start Line,End Line,API Name,Message\r\n"
	                         : "File,Start Line,End Line,Operation Type,Message\r\n");
	const cJSON *r;
	cJSON_ArrayForEach(r, rows) {
		sbuf_add_csv(b, json_str(r, "file"));
		sbuf_addf(b, ",%lld,%lld,", json_int(r, "start_line"), json_int(r, "end_line"));
		char *fourth = unsupported ? api_name(r) : xstrdup(json_str(r, "operation"));
		sbuf_add_csv(b, fourth);
		free(fourth);
		sbuf_addc(b, ',');
		char *m = changes_row_text(r);
		sbuf_add_csv(b, m);
		free(m);
		sbuf_adds(b, "\r\n");
	}
}
