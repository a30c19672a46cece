/* config — see config.h. */
#include "config.h"
#include "intl.h"
#include "audit.h"
#include "category.h"
#include "plugin_host.h"
#include "soc.h"
#include "err.h"
#include "util.h"
#include "workspace.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct config_key config_keys[] = {
	{ "target.soc", CFG_SOC, NULL, N_("target NPU SoC, e.g. Ascend910B2, Ascend310P3"), NULL, NULL, "design", NULL },
	{ "target.cards", CFG_COUNT, NULL, N_("number of NPU cards in the plan"), NULL, NULL, "design", NULL },
	{ "target.nodes", CFG_COUNT, NULL, N_("number of nodes in the plan"), NULL, NULL, "design", NULL },
	{ "tolerance.loss", CFG_NUMBER_OR_PCT, NULL, N_("accepted relative loss difference against the GPU baseline, e.g. 0.01 or 1%; unset, `ferry compare loss` judges by 0.02"), "0.02", NULL, "design", NULL },
	{ "tolerance.dump_atol", CFG_NUMBER, NULL, N_("dump comparison: absolute threshold agreed with the client; each element within dump_atol + dump_rtol × |GPU value| (unset with dump_rtol: msprobe's rule), e.g. 1e-5"), NULL, NULL, "design", NULL },
	{ "tolerance.dump_rtol", CFG_NUMBER, NULL, N_("dump comparison: relative threshold agreed with the client, as torch.allclose's rtol, e.g. 1e-3"), NULL, NULL, "design", NULL },
	{ "tolerance.accuracy", CFG_NUMBER, NULL, N_("accepted absolute accuracy drop, e.g. 0.005"), NULL, NULL, "design", NULL },
	/* xgettext:no-c-format */
	{ "throughput.target_pct", CFG_NUMBER, NULL, N_("throughput target as % of the GPU baseline, e.g. 80"), NULL, NULL, "design", NULL },
	{ "strategy", CFG_WORD, "auto tool manual", N_("migration strategy: auto (transfer_to_npu), tool (rewrite) or manual"), NULL, NULL, "design", NULL },
	{ "model.params_b", CFG_NUMBER, NULL, N_("model size in billions of parameters (for memory and parallel advice)"), NULL, NULL, "design", NULL },
	{ "effort.base_days", CFG_NUMBER, NULL, N_("effort formula: fixed days for any engagement"), "2", NULL, "assess", NULL },
	{ "effort.weight.", CFG_NUMBER, NULL, N_("effort formula: days per finding of a category, e.g. effort.weight.custom_kernel"), NULL, NULL, "assess", NULL },
	{ "quote.rate", CFG_NUMBER, NULL, N_("the quote: price of one person-day, e.g. 3000"), NULL, NULL, "assess", NULL },
	{ "quote.currency", CFG_TEXT, NULL, N_("the quote: currency of quote.rate, e.g. CNY"), NULL, NULL, "assess", NULL },
	{ "quote.days.", CFG_NUMBER, NULL, N_("the quote: person-days agreed for a service line instead of the estimate, e.g. quote.days.environment"), NULL, NULL, "assess", NULL },
	{ "language", CFG_WORD, "en zh", N_("the reports' language: en or zh (unset: the reader's, FERRY_LANG or the locale)"), NULL, NULL, "report", NULL },
	{ "audit.sign_key", CFG_TEXT, NULL, N_("key that signs the audit head at each sign-off and report: ed25519 PEM or OpenSSH private key file"), NULL, NULL, "report", NULL },
	{ "csv.bom", CFG_WORD, "true false", N_("start CSV reports with a UTF-8 byte-order mark (as --excel does)"), NULL, NULL, "report", NULL },
	{ "export.signoff", CFG_WORD, "true false", N_("end each exported patch with a Signed-off-by: trailer of the actor"), NULL, NULL, "report", NULL },
	{ "plugins.allow_exec", CFG_IDS, NULL, N_("plugins not bundled with ferry that may run programs (ids; empty for none)"), NULL, NULL, "plugins", NULL },
	{ "plugins.time_limit", CFG_NUMBER, NULL, N_("seconds one plugin may run before it is stopped"), "120", NULL, "plugins", NULL },
	{ NULL, CFG_TEXT, NULL, NULL, NULL, NULL, NULL, NULL },
};

