/*
 * finding — one result of a check, as plugins report it and the store keeps it.
 *
 * A finding owns all its strings, its edits and its waiver; finding_free releases them,
 * finding_list_free an array of them. Severity and status are enums here and words (by
 * the tables in finding.c) only where they leave: the record, JSON and plugins.
 * The fingerprint is the stable identity across runs: plugin + file + a hash of the
 * matched code and its surrounding lines (not the line number), so re-runs update
 * rather than duplicate and waivers survive edits elsewhere in the file.
 */
#ifndef FERRY_FINDING_H
#define FERRY_FINDING_H

#include <stddef.h>

typedef struct finding_edit {
	unsigned start_byte;  /* range replaced in the original file */
	unsigned end_byte;
	char *text;           /* replacement bytes, NUL-terminated */
} finding_edit;

/* How bad a finding is; a larger value is worse. 0 is no severity (a word that is not one). */
typedef enum finding_severity { SEVERITY_INFO = 1, SEVERITY_WARNING, SEVERITY_ERROR } finding_severity;

/* Where a finding stands: open until a checkpoint fixes it or someone waives it. */
typedef enum finding_status { STATUS_OPEN, STATUS_FIXED, STATUS_WAIVED } finding_status;

/* The names of severities and statuses as the record, JSON and plugins spell them
 * ("error", "waived"): one table each, in finding.c. */
const char *severity_name(finding_severity s);
/* The severity called name, or 0 when name is none. */
int severity_parse(const char *name);
const char *status_name(finding_status s);
/* The status called name, or -1 when name is none. */
int status_parse(const char *name);

/* The waiver in force on a waived finding. */
typedef struct finding_waiver {
	char *reason, *actor, *at;
	long long carried_from; /* the earlier phase's finding it was carried from; 0 when given */
} finding_waiver;

/* What became of an open survey finding's code in a later phase: the assess survey lists
 * the code as received, so its findings stay open while adapt fixes (or a person waives)
 * the same problem (same file and construct; same message or the same check of the later
 * phase) under its own finding, or, for a finding that follows sites, every site is. */
typedef struct finding_settlement {
	long long finding;      /* the later phase's finding; 0 when nothing settled it */
	int phase;              /* its phase (phase.h index) */
	finding_status status;  /* STATUS_FIXED or STATUS_WAIVED */
	long long checkpoint;   /* the checkpoint that fixed it; 0 when waived or closed by a run */
} finding_settlement;

/* Every string below is owned by the finding (finding_clear frees it); a copy duplicates
 * each one (panes/model.c, model_add_finding), so a new string field goes there too. */
typedef struct finding {
	long long id;         /* store id; 0 until stored */
	char *plugin;         /* "assess.device_calls" */
	int phase;            /* index into the phase table (phase.h: phase_name); -1 for a phase
	                       * the record names that the table no longer has */
	finding_severity severity;
	char *category;       /* grouping for reports and charts; may be NULL */
	char *file;           /* relative to the project root; NULL for project-wide findings */
	int line, col, end_line, end_col; /* 1-based; 0 when not applicable */
	char *message;        /* what was found */
	char *suggestion;     /* what to do, for a first-time migrator */
	char *i18n;           /* message ids and arguments of message and suggestion (JSON, see
	                       * intl.h); NULL when the plugin did not write them through _() */
	char *fingerprint;    /* stable identity (hex) */
	char *construct;      /* the code it is about, whatever the plugin: hash of file, matched
	                       * text and the lines around it (hex); NULL without a code range */
	char *anchor;         /* the fingerprint without the lines around the match (hex): what
	                       * pairs a finding whose surroundings changed with its old self;
	                       * NULL without a code range */
	char *unit;           /* the piece of work it is part of (see ctx.report's `unit`): the
	                       * effort counts findings of one category and unit once; NULL: its own */
	char *follows;        /* the sites whose findings settle this one (ctx.report's
	                       * `follows`): JSON [[file, line, col, end_line, end_col], ...];
	                       * the store derives its `automatic` and `settled` from theirs.
	                       * NULL: none, and always NULL when read from the store */
	finding_status status;
	int automatic;        /* a later phase's check fixes it automatically */
	int fixable;          /* it proposes edits (set by the store even when edits are not read) */
	long long last_run;   /* the check run that last saw it (the store's); 0 when unknown */
	finding_waiver *waiver; /* the waiver in force when read from the store; NULL otherwise */
	finding_settlement settled; /* an open assess finding's, when read from the store */
	finding_edit *edits;  /* proposed fix, sorted by start_byte; may be NULL */
	size_t nedits;
} finding;

void finding_free(finding *f);
/* Frees the strings inside f but not f itself (for arrays of findings). */
void finding_clear(finding *f);
/* Frees an array of n findings and the array. */
void finding_list_free(finding *f, size_t n);

struct cJSON;
/* f as a DESIGN §7 finding object (+ category, fingerprint, edits, last_run, waiver);
 * brief: only id, plugin, phase, severity, category, file, line, message, fixable,
 * automatic, status and waiver. The caller owns the object. */
struct cJSON *finding_json(const finding *f, int brief);

/* The fingerprint for a match: hash of plugin, file, the matched text and the
 * text of the lines around it with white space folded. Returns malloc'd hex. */
char *finding_fingerprint(const char *plugin, const char *file, const char *text, size_t len,
                          size_t start, size_t end, const char *key);

/* The construct key of a match: finding_fingerprint without the plugin and key, so the
 * assess survey and the adapt rewrite of the same code share it. Returns malloc'd hex. */
char *finding_construct(const char *file, const char *text, size_t len, size_t start, size_t end);

/* The anchor of a match: hash of plugin, file, key and the matched text with white space
 * folded, without the lines around it. Returns malloc'd hex. */
char *finding_anchor(const char *plugin, const char *file, const char *text, size_t len, size_t start,
                     size_t end, const char *key);

#endif
