/*
 * assessment — the readiness verdict of the assess phase, computed from the recorded
 * assess findings: a 0–100 score and a class, an effort estimate in person-days with
 * its formula and weights (configurable per engagement), the top risks, and the
 * recommended migration strategy with the findings that drove it.
 *
 * Computed from the findings as they are now: assess findings a later phase has since
 * fixed or waived for the same construct (finding_settlement) no longer count.
 * Pure computation over store data; the result is a cJSON object the caller owns.
 */
#ifndef FERRY_ASSESSMENT_H
#define FERRY_ASSESSMENT_H

#include "store.h"

#include <cjson/cJSON.h>

/* {ran, settled_later, score, class, effort_days, formula, base_days, weights{}, counts{}, mechanical,
 *  top_risks[{id, plugin, category, severity, file, line, message, weight}],
 *  strategy{recommended, chosen, reason, drivers[ids]},
 *  quote{services[{name, estimate_days, agreed_days?, days, amount?}], days, rate?, currency?, amount?}}. "ran" is false (and the rest
 * absent) before any assess run. */
int assessment_compute(cJSON **out, store *s);

/* The strategy reasons assessment_compute puts into strategy.reason (English, marked for
 * the catalog here; reports and panes show them through it). */
enum { REASON_MANUAL, REASON_CONFLICT, REASON_AUTO, REASON_FEW, REASON_APPLIED, REASON_COUNT };
extern const char *const assessment_reasons[REASON_COUNT];

/* "effort = base 2 + 3 × 3 custom_kernel … = 16.9 person-days" from an assessment's
 * base_days, weights, counts and effort_days: in English when english is set (the JSON
 * edge), else in the reader's language. The caller frees it. */
char *assessment_formula(const cJSON *as, int english);

#endif