/* The settings the loaded plugins declared (strings owned here), sorted by key. */
static struct config_key *declared;
static size_t ndeclared;

const struct config_key *config_builtin_find(const char *key)
{
	for (const struct config_key *k = config_keys; k->key; k++)
		if (strcmp(k->key, key) == 0 || (util_ends_with(k->key, ".") && util_starts_with(key, k->key) &&
		                                 strlen(key) > strlen(k->key)))
			return k;
	return NULL;
}

const struct config_key *config_key_find(const char *key)
{
	const struct config_key *k = config_builtin_find(key);
	for (size_t i = 0; !k && i < ndeclared; i++)
		if (strcmp(declared[i].key, key) == 0)
			k = &declared[i];
	return k;
}

char *config_default(const struct config_key *k, const char *key)
{
	static const char weight[] = "effort.weight.";
	if (k && k->def)
		return xstrdup(k->def);
	const category_info *c = util_starts_with(key, weight) ? category_find(key + strlen(weight)) : NULL;
	return c ? xasprintf("%g", c->weight_days) : NULL;
}

double config_builtin_default(const char *key)
{
	const struct config_key *k = config_builtin_find(key);
	return k && k->def ? strtod(k->def, NULL) : 0;
}

const struct config_key *config_declared(size_t *n)
{
	*n = ndeclared;
	return declared;
}

enum config_kind config_kind_of(const char *type)
{
	return strcmp(type, "number") == 0 ? CFG_NUMBER
	       : strcmp(type, "count") == 0 ? CFG_COUNT
	       : strcmp(type, "text") == 0  ? CFG_TEXT
	                                    : CFG_WORD;
}

void config_forget_plugins(void)
{
	for (size_t i = 0; i < ndeclared; i++) {
		free((char *)declared[i].key);
		free((char *)declared[i].words);
		free((char *)declared[i].help);
		free((char *)declared[i].def);
		free((char *)declared[i].owner);
		free((char *)declared[i].group);
		free((char *)declared[i].domain);
	}
	free(declared);
	declared = NULL;
	ndeclared = 0;
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

const char *config_help(const struct config_key *k)
{
	if (!k->help)
		return "";
	return k->owner ? intl_text(k->domain, k->help) : _(k->help);
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(((const struct config_key *)a)->key, ((const struct config_key *)b)->key);
}

void config_declare_plugins(const plugin_host *h)
{
	config_forget_plugins();
	size_t n = 0;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < pi[i].nsettings; j++) {
			const plugin_setting *s = &pi[i].settings[j];
			declared = xrealloc(declared, (ndeclared + 1) * sizeof *declared);
			declared[ndeclared++] = (struct config_key){ xstrdup(s->key), config_kind_of(s->type), dup_or_null(s->words),
				                                         xstrdup(s->help), dup_or_null(s->def), xstrdup(pi[i].id),
				                                         xstrndup(pi[i].id, strcspn(pi[i].id, ".")),
				                                         dup_or_null(pi[i].textdomain) };
		}
	if (ndeclared > 1)
		qsort(declared, ndeclared, sizeof *declared, key_cmp);
}

static const char *category_name_at(size_t i)
{
	size_t n = 0;
	const category_info *all = category_all(&n);
	return i < n ? all[i].name : NULL;
}

static const char *service_name_at(size_t i)
{
	size_t n = 0;
	const service_info *all = service_all(&n);
	return i < n ? all[i].name : NULL;
}

/* Settings named by a prefix and a name from a table: the name must be one the table
 * lists (effort.weight.<category>, quote.days.<service line>). */
static const struct {
	const char *prefix;
	const char *(*name_at)(size_t i); /* the table's i-th name; NULL past the end */
	const char *refusal;              /* key, name, the names */
} named_keys[] = {
	{ "effort.weight.", category_name_at, N_("config %s: '%s' is not a finding category (one of: %s)") },
	{ "quote.days.", service_name_at, N_("config %s: '%s' is not a service line of the quote (one of: %s)") },
};

