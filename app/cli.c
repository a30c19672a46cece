/* cli — see cli.h. One function per command; options parsed with getopt_long. */
#include "cli.h"
#include "phase.h"
#include "compare.h"
#include "config.h"
#include "json.h"
#include "assessment.h"
#include "subject.h"
#include "text.h"
#include "audit.h"
#include "check.h"
#include "err.h"
#include "event_text.h"
#include "intl.h"
#include "export.h"
#include "fix.h"
#include "artifact.h"
#include "ingest.h"
#include "output.h"
#include "pager.h"
#include "plugin_host.h"
#include "review.h"
#include "probe.h"
#include "report.h"
#include "safetext.h"
#include "seal.h"
#include "status.h"
#include "util.h"
#include "workspace.h"

#include <ctype.h>
#include <dirent.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* A word the record holds in English (a status, a kind, a class), in the reader's language;
 * "" stays "" (gettext("") is the catalog's header). */
static const char *word(const char *s)
{
	return s && *s ? _(s) : "";
}

/* --- shared helpers --- */

static int usage_error(const char *cmd)
{
	const cli_command *c = cli_find(cmd);
	return err_set(FERRY_EUSAGE, _("usage: ferry %s"), c ? c->usage : cmd);
}

/* Resets getopt for a command's own argument vector. */
static void opt_reset(void) { optind = 0; opterr = 0; }

/* Reports an unknown option or a missing argument as a usage error. */
static int opt_fail(const char *cmd, char **argv)
{
	const char *bad = optind > 0 && argv[optind - 1] ? argv[optind - 1] : "?";
	char *end = NULL;
	strtod(bad, &end);
	if (bad[0] == '-' && end != bad && !*end) /* `ferry config target.cards -1` */
		err_set(FERRY_EUSAGE, _("%s: %s: ferry takes no negative numbers (every value it takes is at least 0)"), cmd, bad);
	else
		err_set(FERRY_EUSAGE, _("%s: unknown option or missing value: %s"), cmd, bad);
	return FERRY_EUSAGE;
}

static int parse_format(const char **out, const char *value, const char *const *allowed)
{
	for (size_t i = 0; allowed[i]; i++)
		if (strcmp(value, allowed[i]) == 0) {
			*out = allowed[i];
			return 0;
		}
	return err_set(FERRY_EUSAGE, _("--format %s: not one of the formats this command writes"), value);
}

/* The next option of a command's own argument vector (argv[0] is the command's name), as
 * getopt_long returns it, with the long options taken from the command's table entry. */
static int cmd_getopt(int argc, char **argv)
{
	static struct option lo[CLI_MAX_OPTIONS + 1];
	const cli_command *c = cli_find(argv[0]);
	size_t n = 0;
	for (const cli_option *o = c ? c->options : NULL; o && o->name && n < CLI_MAX_OPTIONS; o++)
		lo[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument, 0, o->val };
	lo[n] = (struct option){ 0, 0, 0, 0 };
	return getopt_long(argc, argv, "", lo, NULL);
}

/* Parses a command whose only option is --NAME VALUE (repeatable: the last wins);
 * leaves optind at the first operand. */
static int one_option(const char **value, const char *cmd, int argc, char **argv)
{
	int c;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		if (c != 'v')
			return opt_fail(cmd, argv);
		*value = optarg;
	}
	return 0;
}

/* Takes option c when it is --json or --format text|json (whose letter is fval): 1 when it
 * was one of them, with the format in *format, or the usage error's code in *rc. */
static int format_option(int c, int fval, const char **format, int *rc)
{
	static const char *const text_json[] = { "text", "json", NULL };
	if (c == 'j')
		*format = "json";
	else if (c == fval)
		*rc = parse_format(format, optarg, text_json);
	else
		return 0;
	return 1;
}

/* Parses --json or --format text|json, the options of the commands that print one
 * document; *json is set for JSON. With events, --events is taken too and sets it. */
/* --format/--json, and the command's one flag (flag_char) when flag is not NULL. */
static int json_option(int *json, int *flag, int flag_char, const char *cmd, int argc, char **argv)
{
	const char *format = "text";
	int c, rc = 0;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		if (format_option(c, 'f', &format, &rc)) {
			if (rc)
				return rc;
		} else if (flag && c == flag_char) {
			*flag = 1;
		} else {
			return opt_fail(cmd, argv);
		}
	}
	*json = strcmp(format, "json") == 0;
	return 0;
}

/* Opens the workspace, takes the writer lock and records any outside edits. */
static int open_synced(workspace **ws, const char *dir)
{
	int rc = ws_open(ws, dir);
	if (rc)
		return rc;
	if ((rc = ws_lock(*ws)) || (rc = ws_sync(*ws, NULL))) {
		ws_close(*ws);
		*ws = NULL;
	}
	return rc;
}

/* Opens the workspace for a command that only reads the record: as open_synced, or,
 * for an engagement that cannot be written (an archived delivery), as it is: no lock,
 * no sync, the store read-only. */
static int open_reading(workspace **ws, const char *dir)
{
	int rc = ws_open_flags(ws, dir, WS_READ);
	if (rc || !(*ws)->readonly) {
		if (!rc && (rc = ws_sync(*ws, NULL))) {
			ws_close(*ws);
			*ws = NULL;
		}
		return rc;
	}
	fprintf(stderr, _("ferry: note: %s cannot be written; showing the record as it is (edits since its last "
	                "checkpoint are not recorded)\n"), (*ws)->dir);
	return 0;
}

static int parse_id(long long *out, const char *s)
{
	char *end = NULL;
	const char *p = s[0] == '#' ? s + 1 : s;
	long long v = strtoll(p, &end, 10);
	if (!*p || *end || v <= 0)
		return err_set(FERRY_EUSAGE, _("%s: not a finding number"), s);
	*out = v;
	return 0;
}

/* --- init --- */

/* A progress line on stderr, only when it is a terminal; redrawn at most ten times a
 * second and erased when the command is done. */
typedef struct progress_line {
	int tty;
	double shown;                 /* when it was last drawn */
	size_t checks, nchecks;       /* checks finished, of */
	size_t parsed, offered;       /* files parsed, of */
	size_t paths;                 /* init: paths recorded */
} progress_line;

static double mono_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void progress_draw(progress_line *p, int force)
{
	double now = mono_seconds();
	if (!p->tty || (!force && now - p->shown < 0.1))
		return;
	p->shown = now;
	fputc('\r', stderr);
	if (p->nchecks)
		fprintf(stderr, _("checks done %zu/%zu, files parsed %zu/%zu "), p->checks, p->nchecks, p->parsed,
		        p->offered);
	else
		fprintf(stderr, _("baseline: %zu files recorded "), p->paths);
}

static void progress_clear(progress_line *p)
{
	if (p->tty && p->shown > 0)
		fprintf(stderr, "\r%70s\r", "");
}

static void on_init_paths(size_t paths, void *payload)
{
	progress_line *p = payload;
	p->paths = paths;
	progress_draw(p, 0);
}

static int cmd_init(const char *dir, int argc, char **argv)
{
	ws_init_opts o = { 0 };
	int c;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		switch (c) {
		case 'c': o.client = optarg; break;
		case 'e': o.engagement = optarg; break;
		case 't': o.target_soc = optarg; break;
		default: return opt_fail("init", argv);
		}
	}
	if (argc - optind > 1)
		return usage_error("init");
	const char *target = optind < argc ? argv[optind] : dir;
	workspace *ws = NULL;
	progress_line pl = { .tty = isatty(2) };
	history_set_progress(on_init_paths, &pl);
	int rc = ws_init(&ws, target, &o);
	history_set_progress(NULL, NULL);
	progress_clear(&pl);
	if (rc)
		return rc;
	char head[41] = "";
	history_head(head, ws->hist);
	cJSON *eng = NULL;
	store_engagement_get(&eng, ws->db);
	printf(_("initialised engagement %s in %s\nbaseline %.12s: the project as received\n"),
	       json_str(eng, "engagement_id"), ws->dir, head);
	cJSON_Delete(eng);
	ws_close(ws);
	return 0;
}

/* --- status --- */

/* The phases as a table whose columns line up in any language (display widths, not bytes). */
static const struct {
	const char *head, *key;
	int width;
} phase_cols[] = {
	{ NC_("column", "phase"), "name", 16 },           { NC_("column", "status"), "status", 12 },  { NC_("column", "errors"), "open_errors", 6 },
	{ NC_("column", "warnings"), "open_warnings", 8 }, { NC_("column", "info"), "open_info", 5 }, { NC_("column", "fixed"), "fixed", 6 },
	{ NC_("column", "waived"), "waived", 6 },
};
enum { PHASE_NCOLS = sizeof phase_cols / sizeof phase_cols[0] };

static void print_phase_row(const char *const text[PHASE_NCOLS])
{
	for (int c = 0; c < PHASE_NCOLS; c++) {
		char *cell = text_cell(text[c], phase_cols[c].width, c >= 2);
		printf("%s%s", c ? " " : "", cell);
		free(cell);
	}
	putchar('\n');
}

static void print_phase_table(const cJSON *phases)
{
	const char *text[PHASE_NCOLS];
	for (int c = 0; c < PHASE_NCOLS; c++)
		text[c] = intl_ctext(phase_cols[c].head);
	print_phase_row(text);
	const cJSON *p;
	cJSON_ArrayForEach(p, phases) {
		char num[PHASE_NCOLS][24];
		for (int c = 0; c < PHASE_NCOLS; c++) {
			snprintf(num[c], sizeof num[c], "%lld", json_int(p, phase_cols[c].key));
			text[c] = c < 2 ? word(json_str(p, phase_cols[c].key)) : num[c];
		}
		print_phase_row(text);
	}
}

