/* intl — see intl.h. gettext does the catalogs; this module picks the language, finds the
 * catalogs and fills named placeholders. */
#include "intl.h"
#include "util.h"

#include <cJSON.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* glibc's catalog generation counter: bumping it makes gettext look again after
 * LANGUAGE changes (documented in the gettext manual, "Being a gettext grok"). */
extern int _nl_msg_cat_cntr;

static int lang_zh;
static char localedir[4096];

int intl_is_zh(const char *lang)
{
	return lang && strncmp(lang, "zh", 2) == 0;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* FERRY_LOCALEDIR, else build/locale beside the binary, else ../share/locale. */
static void find_localedir(void)
{
	const char *env = getenv("FERRY_LOCALEDIR");
	if (env && *env) {
		snprintf(localedir, sizeof localedir, "%s", env);
		return;
	}
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = '\0';
		static const char *const rel[] = { "build/locale", "../build/locale", "../share/locale" };
		for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
			char path[4096 + 32];
			snprintf(path, sizeof path, "%s/%s", exe, rel[i]);
			if (is_dir(path) && strlen(path) < sizeof localedir) {
				memcpy(localedir, path, strlen(path) + 1);
				return;
			}
		}
	}
	snprintf(localedir, sizeof localedir, "/usr/share/locale");
}

/* gettext ignores LANGUAGE while LC_MESSAGES is "C": a Chinese reader in a C locale still
 * gets Chinese, through C.UTF-8 (whose codeset is what the catalogs are in). */
static void apply_language(void)
{
	setenv("LANGUAGE", lang_zh ? "zh_CN" : "en", 1);
	const char *cur = setlocale(LC_MESSAGES, NULL);
	if (lang_zh && (!cur || strcmp(cur, "C") == 0 || strcmp(cur, "POSIX") == 0))
		setlocale(LC_MESSAGES, "C.UTF-8");
	++_nl_msg_cat_cntr;
}

void intl_utf8_ctype(void)
{
	const char *cs = nl_langinfo(CODESET);
	if (cs && strcmp(cs, "UTF-8") == 0)
		return;
	if (!setlocale(LC_CTYPE, "C.UTF-8"))
		setlocale(LC_CTYPE, "en_US.UTF-8");
}

/* The locale ferry runs in: the user's, as main set it, but always with a UTF-8 character
 * set, and with the C locale's numbers. A locale that is not installed (LANG=zh_CN.UTF-8
 * on a server without it) leaves the C locale's ASCII, in which glibc turns its translated
 * strerror() texts into runs of '?' and ncurses draws no wide character; ferry's catalogs
 * are UTF-8 whatever the locale, so everything it prints is. Numbers are data to ferry
 * (logs read with strtod, JSON, reports), so a decimal comma never enters them. */
static void apply_locale(void)
{
	intl_utf8_ctype();
	setlocale(LC_NUMERIC, "C");
}

void intl_init(void)
{
	const char *lang = getenv("FERRY_LANG");
	if (!lang || !*lang) {
		static const char *const vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
		for (size_t i = 0; i < 3 && (!lang || !*lang); i++)
			lang = getenv(vars[i]);
	}
	lang_zh = intl_is_zh(lang);
	apply_locale();
	setlocale(LC_MESSAGES, "");
	find_localedir();
	bindtextdomain(INTL_DOMAIN, localedir);
	bind_textdomain_codeset(INTL_DOMAIN, "UTF-8");
	bindtextdomain(INTL_PLUGIN_DOMAIN, localedir);
	bind_textdomain_codeset(INTL_PLUGIN_DOMAIN, "UTF-8");
	textdomain(INTL_DOMAIN);
	apply_language();
}

void intl_set_lang(const char *lang)
{
	int zh = intl_is_zh(lang);
	if (zh == lang_zh)
		return;
	lang_zh = zh;
	apply_language();
}

const char *intl_zh_catalog(void)
{
	static char path[4096 + 64];
	snprintf(path, sizeof path, "%s/zh_CN/LC_MESSAGES/%s.mo", localedir, INTL_DOMAIN);
	return access(path, R_OK) == 0 ? NULL : path;
}

const char *intl_lang(void)
{
	return lang_zh ? "zh" : "en";
}

int intl_zh(void)
{
	return lang_zh;
}

void intl_bind(const char *domain, const char *dir)
{
	if (!domain || !*domain || !dir)
		return;
	bindtextdomain(domain, dir);
	bind_textdomain_codeset(domain, "UTF-8");
}

const char *intl_text(const char *domain, const char *msgid)
{
	if (!msgid || !*msgid)
		return msgid ? msgid : "";
	return dgettext(domain ? domain : INTL_PLUGIN_DOMAIN, msgid);
}

static char *format_in(const char *domain, int translate, const char *template, const cJSON *args);

/* The text of args' member name (len bytes), appended to b; 0 when there is none. A member
 * that is itself a message ({"id", "args"}, an argument that came from _()) is rendered,
 * translated in domain when translate is set. */