static int check_named_key(const char *prefix, const char *key)
{
	for (size_t k = 0; k < sizeof named_keys / sizeof named_keys[0]; k++) {
		if (strcmp(named_keys[k].prefix, prefix) != 0)
			continue;
		const char *name = key + strlen(prefix), *x;
		sbuf b;
		sbuf_init(&b);
		for (size_t i = 0; (x = named_keys[k].name_at(i)); i++) {
			if (strcmp(x, name) == 0) {
				sbuf_done(&b);
				return 0;
			}
			sbuf_addf(&b, "%s%s", i ? ", " : "", x);
		}
		int rc = err_set(FERRY_EUSAGE, _(named_keys[k].refusal), key, name, b.buf ? b.buf : "");
		sbuf_done(&b);
		return rc;
	}
	return 0;
}

/* Numbers that parse but are almost always a slip of the unit, refused with what was
 * meant: a loss tolerance above 100 % ("2" for 2 %), a throughput target under 1 % of the
 * GPU's ("0.8" for 80 %). Bounds on the value as read (a percentage already divided). */
static const struct {
	const char *key;
	double lo, hi;
	const char *hint;
} plausible[] = {
	{ "tolerance.loss", 0, 1, N_("a relative difference of at most 100 %: 0.02 or 2% for two percent") },
	{ "tolerance.dump_atol", 0, 1, N_("an absolute difference from 0 to 1, e.g. 1e-5") },
	{ "tolerance.dump_rtol", 0, 1, N_("a relative difference of at most 1, e.g. 1e-3") },
	/* xgettext:no-c-format */
	{ "throughput.target_pct", 1, 1000, N_("a percentage of the GPU's throughput: 80 for 80 %") },
	/* 0 sizes nothing: the memory and parallel advice would read it as unset */
	{ "model.params_b", 1e-6, 1e5, N_("a size in billions of parameters above 0: 0.09 for 90 million, 7 for 7 billion") },
};

static int check_plausible(const char *key, const char *value)
{
	char *end = NULL;
	double d = strtod(value, &end);
	if (end && strcmp(end, "%") == 0)
		d /= 100.0;
	for (size_t i = 0; i < sizeof plausible / sizeof plausible[0]; i++)
		if (strcmp(plausible[i].key, key) == 0 && (d < plausible[i].lo || d > plausible[i].hi))
			return err_set(FERRY_EUSAGE, _("config %s %s: out of range; it takes %s"), key, value, _(plausible[i].hint));
	return 0;
}

int config_value_check(const struct config_key *k, const char *key, const char *value)
{
	char *end = NULL;
	errno = 0;
	double d = strtod(value, &end);
	/* strtod skips leading blanks: " 0.01" would be stored as typed and read as a number
	 * by some readers and not others; it also reads hexadecimal (0x10 is 16) and lets
	 * 1e-400 underflow to 0: a setting is a decimal number as a person writes it */
	int decimal = strspn(value, "0123456789.eE+-") == (size_t)(end - value);
	if (end != value && decimal && errno == ERANGE && d == 0)
		return err_set(FERRY_EUSAGE, _("config %s %s: too small to tell from 0"), key, value);
	int number = *value && !isspace((unsigned char)*value) && end != value && decimal && d >= 0;
	if (k->kind != CFG_TEXT && k->kind != CFG_WORD && k->kind != CFG_IDS && k->kind != CFG_SOC && end != value &&
	    !isfinite(d))
		return err_set(FERRY_EUSAGE, _("config %s %s: must be a finite number"), key, value);
	switch (k->kind) {
	case CFG_TEXT:
		if (*value)
			return 0;
		break;
	case CFG_COUNT:
		if (number && !*end && d >= 1 && d == (double)(long long)d)
			return 0;
		break;
	case CFG_NUMBER:
		if (number && !*end)
			return check_plausible(key, value);
		break;
	case CFG_NUMBER_OR_PCT:
		if (number && (!*end || strcmp(end, "%") == 0))
			return check_plausible(key, value);
		break;
	case CFG_SOC: {
		char *what = xasprintf("config %s", key);
		int rc = soc_name_check(what, value);
		free(what);
		return rc;
	}
	case CFG_IDS:
		for (const char *p = value; *p; p++)
			if (!isalnum((unsigned char)*p) && !strchr("_.- ,", *p))
				return err_set(FERRY_EUSAGE, _("config %s %s: must be plugin ids separated by spaces"), key, value);
		return 0;
	case CFG_WORD: {
		size_t n = strlen(value);
		for (const char *w = k->words; *value && (w = strstr(w, value)); w += n)
			if ((w == k->words || w[-1] == ' ') && (w[n] == ' ' || w[n] == '\0'))
				return 0;
		return err_set(FERRY_EUSAGE, _("config %s %s: must be one of: %s"), key, value, k->words);
	}
	}
	return err_set(FERRY_EUSAGE, _("config %s %s: must be %s"), key, value, config_accepts(k));
}

