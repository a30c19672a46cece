/* plugin_host — see plugin_host.h. Discovery, declarations and the run loop; the sandbox
 * and the ctx API are in plugin_api.c. */
#include "plugin_host.h"
#include "artifact.h"
#include "pyenc.h"
#include "phase.h"
#include "config.h"
#include "category.h"
#include "embedded.h"
#include "err.h"
#include "plugin_api.h"
#include "lprof.h"
#include "project.h"
#include "pysrc.h"
#include "safetext.h"
#include "textscan.h"
#include "intl.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <lauxlib.h>
#include <lua.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct plugin_host {
	plugin_host_opts opts;  /* the caller's options; the strings below are our copies */
	char *root;
	char *source_dir;
	char *allow_exec;
	char *cache_dir;
	char **dirs;
	papi_plugin *plugins;   /* loaded plugins, sorted by phase then id */
	size_t n, cap;
	plugin_info *infos;     /* shallow copies of plugins[i].info for plugin_host_plugins */
	char **errors;          /* load errors, "path: reason" */
	size_t nerrors;
	size_t parsed;          /* files parsed by the last run */
};

static void add_error(plugin_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int exec_allowed(const plugin_host *h, const char *id);

static void add_error(plugin_host *h, const char *fmt, ...)
{
	sbuf b;
	va_list ap;
	sbuf_init(&b);
	va_start(ap, fmt);
	sbuf_vaddf(&b, fmt, ap);
	va_end(ap);
	h->errors = xrealloc(h->errors, (h->nerrors + 1) * sizeof *h->errors);
	h->errors[h->nerrors++] = safetext_clean(b.buf, b.len); /* may quote the plugin's own text */
	sbuf_done(&b);
}

/* ---- declarations ------------------------------------------------------------------- */

static int valid_id(const char *s)
{
	if (!*s || util_starts_with(s, "ferry."))
		return 0;
	for (const char *p = s; *p; p++) {
		char c = *p;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '.' || c == '-'))
			return 0;
	}
	return 1;
}

/* The string field of the declaration at index 1 (raw access: no plugin code runs). */
static const char *decl_str(lua_State *L, const char *field, int required)
{
	lua_pushstring(L, field);
	int t = lua_rawget(L, 1);
	if (t == LUA_TNIL) {
		lua_pop(L, 1);
		if (required)
			luaL_error(L, "%s: missing", field);
		return NULL;
	}
	if (t != LUA_TSTRING)
		luaL_error(L, "%s: must be a string", field);
	const char *s = lua_tostring(L, -1);
	lua_pop(L, 1); /* still referenced by the declaration */
	if (required && !*s)
		luaL_error(L, "%s: empty", field);
	return s;
}

static int decl_type(lua_State *L, const char *field)
{
	lua_pushstring(L, field);
	int t = lua_rawget(L, 1);
	lua_pop(L, 1);
	return t;
}

/* Appends one trigger literal of a declaration, in group g. */
static void add_decl_trigger(papi_plugin *p, const char *literal, unsigned g)
{
	p->triggers = xrealloc(p->triggers, (p->ntriggers + 1) * sizeof *p->triggers);
	p->groups = xrealloc(p->groups, (p->ntriggers + 1) * sizeof *p->groups);
	p->triggers[p->ntriggers] = xstrdup(literal);
	p->groups[p->ntriggers++] = g;
}

