/*
 * dump_render — a dump comparison's result for people and programs: the text summary
 * (first diverging layer, worst pairs first), one CSV row per pair, and the JSON
 * document `ferry compare dump --format json` prints and the audit stores.
 *
 * Reads the result only; never changes it. Text and CSV are appended to a caller-owned
 * sbuf; the cJSON returned belongs to the caller (cJSON_Delete).
 */
#ifndef FERRY_DUMP_RENDER_H
#define FERRY_DUMP_RENDER_H

#include "dump_result.h"
#include "util.h"

#include <cjson/cJSON.h>

/* Why a result without a failing pair fails, in the reader's language, written into buf:
 * nothing compared (every pair without a finite element), or, incomplete, how much of
 * A's dump B holds ("B holds 8 of A's 20 tensors (40%) ..."). */
const char *dump_unjudged_reason(char *buf, size_t size, const dump_result *r);

/* The summary, the first diverging layer and the worst pairs. same, when not NULL, says
 * the inputs are the same data (compare_same_text): a passing comparison's verdict is
 * then PROVES NOTHING, that sentence above it, never PASS. */
void dump_render_text(sbuf *out, const dump_result *r, const char *name_a, const char *name_b, const char *same);
/* One row per compared pair, with a header line. */
void dump_render_csv(sbuf *out, const dump_result *r);
/* parent's "threshold": {"rule": "msprobe"} or {"rule": "allclose", "atol", "rtol"}, what
 * the tensor pairs were judged by. */
void dump_threshold_json(cJSON *parent, const dump_threshold *th);
/* What a dump verdict of npairs pairs was judged by, in the reader's language, into buf;
 * returns buf: msprobe's rule (cosine and max abs error) or the thresholds agreed for the
 * engagement, and the nstats pairs judged by dump.json statistics alone (msprobe's
 * statistics rule, a Warning at most; the agreed thresholds cannot pass them). */
const char *dump_threshold_text(char *buf, size_t size, const dump_threshold *th, size_t nstats, size_t npairs);
/* {"kind":"dump","a","b","summary","first_diverging","verdict","pairs":[…]}; ina/inb may be
 * NULL (their members are copied, with "form" and "sha256" set from r). */
cJSON *dump_result_json(const dump_result *r, const cJSON *ina, const cJSON *inb);

#endif
