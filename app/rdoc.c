/* rdoc — see rdoc.h. Nodes are cJSON objects with "t" naming their type. */
#include "rdoc.h"
#include "intl.h"
#include "json.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------- building ---------- */

static cJSON *child(cJSON *parent, const char *type)
{
	cJSON *n = cJSON_CreateObject();
	cJSON_AddStringToObject(n, "t", type);
	cJSON_AddItemToArray(cJSON_GetObjectItem(parent, "body"), n);
	return n;
}

rdoc *rdoc_new(const char *lang, const char *title)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "t", "doc");
	cJSON_AddStringToObject(d, "lang", lang);
	cJSON_AddStringToObject(d, "title", title);
	cJSON_AddNumberToObject(d, "level", 1);
	cJSON_AddStringToObject(d, "subtitle", "");
	cJSON_AddStringToObject(d, "footer", "");
	cJSON_AddArrayToObject(d, "cover");
	cJSON_AddArrayToObject(d, "body");
	return d;
}

void rdoc_free(rdoc *d) { cJSON_Delete(d); }

static void set_str(cJSON *o, const char *key, const char *value)
{
	cJSON_DeleteItemFromObject(o, key);
	cJSON_AddStringToObject(o, key, value ? value : "");
}

void rdoc_cover_subtitle(rdoc *d, const char *text) { set_str(d, "subtitle", text); }
void rdoc_footer(rdoc *d, const char *text) { set_str(d, "footer", text); }

static cJSON *pair(const char *a, const char *b)
{
	cJSON *p = cJSON_CreateArray();
	cJSON_AddItemToArray(p, cJSON_CreateString(a ? a : ""));
	cJSON_AddItemToArray(p, cJSON_CreateString(b && *b ? b : "-"));
	return p;
}

void rdoc_cover_row(rdoc *d, const char *label, const char *value)
{
	cJSON_AddItemToArray(cJSON_GetObjectItem(d, "cover"), pair(label, value));
}

cJSON *rdoc_section(cJSON *parent, const char *id, const char *title)
{
	cJSON *s = child(parent, "sec");
	cJSON_AddStringToObject(s, "id", id);
	cJSON_AddStringToObject(s, "title", title);
	cJSON_AddNumberToObject(s, "level", json_num(parent, "level") + 1);
	cJSON_AddArrayToObject(s, "body");
	return s;
}

static cJSON *inline_node(cJSON *parent, const char *type, const char *cls)
{
	cJSON *p = child(parent, type);
	if (cls)
		cJSON_AddStringToObject(p, "cls", cls);
	cJSON_AddArrayToObject(p, "s");
	return p;
}

cJSON *rdoc_para(cJSON *sec, const char *cls) { return inline_node(sec, "p", cls); }

void rdoc_para_text(cJSON *sec, const char *cls, const char *text) { rdoc_text(rdoc_para(sec, cls), text); }

static void span(cJSON *in, const char *kind, const char *text)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "k", kind);
	cJSON_AddStringToObject(s, "x", text ? text : "");
	cJSON_AddItemToArray(cJSON_GetObjectItem(in, "s"), s);
}

void rdoc_text(cJSON *in, const char *text) { span(in, "t", text); }
void rdoc_code(cJSON *in, const char *text) { span(in, "code", text); }
void rdoc_strong(cJSON *in, const char *text) { span(in, "b", text); }
void rdoc_loc(cJSON *in, const char *text) { span(in, "loc", text); }
void rdoc_ref(cJSON *in, const char *text) { span(in, "ref", text); }
void rdoc_dash(cJSON *in) { span(in, "dash", ""); }

void rdoc_textf(cJSON *in, const char *fmt, ...)
{
	sbuf b;
	sbuf_init(&b);
	va_list ap;
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	span(in, "t", b.buf ? b.buf : "");
	sbuf_done(&b);
}

void rdoc_badge(cJSON *in, const char *kind, const char *value, const char *shown)
{
	span(in, "badge", shown);
	cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(in, "s"), cJSON_GetArraySize(cJSON_GetObjectItem(in, "s")) - 1);
	char cls[48];
	size_t k = (size_t)snprintf(cls, sizeof cls, "%s-", kind);
	for (const char *p = value; *p && k + 1 < sizeof cls; p++)
		cls[k++] = isalnum((unsigned char)*p) ? (char)tolower((unsigned char)*p) : '-';
	cls[k] = '\0';
	cJSON_AddStringToObject(s, "cls", cls); /* the value stays in the class, not in visible English */
}