static int cmd_status(const char *dir, int argc, char **argv)
{
	int json = 0;
	int rc = json_option(&json, NULL, 0, "status", argc, argv);
	if (rc)
		return rc;
	if (optind != argc)
		return usage_error("status");
	workspace *ws = NULL;
	cJSON *st = NULL;
	rc = open_reading(&ws, dir);
	if (!rc)
		rc = status_json(&st, ws);
	if (rc)
		goto out;
	if (json) {
		output_json(stdout, st);
		goto out;
	}
	const cJSON *eng = cJSON_GetObjectItem(st, "engagement"), *head = cJSON_GetObjectItem(st, "head");
	const cJSON *counts = cJSON_GetObjectItem(st, "findings");
	printf(_("engagement  %s%s%s\n"), json_str(eng, "engagement_id"), *json_str(eng, "client") ? _("  client ") : "",
	       json_str(eng, "client"));
	printf(_("project     %s\n"), ws->root);
	printf(_("actor       %s\n"), ws->actor);
	printf(_("head        %.12s  checkpoint %lld (%s)\n"), json_str(head, "commit"), json_int(head, "checkpoint"),
	       ws_checkpoint_kind_word(json_str(head, "kind")));
	printf(_("findings    %lld open (%lld errors, %lld warnings, %lld info), %lld fixed, %lld waived\n\n"),
	       json_int(counts, "open"), json_int(counts, "errors"), json_int(counts, "warnings"),
	       json_int(counts, "info"), json_int(counts, "fixed"), json_int(counts, "waived"));
	const cJSON *as = cJSON_GetObjectItem(st, "assessment");
	if (cJSON_IsTrue(cJSON_GetObjectItem(as, "ran"))) {
		const cJSON *strat = cJSON_GetObjectItem(as, "strategy");
		printf(_("readiness   %lld/100, %s; effort %.1f person-days\n"), json_int(as, "score"), word(json_str(as, "class")),
		       cJSON_GetObjectItem(as, "effort_days")->valuedouble);
		char *formula = assessment_formula(as, 0);
		printf("            %s\n", formula);
		free(formula);
		printf(_("strategy    %s recommended%s%s\n\n"), word(json_str(strat, "recommended")),
		       *json_str(strat, "chosen") ? _(", chosen: ") : "", word(json_str(strat, "chosen")));
	}
	print_phase_table(cJSON_GetObjectItem(st, "phases"));
	const cJSON *p;
	cJSON_ArrayForEach(p, cJSON_GetObjectItem(st, "phases")) {
		char *flag = review_flag_text(p);
		if (flag)
			printf(_("%-16s %s: review the sign-off again\n"), word(json_str(p, "name")), flag);
		free(flag);
	}
out:
	cJSON_Delete(st);
	ws_close(ws);
	return rc;
}

/* --- config --- */

/* One setting as JSON: key, value (null when unset), default, type, allowed words, help
 * and who declared it (null: ferry). k NULL: a key nothing declares any more (a removed
 * plugin's), its type null. */
static cJSON *config_entry_json(const struct config_key *k, const char *key, const char *value)
{
	static const char *const kinds[] = { [CFG_TEXT] = "text", [CFG_COUNT] = "count", [CFG_NUMBER] = "number",
		                                 [CFG_NUMBER_OR_PCT] = "number-or-percent", [CFG_WORD] = "word",
		                                 [CFG_IDS] = "ids", [CFG_SOC] = "soc" };
	_Static_assert(sizeof kinds / sizeof *kinds == CFG_KINDS, "a name for every kind of setting");
	static const struct config_key undeclared = { NULL, CFG_TEXT, NULL, NULL, NULL, NULL, NULL, NULL };
	cJSON *e = cJSON_CreateObject();
	cJSON_AddStringToObject(e, "key", key);
	cJSON_AddItemToObject(e, "value", value ? cJSON_CreateString(value) : cJSON_CreateNull());
	char *def = config_default(k, key);
	cJSON_AddItemToObject(e, "default", def ? cJSON_CreateString(def) : cJSON_CreateNull());
	free(def);
	const char *type = !k ? NULL : k->words && strcmp(k->words, "true false") == 0 ? "bool" : kinds[k->kind];
	cJSON_AddItemToObject(e, "type", type ? cJSON_CreateString(type) : cJSON_CreateNull());
	k = k ? k : &undeclared;
	cJSON *allowed = cJSON_AddArrayToObject(e, "allowed");
	char *words = k->words ? xstrdup(k->words) : NULL;
	for (char *save = NULL, *w = words ? strtok_r(words, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
		cJSON_AddItemToArray(allowed, cJSON_CreateString(w));
	free(words);
	cJSON_AddStringToObject(e, "help", k != &undeclared ? config_help(k)
	                                                     : _("declared by no loaded plugin any more; ferry config --unset KEY removes it"));
	cJSON_AddItemToObject(e, "declared_by", k->owner ? cJSON_CreateString(k->owner) : cJSON_CreateNull());
	return e;
}

/* After evidence changed (an ingest, a comparison, a setting): the checks that judge it
 * run again (review_rejudge), so status, the workbench and the reports agree with it at
 * once. Unless quiet, one line on stdout gives the run and its findings; a check that
 * failed is a warning on stderr. */
static int rejudge(workspace *ws, unsigned evidence, int quiet)
{
	check_result res;
	int rc = review_rejudge(&res, ws, evidence);
	if (rc) {
		check_result_done(&res);
		return err_prefix(_("the evidence is recorded, but the checks that judge it did not run"));
	}
	for (int i = 0; i < res.nerrors; i++) {
		char *line = safetext_terminal(res.errors[i]);
		fprintf(stderr, _("ferry: warning: %s\n"), line);
		free(line);
	}
	if (res.run && !quiet)
		printf(ngettext("judged by the checks that read it: run %lld, %d finding (ferry findings)\n",
		                "judged by the checks that read it: run %lld, %d findings (ferry findings)\n",
		                (unsigned long)res.nfindings),
		       res.run, res.nfindings);
	check_result_done(&res);
	return 0;
}

/* Every setting with its value: ferry's, the effort weights set, the plugins', and those the
 * engagement holds that nothing declares any more (a removed plugin's). */
static cJSON *config_list_json(const cJSON *values)
{
	cJSON *list = cJSON_CreateArray();
	for (const struct config_key *k = config_keys; k->key; k++) {
		if (!util_ends_with(k->key, ".")) {
			const cJSON *v = cJSON_GetObjectItem(values, k->key);
			cJSON_AddItemToArray(list, config_entry_json(k, k->key, cJSON_IsString(v) ? v->valuestring : NULL));
			continue;
		}
		const cJSON *v;
		cJSON_ArrayForEach(v, values)
			if (util_starts_with(v->string, k->key) && cJSON_IsString(v))
				cJSON_AddItemToArray(list, config_entry_json(k, v->string, v->valuestring));
	}
	size_t n = 0;
	const struct config_key *d = config_declared(&n);
	for (size_t i = 0; i < n; i++) {
		const cJSON *v = cJSON_GetObjectItem(values, d[i].key);
		cJSON_AddItemToArray(list, config_entry_json(&d[i], d[i].key, cJSON_IsString(v) ? v->valuestring : NULL));
	}
	const cJSON *v;
	cJSON_ArrayForEach(v, values)
		if (cJSON_IsString(v) && !config_key_find(v->string))
			cJSON_AddItemToArray(list, config_entry_json(NULL, v->string, v->valuestring));
	return list;
}

static void print_config_list(const cJSON *list)
{
	const cJSON *e;
	cJSON_ArrayForEach(e, list) {
		const cJSON *v = cJSON_GetObjectItem(e, "value"), *def = cJSON_GetObjectItem(e, "default");
		const char *shown = cJSON_IsString(v) ? v->valuestring : "-";
		char *dflt = cJSON_IsString(def) ? xasprintf(_(" (default %s)"), def->valuestring) : xstrdup("");
		printf("%-24s %-14s # %s%s\n", json_str(e, "key"), shown, json_str(e, "help"), dflt);
		free(dflt);
	}
}

/* A change of the setting key as JSON on stdout: the setting as config_entry_json gives it
 * with its new value, and "previous", the value it had (null: none). */
static void print_config_change(const struct config_key *k, const char *key, const char *value, const char *before)
{
	cJSON *e = config_entry_json(k, key, value);
	cJSON_AddItemToObject(e, "previous", before ? cJSON_CreateString(before) : cJSON_CreateNull());
	output_json(stdout, e);
	cJSON_Delete(e);
}

/* `ferry config --unset KEY`: the setting removed, the checks that read it judged again. */
static int config_unset_cmd(const char *dir, const char *key, int json)
{
	workspace *ws = NULL;
	char *before = NULL;
	int rc = open_synced(&ws, dir);
	if (!rc)
		rc = check_declare_settings(ws);
	if (!rc)
		rc = config_unset(&before, ws, key);
	if (!rc && json)
		print_config_change(config_key_find(key), key, NULL, before);
	else if (!rc && !before)
		printf(_("%s was not set; nothing changed\n"), key);
	if (!rc && before && config_key_judged(config_key_find(key)))
		rc = rejudge(ws, EVIDENCE_SETTINGS, 1);
	free(before);
	ws_close(ws);
	return rc;
}

static int cmd_config(const char *dir, int argc, char **argv)
{
	int json = 0, unset = 0;
	int rc = json_option(&json, &unset, 'u', "config", argc, argv);
	if (rc)
		return rc;
	if (unset)
		return argc - optind == 1 ? config_unset_cmd(dir, argv[optind], json) : usage_error("config");
	argv += optind - 1; /* argv[0] stays the command's name for the usage line */
	argc -= optind - 1;
	argv[0] = "config";
	char *joined = NULL; /* a list setting given as several words */
	if (argc > 3) {
		sbuf j;
		sbuf_init(&j);
		for (int i = 2; i < argc; i++)
			sbuf_addf(&j, "%s%s", i > 2 ? " " : "", argv[i]);
		joined = sbuf_detach(&j);
		sbuf_done(&j);
	}
	workspace *ws = NULL;
	rc = argc == 3 || joined ? open_synced(&ws, dir) : open_reading(&ws, dir);
	if (!rc)
		rc = check_declare_settings(ws);
	const struct config_key *k = argc >= 2 && !rc ? config_key_find(argv[1]) : NULL;
	const char *value = joined ? joined : argc == 3 ? argv[2] : NULL;
	if (rc)
		goto out;
	if (argc >= 2 && (rc = config_key_check(argv[1]))) {
		/* one line naming the known keys */
	} else if (joined && k->kind != CFG_IDS) {
		rc = usage_error("config");
	} else if (value) {
		char *before = store_config_get(ws->db, argv[1]);
		if (!(rc = config_set(ws, argv[1], value)) && json)
			print_config_change(k, argv[1], value, before);
		/* the checks read the settings of the phases (targets, tolerances, a plugin's own),
		 * not those of reports or of the plugin host; an unchanged value changes nothing */
		int judged = config_key_judged(k) && !(before && strcmp(before, value) == 0);
		if (!rc && judged)
			rc = rejudge(ws, EVIDENCE_SETTINGS, 1); /* a setting stays a quiet command */
		free(before);
	} else if (argc == 2) {
		char *v = store_config_get(ws->db, argv[1]), *def = NULL;
		if (json) {
			cJSON *e = config_entry_json(k, argv[1], v);
			output_json(stdout, e);
			cJSON_Delete(e);
		} else if (v || (def = config_default(k, argv[1]))) {
			printf("%s\n", v ? v : def);
			free(def);
		} else {
			rc = err_set(FERRY_ENOTFOUND, _("config: %s is not set"), argv[1]);
		}
		free(v);
	} else {
		cJSON *all = NULL;
		if (!(rc = store_config_all(&all, ws->db))) {
			cJSON *list = config_list_json(all);
			if (json)
				output_json(stdout, list);
			else
				print_config_list(list);
			cJSON_Delete(list);
		}
		cJSON_Delete(all);
	}
out:
	ws_close(ws);
	free(joined);
	return rc;
}

/* --- plugins --- */

/* The load warnings of the plugins, one line each on stderr. */
static void print_plugin_warnings(const plugin_host *h)
{
	size_t n = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	for (size_t i = 0; i < n; i++)
		if (pi[i].warning) {
			char *line = safetext_terminal(pi[i].warning);
			fprintf(stderr, _("ferry: warning: %s\n"), line);
			free(line);
		}
}

static int cmd_plugins(const char *dir, int argc, char **argv)
{
	int json = 0;
	int rc = json_option(&json, NULL, 0, "plugins", argc, argv);
	if (rc)
		return rc;
	if (optind != argc)
		return usage_error("plugins");
	workspace *ws = NULL;
	plugin_host *h = NULL;
	rc = ws_open(&ws, dir);
	if (!rc)
		rc = check_host_new(&h, ws);
	if (rc)
		goto out;
	size_t n = 0, nerr = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	const char *const *errs = plugin_host_load_errors(h, &nerr);
	if (json) {
		cJSON *a = cJSON_CreateArray();
		for (size_t i = 0; i < n; i++) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "id", pi[i].id);
			cJSON_AddStringToObject(o, "phase", pi[i].phase);
			cJSON_AddStringToObject(o, "title", pi[i].title);
			cJSON_AddStringToObject(o, "severity", pi[i].severity);
			cJSON_AddStringToObject(o, "category", pi[i].category ? pi[i].category : "");
			cJSON_AddStringToObject(o, "description", pi[i].description ? pi[i].description : "");
			cJSON_AddStringToObject(o, "origin", pi[i].origin);
			cJSON_AddBoolToObject(o, "fixable", pi[i].fixable);
			cJSON_AddBoolToObject(o, "needs_exec", pi[i].needs_exec);
			cJSON_AddBoolToObject(o, "may_exec", pi[i].may_exec);
			if (pi[i].warning)
				cJSON_AddStringToObject(o, "warning", pi[i].warning);
			if (pi[i].sha256)
				cJSON_AddStringToObject(o, "sha256", pi[i].sha256);
			cJSON_AddBoolToObject(o, "replaces_bundled", pi[i].replaces);
			cJSON_AddItemToArray(a, o);
		}
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddItemToObject(doc, "plugins", a);
		cJSON *e = cJSON_AddArrayToObject(doc, "load_errors");
		for (size_t i = 0; i < nerr; i++)
			cJSON_AddItemToArray(e, cJSON_CreateString(errs[i]));
		output_json(stdout, doc);
		cJSON_Delete(doc);
	} else {
		for (size_t i = 0; i < n; i++)
			printf("%-34s %-15s %-8s %-5s %s%s\n", pi[i].id, pi[i].phase, word(pi[i].severity),
			       pi[i].may_exec ? "exec" : pi[i].needs_exec ? "no-exec" : "",
			       intl_text(pi[i].textdomain, pi[i].title),
			       pi[i].fixable ? "  [fix]" : "");
		for (size_t i = 0; i < nerr; i++)
			fprintf(stderr, _("ferry: %s\n"), errs[i]);
		print_plugin_warnings(h);
	}
out:
	plugin_host_free(h);
	ws_close(ws);
	return rc;
}