static int append_arg(sbuf *b, const char *domain, int translate, const cJSON *args, const char *name,
                      size_t len)
{
	char key[128];
	if (!args || len == 0 || len >= sizeof key)
		return 0;
	memcpy(key, name, len);
	key[len] = '\0';
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
	if (cJSON_IsString(v)) {
		sbuf_adds(b, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		if (d == (double)(long long)d && d > -1e15 && d < 1e15)
			sbuf_addf(b, "%lld", (long long)d);
		else
			sbuf_addf(b, "%.6g", d);
	} else if (cJSON_IsBool(v)) {
		sbuf_adds(b, cJSON_IsTrue(v) ? "true" : "false");
	} else if (cJSON_IsObject(v) && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(v, "id"))) {
		const char *id = cJSON_GetObjectItemCaseSensitive(v, "id")->valuestring;
		char *text = format_in(domain, translate, translate ? intl_text(domain, id) : id,
		                       cJSON_GetObjectItemCaseSensitive(v, "args"));
		sbuf_adds(b, text);
		free(text);
	} else {
		return 0;
	}
	return 1;
}

static char *format_in(const char *domain, int translate, const char *template, const cJSON *args)
{
	sbuf b;
	sbuf_init(&b);
	const char *p = template ? template : "";
	while (*p) {
		if ((p[0] == '{' && p[1] == '{') || (p[0] == '}' && p[1] == '}')) {
			sbuf_addc(&b, p[0]);
			p += 2;
			continue;
		}
		if (*p == '{') {
			const char *end = strchr(p + 1, '}');
			if (end && append_arg(&b, domain, translate, args, p + 1, (size_t)(end - p - 1))) {
				p = end + 1;
				continue;
			}
		}
		sbuf_addc(&b, *p++);
	}
	char *out = sbuf_detach(&b);
	return out ? out : xstrdup("");
}

char *intl_format(const char *template, const cJSON *args)
{
	return format_in(NULL, 0, template, args);
}

char *intl_render(const char *domain, const char *msgid, const cJSON *args)
{
	return format_in(domain, 1, intl_text(domain, msgid), args);
}

/* field's text ("message" or "suggestion") rendered from its stored id and arguments in
 * i18n; NULL when i18n holds no id for it. Caller frees. */
static char *localized(const cJSON *i18n, const char *field, const char *domain)
{
	const cJSON *entry = cJSON_GetObjectItemCaseSensitive(i18n, field);
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(entry, "id");
	if (!cJSON_IsString(id))
		return NULL;
	return intl_render(domain, id->valuestring, cJSON_GetObjectItemCaseSensitive(entry, "args"));
}

/* The domain of a finding's message ids, bound to its catalog folder when it names one. */
static const char *i18n_domain(const cJSON *i18n)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(i18n, "domain");
	const cJSON *dir = cJSON_GetObjectItemCaseSensitive(i18n, "dir");
	const char *domain = cJSON_IsString(d) ? d->valuestring : INTL_PLUGIN_DOMAIN;
	if (cJSON_IsString(dir))
		intl_bind(domain, dir->valuestring);
	return domain;
}

/* field's text from its stored id and arguments, replacing field in finding. */
static void localize_field(cJSON *finding, const char *field, const cJSON *i18n, const char *domain)
{
	if (!cJSON_GetObjectItemCaseSensitive(finding, field))
		return;
	char *text = localized(i18n, field, domain);
	if (text)
		cJSON_ReplaceItemInObjectCaseSensitive(finding, field, cJSON_CreateString(text));
	free(text);
}

void intl_localize_finding(cJSON *finding)
{
	cJSON *i18n = cJSON_DetachItemFromObjectCaseSensitive(finding, "i18n");
	if (!i18n)
		return;
	if (lang_zh && cJSON_IsObject(i18n)) {
		const char *domain = i18n_domain(i18n);
		localize_field(finding, "message", i18n, domain);
		localize_field(finding, "suggestion", i18n, domain);
	}
	cJSON_Delete(i18n);
}

void intl_localize_texts(char **message, char **suggestion, const char *i18n_text)
{
	if (!lang_zh || !i18n_text)
		return;
	cJSON *i18n = cJSON_Parse(i18n_text);
	if (cJSON_IsObject(i18n)) {
		const char *domain = i18n_domain(i18n);
		char *text;
		if (message && (text = localized(i18n, "message", domain))) {
			free(*message);
			*message = text;
		}
		if (suggestion && *suggestion && (text = localized(i18n, "suggestion", domain))) {
			free(*suggestion);
			*suggestion = text;
		}
	}
	cJSON_Delete(i18n);
}

const char *intl_pgettext(const char *key, const char *msgid)
{
	const char *t = gettext(key);
	return t == key ? msgid : t;
}

const char *intl_ctext(const char *key)
{
	const char *sep = strchr(key, '\004');
	return intl_pgettext(key, sep ? sep + 1 : key);
}
