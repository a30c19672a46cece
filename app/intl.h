/*
 * intl — the language ferry speaks: gettext catalogs for the C code (domain "ferry") and
 * for the bundled plugins (domain "ferry-plugins"), and the named-placeholder messages
 * plugins write.
 *
 * The language is English or Simplified Chinese, chosen by FERRY_LANG (en|zh), else by
 * LC_ALL / LC_MESSAGES / LANG; intl_set_lang switches it at run time (a report written
 * with --lang). Catalogs are found under FERRY_LOCALEDIR, else build/locale beside the
 * binary (a source tree), else ../share/locale beside it (an installed ferry).
 *
 * Canonical text is English: findings are stored in English (their identity depends on
 * it) together with the message id and its arguments, and shown in the reader's
 * language. Strings returned by _() and intl_text are static (the catalog's); strings
 * returned by intl_render and intl_format are malloc'd and the caller frees them.
 */
#ifndef FERRY_INTL_H
#define FERRY_INTL_H

#include <libintl.h>

struct cJSON;

#define _(s) gettext(s)
#define N_(s) (s)
#define P_(one, many, n) ngettext(one, many, n)
/* Marks a singular/plural pair for the catalog in an initializer: { NP_("%zu file", "%zu files") }. */
#define NP_(one, many) one, many
/* A message in a context, for a word that reads differently elsewhere ("warnings" as a
 * column heading and as a verdict): C_("column", "warnings"). NC_ marks one for later. */
#define C_(ctx, s) intl_pgettext(ctx "\004" s, s)
#define NC_(ctx, s) (ctx "\004" s)
/* The translation of KEY ("context\004msgid"), or the msgid part when there is none. */
const char *intl_pgettext(const char *key, const char *msgid);
/* The same for a key marked with NC_. */
const char *intl_ctext(const char *key);

#define INTL_DOMAIN "ferry"
#define INTL_PLUGIN_DOMAIN "ferry-plugins"

/* Picks the language from the environment and binds the catalogs; makes the character set
 * UTF-8 (C.UTF-8 when the user's locale is not UTF-8 or not installed) and numbers the C
 * locale's. Call once, first, after setlocale(LC_ALL, ""). */
void intl_init(void);
/* Makes LC_CTYPE UTF-8 unless it is already: ferry's text, the workbench's wide
 * characters and glibc's translated strerror() texts are all UTF-8 then. */
void intl_utf8_ctype(void);
/* Switches to "en" or "zh" (anything starting "zh" is Chinese). */
void intl_set_lang(const char *lang);
/* "en" or "zh". */
const char *intl_lang(void);
/* NULL when the Chinese catalog is where gettext looks for it; else the path it is missing
 * from (a binary copied away from its build tree and not installed). */
const char *intl_zh_catalog(void);
int intl_zh(void);
/* 1 when a language setting asks for Simplified Chinese ("zh", "zh-CN", "zh_CN.UTF-8"…). */
int intl_is_zh(const char *lang);

/* Binds a plugin's own text domain to DIR (DIR/zh_CN/LC_MESSAGES/DOMAIN.mo). */
void intl_bind(const char *domain, const char *dir);
/* msgid in the current language from domain (NULL: the plugins' domain). */
const char *intl_text(const char *domain, const char *msgid);

/* template with each {name} replaced by args' member name (a string or a number, or a
 * message {"id", "args"} of its own: an argument that came from _(), rendered as is here
 * and translated by intl_render); {{ and }} stand for literal braces; an unknown name is
 * kept as written. */
char *intl_format(const char *template, const struct cJSON *args);
/* msgid translated in domain and then formatted with args. */
char *intl_render(const char *domain, const char *msgid, const struct cJSON *args);

/* A stored finding (cJSON object with "message", "suggestion" and "i18n") in the current
 * language: message and suggestion are replaced by their translations when the finding
 * carries its message ids and the language is not English; "i18n" is removed. */
void intl_localize_finding(struct cJSON *finding);
/* The same for a typed finding's texts: *message and *suggestion (each malloc'd; either
 * pointer may be NULL, and a NULL *suggestion stays NULL) are replaced by their
 * translations from i18n_text (the stored JSON, may be NULL) when the language is not
 * English. */
void intl_localize_texts(char **message, char **suggestion, const char *i18n_text);

#endif