/* --- check and findings --- */

#define MAX_LIST 64

static int severity_rank(const char *s)
{
	return strcmp(s, "error") == 0 ? 3 : strcmp(s, "warning") == 0 ? 2 : strcmp(s, "info") == 0 ? 1 : 0;
}

/* Findings of the given phases (none = all) whose status is not "fixed". */
static int current_findings(cJSON **out, workspace *ws, const char *const *phases, size_t nphases,
                            const char *const *plugins, size_t nplugins, const char *status)
{
	*out = cJSON_CreateArray();
	size_t np = nphases ? nphases : 1, nq = nplugins ? nplugins : 1;
	for (size_t i = 0; i < np; i++)
		for (size_t k = 0; k < nq; k++) {
			store_finding_filter fl = { nphases ? phases[i] : NULL, status, nplugins ? plugins[k] : NULL,
				                        NULL, 0, 0 };
			cJSON *rows = NULL, *row;
			int rc = store_findings(&rows, ws->db, &fl);
			if (rc)
				return rc;
			while ((row = cJSON_DetachItemFromArray(rows, 0))) {
				if (status || strcmp(json_str(row, "status"), "fixed") != 0)
					cJSON_AddItemToArray(*out, row);
				else
					cJSON_Delete(row);
			}
			cJSON_Delete(rows);
		}
	return 0;
}

/* A run of some checks also lists the source problems it met (ferry.source, in those checks'
 * phases): it counted them among the findings it reported. */
static int add_run_sources(cJSON *found, workspace *ws, long long run)
{
	static const char *const source[] = { "ferry.source" };
	cJSON *rows = NULL, *row;
	int rc = current_findings(&rows, ws, NULL, 0, source, 1, NULL);
	while (!rc && (row = cJSON_DetachItemFromArray(rows, 0))) {
		if (json_int(row, "last_run") == run)
			cJSON_AddItemToArray(found, row);
		else
			cJSON_Delete(row);
	}
	cJSON_Delete(rows);
	return rc;
}

static void on_check_progress(const char *plugin, size_t done, size_t total, void *payload)
{
	progress_line *p = payload;
	(void)plugin;
	p->checks = done + 1;
	p->nchecks = total;
	progress_draw(p, p->checks == total);
}

static void on_check_files(size_t parsed, size_t offered, void *payload)
{
	progress_line *p = payload;
	p->parsed = parsed;
	p->offered = offered;
	if (p->nchecks)
		progress_draw(p, 0);
}

