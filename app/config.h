/*
 * config — the engagement settings `ferry config` accepts: their names, what each value
 * must be, and the check of a value typed by a person before it is stored; config_set
 * stores one with its audit event (the CLI's `ferry config KEY VALUE` and the
 * workbench's `:config` both call it). The table is static and borrowed. The checks
 * are fuzzed by tests/fuzz/fuzz_config.c.
 */
#ifndef FERRY_CONFIG_H
#define FERRY_CONFIG_H

/* What a setting's value must be: any text, a whole number of at least 1, a number of
 * at least 0 (optionally with a % sign), one word of a list, or plugin ids separated by
 * spaces (or commas). Numbers are finite. */
enum config_kind { CFG_TEXT, CFG_COUNT, CFG_NUMBER, CFG_NUMBER_OR_PCT, CFG_WORD, CFG_IDS };

struct config_key {
	const char *key;   /* a name, or a prefix ending in '.' (effort.weight.) */
	enum config_kind kind;
	const char *words; /* CFG_WORD: the allowed words, space-separated */
	const char *help;
};

/* The settings, ending with an entry whose key is NULL. */
extern const struct config_key config_keys[];

/* The entry for key (prefix entries such as effort.weight. match their keys), or NULL. */
const struct config_key *config_key_find(const char *key);

/* Checks value against the setting's kind; 0, or FERRY_EUSAGE with one line naming the
 * key, the value and what it must be. */
int config_value_check(const struct config_key *k, const char *key, const char *value);

/* 0 when key is a known setting; else FERRY_EUSAGE with one line listing the known keys. */
int config_key_check(const char *key);

struct workspace;
/* Checks key and value, then stores the setting and its "config" audit event in one
 * transaction. The caller holds the writer lock. Returns 0 or an err.h code. */
int config_set(struct workspace *ws, const char *key, const char *value);

#endif