const char *config_accepts(const struct config_key *k)
{
	static const char *const what[] = { [CFG_TEXT] = N_("some text"), [CFG_COUNT] = N_("a whole number of at least 1"),
		                                [CFG_NUMBER] = N_("a number of at least 0"),
		                                /* xgettext:no-c-format */
		                                [CFG_NUMBER_OR_PCT] = N_("a number of at least 0, or a percentage such as 2%"),
		                                [CFG_WORD] = NULL, [CFG_IDS] = N_("check ids separated by spaces"),
		                                [CFG_SOC] = N_("an Ascend SoC name, e.g. Ascend910B2") };
	_Static_assert(sizeof what / sizeof *what == CFG_KINDS, "a phrase for every kind of setting");
	return k->kind == CFG_WORD ? k->words : _(what[k->kind]);
}

int config_key_check(const char *key)
{
	const struct config_key *known = config_key_find(key);
	if (known) /* a named family's key (effort.weight.<category>) must name one of it */
		return util_ends_with(known->key, ".") ? check_named_key(known->key, key) : 0;
	sbuf b;
	sbuf_init(&b);
	for (const struct config_key *k = config_keys; k->key; k++)
		sbuf_addf(&b, "%s%s%s", k->key, util_ends_with(k->key, ".") ? "*" : "", k[1].key || ndeclared ? ", " : "");
	for (size_t i = 0; i < ndeclared; i++)
		sbuf_addf(&b, "%s%s", declared[i].key, i + 1 < ndeclared ? ", " : "");
	err_set(FERRY_EUSAGE, _("config: unknown key %s (known: %s)"), key, b.buf);
	sbuf_done(&b);
	return FERRY_EUSAGE;
}

int config_set(workspace *ws, const char *key, const char *value)
{
	int rc = config_key_check(key);
	if (rc || (rc = config_value_check(config_key_find(key), key, value)))
		return rc;
	if (!(rc = store_begin(ws->db)) && !(rc = store_config_set(ws->db, key, value))) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "key", key);
		cJSON_AddStringToObject(d, "value", value);
		rc = audit_append(NULL, ws->db, "config", ws->actor, d);
	}
	if (!rc)
		rc = store_commit(ws->db);
	if (rc)
		store_rollback(ws->db);
	return rc;
}

int config_unset(char **previous, workspace *ws, const char *key)
{
	*previous = NULL;
	int rc = store_begin(ws->db);
	if (rc)
		return rc;
	/* a key the engagement holds is removed even when nothing declares it any more (the
	 * setting of a plugin taken out of the engagement); any other must be a known key */
	if (!(*previous = store_config_get(ws->db, key)))
		rc = config_key_check(key);
	else if (!(rc = store_config_unset(ws->db, key))) {
		cJSON *d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "key", key);
		cJSON_AddNullToObject(d, "value");
		cJSON_AddStringToObject(d, "previous", *previous);
		rc = audit_append(NULL, ws->db, "config", ws->actor, d);
	}
	if (!rc)
		rc = store_commit(ws->db);
	if (rc) {
		store_rollback(ws->db);
		free(*previous);
		*previous = NULL;
	}
	return rc;
}

int config_key_judged(const struct config_key *k)
{
	static const char *const unread[] = { "report", "plugins", "assess" };
	for (size_t i = 0; k && i < sizeof unread / sizeof unread[0]; i++)
		if (k->group && strcmp(k->group, unread[i]) == 0)
			return 0;
	return k != NULL;
}