static int cmd_check(const char *dir, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", "sarif", NULL };
	const char *phases[MAX_LIST], *plugins[MAX_LIST], *format = "text", *output = NULL, *fail_on = NULL;
	size_t nphases = 0, nplugins = 0;
	int c, rc;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		switch (c) {
		case 'p':
			if (phase_index(optarg) < 0)
				return err_set(FERRY_EUSAGE, _("--phase %s: not a phase (assess, design, environment, adapt, tune, infer-convert, infer-optimize)"), optarg);
			if (nphases < MAX_LIST)
				phases[nphases++] = optarg;
			break;
		case 'P':
			if (nplugins < MAX_LIST)
				plugins[nplugins++] = optarg;
			break;
		case 'f':
			if ((rc = parse_format(&format, optarg, formats)))
				return rc;
			break;
		case 'o': output = optarg; break;
		case 'F':
			if (!severity_rank(optarg))
				return err_set(FERRY_EUSAGE, _("--fail-on %s: not a severity (error, warning, info)"), optarg);
			fail_on = optarg;
			break;
		default: return opt_fail("check", argv);
		}
	}
	if (optind != argc)
		return usage_error("check");
	workspace *ws = NULL;
	plugin_host *h = NULL;
	check_result res = { 0 };
	cJSON *found = NULL;
	progress_line pl = { .tty = isatty(2) };
	rc = open_synced(&ws, dir);
	if (rc)
		return rc;
	check_opts co = { phases, nphases, plugins, nplugins, NULL, on_check_progress, NULL, &pl, on_check_files, 0 };
	if (!(rc = ws_output_outside(ws, "check", output)) && !(rc = check_host_new(&h, ws)))
		rc = check_run_with(&res, ws, h, &co);
	progress_clear(&pl);
	if (rc)
		goto out;
	if ((rc = current_findings(&found, ws, phases, nphases, plugins, nplugins, NULL)) ||
	    (nplugins && (rc = add_run_sources(found, ws, res.run))))
		goto out;
	sbuf b;
	sbuf_init(&b);
	if (strcmp(format, "json") == 0) {
		output_findings_json(&b, found, res.run, (const char *const *)res.errors, (size_t)res.nerrors);
	} else if (strcmp(format, "sarif") == 0) {
		output_sarif_locate(found, ws->root);
		output_sarif(&b, found, h, FERRY_VERSION);
		output_sarif_invocations(&b, (const char *const *)res.error_plugins, (const char *const *)res.errors,
		                         (size_t)res.nerrors);
	} else {
		output_findings_text(&b, found);
		sbuf_addf(&b, _("\nrun %lld: %d findings reported, %d no longer seen (marked fixed), %d plugin errors\n"),
		          res.run, res.nfindings, res.nclosed, res.nerrors);
	}
	if (!rc)
		rc = output_emit(&b, output);
	sbuf_done(&b);
	print_plugin_warnings(h);
	for (int i = 0; i < res.nerrors; i++) {
		char *line = safetext_terminal(res.errors[i]);
		fprintf(stderr, _("ferry: %s\n"), line);
		free(line);
	}
	/* A check that failed did not look: its findings are kept as they were, and the run
	 * is a runtime failure whatever the other findings say. */
	if (!rc && res.nerrors)
		rc = err_set(FERRY_EPLUGIN, P_("check: %d plugin error; the failed plugins' findings are kept as they were", "check: %d plugin errors; the failed plugins' findings are kept as they were", res.nerrors),
		             res.nerrors);
	if (!rc && fail_on) {
		const cJSON *f;
		int worst = 0;
		cJSON_ArrayForEach(f, found)
			if (strcmp(json_str(f, "status"), "open") == 0 && severity_rank(json_str(f, "severity")) > worst)
				worst = severity_rank(json_str(f, "severity"));
		if (worst >= severity_rank(fail_on))
			rc = err_set(FERRY_EFAIL, _("check: open findings at or above severity %s"), fail_on);
	}
out:
	cJSON_Delete(found);
	check_result_done(&res);
	plugin_host_free(h);
	ws_close(ws);
	return rc;
}

static int cmd_findings(const char *dir, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	static const char *const statuses[] = { "open", "fixed", "waived", NULL };
	const char *phase = NULL, *status = NULL, *plugin = NULL, *format = "text";
	int c, rc;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		switch (c) {
		case 'p':
			if (phase_index(optarg) < 0)
				return err_set(FERRY_EUSAGE, _("--phase %s: not a phase"), optarg);
			phase = optarg;
			break;
		case 's':
			if (parse_format(&status, optarg, statuses))
				return err_set(FERRY_EUSAGE, _("--status %s: not one of open, fixed, waived"), optarg);
			break;
		case 'P': plugin = optarg; break;
		case 'f':
			if ((rc = parse_format(&format, optarg, formats)))
				return rc;
			break;
		default: return opt_fail("findings", argv);
		}
	}
	if (optind != argc)
		return usage_error("findings");
	workspace *ws = NULL;
	cJSON *rows = NULL;
	rc = open_reading(&ws, dir);
	if (rc)
		return rc;
	store_finding_filter fl = { phase, status, plugin, NULL, 0, 0 };
	if (!(rc = store_findings(&rows, ws->db, &fl))) {
		sbuf b;
		sbuf_init(&b);
		if (strcmp(format, "json") == 0)
			output_findings_json(&b, rows, 0, NULL, 0);
		else {
			output_findings_text(&b, rows);
			pager_start();
		}
		rc = output_emit(&b, NULL);
		sbuf_done(&b);
	}
	cJSON_Delete(rows);
	ws_close(ws);
	return rc;
}

/* --- waive and signoff --- */

/* `waive N... --reason TEXT` and `unwaive N... --reason TEXT`: the same shape. */
static int waive_or_unwaive(const char *dir, int argc, char **argv, int unwaive)
{
	const char *cmd = unwaive ? "unwaive" : "waive", *reason = NULL;
	int rc = one_option(&reason, cmd, argc, argv);
	if (rc)
		return rc;
	if (!review_reason_given(reason))
		return err_set(FERRY_EUSAGE, _("%s: %s needs --reason TEXT (auditors read it)"), cmd,
		               unwaive ? _("withdrawing a waiver") : _("a waiver"));
	if (optind == argc)
		return usage_error(cmd);
	long long ids[MAX_LIST];
	size_t n = 0;
	for (int i = optind; i < argc && n < MAX_LIST; i++)
		if ((rc = parse_id(&ids[n++], argv[i])))
			return rc;
	workspace *ws = NULL;
	if ((rc = open_synced(&ws, dir)))
		return rc;
	rc = unwaive ? review_unwaive(ws, ids, n, reason) : review_waive(ws, ids, n, reason);
	if (!rc && unwaive)
		printf(P_("withdrew the waiver of %zu finding; open again\n", "withdrew the waiver of %zu findings; open again\n", n), n);
	else if (!rc)
		printf(P_("waived %zu finding\n", "waived %zu findings\n", n), n);
	ws_close(ws);
	return rc;
}

static int cmd_waive(const char *dir, int argc, char **argv) { return waive_or_unwaive(dir, argc, argv, 0); }
static int cmd_unwaive(const char *dir, int argc, char **argv) { return waive_or_unwaive(dir, argc, argv, 1); }

static int cmd_signoff(const char *dir, int argc, char **argv)
{
	const char *note = NULL;
	int rc = one_option(&note, "signoff", argc, argv);
	if (rc)
		return rc;
	if (argc - optind != 1)
		return usage_error("signoff");
	const char *phase = argv[optind];
	if (phase_index(phase) < 0)
		return err_set(FERRY_EUSAGE, _("signoff %s: not a phase"), phase);
	workspace *ws = NULL;
	if ((rc = open_synced(&ws, dir)))
		return rc;
	if (!(rc = review_signoff(ws, phase, note)))
		printf(_("phase %s signed off by %s\n"), phase_title(phase), ws->actor);
	ws_close(ws);
	return rc;
}

/* --- fix --- */

/* Asks on the terminal; 1 for yes. */
static int confirm(const char *question)
{
	fprintf(stderr, "%s [y/N] ", question);
	fflush(stderr);
	char answer[16] = "";
	if (!fgets(answer, sizeof answer, stdin))
		return 0;
	return answer[0] == 'y' || answer[0] == 'Y';
}

/* "3 findings": n formatted with its P_() form (one of fmt's conversions is %zu), in buf. */
static const char *count_of(char *buf, size_t size, const char *fmt, size_t n)
{
	snprintf(buf, size, fmt, n);
	return buf;
}

/* A fix as one document: what the plan holds (counts, refusals, plugin errors), the
 * diff of a dry run, and the checkpoints an applied fix made. */
static int print_fix_json(workspace *ws, fix_plan *plan, int dry, size_t made)
{
	size_t nfind = 0, nfiles = 0, nplug = 0, n = 0;
	fix_plan_counts(plan, &nfind, &nfiles, &nplug);
	cJSON *d = cJSON_CreateObject();
	cJSON_AddBoolToObject(d, "dry_run", dry);
	cJSON_AddNumberToObject(d, "findings", (double)nfind);
	cJSON_AddNumberToObject(d, "files", (double)nfiles);
	const char *const *refused = fix_plan_refused(plan, &n);
	cJSON *list = cJSON_AddArrayToObject(d, "refused");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(refused[i]));
	/* findings asked for whose code changed: the finding reported at their place now */
	const fix_superseded *sup = fix_plan_superseded(plan, &n);
	list = cJSON_AddArrayToObject(d, "superseded");
	for (size_t i = 0; i < n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "finding", (double)sup[i].finding);
		if (sup[i].by)
			cJSON_AddNumberToObject(o, "by", (double)sup[i].by);
		else
			cJSON_AddNullToObject(o, "by");
		cJSON_AddItemToArray(list, o);
	}
	const char *const *errors = fix_plan_errors(plan, &n);
	list = cJSON_AddArrayToObject(d, "plugin_errors");
	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(errors[i]));
	int rc = 0;
	if (dry) {
		cJSON_AddNumberToObject(d, "checkpoints", (double)nplug);
		cJSON_AddStringToObject(d, "diff", fix_plan_diff(plan));
	} else {
		cJSON *all = NULL, *made_list = cJSON_AddArrayToObject(d, "checkpoints");
		if (!(rc = store_checkpoints(&all, ws->db))) {
			/* the newest `made` checkpoints (the list is newest first) are this fix's, one per
			 * plugin: listed in the order they were made */
			for (int i = (int)made - 1; i >= 0; i--) {
				const cJSON *cp = cJSON_GetArrayItem(all, i);
				if (cp)
					cJSON_AddItemToArray(made_list, cJSON_Duplicate(cp, 1));
			}
		}
		cJSON_Delete(all);
	}
	if (!rc)
		output_json(stdout, d);
	cJSON_Delete(d);
	return rc;
}