cJSON *rdoc_list(cJSON *sec, int ordered)
{
	cJSON *l = child(sec, "list");
	cJSON_AddBoolToObject(l, "ordered", ordered);
	cJSON_AddArrayToObject(l, "body");
	return l;
}

cJSON *rdoc_item(cJSON *list)
{
	cJSON *i = inline_node(list, "item", NULL);
	cJSON_AddArrayToObject(i, "body");
	return i;
}

cJSON *rdoc_note(cJSON *item) { return inline_node(item, "note", NULL); }

cJSON *rdoc_kv(cJSON *sec)
{
	cJSON *k = child(sec, "kv");
	cJSON_AddArrayToObject(k, "rows");
	return k;
}

void rdoc_kv_row(cJSON *kv, const char *label, const char *value)
{
	cJSON_AddItemToArray(cJSON_GetObjectItem(kv, "rows"), pair(label, value));
}

cJSON *rdoc_table(cJSON *sec, const char *const *headers)
{
	cJSON *t = child(sec, "table"), *h = cJSON_AddArrayToObject(t, "head");
	for (size_t i = 0; headers[i]; i++)
		cJSON_AddItemToArray(h, cJSON_CreateString(headers[i]));
	cJSON_AddArrayToObject(t, "body");
	return t;
}

cJSON *rdoc_row(cJSON *table)
{
	cJSON *r = child(table, "row");
	cJSON_AddArrayToObject(r, "body");
	return r;
}

cJSON *rdoc_cell(cJSON *row) { return inline_node(row, "cell", NULL); }
void rdoc_cell_text(cJSON *row, const char *text) { rdoc_text(rdoc_cell(row), text); }

cJSON *rdoc_cards(cJSON *sec)
{
	cJSON *c = child(sec, "cards");
	cJSON_AddArrayToObject(c, "body");
	return c;
}

void rdoc_card(cJSON *cards, const char *label, const char *big, const char *sub)
{
	cJSON *c = child(cards, "card");
	cJSON_AddStringToObject(c, "label", label);
	cJSON_AddStringToObject(c, "big", big);
	cJSON_AddStringToObject(c, "sub", sub ? sub : "");
}

void rdoc_figure(cJSON *sec, const char *id, const char *caption, const char *svg)
{
	cJSON *f = child(sec, "figure");
	cJSON_AddStringToObject(f, "id", id);
	cJSON_AddStringToObject(f, "caption", caption);
	cJSON_AddStringToObject(f, "svg", svg);
}

static const char *type(const cJSON *n) { return json_str(n, "t"); }
static int is(const cJSON *n, const char *t) { return strcmp(type(n), t) == 0; }
#define EACH(n, parent) cJSON_ArrayForEach(n, cJSON_GetObjectItem(parent, "body"))

/* ---------- Markdown ---------- */

/* One character of a table cell or a code span's content as Markdown must hold it: in a
 * cell '|' escaped; line breaks as spaces (a code span on one line cannot be cut by a
 * block that starts on its next line). 1 when it wrote it. */
static int md_put_special(sbuf *b, char c, int cell)
{
	if (cell && c == '|')
		sbuf_adds(b, "\\|");
	else if (c == '\n' || c == '\r')
		sbuf_addc(b, ' ');
	else
		return 0;
	return 1;
}

/* Before a code span's opening backticks: a space when b ends in one, which would
 * otherwise join them into a longer run that opens or closes another span. */
static void md_apart(sbuf *b)
{
	if (b->len && b->buf[b->len - 1] == '`')
		sbuf_addc(b, ' ');
}

/* The length of the run of backticks at s. */
static size_t backtick_run(const char *s)
{
	size_t n = 0;
	while (s[n] == '`')
		n++;
	return n;
}

/* Text as Markdown: '<' and '&' as entities so nothing becomes HTML, and '\\' escaped
 * so it escapes nothing; the code spans the text holds (`x < y`) kept as they are, since
 * a renderer shows their content verbatim (an entity there would show as "&lt;"). Spans
 * are found as CommonMark finds them: a run of n backticks opens one up to the next run
 * of exactly n; a run that has none is literal, and escaped, so that it opens nothing with
 * what follows the text. Line breaks in a span become spaces, so no block can cut it in
 * two. */
