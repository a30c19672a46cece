/*
 * config — the engagement settings `ferry config` accepts: their names, what each value
 * must be, and the check of a value typed by a person before it is stored; config_set
 * stores one with its audit event (the CLI's `ferry config KEY VALUE` and the
 * workbench's `:config` both call it). The table is static and borrowed. The checks
 * are fuzzed by tests/fuzz/fuzz_config.c.
 *
 * The registry is ferry's own table plus the settings the loaded plugins declare
 * (config_declare_plugins, called for every plugin host check.c builds): a plugin's
 * setting is "<plugin id>.<name>", with the type, allowed words, default and help its
 * declaration gives. The declared entries are owned here until config_forget_plugins.
 */
#ifndef FERRY_CONFIG_H
#define FERRY_CONFIG_H

#include <stddef.h>

/* What a setting's value must be: any text, a whole number of at least 1, a number of
 * at least 0 (optionally with a % sign), one word of a list, plugin ids separated by
 * spaces (or commas), or an Ascend SoC name (soc.h). Numbers are finite. */
enum config_kind { CFG_TEXT, CFG_COUNT, CFG_NUMBER, CFG_NUMBER_OR_PCT, CFG_WORD, CFG_IDS, CFG_SOC };
/* How many kinds there are: every table indexed by kind has this many entries. */
#define CFG_KINDS (CFG_SOC + 1)

struct config_key {
	const char *key;   /* a name, or a prefix ending in '.' (effort.weight.) */
	enum config_kind kind;
	const char *words; /* CFG_WORD: the allowed words, space-separated */
	const char *help;  /* ferry's: a msgid; a plugin's: as it declared it */
	const char *def;   /* the value when unset, as text; NULL: none */
	const char *owner; /* the plugin that declared it; NULL: ferry */
	const char *group; /* what it belongs to: a phase ("design", "assess"; a plugin's: its
	                      phase) or "report", "plugins" */
	const char *domain; /* a plugin's own gettext domain; NULL: ferry's, or the bundled plugins' */
};

/* The setting's help in the reader's language (ferry's from its catalog, a plugin's from
 * the plugin's). */
const char *config_help(const struct config_key *k);

/* ferry's own settings, ending with an entry whose key is NULL. */
extern const struct config_key config_keys[];

/* The entry for key, ferry's or a declared plugin's (prefix entries such as
 * effort.weight. match their keys), or NULL. */
const struct config_key *config_key_find(const char *key);
/* The same among ferry's own settings only. */
const struct config_key *config_builtin_find(const char *key);
/* The value key (whose entry is k, or NULL) has when unset, as text, or NULL when none:
 * the entry's default, or for effort.weight.<category> that category's own weight.
 * Caller frees. */
char *config_default(const struct config_key *k, const char *key);
/* ferry's own default of one of its settings as a number (0 when it has none). */
double config_builtin_default(const char *key);
/* The declared plugin settings, in key order; *n gets their number. Borrowed. */
const struct config_key *config_declared(size_t *n);

/* The kind of a plugin setting's type (bool and word: CFG_WORD, number, count, text). */
enum config_kind config_kind_of(const char *type);

struct plugin_host;
/* Adds the settings the host's plugins declare to the registry (again: replaced). */
void config_declare_plugins(const struct plugin_host *h);
/* Empties the declared part of the registry. */
void config_forget_plugins(void);

/* Checks value against the setting's kind (key is known: config_key_check); 0, or
 * FERRY_EUSAGE with one line naming the key, the value and what it must be. */
int config_value_check(const struct config_key *k, const char *key, const char *value);

/* What a value of k must be, in the interface language: the allowed words of a word
 * setting ("auto tool manual"), else a phrase ("a whole number of at least 1"). Borrowed. */
const char *config_accepts(const struct config_key *k);

/* 0 when key is a known setting; else FERRY_EUSAGE with one line listing the known keys,
 * or, for a key of a named family (effort.weight.<category>, quote.days.<line>) whose name
 * is not one of the family's, the names it takes. Setting and reading a key ask this
 * first, and so does unsetting one the engagement does not hold: an unknown key is refused
 * alike. */
int config_key_check(const char *key);

struct workspace;
/* Checks key and value, then stores the setting and its "config" audit event in one
 * transaction. The caller holds the writer lock. Returns 0 or an err.h code. */
int config_set(struct workspace *ws, const char *key, const char *value);
/* Removes the setting (its default, or nothing, applies again) with a "config" audit event
 * whose value is null and whose "previous" is the value it had, in one transaction;
 * *previous is that value (caller frees), NULL when it was not set, in which case nothing
 * is changed or recorded. A key the engagement holds is removed even when no loaded plugin
 * declares it any more (a removed plugin's setting); one it does not hold must pass
 * config_key_check. The caller holds the writer lock. */
int config_unset(char **previous, struct workspace *ws, const char *key);
/* 1 when checks judge by setting k (a phase's targets and tolerances, a plugin's own
 * settings); 0 for the settings of reports, of the plugin host and of the assessment's
 * effort formula, which no finding reads. */
int config_key_judged(const struct config_key *k);

#endif