static int cmd_fix(const char *dir, int argc, char **argv)
{
	long long ids[MAX_LIST];
	fix_select sel = { ids, 0, NULL, NULL, NULL, 0 };
	const char *format = "text";
	int dry = 0, yes = 0, c, rc = 0;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		if (format_option(c, 'T', &format, &rc)) { /* -f is --finding here */
			if (rc)
				return rc;
			continue;
		}
		switch (c) {
		case 'f':
			if (sel.nids >= MAX_LIST)
				return err_set(FERRY_EUSAGE, _("fix: at most %d findings at once"), MAX_LIST);
			if ((rc = parse_id(&ids[sel.nids++], optarg)))
				return rc;
			break;
		case 'P': sel.plugin = optarg; break;
		case 'a': sel.all = 1; break;
		case 'p':
			if (phase_index(optarg) < 0)
				return err_set(FERRY_EUSAGE, _("--phase %s: not a phase"), optarg);
			sel.phase = optarg;
			break;
		case 'F': sel.file = optarg; break;
		case 'n': dry = 1; break;
		case 'y': yes = 1; break;
		default: return opt_fail("fix", argv);
		}
	}
	/* further bare numbers after --finding N are more findings */
	for (; optind < argc && sel.nids; optind++) {
		if (sel.nids >= MAX_LIST)
			return err_set(FERRY_EUSAGE, _("fix: at most %d findings at once"), MAX_LIST);
		if ((rc = parse_id(&ids[sel.nids++], argv[optind])))
			return rc;
	}
	if (optind != argc || (!!sel.nids + !!sel.plugin + sel.all) != 1)
		return usage_error("fix");
	int json = strcmp(format, "json") == 0;
	if (json && !dry && !yes) /* a document cannot hold a question */
		return err_set(FERRY_EUSAGE, _("fix --format json: add --yes to apply the fixes or --dry-run to see them"));
	/* nobody can answer the question off a terminal: applying must be asked for */
	if (!dry && !yes && !isatty(0))
		return err_set(FERRY_EUSAGE, _("fix: standard input is not a terminal, so ferry cannot ask before changing "
		                             "files; add --yes to apply the fixes or --dry-run to see them"));
	workspace *ws = NULL;
	fix_plan *plan = NULL;
	size_t nerr = 0;
	const char *const *errors = NULL;
	if ((rc = open_synced(&ws, dir)))
		return rc;
	if ((rc = fix_plan_new(&plan, ws, &sel)))
		goto out;
	size_t nfind = 0, nfiles = 0, nplug = 0, nref = 0;
	fix_plan_counts(plan, &nfind, &nfiles, &nplug);
	const char *const *refused = fix_plan_refused(plan, &nref);
	for (size_t i = 0; i < nref; i++)
		fprintf(stderr, _("ferry: refused: %s\n"), refused[i]);
	/* a plugin whose fix writes where ferry never writes is an error; the rest still applies */
	errors = fix_plan_errors(plan, &nerr);
	for (size_t i = 0; i + 1 < nerr; i++)
		fprintf(stderr, _("ferry: %s\n"), errors[i]);
	if (json) {
		size_t made = 0;
		if (!dry && nfind)
			rc = fix_plan_apply(&made, plan, ws);
		if (!rc)
			rc = print_fix_json(ws, plan, dry, made);
		goto out;
	}
	if (dry || !yes)
		fputs(fix_plan_diff(plan), stdout);
	if (!nfind) {
		printf(_("nothing to apply\n"));
		goto out;
	}
	if (dry) {
		char a[64], b[64], k[64];
		printf(_("dry run: %s, %s, %s would be made; nothing was changed\n"),
		       count_of(a, sizeof a, P_("%zu finding", "%zu findings", nfind), nfind),
		       count_of(b, sizeof b, P_("%zu file", "%zu files", nfiles), nfiles),
		       count_of(k, sizeof k, P_("%zu checkpoint", "%zu checkpoints", nplug), nplug));
		goto out;
	}
	if (!yes) {
		char a[64], b[64];
		char *q = xasprintf(_("apply %s to %s?"), count_of(a, sizeof a, P_("%zu fix", "%zu fixes", nfind), nfind),
		                    count_of(b, sizeof b, P_("%zu file", "%zu files", nfiles), nfiles));
		int ok = confirm(q);
		free(q);
		if (!ok) {
			printf(_("nothing was changed\n"));
			goto out;
		}
	}
	size_t made = 0;
	if (!(rc = fix_plan_apply(&made, plan, ws))) {
		char a[64], b[64], k[64];
		printf(_("fixed %s in %s: %s\n"), count_of(a, sizeof a, P_("%zu finding", "%zu findings", nfind), nfind),
		       count_of(b, sizeof b, P_("%zu file", "%zu files", nfiles), nfiles),
		       count_of(k, sizeof k, P_("%zu checkpoint", "%zu checkpoints", made), made));
	}
out:
	if (!rc && plan && nerr)
		rc = err_set(FERRY_EPLUGIN, "%s", errors[nerr - 1]);
	fix_plan_free(plan);
	ws_close(ws);
	return rc;
}

/* --- ingest --- */

/* The recorded artifact id as JSON on stdout (its row: id, kind, label, path, sha256 …). */
static int print_artifact_json(workspace *ws, long long id)
{
	cJSON *row = NULL;
	int rc = store_artifact_get(&row, ws->db, id);
	if (!rc && row)
		output_json(stdout, row);
	cJSON_Delete(row);
	return rc;
}


/* `ingest env-probe --local`: runs the embedded probe here and ingests its output. */
static int ingest_local_probe(const char *dir, const char *kind, const char *label, int smoke, int json)
{
	if (!kind || strcmp(kind, "env-probe") != 0)
		return err_set(FERRY_EUSAGE, _("ingest: --local only applies to env-probe (ferry ingest env-probe --local)"));
	char *text = NULL;
	size_t len = 0;
	workspace *ws = NULL;
	long long id = 0;
	int rc = probe_run_local(&text, &len, smoke);
	if (rc)
		goto out;
	if ((rc = open_synced(&ws, dir)))
		goto out;
	if (!(rc = ingest_bytes(&id, ws, kind, "local-probe.json", text, len, label))) {
		if (json)
			rc = print_artifact_json(ws, id);
		else
			printf(_("probed this machine and ingested the result as artifact %lld (%s)\n"), id, kind);
		if (!rc)
			rc = rejudge(ws, plugin_evidence_bit(kind), json);
	}
	ws_close(ws);
out:
	free(text);
	return rc;
}

static int cmd_ingest(const char *dir, int argc, char **argv)
{
	const char *label = NULL, *format = "text";
	int c, rc = 0, local = 0, smoke = 0;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		if (format_option(c, 'f', &format, &rc)) {
			if (rc)
				return rc;
		} else if (c == 'L') {
			local = 1;
		} else if (c == 'S') {
			smoke = 1;
		} else if (c == 'l') {
			label = optarg;
		} else {
			return opt_fail("ingest", argv);
		}
	}
	int json = strcmp(format, "json") == 0;
	if (smoke && !local)
		return err_set(FERRY_EUSAGE, _("ingest: --smoke runs with --local (on another host: sh probe.sh --smoke > result.json)"));
	if (local) /* ingest env-probe --local: probe this machine and ingest the result */
		return ingest_local_probe(dir, argc - optind == 1 ? argv[optind] : NULL, label, smoke, json);
	if (argc - optind != 2)
		return usage_error("ingest");
	const char *kind = argv[optind], *path = argv[optind + 1];
	if (!artifact_kind_known(kind))
		return artifact_validate(kind, path, "", 0); /* sets the usage error listing the kinds */
	workspace *ws = NULL;
	if ((rc = open_synced(&ws, dir)))
		return rc;
	long long id = 0;
	if (!(rc = ingest_file(&id, ws, kind, path, label))) {
		if (json)
			rc = print_artifact_json(ws, id);
		else
			printf(_("ingested %s as artifact %lld (%s)\n"), path, id, kind);
		if (!rc)
			rc = rejudge(ws, plugin_evidence_bit(kind), json);
	}
	ws_close(ws);
	return rc;
}

/* --- compare --- */

/* How a comparison's text names an input: as typed, unless that was an artifact's id ("3",
 * "#3"): then by its label or the file it was ingested from, as the workbench names it. */
static const char *shown_name(const cJSON *in, const char *typed)
{
	const char *d = typed[0] == '#' ? typed + 1 : typed;
	if (cJSON_IsNumber(cJSON_GetObjectItem(in, "artifact")) && *d && strspn(d, "0123456789") == strlen(d) &&
	    *json_str(in, "shown"))
		return json_str(in, "shown");
	return typed;
}

/* `compare loss A B` and `compare dump A B`: A is the baseline (GPU), B the compared run
 * (NPU); each is an artifact id, an artifact label or a path. Every comparison is an
 * audit event with the inputs' hashes and the verdict; a failed tolerance exits 1. */