/* A setting's name: lower-case letters, digits and _, starting with a letter. */
static int valid_setting_name(const char *s)
{
	if (!*s || !islower((unsigned char)*s) || strlen(s) > 48)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

static int setting_cmp(const void *a, const void *b)
{
	return strcmp(((const plugin_setting *)a)->name, ((const plugin_setting *)b)->name);
}

/* The default of the setting table at the top of the stack, as the text config stores. */
static char *setting_default(lua_State *L, const char *name, const char *type, const char *words)
{
	lua_pushliteral(L, "default");
	int t = lua_rawget(L, -2);
	char *def = NULL;
	if (t == LUA_TNIL) {
		lua_pop(L, 1);
		return NULL;
	}
	if (strcmp(type, "bool") == 0 && t == LUA_TBOOLEAN)
		def = xstrdup(lua_toboolean(L, -1) ? "true" : "false");
	else if ((strcmp(type, "number") == 0 || strcmp(type, "count") == 0) && lua_isinteger(L, -1))
		def = xasprintf("%lld", (long long)lua_tointeger(L, -1));
	else if ((strcmp(type, "number") == 0 || strcmp(type, "count") == 0) && t == LUA_TNUMBER)
		def = xasprintf("%.17g", lua_tonumber(L, -1));
	else if ((strcmp(type, "text") == 0 || strcmp(type, "word") == 0) && t == LUA_TSTRING)
		def = xstrdup(lua_tostring(L, -1));
	lua_pop(L, 1);
	if (!def)
		luaL_error(L, "settings.%s.default: not a %s", name, type);
	const struct config_key k = { name, config_kind_of(type), words, NULL, NULL, NULL, NULL, NULL };
	if (config_value_check(&k, name, def)) {
		char msg[512];
		snprintf(msg, sizeof msg, "settings.%s.default: %s", name, err_message());
		free(def);
		err_clear();
		luaL_error(L, "%s", msg);
	}
	return def;
}

/* The words of a word setting's values list at the top of the stack, space-separated. */
static char *setting_words(lua_State *L, const char *name)
{
	lua_pushliteral(L, "values");
	if (lua_rawget(L, -2) != LUA_TTABLE || lua_rawlen(L, -1) == 0 || lua_rawlen(L, -1) > 32)
		luaL_error(L, "settings.%s.values: a word setting needs a list of 1 to 32 words", name);
	sbuf b;
	sbuf_init(&b);
	for (lua_Unsigned i = 1; i <= lua_rawlen(L, -1); i++) {
		const char *w = lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
		if (!w || !*w || strpbrk(w, " \t\n")) {
			sbuf_done(&b);
			luaL_error(L, "settings.%s.values: entry %d is not a word", name, (int)i);
		}
		sbuf_addf(&b, "%s%s", i > 1 ? " " : "", w);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	return sbuf_detach(&b);
}

/* settings = { name = { type = "bool"|"number"|"count"|"text"|"word", values = {…} (word),
 * default = …, help = "…" } }, copied into p->info.settings (sorted by name). */
static void decl_settings(lua_State *L, papi_plugin *p)
{
	lua_pushliteral(L, "settings");
	int t = lua_rawget(L, 1);
	if (t == LUA_TNIL) {
		lua_pop(L, 1);
		return;
	}
	if (t != LUA_TTABLE)
		luaL_error(L, "settings: must be a table of name = { type = …, default = …, help = … }");
	lua_pushnil(L);
	while (lua_next(L, -2)) {
		if (lua_type(L, -2) != LUA_TSTRING || !valid_setting_name(lua_tostring(L, -2)))
			luaL_error(L, "settings: '%s' is not a setting name (a-z, 0-9 and _, starting with a letter)",
			           lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?");
		const char *name = lua_tostring(L, -2);
		if (!lua_istable(L, -1))
			luaL_error(L, "settings.%s: must be a table { type = …, default = …, help = … }", name);
		if (p->info.nsettings >= 64)
			luaL_error(L, "settings: more than 64");
		lua_pushliteral(L, "type");
		const char *type = lua_rawget(L, -2) == LUA_TSTRING ? lua_tostring(L, -1) : "";
		lua_pop(L, 1); /* still referenced by the table */
		if (strcmp(type, "bool") != 0 && strcmp(type, "number") != 0 && strcmp(type, "count") != 0 &&
		    strcmp(type, "text") != 0 && strcmp(type, "word") != 0)
			luaL_error(L, "settings.%s.type: must be bool, number, count, text or word", name);
		lua_pushliteral(L, "help");
		const char *help = lua_rawget(L, -2) == LUA_TSTRING ? lua_tostring(L, -1) : "";
		lua_pop(L, 1);
		if (!*help)
			luaL_error(L, "settings.%s.help: missing (ferry config shows it)", name);
		char *key = xasprintf("%s.%s", p->info.id, name);
		if (config_builtin_find(key)) {
			free(key);
			luaL_error(L, "settings.%s: %s.%s is one of ferry's own settings", name, p->info.id, name);
		}
		p->info.settings = xrealloc(p->info.settings, (p->info.nsettings + 1) * sizeof *p->info.settings);
		plugin_setting *s = &p->info.settings[p->info.nsettings++];
		*s = (plugin_setting){ xstrdup(name), key, xstrdup(type), NULL, NULL, xstrdup(help) };
		if (strcmp(type, "bool") == 0)
			s->words = xstrdup("true false");
		else if (strcmp(type, "word") == 0)
			s->words = setting_words(L, name);
		s->def = setting_default(L, name, type, s->words);
		lua_pop(L, 1);
	}
	lua_pop(L, 1);
	if (p->info.nsettings > 1)
		qsort(p->info.settings, p->info.nsettings, sizeof *p->info.settings, setting_cmp);
}

/* Checks the declaration (index 1) and copies it into the papi_plugin (index 2, light
 * userdata). Fields are filled one by one so the caller frees a partial copy on error. */
static int decl_k(lua_State *L)
{
	papi_plugin *p = lua_touserdata(L, 2);
	if (!lua_istable(L, 1))
		return luaL_error(L, "does not return a declaration table");
	const char *id = decl_str(L, "id", 1);
	if (!valid_id(id))
		return luaL_error(L, "id: '%s' is not a valid plugin id (letters, digits, _ . -; "
		                     "not starting with ferry.)", id);
	p->info.id = xstrdup(id);
	const char *phase = decl_str(L, "phase", 1);
	if (phase_index(phase) < 0)
		return luaL_error(L, "phase: '%s' is not a phase (%s)", phase, phase_list());
	p->info.phase = xstrdup(phase);
	p->info.title = xstrdup(decl_str(L, "title", 1));
	const char *sev = decl_str(L, "severity", 1);
	if (strcmp(sev, "error") != 0 && strcmp(sev, "warning") != 0 && strcmp(sev, "info") != 0)
		return luaL_error(L, "severity: must be error, warning or info, not '%s'", sev);
	p->info.severity = xstrdup(sev);
	if (decl_type(L, "run") != LUA_TFUNCTION)
		return luaL_error(L, "run: must be a function");
	const char *s = decl_str(L, "category", 0);
	if (s)
		p->info.category = xstrdup(s);
	s = decl_str(L, "description", 0);
	if (s)
		p->info.description = xstrdup(s);
	s = decl_str(L, "textdomain", 0);
	if (s)
		p->info.textdomain = xstrdup(s);
	int t = decl_type(L, "fix");
	if (t != LUA_TNIL && t != LUA_TFUNCTION)
		return luaL_error(L, "fix: must be a function");
	p->info.fixable = t == LUA_TFUNCTION;
	decl_settings(L, p);

	lua_pushliteral(L, "triggers");
	t = lua_rawget(L, 1);
	if (t == LUA_TFUNCTION) {
		/* triggers derived from a fact table: triggers(data) returns the list */
		lua_pushcfunction(L, papi_data_fn);
		lua_call(L, 1, 1);
		t = lua_type(L, -1);
	}
	if (t != LUA_TNIL) {
		if (t != LUA_TTABLE)
			return luaL_error(L, "triggers: must be a list of strings, or a function(data) returning one");
		lua_Unsigned n = lua_rawlen(L, -1);
		if (n == 0)
			return luaL_error(L, "triggers: empty list (leave it out to see every file)");
		if (n > 5000)
			return luaL_error(L, "triggers: too many");
		for (lua_Unsigned i = 1; i <= n; i++) {
			int et = lua_rawgeti(L, -1, (lua_Integer)i);
			if (et == LUA_TSTRING && lua_rawlen(L, -1) > 0) {
				add_decl_trigger(p, lua_tostring(L, -1), (unsigned)i);
			} else if (et == LUA_TTABLE && lua_rawlen(L, -1) > 0 && lua_rawlen(L, -1) <= 16) {
				/* a group: a file must hold every one of these literals */
				lua_Unsigned m = lua_rawlen(L, -1);
				for (lua_Unsigned k = 1; k <= m; k++) {
					if (lua_rawgeti(L, -1, (lua_Integer)k) != LUA_TSTRING || lua_rawlen(L, -1) == 0)
						return luaL_error(L, "triggers: entry %d holds something other than a non-empty string",
						                  (int)i);
					add_decl_trigger(p, lua_tostring(L, -1), (unsigned)i);
					lua_pop(L, 1);
				}
			} else {
				return luaL_error(L, "triggers: entry %d is neither a non-empty string nor a list of 1 to 16 of them",
				                  (int)i);
			}
			lua_pop(L, 1);
		}
	}
	lua_pop(L, 1);

	lua_pushliteral(L, "needs");
	t = lua_rawget(L, 1);
	if (t != LUA_TNIL) {
		if (t != LUA_TTABLE)
			return luaL_error(L, "needs: must be a list of strings");
		lua_Unsigned n = lua_rawlen(L, -1);
		for (lua_Unsigned i = 1; i <= n; i++) {
			if (lua_rawgeti(L, -1, (lua_Integer)i) != LUA_TSTRING ||
			    strcmp(lua_tostring(L, -1), "exec") != 0)
				return luaL_error(L, "needs: entry %d is not a known capability (\"exec\")", (int)i);
			lua_pop(L, 1);
			p->needs_exec = 1;
		}
		if (p->needs_exec && strcmp(p->info.phase, "environment") != 0)
			return luaL_error(L, "needs: only environment plugins may run programs");
	}
	lua_pop(L, 1);

	lua_pushliteral(L, "evidence");
	t = lua_rawget(L, 1);
	if (t != LUA_TNIL) {
		if (t != LUA_TTABLE)
			return luaL_error(L, "evidence: must be a list of strings");
		lua_Unsigned n = lua_rawlen(L, -1);
		for (lua_Unsigned i = 1; i <= n; i++) {
			unsigned bit = lua_rawgeti(L, -1, (lua_Integer)i) == LUA_TSTRING ? plugin_evidence_bit(lua_tostring(L, -1)) : 0;
			if (!bit)
				return luaL_error(L, "evidence: entry %d is none of the artifact kinds, \"comparisons\" or \"settings\"",
				                  (int)i);
			p->info.evidence |= bit;
			lua_pop(L, 1);
		}
		/* a check that runs programs on this machine runs only when someone asks */
		if (p->info.evidence && p->needs_exec)
			return luaL_error(L, "evidence: a check that runs programs (needs exec) runs only when asked");
	}
	lua_pop(L, 1);

	s = decl_str(L, "query", 0);
	/* the survey judges the code as it was at one moment, every check at once; a check of
	 * it that reads only artifacts may judge a new one alone */
	if (p->info.evidence && strcmp(p->info.phase, "assess") == 0 && (p->ntriggers || s))
		return luaL_error(L, "evidence: an assess check that reads code runs only with the whole survey");
	if (s)
		lua_pushstring(L, s);
	else
		lua_pushnil(L);
	return 1;
}

static int by_phase_then_id(const void *a, const void *b)
{
	const papi_plugin *x = a, *y = b;
	int px = phase_index(x->info.phase), py = phase_index(y->info.phase);
	if (px != py)
		return px < py ? -1 : 1;
	return strcmp(x->info.id, y->info.id);
}

/* Loads one plugin file; text is adopted. A later plugin with the same id replaces the
 * earlier one. Problems become load errors. */
static void load_plugin(plugin_host *h, const char *origin, char *text, size_t len, int bundled)
{
	papi_plugin p;
	memset(&p, 0, sizeof p);
	papi_sandbox sb;
	memset(&sb, 0, sizeof sb);
	sb.opts = &h->opts;
	sb.origin = origin;
	sb.budget = h->opts.instr_budget;
	sb.mem_cap = h->opts.mem_cap;
	sb.time_limit_ms = h->opts.time_limit_ms;
	papi_run decl_run; /* lets a `triggers` function read fact tables */
	memset(&decl_run, 0, sizeof decl_run);
	decl_run.opts = &h->opts;
	sb.run = &decl_run;
	char *err = NULL;
	lua_State *L = papi_open(&sb);
	if (!L) {
		add_error(h, "%s: cannot create a Lua state", origin);
		goto out;
	}
	if (papi_load(L, text, len, origin, &err) != 0) {
		add_error(h, "%s: %s", origin, err);
		goto out;
	}
	int base = lua_gettop(L); /* the declaration */
	lua_pushcfunction(L, papi_traceback);
	lua_insert(L, base);
	lua_pushcfunction(L, decl_k);
	lua_insert(L, base + 1);
	lua_pushlightuserdata(L, &p);
	if (lua_pcall(L, 2, 1, base) != LUA_OK) {
		const char *m = lua_tostring(L, -1);
		const char *nl = m ? strchr(m, '\n') : NULL;
		add_error(h, "%s: %.*s", origin, nl ? (int)(nl - m) : m ? (int)strlen(m) : 12,
		          m ? m : "bad declaration");
		goto out;
	}
	if (lua_isstring(L, -1) && pysrc_query_new(&p.query, lua_tostring(L, -1)) != 0) {
		add_error(h, "%s: %s", origin, err_message());
		goto out;
	}
	p.info.origin = xstrdup(origin);
	if (p.info.textdomain && !bundled) {
		const char *slash = strrchr(origin, '/');
		p.info.localedir = slash ? xasprintf("%.*s/locale", (int)(slash - origin), origin) : xstrdup("locale");
		intl_bind(p.info.textdomain, p.info.localedir);
	}
	if (p.info.category && !category_find(p.info.category))
		p.info.warning = xasprintf("plugin %s (%s): category '%s' is not one of plugins/data/categories.json; its "
		                           "findings weigh 0 person-days in the readiness estimate",
		                           p.info.id, origin, p.info.category);
	p.bundled = bundled;
	p.info.needs_exec = p.needs_exec;
	p.info.may_exec = p.needs_exec && (bundled || exec_allowed(h, p.info.id));
	p.chunk = text;
	p.len = len;
	text = NULL;
	size_t i = 0;
	while (i < h->n && strcmp(h->plugins[i].info.id, p.info.id) != 0)
		i++;
	if (!bundled) {
		char sha[65];
		util_sha256_hex(sha, p.chunk, p.len);
		p.info.sha256 = xstrdup(sha);
	}
	if (i < h->n && !bundled && (h->plugins[i].bundled || h->plugins[i].info.replaces)) {
		/* a consultancy may replace a bundled check; what ran must show, above all for the
		 * acceptance checks a sign-off runs */
		p.info.replaces = 1;
		char *w = xasprintf("plugin %s (%s, sha256 %.12s) replaces the check of that id bundled with ferry%s%s",
		                    p.info.id, origin, p.info.sha256, p.info.warning ? "; " : "",
		                    p.info.warning ? p.info.warning : "");
		free(p.info.warning);
		p.info.warning = w;
	}
	if (i < h->n) {
		papi_plugin_done(&h->plugins[i]);
	} else {
		if (h->n == h->cap) {
			h->cap = h->cap ? h->cap * 2 : 16;
			h->plugins = xrealloc(h->plugins, h->cap * sizeof *h->plugins);
		}
		h->n++;
	}
	h->plugins[i] = p;
	memset(&p, 0, sizeof p);
out:
	papi_close(L);
	papi_run_done(&decl_run);
	papi_plugin_done(&p);
	free(err);
	free(text);
}

/* Whether the engagement allows plugin id, not bundled with ferry, to run programs. */
static int exec_allowed(const plugin_host *h, const char *id)
{
	size_t n = strlen(id);
	for (const char *p = h->allow_exec; p && (p = strstr(p, id)); p += n)
		if ((p == h->allow_exec || p[-1] == ' ' || p[-1] == ',') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == ','))
			return 1;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Loads the .lua files of dir in name order. A missing folder is fine. */
static void load_dir(plugin_host *h, const char *dir, int bundled)
{
	DIR *d = opendir(dir);
	if (!d) {
		if (errno != ENOENT && errno != ENOTDIR)
			add_error(h, "%s: %s", dir, strerror(errno));
		return;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || !util_ends_with(de->d_name, ".lua"))
			continue;
		names = xrealloc(names, (n + 1) * sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, by_name);
	for (size_t i = 0; i < n; i++) {
		char *path = util_path_join(dir, names[i]);
		struct stat st;
		char *text = NULL;
		size_t len = 0;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			if (util_read_file(&text, &len, path) != 0)
				add_error(h, "%s", err_message());
			else
				load_plugin(h, path, text, len, bundled);
		}
		free(path);
		free(names[i]);
	}
	free(names);
}

/* The bundled plugins: the source tree's folder when given, else the embedded copy. */
static void load_bundled(plugin_host *h)
{
	if (h->source_dir) {
		for (int i = 0; i < (int)phase_count(); i++) {
			char *dir = util_path_join(h->source_dir, phase_name(i));
			load_dir(h, dir, 1);
			free(dir);
		}
		return;
	}
	for (const struct embedded_file *f = embedded_files; f->path; f++) {
		if (!util_starts_with(f->path, "plugins/") || !util_ends_with(f->path, ".lua"))
			continue;
		const char *rest = f->path + strlen("plugins/");
		const char *slash = strchr(rest, '/');
		if (!slash || strchr(slash + 1, '/'))
			continue;
		char *phase = xstrndup(rest, (size_t)(slash - rest));
		int known = phase_index(phase) >= 0;
		free(phase);
		if (!known)
			continue;
		char *origin = xasprintf("embedded:%s", f->path);
		load_plugin(h, origin, xstrndup(f->data, f->len), f->len, 1);
		free(origin);
	}
}

int plugin_host_new(plugin_host **out, const plugin_host_opts *opts)
{
	*out = NULL;
	if (!opts || !opts->root)
		return err_set(FERRY_EUSAGE, _("plugin host: no project root"));
	plugin_host *h = xcalloc(1, sizeof *h);
	h->opts = *opts;
	h->root = xstrdup(opts->root);
	h->opts.root = h->root;
	if (opts->source_dir) {
		h->source_dir = xstrdup(opts->source_dir);
		h->opts.source_dir = h->source_dir;
	}
	if (opts->ndirs) {
		h->dirs = xcalloc(opts->ndirs, sizeof *h->dirs);
		for (size_t i = 0; i < opts->ndirs; i++)
			h->dirs[i] = xstrdup(opts->dirs[i]);
	}
	h->opts.dirs = (const char *const *)h->dirs;
	if (opts->allow_exec) {
		h->allow_exec = xstrdup(opts->allow_exec);
		h->opts.allow_exec = h->allow_exec;
	}
	if (opts->cache_dir) {
		h->cache_dir = xstrdup(opts->cache_dir);
		h->opts.cache_dir = h->cache_dir;
	}
	if (!h->opts.instr_budget)
		h->opts.instr_budget = PAPI_DEFAULT_BUDGET;
	if (!h->opts.mem_cap)
		h->opts.mem_cap = PAPI_DEFAULT_MEM_CAP;

	load_bundled(h);
	for (size_t i = 0; i < opts->ndirs; i++) {
		load_dir(h, h->dirs[i], 0);
		for (int k = 0; k < (int)phase_count(); k++) {
			char *dir = util_path_join(h->dirs[i], phase_name(k));
			load_dir(h, dir, 0);
			free(dir);
		}
	}
	if (h->n)
		qsort(h->plugins, h->n, sizeof *h->plugins, by_phase_then_id);
	h->infos = xcalloc(h->n ? h->n : 1, sizeof *h->infos);
	for (size_t i = 0; i < h->n; i++)
		h->infos[i] = h->plugins[i].info;
	*out = h;
	return 0;
}

void plugin_host_free(plugin_host *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->n; i++)
		papi_plugin_done(&h->plugins[i]);
	free(h->plugins);
	free(h->infos);
	for (size_t i = 0; i < h->nerrors; i++)
		free(h->errors[i]);
	free(h->errors);
	for (size_t i = 0; i < h->opts.ndirs; i++)
		free(h->dirs[i]);
	free(h->dirs);
	free(h->root);
	free(h->source_dir);
	free(h->allow_exec);
	free(h->cache_dir);
	free(h);
}

const plugin_info *plugin_host_plugins(const plugin_host *h, size_t *n)
{
	*n = h->n;
	return h->infos;
}

const char *const *plugin_host_load_errors(const plugin_host *h, size_t *n)
{
	*n = h->nerrors;
	return (const char *const *)h->errors;
}

size_t plugin_host_parsed_files(const plugin_host *h)
{
	return h->parsed;
}

/* ---- running ------------------------------------------------------------------------- */

/* A problem with a source file, as a warning of plugin (phase) in category source.
 * i18n: the message ids and arguments of message and suggestion (intl.h), or NULL. */
static void problem_finding(const plugin_run_cb *cb, const char *plugin, const char *phase, const char *file,
                            int line, int col, const char *message, const char *kind, const char *suggestion,
                            const char *i18n)
{
	if (!cb || !cb->finding)
		return;
	finding f;
	memset(&f, 0, sizeof f);
	f.plugin = (char *)plugin;
	f.phase = phase_index(phase);
	f.severity = SEVERITY_WARNING;
	f.category = "source";
	f.file = (char *)file;
	f.line = line;
	f.col = col;
	f.end_line = line;
	f.end_col = col;
	f.message = (char *)message;
	f.suggestion = (char *)suggestion;
	f.i18n = (char *)i18n;
	f.status = STATUS_OPEN;
	f.fingerprint = finding_fingerprint(plugin, file, NULL, 0, 0, 0, kind);
	cb->finding(&f, cb->payload);
	free(f.fingerprint);
}

/* problem_finding with its message the template msg_id (N_(), {name} placeholders)
 * filled with args (consumed; may be NULL) and its advice sugg_id: stored in English
 * with both ids, so the finding is shown in the reader's language as a plugin's is. */
static void host_finding(const plugin_run_cb *cb, const char *plugin, const char *phase, const char *file, int line,
                         int col, const char *msg_id, cJSON *args, const char *kind, const char *sugg_id)
{
	if (!args)
		args = cJSON_CreateObject();
	char *message = intl_format(msg_id, args);
	cJSON *i18n = cJSON_CreateObject();
	cJSON_AddStringToObject(i18n, "domain", INTL_DOMAIN);
	cJSON *m = cJSON_AddObjectToObject(i18n, "message");
	cJSON_AddStringToObject(m, "id", msg_id);
	cJSON_AddItemToObject(m, "args", args);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(i18n, "suggestion"), "id", sugg_id);
	char *i18n_text = cJSON_PrintUnformatted(i18n);
	problem_finding(cb, plugin, phase, file, line, col, message, kind, sugg_id, i18n_text);
	free(i18n_text);
	cJSON_Delete(i18n);
	free(message);
}

