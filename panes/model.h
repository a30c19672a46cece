/*
 * model — what the workbench shows, as plain structs copied out of the
 * engagement: the status document, the phases, the findings of the selected
 * phase, checkpoints and artifacts. Panes read the model and never see the store,
 * the history or cJSON. Loading goes through the same functions the CLI uses
 * (status_json, store_findings, store_checkpoints, store_artifacts).
 *
 * The model owns every string and array in it; model_done frees them. gen
 * increases whenever the findings array changes, so panes rebuild their views
 * only then, not on every key.
 */
#ifndef FERRY_MODEL_H
#define FERRY_MODEL_H

#include "dump_result.h"
#include "finding.h"
#include "phase.h"

#include <stddef.h>

struct workspace;

typedef struct tui_phase {
	const char *name;    /* static phase name */
	char status[16];     /* not started, in progress, blocked, signed off */
	int errors, warnings, info, fixed, waived, runs;
	char *signed_by;     /* actor or NULL */
} tui_phase;

typedef struct tui_checkpoint {
	long long id;
	char commit[41];
	char *kind, *message, *actor, *time, *phase, *plugin, *findings;
} tui_checkpoint;

typedef struct tui_artifact {
	long long id;
	char *kind, *label, *path, *time, *actor;
	char *sha256;        /* the hash recorded at ingest; NULL for a comparison */
	long long size;
	char *a, *b;         /* kind "compare": the compared inputs as recorded (paths); else NULL */
	char *shown_a, *shown_b; /* kind "compare": the names the user knows them by (a label, the
	                      * file an artifact was ingested from: never its stored copy) */
	int same;            /* kind "compare": recorded with the same data on both sides */
	int loss;            /* kind "compare": 1 loss curves, 0 dumps */
	char *column, *dtype_a, *dtype_b; /* kind "compare": its options, NULL when not given */
	dump_threshold th;   /* kind "compare" of dumps: the thresholds its verdict was judged by */
	double tolerance;    /* kind "compare" of losses: the tolerance it was judged by (0: unknown) */
} tui_artifact;

/* One audit event, copied. */
typedef struct tui_event {
	long long seq;
	char *time, *actor, *kind;
	char *payload;       /* the event's data as canonical JSON */
	char hash[65];
} tui_event;

typedef struct tui_risk {
	long long id;
	char *severity, *file, *message;
	int line;
} tui_risk;

/* The assess phase's readiness verdict (app/assessment.h), copied. */
typedef struct tui_readiness {
	int ran;             /* an assess run exists; nothing below is set otherwise */
	int score;           /* 0..100 */
	char *klass;         /* ready, ready with conditions, needs manual porting, blocked */
	double effort_days;  /* person-days */
	char *formula;       /* how the effort was computed */
	char *strategy;      /* recommended: auto, tool or manual */
	char *chosen;        /* the engagement's chosen strategy, or NULL */
	char *reason;        /* why the recommendation */
	tui_risk risks[5];   /* the top risks */
	int nrisks;
	struct tui_quote_line {
		const char *name; /* a service line (category.h, borrowed) */
		double days, amount;
		int agreed;       /* days agreed with quote.days.<line>, not estimated */
	} quote[16];          /* the quote's lines with days, in the table's order */
	int nquote;
	double quote_days, quote_amount;
	int priced;           /* quote.rate is set: the amounts mean something */
	char *currency;       /* quote.currency, or NULL */
} tui_readiness;

typedef struct model {
	struct workspace *ws;  /* borrowed */
	char *engagement, *client, *target, *actor;
	char head[41];         /* head commit */
	long long head_cp;     /* head checkpoint id */
	char head_kind[16];
	int open, errors, warnings, info, fixed, waived, ncheckpoints;
	tui_readiness ready;   /* from the status document's assessment */
	char **config;         /* engagement settings set ("key"), NULL-terminated */
	tui_phase phases[PHASE_MAX]; /* phase_count() of them, in order */
	int phase;             /* selected phase index */
	finding *f;        /* findings of the selected phase */
	size_t nf, capf;
	unsigned gen;          /* bumped when f changes */
} model;

void model_init(model *m, struct workspace *ws);
void model_done(model *m);
/* Reloads the status document and the phase rail. */
int model_load_status(model *m);
/* Reloads the findings of m->phase (every status). */
int model_load_findings(model *m);
/* Empties the findings array (a run is about to stream new ones in). */
void model_clear_findings(model *m);
/* Appends a copy of a finding reported during a run. */
void model_add_finding(model *m, const finding *f);
/* Fills *out with every finding of the engagement (for charts); free with
 * model_findings_free. */
int model_all_findings(finding **out, size_t *n, model *m);
void model_findings_free(finding *f, size_t n);

/* Checkpoints newest first; free with model_checkpoints_free. */
int model_checkpoints(tui_checkpoint **out, size_t *n, model *m);
void model_checkpoints_free(tui_checkpoint *c, size_t n);
/* Artifacts; free with model_artifacts_free. */
int model_artifacts(tui_artifact **out, size_t *n, model *m);
void model_artifacts_free(tui_artifact *a, size_t n);

/* Reports generated so far (the "report" events of the audit chain), newest first,
 * as artifacts: id is the event's seq, kind "report", label "FORMAT · SECTION",
 * path where it was written, size its bytes. Free with model_artifacts_free. */
int model_reports(tui_artifact **out, size_t *n, model *m);

/* The comparisons recorded so far (the "compare" events), newest first, as artifacts:
 * id the event's seq, kind "compare", label "loss · pass", path "A ↔ B", a and b the
 * inputs' paths. Free with model_artifacts_free. */
int model_comparisons(tui_artifact **out, size_t *n, model *m);

/* Where an artifact's bytes are (its copy under .ferry/artifacts/, or the file a large
 * one refers to); caller frees. */
char *model_artifact_file(model *m, const tui_artifact *a);
/* The engagement's cache folder (.ferry/cache, acache.h), malloc'd. */
char *model_cache_dir(const model *m);
/* One engagement setting as the settings form shows it. */
typedef struct tui_setting {
	char *key;
	char *value;         /* as set, or NULL when unset */
	char *def;           /* the value when unset, or NULL */
	char *accepts;       /* what a value must be, in words ("auto tool manual") */
	char *help;          /* what it is for, in the interface language */
	char *owner;         /* the check that declared it, or NULL for ferry's own */
	char *group;         /* "design", "assess", "report", "plugins", or a check's phase */
} tui_setting;

/* Every setting ferry and the installed checks know (prefix keys such as effort.weight.
 * as the values set under them), design settings first; free with model_settings_free. */
int model_settings(tui_setting **out, size_t *n, model *m);
void model_settings_free(tui_setting *s, size_t n);

/* The audit chain newest first; free with model_events_free. */
int model_events(tui_event **out, size_t *n, model *m);
void model_events_free(tui_event *e, size_t n);

/* A cheap stamp of the project's files (names, sizes, times; .git and .ferry left
 * out): it changes when a file is edited, added or removed outside ferry. */
unsigned long long model_tree_stamp(model *m);
/* SQLite's data_version of the engagement: it changes when another process commits. */
long long model_db_version(model *m);

/* The ids of every check the engagement would run (bundled, FERRY_PLUGIN_PATH and
 * .ferry/plugins/), as `ferry plugins` lists them: a NULL-terminated array the caller
 * frees with model_strings_free. */
int model_plugin_ids(char ***out, model *m);
void model_strings_free(char **v);


#endif