static int cmd_compare(const char *dir, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", "csv", NULL };
	const char *format = "text", *output = NULL, *column = NULL, *dtype[2] = { NULL, NULL };
	int threads = 0, c, rc = 0;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		char *end = NULL;
		switch (c) {
		case 'f':
			if ((rc = parse_format(&format, optarg, formats)))
				return rc;
			break;
		case 't':
			threads = (int)strtol(optarg, &end, 10);
			if (!*optarg || *end || threads < 1 || threads > 1024)
				return err_set(FERRY_EUSAGE, _("--threads %s: not a number of threads (1–1024)"), optarg);
			break;
		case 'o': output = optarg; break;
		case 'c': column = optarg; break;
		case 'A':
		case 'B': dtype[c == 'B'] = optarg; break;
		default: return opt_fail("compare", argv);
		}
	}
	if (argc - optind != 3)
		return usage_error("compare");
	const char *what = argv[optind], *arg_a = argv[optind + 1], *arg_b = argv[optind + 2];
	int loss = strcmp(what, "loss") == 0;
	if (!loss && strcmp(what, "dump") != 0)
		return usage_error("compare");
	if (loss && (threads || strcmp(format, "csv") == 0))
		return err_set(FERRY_EUSAGE, _("compare loss: --threads and --format csv apply to compare dump only"));
	workspace *ws = NULL;
	compare_req req = { loss, arg_a, arg_b, column, threads, dtype[0], dtype[1], 0, { 0, 0, 0 }, 0 };
	if ((rc = compare_req_check(&req)))
		return rc;
	compare_outcome o;
	memset(&o, 0, sizeof o);
	sbuf b;
	sbuf_init(&b);
	if ((rc = open_synced(&ws, dir)) || (rc = ws_output_outside(ws, "compare", output)) ||
	    (rc = compare_record(&o, ws, &req)))
		goto out;
	/* the same data on both sides proves nothing, whatever the numbers: said in place of
	 * a PASS, and on stderr */
	int decimals = -1, same = compare_same_input(&o, &decimals);
	char same_text[512];
	const char *same_says = compare_same_text(same_text, sizeof same_text, &o, same, decimals);
	if (strcmp(format, "json") == 0) {
		cJSON *doc = loss ? loss_result_json(&o.lr, &o.sa, &o.sb, o.in_a, o.in_b) : dump_result_json(&o.dr, o.in_a, o.in_b);
		if (same)
			cJSON_AddStringToObject(doc, "same_input", same == COMPARE_SAME_BYTES ? "bytes" : same == COMPARE_SAME_LOSSES ? "losses" : "values");
		char *t = cJSON_Print(doc);
		sbuf_adds(&b, t);
		sbuf_addc(&b, '\n');
		free(t);
		cJSON_Delete(doc);
	} else if (strcmp(format, "csv") == 0) {
		dump_render_csv(&b, &o.dr);
	} else if (loss) {
		loss_render_text(&b, &o.lr, &o.sa, &o.sb, shown_name(o.in_a, arg_a), shown_name(o.in_b, arg_b), same_says);
	} else {
		dump_render_text(&b, &o.dr, shown_name(o.in_a, arg_a), shown_name(o.in_b, arg_b), same_says);
	}
	if (!(rc = output_emit(&b, output)) && same_says)
		fprintf(stderr, _("ferry: warning: %s\n"), same_says);
	else if (!rc && compare_b_is_gpu(&o))
		fprintf(stderr, _("ferry: warning: B (%s) is labelled as a GPU run: a GPU run compared with the baseline measures "
		                  "the GPU's own spread, says nothing about the NPU and clears no failure\n"),
		        json_str(o.in_b, "shown"));
	if (!rc)
		rc = rejudge(ws, EVIDENCE_COMPARISONS, strcmp(format, "text") != 0 || output != NULL);
	if (!rc)
		rc = compare_failure(&o, &req);
out:
	compare_outcome_done(&o);
	sbuf_done(&b);
	ws_close(ws);
	return rc;
}

/* --- export --- */

static int name_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* An export as one document: what was delivered where, the anchor, and the patch files. */
static void print_export_json(const char *anchor, const char *what, const char *arg, const char *to, const char *base)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "what", what);
	cJSON_AddStringToObject(d, "anchor", anchor);
	if (to) {
		cJSON_AddStringToObject(d, "branch", arg);
		cJSON_AddStringToObject(d, "repo", to);
		cJSON_AddItemToObject(d, "base", base ? cJSON_CreateString(base) : cJSON_CreateNull());
	} else {
		cJSON_AddStringToObject(d, "dir", arg);
		char **names = NULL;
		size_t n = 0;
		DIR *dh = opendir(arg);
		for (struct dirent *e; dh && (e = readdir(dh));)
			if (util_ends_with(e->d_name, ".patch")) {
				names = xrealloc(names, (n + 1) * sizeof *names);
				names[n++] = xstrdup(e->d_name);
			}
		if (dh)
			closedir(dh);
		if (n > 1)
			qsort(names, n, sizeof *names, name_cmp);
		cJSON *list = cJSON_AddArrayToObject(d, "patches");
		for (size_t i = 0; i < n; i++) {
			cJSON_AddItemToArray(list, cJSON_CreateString(names[i]));
			free(names[i]);
		}
		free(names);
	}
	output_json(stdout, d);
	cJSON_Delete(d);
}

static int cmd_export(const char *dir, int argc, char **argv)
{
	const char *to = NULL, *base = NULL, *format = "text";
	int rc = 0, c;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		if (format_option(c, 'f', &format, &rc)) {
			if (rc)
				return rc;
		} else if (c == 't') {
			to = optarg;
		} else if (c == 'b') {
			base = optarg;
		} else {
			return opt_fail("export", argv);
		}
	}
	if (argc - optind != 2)
		return usage_error("export");
	const char *what = argv[optind], *arg = argv[optind + 1];
	int patches = strcmp(what, "patches") == 0, branch = strcmp(what, "branch") == 0;
	if (!patches && !branch)
		return usage_error("export");
	if (branch && !to)
		return err_set(FERRY_EUSAGE, _("export branch %s: --to REPO names the client's repository"), arg);
	if (patches && (to || base))
		return usage_error("export");
	workspace *ws = NULL;
	if ((rc = open_synced(&ws, dir)))
		return rc;
	char anchor[96] = "";
	rc = patches ? export_patches(anchor, ws, arg) : export_branch(anchor, ws, arg, to, base);
	if (!rc && strcmp(format, "json") == 0)
		print_export_json(anchor, what, arg, to, base);
	else if (!rc)
		printf(_("audit anchor %s (ferry verify --head %s checks the record against it)\n"), anchor, anchor);
	if (!rc && strcmp(format, "json") == 0)
		; /* the document said it */
	else if (!rc && patches)
		printf(_("wrote one patch per checkpoint since the baseline into %s (apply with git am --keep-cr)\n"), arg);
	else if (!rc)
		printf(_("created branch %s in %s; its checked-out branch and work tree are untouched\n"), arg, to);
	ws_close(ws);
	return rc;
}

/* --- history: log, diff, revert, verify --- */

static int cmd_log(const char *dir, int argc, char **argv)
{
	int json = 0, events = 0;
	int rc = json_option(&json, &events, 'e', "log", argc, argv);
	if (rc)
		return rc;
	if (optind != argc)
		return usage_error("log");
	workspace *ws = NULL;
	cJSON *cps = NULL, *evs = NULL;
	rc = open_reading(&ws, dir);
	if (rc)
		return rc;
	if ((rc = store_checkpoints(&cps, ws->db)) || (rc = audit_events(&evs, ws->db)))
		goto out;
	if (json) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddItemToObject(doc, "checkpoints", cps);
		cJSON_AddItemToObject(doc, "events", evs);
		cps = evs = NULL;
		output_json(stdout, doc);
		cJSON_Delete(doc);
		goto out;
	}
	pager_start();
	const cJSON *cp;
	cJSON_ArrayForEach(cp, cps) {
		const cJSON *fl = cJSON_GetObjectItem(cp, "findings");
		printf("%4lld  %.12s  %-9s %s  %s\n", json_int(cp, "id"), json_str(cp, "commit"), ws_checkpoint_kind_word(json_str(cp, "kind")),
		       json_str(cp, "time"), json_str(cp, "actor"));
		char *subject = subject_show(json_str(cp, "message"));
		printf("      %s", subject);
		free(subject);
		if (*json_str(cp, "plugin"))
			printf("  [%s]", json_str(cp, "plugin"));
		int nf = cJSON_GetArraySize(fl);
		if (nf) {
			/* the ids in full are in `ferry log --json`; a line shows the first few */
			printf("%s", P_("  finding", "  findings", (unsigned long)nf));
			for (int i = 0; i < nf && i < 8; i++)
				printf(" #%lld", (long long)cJSON_GetArrayItem(fl, i)->valuedouble);
			if (nf > 8)
				printf(_(" and %d more"), nf - 8);
		}
		printf("\n");
	}
	if (events) {
		printf(_("\naudit events (newest first)\n"));
		const cJSON *ev;
		cJSON_ArrayForEach(ev, evs) {
			printf("%4lld  %-10s %s  %s  %.12s\n", json_int(ev, "seq"), json_str(ev, "kind"), json_str(ev, "time"),
			       json_str(ev, "actor"), json_str(ev, "hash"));
			char *what = event_text(json_str(ev, "kind"), cJSON_GetObjectItem(ev, "data"));
			if (what) {
				char *shown = safetext_terminal(what);
				printf("      %s\n", shown);
				free(shown);
			}
			free(what);
		}
	}