static void md_esc(sbuf *b, const char *s, int cell)
{
	while (*s) {
		if (*s == '`') {
			size_t n = backtick_run(s);
			const char *close = NULL;
			for (const char *p = s + n; *p && !close; p++)
				if (*p == '`') {
					size_t m = backtick_run(p);
					if (m == n)
						close = p;
					p += m - 1;
				}
			if (close) {
				md_apart(b);
				sbuf_add(b, s, n);
				for (const char *p = s + n; p < close; p++)
					if (!md_put_special(b, *p, cell))
						sbuf_addc(b, *p);
				sbuf_add(b, close, n);
				s = close + n;
			} else {
				/* literal, and escaped: a run that opens nothing here must not open a span
				 * with a backtick of the next part of the line (a file name in code) */
				for (size_t i = 0; i < n; i++)
					sbuf_adds(b, "\\`");
				s += n;
			}
			continue;
		}
		if (*s == '<')
			sbuf_adds(b, "&lt;");
		else if (*s == '\\')
			sbuf_adds(b, "\\\\"); /* shown as written, and escaping nothing */
		else if (*s == '&')
			sbuf_adds(b, "&amp;");
		else if (cell && *s == '|')
			sbuf_adds(b, "\\|");
		else if (cell && (*s == '\n' || *s == '\r'))
			sbuf_addc(b, ' ');
		else
			sbuf_addc(b, *s);
		s++;
	}
}

/* code as one Markdown code span, its content verbatim: fenced by one backtick more than
 * the longest run it holds, with a space inside the fences when it starts or ends with a
 * backtick (CommonMark strips one space on each side). */
static void md_code(sbuf *b, const char *code, int cell)
{
	size_t longest = 0;
	for (const char *p = code; *p; p++)
		if (*p == '`') {
			size_t n = backtick_run(p);
			longest = n > longest ? n : longest;
			p += n - 1;
		}
	size_t len = strlen(code);
	int pad = len && (code[0] == '`' || code[len - 1] == '`');
	md_apart(b);
	for (size_t i = 0; i <= longest; i++)
		sbuf_addc(b, '`');
	if (pad)
		sbuf_addc(b, ' ');
	for (const char *p = code; *p; p++)
		if (!md_put_special(b, *p, cell))
			sbuf_addc(b, *p);
	if (pad)
		sbuf_addc(b, ' ');
	for (size_t i = 0; i <= longest; i++)
		sbuf_addc(b, '`');
}

/* The spans of an inline container; in a table cell badges and locations are plain. */
static void md_inline(sbuf *b, const cJSON *in, int cell)
{
	const cJSON *s;
	int first = 1;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(in, "s")) {
		const char *k = json_str(s, "k"), *x = json_str(s, "x");
		if (!first && !cell && (strcmp(k, "badge") == 0 || strcmp(k, "loc") == 0 || strcmp(k, "ref") == 0))
			sbuf_addc(b, ' ');
		first = 0;
		if (strcmp(k, "code") == 0) {
			md_code(b, x, cell);
		} else if (strcmp(k, "b") == 0 || (strcmp(k, "badge") == 0 && !cell)) {
			sbuf_adds(b, "**");
			md_esc(b, x, cell);
			sbuf_adds(b, "**");
		} else if (strcmp(k, "loc") == 0 && !cell) {
			md_code(b, x, 0); /* a client's file name */
		} else if (strcmp(k, "ref") == 0) {
			char *r = xasprintf(_("*(%s)*"), x);
			md_esc(b, r, cell);
			free(r);
		} else if (strcmp(k, "dash") == 0) {
			sbuf_adds(b, " — ");
		} else {
			md_esc(b, x, cell);
		}
	}
}

static void md_table(sbuf *b, const cJSON *t)
{
	const cJSON *h, *r, *c;
	sbuf_adds(b, "\n|");
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(t, "head")) {
		sbuf_addc(b, ' ');
		md_esc(b, h->valuestring[0] == '#' && h->valuestring[1] ? h->valuestring + 1 : h->valuestring, 1);
		sbuf_adds(b, " |");
	}
	sbuf_adds(b, "\n|");
	cJSON_ArrayForEach(h, cJSON_GetObjectItem(t, "head"))
		sbuf_adds(b, "---|");
	sbuf_addc(b, '\n');
	EACH(r, t) {
		sbuf_adds(b, "|");
		EACH(c, r) {
			sbuf_addc(b, ' ');
			md_inline(b, c, 1);
			sbuf_adds(b, " |");
		}
		sbuf_addc(b, '\n');
	}
}

