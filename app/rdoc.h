/*
 * rdoc — the report as a typed document, built once and rendered twice: as Markdown and
 * as one self-contained HTML page (A4 print stylesheet, cover, table of contents, inline
 * SVG figures). report.c builds it from the report's data; nothing here knows about
 * findings or phases.
 *
 * A document has a cover (title, subtitle, key/value rows), a table of contents (the
 * sections of level 2 and 3, with anchors), and a body of sections. A section holds
 * blocks: paragraphs, key/value tables, tables, lists, summary cards and figures. Text
 * is built of inline spans: plain text (where `backticks` mark code), code, strong, a
 * badge (an English value's class with its shown text), a location and a reference.
 *
 * The document is a cJSON tree owned by the caller of rdoc_new (rdoc_free). Every
 * rdoc_* builder returns a node owned by the document (never freed by the caller);
 * strings are copied. The renderers append to a caller-owned sbuf. The fixed words of
 * the rendering (the contents heading, "Figure", punctuation) go through _().
 */
#ifndef FERRY_RDOC_H
#define FERRY_RDOC_H

#include "util.h"

#include <cjson/cJSON.h>

typedef cJSON rdoc;

/* lang is the HTML lang attribute ("en", "zh-CN"). */
rdoc *rdoc_new(const char *lang, const char *title);
void rdoc_free(rdoc *d);

/* The cover: a subtitle line and key/value rows (empty values shown as "-"). */
void rdoc_cover_subtitle(rdoc *d, const char *text);
void rdoc_cover_row(rdoc *d, const char *label, const char *value);
/* The footer line (HTML: at the end; Markdown: the last paragraph). */
void rdoc_footer(rdoc *d, const char *text);

/* A section under the document (level 2) or under a section (one level deeper); id is
 * its anchor (letters, digits, '-'; made unique by the caller). */
cJSON *rdoc_section(cJSON *parent, const char *id, const char *title);

/* An inline container: a paragraph (cls: NULL, "muted", "formula"…). */
cJSON *rdoc_para(cJSON *sec, const char *cls);
/* A paragraph of one rich text. */
void rdoc_para_text(cJSON *sec, const char *cls, const char *text);

/* Spans appended to an inline container (a paragraph, a list item, a note, a cell). */
void rdoc_text(cJSON *in, const char *text);   /* `code` spans inside become code */
void rdoc_textf(cJSON *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rdoc_code(cJSON *in, const char *text);
void rdoc_strong(cJSON *in, const char *text);
/* kind ("sev", "st", "op", "ph") and value (English) make the badge's class; shown is
 * the text in the report's language (value's title when they differ). */
void rdoc_badge(cJSON *in, const char *kind, const char *value, const char *shown);
void rdoc_loc(cJSON *in, const char *text);
void rdoc_ref(cJSON *in, const char *text);
/* Markdown's " — " between a location and its message (a space in HTML). */
void rdoc_dash(cJSON *in);

/* A list (ordered or not); rdoc_item adds an item (an inline container); rdoc_note adds
 * an indented line under an item (an inline container). */
cJSON *rdoc_list(cJSON *sec, int ordered);
cJSON *rdoc_item(cJSON *list);
cJSON *rdoc_note(cJSON *item);

/* A two-column table of labels and values. */
cJSON *rdoc_kv(cJSON *sec);
void rdoc_kv_row(cJSON *kv, const char *label, const char *value);

/* A table with headers (NULL-terminated); a header starting with '#' right-aligns its
 * column as numbers in HTML (the '#' is not shown unless it is the whole header). */
cJSON *rdoc_table(cJSON *sec, const char *const *headers);
cJSON *rdoc_row(cJSON *table);
/* A cell of a row: an inline container; rdoc_cell_text adds one with a text. */
cJSON *rdoc_cell(cJSON *row);
void rdoc_cell_text(cJSON *row, const char *text);

/* Summary cards: a label, a big value and a line under it. */
cJSON *rdoc_cards(cJSON *sec);
void rdoc_card(cJSON *cards, const char *label, const char *big, const char *sub);

/* A figure: an SVG drawing (HTML) and its caption (both formats). */
void rdoc_figure(cJSON *sec, const char *id, const char *caption, const char *svg);

/* Markdown: the cover as a table, the contents as links to <a id> anchors, the figures as
 * their captions. */
void rdoc_render_md(sbuf *b, const rdoc *d);
/* css is the stylesheet put in the page's <style>. */
void rdoc_render_html(sbuf *b, const rdoc *d, const char *css);

#endif
