/*
 * output — renders recorded findings for people and tools: text, JSON (DESIGN §7)
 * and SARIF 2.1.0, and writes a rendered document to stdout or, atomically, to a file.
 *
 * Renderers append to a caller-owned sbuf; they never free what they are given.
 */
#ifndef FERRY_OUTPUT_H
#define FERRY_OUTPUT_H

#include "plugin_host.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <stdio.h>

/* Pretty JSON of v and a newline to f. */
void output_json(FILE *f, const cJSON *v);
/* Writes b to stdout (path NULL or "-") or atomically to path. */
int output_emit(const sbuf *b, const char *path);

/* One block per finding: "#id severity plugin file:line:col" + message + suggestion. */
void output_findings_text(sbuf *b, const cJSON *findings);
/* {"run":…, "findings":[…], "plugin_errors":[…]} with the DESIGN §7 fields. */
void output_findings_json(sbuf *b, const cJSON *findings, long long run, const char *const *errors,
                          size_t nerrors);
/* Makes findings ready for SARIF (in place; call on a copy of what the store gave):
 * a finding without a file, or naming a file that does not exist under root, points at
 * the project's entry script, line 1; byte columns become character (code point)
 * columns, as SARIF counts them. */
void output_sarif_locate(cJSON *findings, const char *root);
/* A SARIF 2.1.0 log: one run, rules from the plugin host (the first result's advice as
 * help, the phase's public guide as helpUri), results each with a location relative to
 * %SRCROOT% and a region. */
void output_sarif(sbuf *b, const cJSON *findings, const plugin_host *h, const char *version);
/* Adds runs[0].invocations[0] to the SARIF log rendered in b: executionSuccessful, and one
 * toolExecutionNotifications entry (level error, the plugin id as descriptor) per failed
 * plugin; plugins[i] and messages[i] describe failure i. b is left as it was when it does
 * not hold a SARIF log. */
void output_sarif_invocations(sbuf *b, const char *const *plugins, const char *const *messages, size_t n);

#endif
