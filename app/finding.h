/*
 * finding — one result of a check, as plugins report it and the store keeps it.
 *
 * A finding owns all its strings and its edits; finding_free releases them.
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

typedef struct finding {
	long long id;         /* store id; 0 until stored */
	char *plugin;         /* "assess.device_calls" */
	char *phase;          /* "assess" */
	char *severity;       /* "error", "warning" or "info" */
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
	char *status;         /* "open", "fixed" or "waived" */
	int automatic;        /* a later phase's check fixes it automatically */
	finding_edit *edits;  /* proposed fix, sorted by start_byte; may be NULL */
	size_t nedits;
} finding;

void finding_free(finding *f);
/* Frees the strings inside f but not f itself (for arrays of findings). */
void finding_clear(finding *f);

/* The fingerprint for a match: hash of plugin, file, the matched text and the
 * text of the lines around it with white space folded. Returns malloc'd hex. */
char *finding_fingerprint(const char *plugin, const char *file, const char *text, size_t len,
                          size_t start, size_t end, const char *key);

/* The construct key of a match: finding_fingerprint without the plugin and key, so the
 * assess survey and the adapt rewrite of the same code share it. Returns malloc'd hex. */
char *finding_construct(const char *file, const char *text, size_t len, size_t start, size_t end);

#endif