/* A problem with the project's sources, as a finding of the pseudo-plugin ferry.source in
 * each phase of phases (bits of phase_bit): the phases whose checks it kept from the file.
 * Each phase's finding is its own (the phase is part of its identity; the survey's, in
 * assess, keeps the identity it had before phases had their own). Its message and advice
 * as host_finding's (args consumed). */
static void source_finding(const plugin_run_cb *cb, unsigned phases, const char *file, int line, int col,
                           const char *msg_id, cJSON *args, const char *kind, const char *sugg_id)
{
	for (size_t p = 0; p < phase_count(); p++) {
		if (!(phases & (1u << p)))
			continue;
		const char *phase = phase_name(p);
		char *key = strcmp(phase, "assess") == 0 ? xstrdup(kind) : xasprintf("%s %s", phase, kind);
		host_finding(cb, "ferry.source", phase, file, line, col, msg_id, args ? cJSON_Duplicate(args, 1) : NULL, key,
		             sugg_id);
		free(key);
	}
	cJSON_Delete(args);
}

/* Why a path was skipped, as the project walk (project.c) and read_source write it, each
 * a message of its own so a reader sees it in their language; {why} is the system's
 * reason in parentheses. */
static const char *const skip_reasons[] = {
	N_("symlink leaving the project"), N_("symlink loop"), N_("broken symlink"), N_("directory loop"),
	N_("directories nested too deeply"), N_("unreadable directory ({why})"), N_("unreadable ({why})"),
	N_("not a regular file"), N_("binary file (contains NUL bytes)"), N_("not UTF-8 and declares no encoding"),
};