out:
	cJSON_Delete(cps);
	cJSON_Delete(evs);
	ws_close(ws);
	return rc;
}

static int cmd_diff(const char *dir, int argc, char **argv)
{
	if (argc < 2 || argc > 3)
		return usage_error("diff");
	workspace *ws = NULL;
	char a[41], b[41], baseline[41];
	char *text = NULL;
	int rc = open_reading(&ws, dir);
	if (rc)
		return rc;
	if ((rc = ws_resolve(a, ws, argv[1])) || (argc == 3 && (rc = ws_resolve(b, ws, argv[2]))) ||
	    (rc = history_baseline(baseline, ws->hist)))
		goto out;
	if (argc == 2 && strcmp(a, baseline) == 0) {
		/* the baseline has no parent: show the whole migration so far */
		if ((rc = history_head(b, ws->hist)))
			goto out;
		rc = history_diff(&text, ws->hist, a, b);
	} else {
		rc = history_diff(&text, ws->hist, a, argc == 3 ? b : NULL);
	}
	if (!rc) {
		pager_start();
		fputs(text, stdout);
	}
out:
	free(text);
	ws_close(ws);
	return rc;
}

static int cmd_revert(const char *dir, int argc, char **argv)
{
	if (argc != 2)
		return usage_error("revert");
	workspace *ws = NULL;
	int rc = open_synced(&ws, dir);
	if (rc)
		return rc;
	long long id = 0;
	char oid[41];
	rc = review_revert(&id, oid, ws, argv[1]);
	if (!rc) {
		printf(_("reverted %s: checkpoint %lld (%.12s)\n"), argv[1], id, oid);
		char *open_again = review_reopened_text(ws, id);
		if (open_again)
			printf("%s\n", open_again);
		free(open_again);
	}
	ws_close(ws);
	return rc;
}

static int cmd_verify(const char *dir, int argc, char **argv)
{
	static const char *const formats[] = { "text", "json", NULL };
	const char *anchor = NULL, *format = "text";
	int c, rc;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		if (c == 'h')
			anchor = optarg;
		else if (c != 'f')
			return opt_fail("verify", argv);
		else if ((rc = parse_format(&format, optarg, formats)))
			return rc;
	}
	if (optind != argc)
		return usage_error("verify");
	size_t hlen;
	long long n;
	if (anchor && (rc = audit_anchor_parse(&hlen, &n, anchor)))
		return rc;
	workspace *ws = NULL;
	rc = ws_open_flags(&ws, dir, WS_READ);
	if (rc == FERRY_EGIT || rc == FERRY_ECORRUPT)
		return err_recode(FERRY_EFAIL); /* damage is what verify reports */
	if (rc)
		return rc;
	audit_report rep;
	if ((rc = audit_check_record(&rep, ws->db, ws->hist, anchor))) {
		ws_close(ws);
		return rc;
	}
	/* the record may be intact while an artifact's stored bytes were changed after ingest */
	if ((rc = seal_verify_all(rep.problems, ws))) {
		audit_report_done(&rep);
		ws_close(ws);
		return rc;
	}
	int nproblems = cJSON_GetArraySize(rep.problems);
	if (strcmp(format, "json") == 0) {
		cJSON *doc = cJSON_CreateObject();
		cJSON_AddBoolToObject(doc, "ok", nproblems == 0);
		cJSON_AddNumberToObject(doc, "events", (double)rep.events);
		cJSON_AddStringToObject(doc, "head", rep.head);
		char *anchor_now = xasprintf("%s:%lld", rep.head, rep.events);
		cJSON_AddStringToObject(doc, "anchor", anchor_now);
		free(anchor_now);
		cJSON_AddItemReferenceToObject(doc, "problems", rep.problems);
		cJSON_AddItemReferenceToObject(doc, "signatures", rep.signatures);
		char *text = cJSON_Print(doc);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(doc);
	} else {
		const cJSON *p, *sg;
		cJSON_ArrayForEach(p, rep.problems)
			printf("%s\n", json_str(p, "detail"));
		cJSON_ArrayForEach(sg, rep.signatures)
			printf(_("signature: event %lld signs head %.16s:%lld, %s, by %s\n"), json_int(sg, "seq"),
			       json_str(sg, "head"), json_int(sg, "signed_seq"),
			       cJSON_IsTrue(cJSON_GetObjectItem(sg, "valid")) ? "good" : "BAD",
			       cJSON_IsString(cJSON_GetObjectItem(sg, "signer")) ? json_str(sg, "signer") : "(unknown)");
		if (!nproblems)
			printf(_("ok: %lld audit events intact, head %s:%lld; every checkpoint commit present and anchored; "
			       "findings, waivers, sign-offs, checkpoints and artifacts agree with the chain; every artifact's stored "
			       "bytes hash as recorded at ingest%s\n"),
			       rep.events, rep.head, rep.events, anchor ? _("; the given anchor holds") : "");
	}
	if (nproblems)
		rc = err_set(FERRY_EFAIL, P_("verify: %d problem; the first: %s", "verify: %d problems; the first: %s", nproblems), nproblems,
		             json_str(cJSON_GetArrayItem(rep.problems, 0), "detail"));
	audit_report_done(&rep);
	ws_close(ws);
	return rc;
}

/* --- report --- */

static int cmd_report(const char *dir, int argc, char **argv)
{
	static const char *const formats[] = { "md", "html", "pdf", "json", "sarif", "csv", NULL };
	static const char *const sections[] = { "all", "assessment", "changes", "unsupported", NULL };
	static const char *const langs[] = { "en", "zh", NULL };
	report_opts o = { NULL, "all", NULL, FERRY_VERSION, NULL, 0, NULL }; /* lang NULL: the engagement's setting */
	int c, rc;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		switch (c) {
		case 'f':
			if ((rc = parse_format(&o.format, optarg, formats)))
				return rc;
			break;
		case 'o': o.output = optarg; break;
		case 's':
			if (parse_format(&o.section, optarg, sections))
				return err_set(FERRY_EUSAGE, _("--section %s: not one of all, assessment, changes, unsupported"), optarg);
			break;
		case 'l':
			if (parse_format(&o.lang, optarg, langs))
				return err_set(FERRY_EUSAGE, _("--lang %s: not one of en, zh"), optarg);
			break;
		case 'x': o.excel = 1; break;
		case 'y': o.layout = optarg; break;
		default: return opt_fail("report", argv);
		}
	}
	if (optind != argc || !o.format)
		return usage_error("report");
	workspace *ws = NULL;
	if ((rc = open_reading(&ws, dir)))
		return rc;
	char sha[65];
	rc = report_write(sha, ws, &o);
	if (!rc && o.output && strcmp(o.output, "-") != 0)
		fprintf(stderr, _("wrote %s report to %s (sha256 %.16s…)%s\n"), o.format, o.output, sha,
		        ws->readonly ? "" : _(", recorded in the audit chain"));
	ws_close(ws);
	return rc;
}

/* --- probe-script --- */

static int cmd_probe_script(const char *dir, int argc, char **argv)
{
	(void)dir, (void)argv;
	if (argc > 1)
		return usage_error("probe-script");
	const char *text = NULL;
	size_t len = 0;
	int rc = probe_script(&text, &len);
	if (rc)
		return rc;
	if (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0)
		return err_set(FERRY_EIO, _("probe-script: cannot write to standard output"));
	return 0;
}

/* --- help and completion --- */

static int cmd_help(const char *dir, int argc, char **argv)
{
	(void)dir;
	int c, man = 0;
	opt_reset();
	while ((c = cmd_getopt(argc, argv)) != -1) {
		if (c != 'm')
			return opt_fail("help", argv);
		man = 1;
	}
	if (argc - optind > 1 || (man && optind != argc))
		return usage_error("help");
	if (man)
		return cli_write_man(stdout);
	if (optind == argc) {
		cli_usage(stdout);
		return 0;
	}
	const cli_command *cmd = cli_find(argv[optind]);
	if (!cmd)
		return err_set(FERRY_EUSAGE, _("help %s: no such command (ferry help lists them)"), argv[optind]);
	cli_write_help(stdout, cmd);
	return 0;
}

static int cmd_completion(const char *dir, int argc, char **argv)
{
	(void)dir;
	if (argc != 2)
		return usage_error("completion");
	return cli_write_completion(stdout, argv[1]);
}

static int cmd_version(const char *dir, int argc, char **argv)
{
	(void)dir, (void)argc, (void)argv;
	printf(_("ferry %s\n"), FERRY_VERSION);
	return 0;
}

/* Options shared by several commands. */
#define OPT_FORMAT(list) { "format", 'f', list, N_("output format") }
#define OPT_OUTPUT { "output", 'o', "FILE", N_("write to FILE (atomically) instead of standard output") }
#define OPT_JSON { "json", 'j', NULL, N_("the same as --format json") }
#define OPT_END { NULL, 0, NULL, NULL }

