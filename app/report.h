/*
 * report — the deliverables of `ferry report` (DESIGN §1, §7): the assessment report a
 * consultant hands to a client, the change list and the unsupported list, as Markdown,
 * one self-contained HTML file, a JSON document, SARIF 2.1.0 or CSV.
 *
 * The report is built once as a JSON document (report_build) from the store, the
 * history and the ingested artifacts; every text format is rendered from that document,
 * so all formats carry the same content. The readiness verdict comes from assessment.c
 * and the change list from changes.c; nothing here recomputes them. Writing a report
 * (report_write) appends a "report" audit event with the format, the destination and
 * the SHA-256 of the bytes written. Documents through **out belong to the caller
 * (cJSON_Delete); renderers append to a caller-owned sbuf.
 */
#ifndef FERRY_REPORT_H
#define FERRY_REPORT_H

#include "util.h"
#include "workspace.h"

#include <cjson/cJSON.h>

typedef struct report_opts {
	const char *format;  /* md, html, json, sarif or csv */
	const char *section; /* all, assessment, changes or unsupported; NULL = all */
	const char *output;  /* file written atomically; NULL or "-" = standard output */
	const char *version; /* ferry's version, named in the report */
} report_opts;

/* 1 when name is a format / a section report_write accepts. */
int report_format_valid(const char *name);
int report_section_valid(const char *name);

/* The whole report as a document: {schema, title, generated_at, generated_by,
 * ferry_version, engagement, config, assessment, phases, findings, waivers, changes,
 * reverted_checkpoints, unsupported, environment, gpu_baseline, artifacts, history,
 * audit}. */
int report_build(cJSON **out, workspace *ws, const char *version);

/* Renders doc as md, html, json or csv (sarif needs the plugin host: report_write),
 * restricted to section (NULL = all). FERRY_EUSAGE for another format. */
int report_render(sbuf *b, const cJSON *doc, const char *format, const char *section);

/* Builds, renders and writes the report, then records the "report" audit event.
 * sha256 (may be NULL) receives the hash of the bytes written. Takes no lock: the
 * caller holds the workspace lock. */
int report_write(char sha256[65], workspace *ws, const report_opts *o);

#endif