/* The reason of a problem line as a message ({"id", "args"}) when it is one of
 * skip_reasons, else as the text it is. */
static cJSON *skip_reason(const char *reason)
{
	for (size_t i = 0; i < sizeof skip_reasons / sizeof *skip_reasons; i++) {
		const char *id = skip_reasons[i], *slot = strstr(id, "({why})");
		size_t head = slot ? (size_t)(slot - id) : strlen(id);
		size_t len = strlen(reason);
		if (slot ? strncmp(reason, id, head) == 0 && reason[head] == '(' && len > head + 1 && reason[len - 1] == ')'
		         : strcmp(reason, id) == 0) {
			cJSON *m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "id", id);
			if (slot) {
				char *why = xstrndup(reason + head + 1, len - head - 2);
				cJSON_AddStringToObject(cJSON_AddObjectToObject(m, "args"), "why", why);
				free(why);
			}
			return m;
		}
	}
	return cJSON_CreateString(reason);
}

/* The arguments of N_("{file}: {reason}") for a problem line "path: reason". */
static cJSON *problem_args(const char *file, const char *reason)
{
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "file", file);
	cJSON_AddItemToObject(a, "reason", skip_reason(reason));
	return a;
}

/* The phases whose checks read Python in this run: those a source file that cannot be
 * read at all, or a path the walk could not follow, kept from what they read. */