static void md_kv(sbuf *b, const cJSON *rows)
{
	const cJSON *r;
	sbuf_adds(b, "\n| | |\n|---|---|\n");
	cJSON_ArrayForEach(r, rows) {
		sbuf_adds(b, "| ");
		md_esc(b, cJSON_GetArrayItem(r, 0)->valuestring, 1);
		sbuf_adds(b, " | ");
		md_esc(b, cJSON_GetArrayItem(r, 1)->valuestring, 1);
		sbuf_adds(b, " |\n");
	}
}

static void md_block(sbuf *b, const cJSON *n);

static void md_blocks(sbuf *b, const cJSON *parent)
{
	const cJSON *n;
	EACH(n, parent)
		md_block(b, n);
}

static void md_block(sbuf *b, const cJSON *n)
{
	if (is(n, "sec")) {
		sbuf_addf(b, "\n<a id=\"%s\"></a>\n\n", json_str(n, "id"));
		for (int i = 0; i < json_int(n, "level"); i++)
			sbuf_addc(b, '#');
		sbuf_addc(b, ' ');
		md_esc(b, json_str(n, "title"), 0);
		sbuf_addc(b, '\n');
		md_blocks(b, n);
	} else if (is(n, "p")) {
		sbuf_addc(b, '\n');
		md_inline(b, n, 0);
		sbuf_addc(b, '\n');
	} else if (is(n, "list")) {
		const cJSON *it, *note;
		int k = 0;
		sbuf_addc(b, '\n');
		EACH(it, n) {
			if (cJSON_IsTrue(cJSON_GetObjectItem(n, "ordered")))
				sbuf_addf(b, "%d. ", ++k);
			else
				sbuf_adds(b, "- ");
			md_inline(b, it, 0);
			sbuf_addc(b, '\n');
			EACH(note, it) {
				sbuf_adds(b, "  - ");
				md_inline(b, note, 0);
				sbuf_addc(b, '\n');
			}
		}
	} else if (is(n, "kv")) {
		md_kv(b, cJSON_GetObjectItem(n, "rows"));
	} else if (is(n, "table")) {
		md_table(b, n);
	} else if (is(n, "cards")) {
		const cJSON *c;
		sbuf_addc(b, '\n');
		EACH(c, n) {
			char *t = *json_str(c, "sub") ? xasprintf(_("- **%s: %s (%s).**\n"), json_str(c, "label"), json_str(c, "big"), json_str(c, "sub"))
			                               : xasprintf(_("- **%s: %s.**\n"), json_str(c, "label"), json_str(c, "big"));
			md_esc(b, t, 0);
			free(t);
		}
	} else if (is(n, "figure")) {
		char *t = xasprintf(_("*Figure: %s (drawn in the HTML and PDF report).*"), json_str(n, "caption"));
		sbuf_addc(b, '\n');
		md_esc(b, t, 0);
		sbuf_addc(b, '\n');
		free(t);
	}
}

/* The contents: sections of level 2 and 3. */
static void md_toc(sbuf *b, const cJSON *parent, int depth)
{
	const cJSON *n;
	EACH(n, parent) {
		if (!is(n, "sec"))
			continue;
		sbuf_addf(b, "%*s- [", depth * 2, "");
		md_esc(b, json_str(n, "title"), 1);
		sbuf_addf(b, "](#%s)\n", json_str(n, "id"));
		if (depth == 0)
			md_toc(b, n, 1);
	}
}

void rdoc_render_md(sbuf *b, const rdoc *d)
{
	sbuf_adds(b, "# ");
	md_esc(b, json_str(d, "title"), 0);
	sbuf_addc(b, '\n');
	if (*json_str(d, "subtitle")) {
		sbuf_addc(b, '\n');
		md_esc(b, json_str(d, "subtitle"), 0);
		sbuf_addc(b, '\n');
	}
	md_kv(b, cJSON_GetObjectItem(d, "cover"));
	sbuf_addf(b, "\n## %s\n\n", _("Contents"));
	md_toc(b, d, 0);
	md_blocks(b, d);
	if (*json_str(d, "footer")) {
		sbuf_adds(b, "\n---\n\n");
		md_esc(b, json_str(d, "footer"), 0);
		sbuf_addc(b, '\n');
	}
}

/* ---------- HTML ---------- */

static void html_esc(sbuf *b, const char *s, size_t n)
{
	for (size_t i = 0; i < n && s[i]; i++) {
		switch (s[i]) {
		case '&': sbuf_adds(b, "&amp;"); break;
		case '<': sbuf_adds(b, "&lt;"); break;
		case '>': sbuf_adds(b, "&gt;"); break;
		case '"': sbuf_adds(b, "&quot;"); break;
		case '\'': sbuf_adds(b, "&#39;"); break;
		default: sbuf_addc(b, s[i]);
		}
	}
}