static const cli_option init_opts[] = {
	{ "client", 'c', "NAME", N_("the client's name, shown in reports") },
	{ "engagement", 'e', "ID", N_("the engagement's id (default: generated from the date)") },
	{ "target", 't', "SOC", N_("the target NPU (target.soc), e.g. Ascend910B") },
	OPT_END,
};
static const cli_option document_opts[] = { OPT_FORMAT("text|json"), OPT_JSON, OPT_END };
static const cli_option config_opts[] = {
	OPT_FORMAT("text|json"),
	OPT_JSON,
	{ "unset", 'u', NULL, N_("remove the setting KEY: its default, or none, applies again (recorded in the audit log); a KEY not set: nothing changes, exit 0") },
	OPT_END,
};
static const cli_option check_cmd_opts[] = {
	{ "phase", 'p', "PHASE", N_("run only this phase's checks (repeatable)") },
	{ "plugin", 'P', "ID", N_("run only this check (repeatable)") },
	OPT_FORMAT("text|json|sarif"),
	OPT_OUTPUT,
	{ "fail-on", 'F', "error|warning|info", N_("exit 1 when an open finding of this severity or worse remains") },
	OPT_END,
};
static const cli_option findings_opts[] = {
	{ "phase", 'p', "PHASE", N_("only this phase's findings") },
	{ "status", 's', "open|fixed|waived", N_("only findings with this status") },
	{ "plugin", 'P', "ID", N_("only this check's findings") },
	OPT_FORMAT("text|json"),
	OPT_END,
};
static const cli_option reason_opts[] = { { "reason", 'v', "TEXT", N_("why (required; auditors read it)") }, OPT_END };
static const cli_option signoff_opts[] = { { "note", 'v', "TEXT", N_("a note kept with the sign-off") }, OPT_END };
static const cli_option fix_opts[] = {
	{ "finding", 'f', "N", N_("fix this finding (repeatable)") },
	{ "plugin", 'P', "ID", N_("fix every open finding of this check") },
	{ "all", 'a', NULL, N_("fix every fixable open finding") },
	{ "phase", 'p', "PHASE", N_("only findings of this phase") },
	{ "file", 'F', "PATH", N_("only findings in this file") },
	{ "dry-run", 'n', NULL, N_("show the diff and change nothing") },
	{ "yes", 'y', NULL, N_("apply without asking (required off a terminal)") },
	{ "format", 'T', "text|json", N_("output format (json: needs --yes or --dry-run)") },
	OPT_JSON,
	OPT_END,
};
static const cli_option ingest_opts[] = {
	{ "label", 'l', "LABEL", N_("a name for the artifact (gpu, npu, run-3 …)") },
	{ "local", 'L', NULL, N_("env-probe only: probe this machine instead of reading a file") },
	{ "smoke", 'S', NULL, N_("with --local: also run the NPU smoke test (torch_npu matmul and conv against the CPU)") },
	OPT_FORMAT("text|json"),
	OPT_JSON,
	OPT_END,
};
static const cli_option compare_opts[] = {
	OPT_FORMAT("text|json|csv"),
	{ "threads", 't', "N", N_("dump: worker threads (default: one per core)") },
	OPT_OUTPUT,
	{ "column", 'c', "NAME", N_("loss: the column or key holding the loss, or A+B for the sum of several") },
	{ "dtype-a", 'A', "bf16", N_("dump: read side A's 16-bit integer arrays as bfloat16") },
	{ "dtype-b", 'B', "bf16", N_("dump: read side B's 16-bit integer arrays as bfloat16") },
	OPT_END,
};
static const cli_option export_opts[] = {
	{ "to", 't', "REPO", N_("branch: the client's git repository") },
	{ "base", 'b', "REV", N_("branch: the client's commit the project was received at") },
	OPT_FORMAT("text|json"),
	OPT_JSON,
	OPT_END,
};
static const cli_option log_opts[] = {
	OPT_FORMAT("text|json"),
	OPT_JSON,
	{ "events", 'e', NULL, N_("also list the audit events") },
	OPT_END,
};
static const cli_option verify_opts[] = {
	{ "head", 'h', "HASH[:N]", N_("an anchor to check the chain against (from a report or an export)") },
	OPT_FORMAT("text|json"),
	OPT_END,
};
static const cli_option report_cmd_opts[] = {
	OPT_FORMAT("md|html|pdf|json|sarif|csv"),
	OPT_OUTPUT,
	{ "section", 's', "all|assessment|changes|unsupported", N_("which document to write") },
	{ "lang", 'l', "en|zh", N_("the report's language") },
	{ "excel", 'x', NULL, N_("CSV: start with a UTF-8 byte-order mark for spreadsheets") },
	{ "layout", 'y', "ferry|msft", N_("CSV: the column layout (msft: the vendor tool's)") },
	OPT_END,
};
static const cli_option help_opts[] = {
	{ "man", 'm', NULL, N_("write the manual page (roff) instead") },
	OPT_END,
};

const cli_command cli_commands[] = {
	{ "init", cmd_init, "init [DIR] [--client NAME] [--engagement ID] [--target SOC]",
	  N_("start an engagement: .ferry/ with the record and the baseline checkpoint"), init_opts, "DIR" },
	{ "config", cmd_config, "config [KEY [VALUE]] [--format text|json] | config --unset KEY",
	  N_("show or change engagement settings, ferry's and those the plugins declare"), config_opts, "KEY" },
	{ "status", cmd_status, "status [--format text|json]", N_("engagement, phases, finding counts, checkpoint head"),
	  document_opts, NULL },
	{ "plugins", cmd_plugins, "plugins [--format text|json]", N_("list the checks"), document_opts, NULL },
	{ "check", cmd_check,
	  "check [--phase P]... [--plugin ID]... [--format text|json|sarif] [--output FILE] [--fail-on SEVERITY]",
	  N_("run checks and record their findings"), check_cmd_opts, NULL },
	{ "findings", cmd_findings, "findings [--phase P] [--status open|fixed|waived] [--plugin ID] [--format text|json]",
	  N_("list recorded findings"), findings_opts, NULL },
	{ "waive", cmd_waive, "waive N... --reason TEXT", N_("waive findings, with a reason"), reason_opts, NULL },
	{ "unwaive", cmd_unwaive, "unwaive N... --reason TEXT",
	  N_("withdraw waivers, with a reason: the findings are open again"), reason_opts, NULL },
	{ "signoff", cmd_signoff, "signoff PHASE [--note TEXT]", N_("sign a phase off"), signoff_opts, "PHASE" },
	{ "fix", cmd_fix, "fix (--finding N... | --plugin ID | --all) [--phase P] [--file PATH] [--dry-run] [--yes] [--format text|json]",
	  N_("apply proposed fixes: one checkpoint per plugin"), fix_opts, NULL },
	{ "ingest", cmd_ingest,
	  "ingest KIND PATH [--label L] [--format text|json] | ingest env-probe --local [--smoke]   (KIND: " ARTIFACT_KIND_LIST(", ") ")",
	  N_("bring a probe, log, dump, profile, model or benchmark into the engagement"), ingest_opts,
	  ARTIFACT_KIND_LIST("|") " FILE" },
	{ "compare", cmd_compare,
	  "compare loss A B [--column NAME] [--format text|json] [--output FILE] | compare dump A B [--dtype-a bf16] [--dtype-b bf16] [--format text|json|csv] [--threads N] [--output FILE]",
	  N_("compare a loss curve or a tensor dump against the baseline (A: GPU, B: NPU; artifact id, label or path)"),
	  compare_opts, "loss|dump FILE FILE" },
	{ "probe-script", cmd_probe_script, "probe-script",
	  N_("print the environment probe to run on an NPU host (sh probe.sh [--smoke] > result.json)"), NULL, NULL },
	{ "log", cmd_log, "log [--format text|json] [--events]", N_("checkpoints (and audit events), newest first"),
	  log_opts, NULL },
	{ "diff", cmd_diff, "diff REV [REV2]",
	  N_("a checkpoint's changes, or REV..REV2 (REV: checkpoint id, commit prefix, baseline)"), NULL, NULL },
	{ "revert", cmd_revert, "revert REV", N_("undo a checkpoint with a new checkpoint"), NULL, NULL },
	{ "verify", cmd_verify, "verify [--head HASH[:N]] [--format text|json]",
	  N_("recompute the audit chain, replay it against the record, check every checkpoint commit, anchor and signature, "
	     "and hash every artifact again"),
	  verify_opts, NULL },
	{ "report", cmd_report,
	  "report --format md|html|pdf|json|sarif|csv [--output FILE] [--section all|assessment|changes|unsupported] [--lang en|zh] [--excel] [--layout ferry|msft]",
	  N_("write a deliverable: the assessment report, the change list or the unsupported list"), report_cmd_opts, NULL },
	{ "export", cmd_export, "export patches DIR [--format text|json] | export branch NAME --to REPO [--base REV] [--format text|json]",
	  N_("deliver the checkpoints: mbox patches, or a branch in the client's repository"), export_opts,
	  "patches|branch DIR" },
	{ "help", cmd_help, "help [COMMAND] | help --man", N_("show a command's help, or write the manual page"), help_opts,
	  "COMMAND" },
	{ "completion", cmd_completion, "completion bash|zsh", N_("print the shell completion script"), NULL, "bash|zsh" },
	{ "version", cmd_version, "version", N_("print the version"), NULL, NULL },
	{ NULL, NULL, NULL, NULL, NULL, NULL },
};

const cli_command *cli_find(const char *name)
{
	for (const cli_command *c = cli_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

void cli_usage(void *fp)
{
	FILE *f = fp;
	fprintf(f, _("usage: ferry [-C DIR] COMMAND [ARGS]   or   ferry [DIR]   (the workbench)\n\ncommands:\n"));
	for (const cli_command *c = cli_commands; c->name; c++)
		fprintf(f, "  %-10s %s\n             ferry %s\n", c->name, _(c->help), c->usage);
}