static unsigned reading_phases(const papi_run *run)
{
	unsigned phases = 0;
	for (size_t i = 0; i < run->npy; i++)
		phases |= run->py[i].phases;
	return phases;
}

/* Project walk problems ("path: reason") as source findings. */
static void report_walk_problems(const papi_run *run, const plugin_run_cb *cb)
{
	unsigned phases = reading_phases(run);
	for (size_t i = 0; i < run->files.nproblems; i++) {
		const char *line = run->files.problems[i];
		const char *sep = NULL;
		for (const char *p = strstr(line, ": "); p; p = strstr(p + 1, ": "))
			sep = p;
		char *file = sep ? xstrndup(line, (size_t)(sep - line)) : xstrdup(line);
		const char *reason = sep ? sep + 2 : "unreadable";
		source_finding(cb, phases, file, 0, 0, N_("{file}: {reason}"), problem_args(file, reason), reason,
		               N_("ferry skipped this path; fix or remove it if it holds code to migrate."));
		free(file);
	}
}

/* Reads a .py file for the prefilter: the problem line, or NULL with *text (caller frees). */
static char *read_source(char **text, size_t *len, const char *root, const char *rel)
{
	*text = NULL;
	char *abs = util_path_join(root, rel), *problem = NULL;
	struct stat st;
	if (stat(abs, &st) != 0) {
		problem = xasprintf("%s: unreadable (%s)", rel, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		problem = xasprintf("%s: not a regular file", rel);
		goto out;
	}
	if ((unsigned long long)st.st_size > PAPI_MAX_SOURCE) {
		problem = xasprintf("%s: file too large to analyse (%llu MiB; the limit is %u MiB); every check skipped it", rel,
		                    (unsigned long long)st.st_size >> 20, PAPI_MAX_SOURCE >> 20);
		goto out;
	}
	if (util_read_file(text, len, abs) != 0) {
		problem = xasprintf("%s: unreadable (%s)", rel, err_message());
		goto out;
	}
	if (memchr(*text, '\0', *len)) {
		problem = xasprintf("%s: binary file (contains NUL bytes)", rel);
	} else if (!util_utf8_valid(*text, *len)) {
		/* prefiltered as Python reads it when it declares its encoding (PEP 263) */
		char *decoded = NULL, enc[32];
		size_t dlen = 0;
		int d = pyenc_decode(&decoded, &dlen, enc, rel, *text, *len);
		if (d < 0) {
			problem = xstrdup(err_message()); /* names the file and the declared encoding */
		} else if (d == 0) {
			problem = xasprintf("%s: not UTF-8 and declares no encoding", rel);
		} else {
			free(*text);
			*text = decoded;
			*len = dlen;
		}
	}
	if (problem) {
		free(*text);
		*text = NULL;
	}
out:
	free(abs);
	return problem;
}

static void add_trigger(papi_run *run, char *t)
{
	for (size_t i = 0; i < run->ntriggers; i++)
		if (strcmp(run->triggers[i], t) == 0)
			return;
	run->triggers = xrealloc(run->triggers, (run->ntriggers + 1) * sizeof *run->triggers);
	run->triggers[run->ntriggers++] = t;
}

/* What a file ferry writes as a deliverable of a fix says near its top (scripts/npu_env.sh,
 * docs/MIGRATION_PLAN.md, scripts/first_step.py): "Generated by ferry (check ID)". */
#define FERRY_WRITTEN_MARK "Generated by ferry"
#define FERRY_WRITTEN_HEAD 1024 /* bytes of a file searched for the mark */

/* 1 when a file's text carries ferry's mark in its first FERRY_WRITTEN_HEAD bytes: a tool
 * of the migration ferry wrote (a first-step test, a profiling helper), not the client's
 * code. */
static int ferry_written(const char *text, size_t len)
{
	return memmem(text, len < FERRY_WRITTEN_HEAD ? len : FERRY_WRITTEN_HEAD, FERRY_WRITTEN_MARK,
	              sizeof FERRY_WRITTEN_MARK - 1) != NULL;
}

/* Lists and prefilters the .py files: which triggers each holds, and whether any plugin of
 * the run is offered it. Nothing is parsed yet: the plugins parse what they query. The
 * Python files ferry wrote (ferry_written) leave the run's lists, so that no check reviews
 * them as the client's code and the migration plan does not count them; ctx.read still
 * reads them, so a check can tell that its deliverable exists. */
static void prepare_sources(plugin_host *h, papi_run *run, const char *sel)
{
	for (size_t i = 0; i < h->n; i++) {
		if (!sel[i])
			continue;
		papi_plugin *p = &h->plugins[i];
		for (size_t t = 0; t < p->ntriggers; t++)
			add_trigger(run, p->triggers[t]);
	}
	/* each plugin's triggers as indices into the run's list */
	for (size_t i = 0; i < h->n; i++) {
		papi_plugin *p = &h->plugins[i];
		free(p->run_trig);
		p->run_trig = NULL;
		if (!sel[i])
			continue;
		p->run_trig = xcalloc(p->ntriggers ? p->ntriggers : 1, sizeof *p->run_trig);
		for (size_t t = 0; t < p->ntriggers; t++)
			for (size_t j = 0; j < run->ntriggers; j++)
				if (strcmp(run->triggers[j], p->triggers[t]) == 0)
					p->run_trig[t] = j;
	}
	for (size_t i = 0; i < run->files.n; i++)
		if (util_ends_with(run->files.paths[i], ".py"))
			run->npy++;
	run->py = xcalloc(run->npy ? run->npy : 1, sizeof *run->py);
	size_t k = 0, kept = 0;
	textscan *scan = textscan_new((const char *const *)run->triggers, run->ntriggers);
	for (size_t i = 0; i < run->files.n; i++) {
		char *path = run->files.paths[i];
		if (!util_ends_with(path, ".py")) {
			run->files.paths[kept++] = path;
			continue;
		}
		char *text;
		size_t len;
		char *problem = read_source(&text, &len, h->root, path);
		if (!problem && ferry_written(text, len)) {
			free(text);
			free(path);
			continue;
		}
		run->files.paths[kept++] = path;
		papi_file *f = &run->py[k++];
		f->path = xstrdup(path);
		f->problem = problem;
		if (f->problem)
			continue;
		f->size = len;
		f->hits = xcalloc(run->ntriggers ? run->ntriggers : 1, 1);
		int found = textscan_run(scan, text, len, f->hits) > 0;
		/* a plugin with a query but no triggers is offered every file */
		for (size_t q = 0; q < h->n; q++) {
			const papi_plugin *pl = &h->plugins[q];
			if (sel[q] && (pl->ntriggers ? found && papi_offered(pl, f->hits) : pl->query != NULL))
				f->phases |= phase_bit(pl->info.phase);
		}
		free(text);
		f->wanted = f->phases != 0;
	}
	textscan_free(scan);
	run->files.n = kept;
	run->npy = k;
	run->wanted_after = xcalloc(run->npy + 1, sizeof *run->wanted_after);
	for (size_t i = run->npy; i-- > 0;)
		run->wanted_after[i] = run->wanted_after[i + 1] + (run->py[i].wanted ? run->py[i].size : 0);
}

typedef struct syntax_pass {
	papi_run *run;
	size_t *idx;        /* indices in run->py of the files parsed */
} syntax_pass;

static void syntax_one(size_t i, pysrc *src, char *err, void *payload)
{
	syntax_pass *sp = payload;
	papi_file *f = &sp->run->py[sp->idx[i]];
	f->tried = 1;
	if (src) {
		uint32_t line, col;
		f->syntax_error = pysrc_first_error(src, &line, &col);
		f->err_line = line;
		f->err_col = col;
	}
	f->state = src ? PAPI_RELEASED : PAPI_FAILED;
	if (err && !f->problem)
		f->problem = err;
	else
		free(err);
	pysrc_free(src);
}

/* Parses the offered files no plugin queried (their syntax is reported all the same),
 * freeing each tree at once; then reports the sources' problems, in the files' order. */
static void report_sources(plugin_host *h, papi_run *run, const plugin_run_cb *cb)
{
	const char **paths = xcalloc(run->npy ? run->npy : 1, sizeof *paths);
	size_t *idx = xcalloc(run->npy ? run->npy : 1, sizeof *idx), n = 0;
	for (size_t i = 0; i < run->npy; i++)
		if (run->py[i].wanted && !run->py[i].tried && !run->py[i].problem) {
			paths[n] = run->py[i].path;
			idx[n++] = i;
		}
	syntax_pass sp = {run, idx};
	if (n)
		pysrc_parse_each(h->root, paths, n, h->opts.threads, syntax_one, &sp);
	run->parsed = 0;
	for (size_t i = 0; i < run->npy; i++)
		run->parsed += run->py[i].tried && run->py[i].state != PAPI_FAILED;
	for (size_t i = 0; i < run->nextra; i++)
		run->parsed += run->extra[i]->src != NULL;
	free(paths);
	free(idx);

	report_walk_problems(run, cb);
	unsigned reading = reading_phases(run);
	for (size_t i = 0; i < run->npy; i++) {
		papi_file *f = &run->py[i];
		if (f->problem) {
			/* not read (no trigger scan): every check that reads Python missed it; read
			 * but not parsed: those that were offered or asked for it */
			const char *reason = f->problem + strlen(f->path);
			source_finding(cb, f->hits ? f->phases : reading, f->path, 0, 0, N_("{file}: {reason}"),
			               problem_args(f->path, reason + strspn(reason, ": ")), reason,
			               N_("ferry cannot analyse this file; convert it to UTF-8 text or "
			                  "remove it if it is not source code."));
			continue;
		}
		if (f->syntax_error) {
			cJSON *a = cJSON_CreateObject();
			cJSON_AddStringToObject(a, "file", f->path);
			cJSON_AddNumberToObject(a, "line", f->err_line);
			cJSON_AddNumberToObject(a, "column", f->err_col);
			source_finding(cb, f->phases, f->path, (int)f->err_line, (int)f->err_col,
			               N_("{file}: syntax error at line {line}, column {column}"), a, "syntax error",
			               N_("Python cannot parse this file; checks may miss code near the "
			                  "error. Fix the syntax, or check that it is Python 3."));
		}
	}
}

/* Monotonic seconds, for FERRY_DEBUG timings. */
static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The instruction budget of one plugin's run: the configured budget, plus a share per
 * byte of the Python files its triggers offer it, so a plugin that does honest work on
 * a large project is not killed while a runaway loop still is within seconds. */
static unsigned long long plugin_budget(const plugin_host *h, const papi_run *run, const papi_plugin *p)
{
	unsigned long long bytes = 0;
	for (size_t i = 0; i < run->npy; i++)
		if (run->py[i].hits && papi_offered(p, run->py[i].hits))
			bytes += run->py[i].size;
	return h->opts.instr_budget + PAPI_BUDGET_PER_BYTE * bytes;
}

/* One plugin of a run on its own thread: what it produced, kept until the host hands it
 * over in the plugins' order. */
typedef struct lane_job {
	plugin_host *h;
	papi_run *run;
	papi_plugin *p;
	papi_lane *lane;      /* NULL when the run has no scheduler */
	papi_sandbox sb;
	char *err;            /* why the plugin failed, or NULL */
	double cpu;           /* CPU seconds of its thread */
	double done_at;       /* monotonic seconds when it finished (FERRY_DEBUG) */
	char *profile;        /* where that time went (FERRY_PROFILE), or NULL */
	pthread_t tid;
	int threaded;         /* tid is a thread to join */
	int reported;         /* its progress was reported */
} lane_job;

static double thread_cpu_seconds(void)
{
	return (double)util_thread_cpu_ns() / 1e9;
}

/* Runs one plugin against the prepared run, keeping its findings or its error. */
static void run_one(lane_job *j)
{
	double c0 = thread_cpu_seconds();
	if (j->lane)
		papi_lane_enter(j->run, j->lane);
	papi_sandbox *sb = &j->sb;
	memset(sb, 0, sizeof *sb);
	sb->opts = &j->h->opts;
	sb->run = j->run;
	sb->plugin = j->p;
	sb->lane = j->lane;
	sb->origin = j->p->info.origin;
	sb->budget = plugin_budget(j->h, j->run, j->p);
	sb->mem_cap = j->h->opts.mem_cap;
	sb->time_limit_ms = j->h->opts.time_limit_ms;
	const char *profiling = getenv("FERRY_PROFILE");
	if (profiling && *profiling && strcmp(profiling, "0") != 0)
		sb->prof = lprof_new();
	lua_State *L = papi_open(sb);
	if (!L)
		j->err = xstrdup("cannot create a Lua state");
	else if (papi_load(L, j->p->chunk, j->p->len, j->p->info.origin, &j->err) == 0)
		papi_call_run(L, &j->err);
	if (sb->prof && L)
		j->profile = lprof_report(sb->prof, j->p->info.id, 15);
	papi_close(L);
	lprof_free(sb->prof);
	sb->prof = NULL;
	if (j->lane)
		papi_lane_leave(j->run, j->lane);
	j->cpu = thread_cpu_seconds() - c0;
	j->done_at = now_seconds();
}

static void *lane_main(void *arg)
{
	run_one(arg);
	return NULL;
}

/* Hands one finished plugin's metrics, then its findings or its error, to the callbacks. */
static void deliver(lane_job *j, const plugin_run_cb *cb)
{
	papi_sandbox *sb = &j->sb;
	papi_plugin *p = j->p;
	for (size_t i = 0; cb && cb->metric && i < sb->nmetric; i++)
		cb->metric(p->info.id, sb->metrics[i].name, sb->metrics[i].value, sb->metrics[i].unit, cb->payload);
	if (j->err) {
		if (cb && cb->plugin_error) {
			char *msg = xasprintf("plugin %s (%s): %s", p->info.id, p->info.origin, j->err);
			char *clean = safetext_clean(msg, strlen(msg)); /* the error may quote the plugin's text */
			cb->plugin_error(p->info.id, clean, cb->payload);
			free(clean);
			free(msg);
		}
	} else if (cb && cb->finding) {
		for (size_t i = 0; i < sb->nfound; i++)
			cb->finding(&sb->found[i], cb->payload);
		/* files the check could not analyse: it reported on every other file */
		for (size_t i = 0; i < sb->nskipped; i++) {
			char *tab = strchr(sb->skipped[i], '\t');
			char *file = xstrndup(sb->skipped[i], (size_t)(tab - sb->skipped[i]));
			cJSON *a = cJSON_CreateObject();
			cJSON_AddStringToObject(a, "file", file);
			cJSON_AddStringToObject(a, "reason", tab + 1);
			host_finding(cb, p->info.id, p->info.phase, file, 0, 0, N_("{file}: skipped by this check ({reason})"), a,
			             "skipped",
			             N_("This check did not look inside the file; review it by hand, or exclude it from the "
			                "project if it is generated code."));
			free(file);
		}
	}
}

static unsigned run_slots(const plugin_host *h)
{
	if (h->opts.threads)
		return h->opts.threads;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return cores > 0 ? (unsigned)cores : 1;
}

int plugin_host_run(plugin_host *h, const char *const *phases, size_t nphases,
                    const char *const *ids, size_t nids, const plugin_run_cb *cb)
{
	int rc = 0;
	char *sel = NULL;
	lane_job *jobs = NULL;
	papi_lane *lanes = NULL;
	papi_sched sched;
	int have_sched = 0;
	papi_run run;
	memset(&run, 0, sizeof run);
	for (size_t i = 0; i < nphases; i++)
		if (phase_index(phases[i]) < 0)
			return err_set(FERRY_EUSAGE, _("phase %s: unknown phase"), phases[i]);
	for (size_t i = 0; i < nids; i++) {
		size_t j = 0;
		while (j < h->n && strcmp(h->plugins[j].info.id, ids[i]) != 0)
			j++;
		if (j == h->n)
			return err_set(FERRY_EUSAGE, _("plugin %s: no such plugin"), ids[i]);
	}
	sel = xcalloc(h->n ? h->n : 1, 1);
	size_t nsel = 0;
	for (size_t i = 0; i < h->n; i++) {
		int ok = nphases == 0, okid = nids == 0;
		for (size_t k = 0; k < nphases && !ok; k++)
			ok = strcmp(phases[k], h->plugins[i].info.phase) == 0;
		for (size_t k = 0; k < nids && !okid; k++)
			okid = strcmp(ids[k], h->plugins[i].info.id) == 0;
		sel[i] = (char)(ok && okid);
		nsel += sel[i] != 0;
	}
	h->parsed = 0;
	run.opts = &h->opts;
	run.cb = cb;
	rc = project_files(&run.files, h->root, h->opts.is_ignored, h->opts.payload);
	if (rc != 0)
		goto out;
	int debug = getenv("FERRY_DEBUG") != NULL;
	double t0 = now_seconds();
	prepare_sources(h, &run, sel);
	if (debug)
		fprintf(stderr, "ferry: %-34s %8.3f s (%zu .py files)\n", "prefilter", now_seconds() - t0, run.npy);

	/* Every selected plugin on its own thread, sharing one slot per core; they meet each
	 * file at about the same time, so its tree is parsed once and released soon after. */
	t0 = now_seconds();
	double plugins_t0 = t0;
	run.started_ms = (long long)(t0 * 1000.0);
	jobs = xcalloc(nsel ? nsel : 1, sizeof *jobs);
	lanes = xcalloc(nsel ? nsel : 1, sizeof *lanes);
	for (size_t i = 0, k = 0; i < h->n; i++)
		if (sel[i]) {
			jobs[k] = (lane_job){.h = h, .run = &run, .p = &h->plugins[i], .lane = &lanes[k]};
			lanes[k].order = k;
			k++;
		}
	papi_sched_init(&sched, lanes, nsel, run_slots(h));
	have_sched = 1;
	run.sched = &sched;
	for (size_t k = 0; k < nsel; k++)
		jobs[k].threaded = pthread_create(&jobs[k].tid, NULL, lane_main, &jobs[k]) == 0;
	for (size_t k = 0; k < nsel; k++)
		if (!jobs[k].threaded)
			run_one(&jobs[k]); /* no thread for it: run it here, in turn with the others */
	size_t reported = 0, offered = 0, shown = (size_t)-1;
	for (size_t i = 0; i < run.npy; i++)
		offered += run.py[i].wanted;
	int cancelled = 0;
	pthread_mutex_lock(&sched.mu);
	while (reported < nsel) {
		if (cb && cb->files && run.parsed != shown) {
			shown = run.parsed;
			pthread_mutex_unlock(&sched.mu);
			cb->files(shown > offered ? offered : shown, offered, cb->payload);
			pthread_mutex_lock(&sched.mu);
		}
		/* progress as plugins finish */
		for (size_t k = 0; k < nsel; k++) {
			if (!lanes[k].finished || jobs[k].reported)
				continue;
			jobs[k].reported = 1;
			if (cb && cb->progress) {
				pthread_mutex_unlock(&sched.mu);
				cb->progress(jobs[k].p->info.id, reported, nsel, cb->payload);
				pthread_mutex_lock(&sched.mu);
			}
			reported++;
		}
		if (reported == nsel)
			break;
		if (!cancelled && cb && cb->cancelled) {
			pthread_mutex_unlock(&sched.mu);
			cancelled = cb->cancelled(cb->payload) != 0;
			pthread_mutex_lock(&sched.mu);
			if (cancelled)
				atomic_store(&sched.cancel, 1);
		}
		if (!cancelled && papi_parse_ahead(&run))
			continue; /* while a core is free, the files a plugin will query next */
		struct timespec until;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += 100 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&sched.done_cv, &sched.mu, &until);
	}
	pthread_mutex_unlock(&sched.mu);
	for (size_t k = 0; k < nsel; k++)
		if (jobs[k].threaded)
			pthread_join(jobs[k].tid, NULL);
	run.sched = NULL;
	if (debug) {
		pysrc_walk_counts w;
		pysrc_walk_stats(&w);
		fprintf(stderr, "ferry: %-34s %8.3f s (%zu plugins on %u cores; %zu trees parsed again, %zu ahead)\n",
		        "plugins", now_seconds() - t0, nsel, run_slots(h), run.reparsed, run.parsed_ahead);
		fprintf(stderr, "ferry: %-34s %zu together, %zu alone; %zu runs replayed, %zu too large to remember\n",
		        "query walks", w.together, w.alone, w.replayed, w.dropped);
		fprintf(stderr, "ferry: %-34s %8.3f s CPU (%zu queries and unions)\n", "queries compiled",
		        w.compile_seconds, w.compiled);
		fprintf(stderr, "ferry: %-34s %zu (%.1f MiB)\n", "files read without a tree", run.reads,
		        (double)run.read_bytes / (1024.0 * 1024.0));
		fprintf(stderr, "ferry: %-34s %zu read, %zu kept from an earlier run\n", "artifact readings",
		        run.readings[0], run.readings[1]);
	}
	if (!cancelled && cb && cb->cancelled && cb->cancelled(cb->payload))
		cancelled = 1;
	if (cancelled) {
		rc = err_set(FERRY_ECANCEL, _("check: cancelled"));
		goto out;
	}
	t0 = now_seconds();
	report_sources(h, &run, cb);
	if (debug)
		fprintf(stderr, "ferry: %-34s %8.3f s (%zu of %zu .py files parsed)\n", "syntax of files not queried",
		        now_seconds() - t0, run.parsed, run.npy);
	for (size_t k = 0; k < nsel; k++) {
		deliver(&jobs[k], cb);
		if (debug)
			fprintf(stderr,
			        "ferry: %-34s %8.3f s CPU, done at %6.2f s, %6.1f MiB of Lua at most, %zu files read without a tree\n",
			        jobs[k].p->info.id, jobs[k].cpu, jobs[k].done_at - plugins_t0, (double)jobs[k].sb.mem_peak / (1 << 20),
			        jobs[k].sb.reads);
		if (jobs[k].profile)
			fputs(jobs[k].profile, stderr);
	}
	h->parsed = run.parsed;
out:
	for (size_t k = 0; jobs && k < nsel; k++) {
		free(jobs[k].err);
		free(jobs[k].profile);
		papi_sandbox_done(&jobs[k].sb);
	}
	free(jobs);
	if (have_sched)
		papi_sched_done(&sched);
	free(lanes);
	papi_run_done(&run);
	free(sel);
	return rc;
}

unsigned plugin_evidence_bit(const char *word)
{
	for (unsigned i = 0; artifact_kinds[i]; i++)
		if (strcmp(artifact_kinds[i], word) == 0)
			return 1u << i;
	return strcmp(word, "comparisons") == 0 ? EVIDENCE_COMPARISONS : strcmp(word, "settings") == 0 ? EVIDENCE_SETTINGS : 0;
}