static void h(sbuf *b, const char *s) { html_esc(b, s, strlen(s)); }

/* Escaped text where `code spans` become <code> elements. */
static void h_rich(sbuf *b, const char *s)
{
	while (*s) {
		const char *open = strchr(s, '`'), *close = open ? strchr(open + 1, '`') : NULL;
		if (!close) {
			h(b, s);
			return;
		}
		html_esc(b, s, (size_t)(open - s));
		sbuf_adds(b, "<code>");
		html_esc(b, open + 1, (size_t)(close - open - 1));
		sbuf_adds(b, "</code>");
		s = close + 1;
	}
}

static void html_inline(sbuf *b, const cJSON *in)
{
	const cJSON *s;
	int first = 1;
	cJSON_ArrayForEach(s, cJSON_GetObjectItem(in, "s")) {
		const char *k = json_str(s, "k"), *x = json_str(s, "x");
		if (!first && (strcmp(k, "badge") == 0 || strcmp(k, "loc") == 0 || strcmp(k, "ref") == 0 || strcmp(k, "dash") == 0))
			sbuf_addc(b, ' ');
		first = 0;
		if (strcmp(k, "code") == 0) {
			sbuf_adds(b, "<code>");
			h(b, x);
			sbuf_adds(b, "</code>");
		} else if (strcmp(k, "b") == 0) {
			sbuf_adds(b, "<strong>");
			h(b, x);
			sbuf_adds(b, "</strong>");
		} else if (strcmp(k, "badge") == 0) {
			sbuf_addf(b, "<span class=\"badge %s\">", json_str(s, "cls"));
			h(b, x);
			sbuf_adds(b, "</span>");
		} else if (strcmp(k, "loc") == 0 || strcmp(k, "ref") == 0) {
			sbuf_addf(b, "<span class=\"%s\">", k);
			h(b, x);
			sbuf_adds(b, "</span>");
		} else if (strcmp(k, "t") == 0) {
			h_rich(b, x);
		}
	}
}

static void html_kv(sbuf *b, const cJSON *rows, const char *cls)
{
	const cJSON *r;
	sbuf_addf(b, "<table class=\"%s\">\n", cls);
	cJSON_ArrayForEach(r, rows) {
		sbuf_adds(b, "<tr><td>");
		h_rich(b, cJSON_GetArrayItem(r, 0)->valuestring);
		sbuf_adds(b, "</td><td>");
		h_rich(b, cJSON_GetArrayItem(r, 1)->valuestring);
		sbuf_adds(b, "</td></tr>\n");
	}
	sbuf_adds(b, "</table>\n");
}

static void html_block(sbuf *b, const cJSON *n);

static void html_blocks(sbuf *b, const cJSON *parent)
{
	const cJSON *n;
	EACH(n, parent)
		html_block(b, n);
}

static void html_table(sbuf *b, const cJSON *t)
{
	const cJSON *hd, *r, *c;
	int num[32] = { 0 }, i = 0;
	sbuf_adds(b, "<table>\n<thead><tr>");
	cJSON_ArrayForEach(hd, cJSON_GetObjectItem(t, "head")) {
		const char *s = hd->valuestring;
		if (i < 32)
			num[i] = s[0] == '#';
		i++;
		sbuf_adds(b, "<th>");
		h(b, s[0] == '#' && s[1] ? s + 1 : s);
		sbuf_adds(b, "</th>");
	}
	sbuf_adds(b, "</tr></thead>\n<tbody>\n");
	EACH(r, t) {
		sbuf_adds(b, "<tr>");
		i = 0;
		EACH(c, r) {
			sbuf_adds(b, i < 32 && num[i] ? "<td class=\"num\">" : "<td>");
			i++;
			html_inline(b, c);
			sbuf_adds(b, "</td>");
		}
		sbuf_adds(b, "</tr>\n");
	}
	sbuf_adds(b, "</tbody>\n</table>\n");
}

