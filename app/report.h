/*
 * report — the deliverables of `ferry report` (DESIGN §1, §7): the assessment report a
 * consultant hands to a client, the change list and the unsupported list, as Markdown,
 * one self-contained HTML file, a JSON document, SARIF 2.1.0 or CSV.
 *
 * The report is built once as a JSON document (report_build) from the store, the
 * history and the ingested artifacts. JSON, SARIF and CSV are rendered from that document;
 * Markdown and HTML from one typed document model made from it (rdoc.h: cover, contents,
 * sections, tables, figures drawn by svgchart.h), so both carry the same sections. The
 * readiness verdict comes from assessment.c and the change list from changes.c; nothing
 * here recomputes them. Writing a report (report_write) appends a "report" audit event
 * with the format, the language, the destination and the SHA-256 of the bytes written.
 * The md, html and pdf texts go through gettext (_(), po/zh_CN-report.po) in English or
 * Simplified Chinese: report_opts.lang, else the engagement's "language" setting; the
 * language is switched for the rendering and restored after it. Finding messages arrive
 * already in the reader's language from the store. The document, JSON and CSV keep English
 * keys and values, which tools read. Documents through **out belong to the caller
 * (cJSON_Delete); renderers append to a caller-owned sbuf.
 */
#ifndef FERRY_REPORT_H
#define FERRY_REPORT_H

#include "util.h"
#include "workspace.h"

#include <cjson/cJSON.h>

typedef struct report_opts {
	const char *format;  /* md, html, pdf, json, sarif or csv */
	const char *section; /* all, assessment, changes or unsupported; NULL = all */
	const char *output;  /* file written atomically; NULL or "-" = standard output */
	const char *version; /* ferry's version, named in the report */
	const char *lang;    /* en or zh; NULL = the engagement's "language" setting (en when unset) */
	int excel;           /* csv: start with a UTF-8 BOM (also when the csv.bom setting is true) */
	const char *layout;  /* csv of changes/unsupported: NULL or "ferry", or "msft" (the vendor tool's columns) */
} report_opts;

/* The formats ferry writes by itself, NULL-terminated; report_write also takes "pdf" (the
 * HTML printed by headless Chromium, pdfprint.h), which needs an output file. */
extern const char *const report_formats[];
/* 1 when name is one of report_formats / a section report_write accepts. */
int report_format_valid(const char *name);
int report_section_valid(const char *name);

/* The whole report as a document: {schema, title, generated_at, generated_by,
 * ferry_version, engagement, config, assessment, phases, findings, waivers, changes,
 * reverted_checkpoints, unsupported, environment, gpu_baseline, artifacts, history,
 * audit}. */
int report_build(cJSON **out, workspace *ws, const char *version);

/* Renders doc as md, html, json or csv (sarif needs the plugin host: report_write),
 * restricted to section (NULL = all), in lang: "en" or "zh", NULL for the engagement's
 * "language" setting recorded in doc (English when unset). Chinese changes every fixed
 * text of md and html (titles, headings, labels, sentences, the verdict, status, severity
 * and operation words, the strategy reason); JSON and CSV are the same in both languages.
 * FERRY_EUSAGE for another format, section or language. */
int report_render(sbuf *b, const cJSON *doc, const char *format, const char *section, const char *lang);

/* Builds, renders and writes the report, then records the "report" audit event.
 * sha256 (may be NULL) receives the hash of the bytes written. Takes no lock: the
 * caller holds the workspace lock. */
int report_write(char sha256[65], workspace *ws, const report_opts *o);

#endif