static void html_block(sbuf *b, const cJSON *n)
{
	if (is(n, "sec")) {
		long long lv = json_int(n, "level") > 6 ? 6 : json_int(n, "level");
		sbuf_addf(b, "<section class=\"s%lld\">\n<h%lld id=\"%s\">", lv, lv, json_str(n, "id"));
		h(b, json_str(n, "title"));
		sbuf_addf(b, "</h%lld>\n", lv);
		html_blocks(b, n);
		sbuf_adds(b, "</section>\n");
	} else if (is(n, "p")) {
		if (*json_str(n, "cls"))
			sbuf_addf(b, "<p class=\"%s\">", json_str(n, "cls"));
		else
			sbuf_adds(b, "<p>");
		html_inline(b, n);
		sbuf_adds(b, "</p>\n");
	} else if (is(n, "list")) {
		const cJSON *it, *note;
		int ordered = cJSON_IsTrue(cJSON_GetObjectItem(n, "ordered"));
		sbuf_adds(b, ordered ? "<ol class=\"findings\">\n" : "<ul class=\"findings\">\n");
		EACH(it, n) {
			sbuf_adds(b, "<li>");
			html_inline(b, it);
			EACH(note, it) {
				sbuf_adds(b, "<div class=\"advice\">");
				html_inline(b, note);
				sbuf_adds(b, "</div>");
			}
			sbuf_adds(b, "</li>\n");
		}
		sbuf_adds(b, ordered ? "</ol>\n" : "</ul>\n");
	} else if (is(n, "kv")) {
		html_kv(b, cJSON_GetObjectItem(n, "rows"), "meta");
	} else if (is(n, "table")) {
		html_table(b, n);
	} else if (is(n, "cards")) {
		const cJSON *c;
		sbuf_adds(b, "<div class=\"cards\">\n");
		EACH(c, n) {
			sbuf_adds(b, "<div class=\"card\"><div class=\"label\">");
			h(b, json_str(c, "label"));
			sbuf_adds(b, "</div><div class=\"big\">");
			h(b, json_str(c, "big"));
			sbuf_adds(b, "</div><div class=\"muted\">");
			h(b, json_str(c, "sub"));
			sbuf_adds(b, "</div></div>\n");
		}
		sbuf_adds(b, "</div>\n");
	} else if (is(n, "figure")) {
		sbuf_addf(b, "<figure id=\"%s\">\n", json_str(n, "id"));
		sbuf_adds(b, json_str(n, "svg")); /* drawn and escaped by svgchart */
		sbuf_adds(b, "<figcaption>");
		h(b, json_str(n, "caption"));
		sbuf_adds(b, "</figcaption>\n</figure>\n");
	}
}

static void html_toc(sbuf *b, const cJSON *parent, int depth)
{
	const cJSON *n;
	int any = 0;
	EACH(n, parent) {
		if (!is(n, "sec"))
			continue;
		if (!any++)
			sbuf_adds(b, depth ? "<ol>\n" : "<ol class=\"toc\">\n");
		sbuf_addf(b, "<li><a href=\"#%s\">", json_str(n, "id"));
		h(b, json_str(n, "title"));
		sbuf_adds(b, "</a>");
		if (!depth)
			html_toc(b, n, 1);
		sbuf_adds(b, "</li>\n");
	}
	if (any)
		sbuf_adds(b, "</ol>\n");
}

void rdoc_render_html(sbuf *b, const rdoc *d, const char *css)
{
	sbuf_addf(b, "<!DOCTYPE html>\n<html lang=\"%s\">\n<head>\n<meta charset=\"utf-8\">\n", json_str(d, "lang"));
	sbuf_adds(b, "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	             "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n<title>");
	h(b, json_str(d, "title"));
	sbuf_addf(b, "</title>\n<style>%s</style>\n</head>\n<body>\n<main>\n<header class=\"cover\">\n<h1>", css);
	h(b, json_str(d, "title"));
	sbuf_adds(b, "</h1>\n");
	if (*json_str(d, "subtitle")) {
		sbuf_adds(b, "<p class=\"subtitle\">");
		h(b, json_str(d, "subtitle"));
		sbuf_adds(b, "</p>\n");
	}
	html_kv(b, cJSON_GetObjectItem(d, "cover"), "meta cover-meta");
	sbuf_adds(b, "</header>\n<nav class=\"contents\">\n<h2 id=\"contents\">");
	h(b, _("Contents"));
	sbuf_adds(b, "</h2>\n");
	html_toc(b, d, 0);
	sbuf_adds(b, "</nav>\n");
	html_blocks(b, d);
	if (*json_str(d, "footer")) {
		sbuf_adds(b, "<footer>");
		h(b, json_str(d, "footer"));
		sbuf_adds(b, "</footer>\n");
	}
	sbuf_adds(b, "</main>\n</body>\n</html>\n");
}
