/*
 * review — the decisions people record on an engagement: waivers (a finding accepted
 * as is, with a reason and an actor) and phase sign-offs (DESIGN §2: a phase is
 * signed off when its error findings are fixed or waived; sign-off order is
 * enforced). The CLI and the workbench both call these; each is one transaction
 * with its audit events. The caller holds the workspace lock.
 */
#ifndef FERRY_REVIEW_H
#define FERRY_REVIEW_H

#include "workspace.h"

#include <stddef.h>

/* Waives the open findings ids[0..n) with reason. Refused (nothing recorded) when
 * the reason is empty (FERRY_EUSAGE), an id does not exist (FERRY_ENOTFOUND) or a
 * finding is not open (FERRY_EREFUSED). */
/* 1 when reason says something: more than white space (ASCII, no-break or the
 * ideographic space a Chinese input method types). */
int review_reason_given(const char *reason);

int review_waive(workspace *ws, const long long *ids, size_t n, const char *reason);

/* Withdraws the waivers of the waived findings ids[0..n) with reason: each finding is open
 * again, the waiver row keeps who withdrew it, when and why, and one "unwaive" event
 * {ids, reason} joins the audit chain. The waivers carried from theirs (an assess waiver
 * carried to the adapt finding of the same construct) are withdrawn with them, with the
 * same reason, and named in the event as "carried". Refused (nothing recorded) for an empty reason
 * (FERRY_EUSAGE), an unknown id (FERRY_ENOTFOUND) or a finding not waived (FERRY_EREFUSED). */
int review_unwaive(workspace *ws, const long long *ids, size_t n, const char *reason);

enum review_refusal_kind {
	REVIEW_ALLOWED = 0,
	REVIEW_EARLIER_OPEN,   /* an earlier phase is not signed off: `other` names it */
	REVIEW_EARLIER_REOPENED, /* an earlier phase was signed off and has open errors again */
	REVIEW_ALREADY_SIGNED, /* `by` names who signed it */
	REVIEW_OPEN_ERRORS,    /* `count` open error findings */
};

typedef struct review_refusal {
	enum review_refusal_kind kind;
	char other[32];  /* the earlier phase */
	char by[256];    /* who signed it off already */
	long long count; /* open errors */
	char blockers[768]; /* REVIEW_OPEN_ERRORS: "#ID PLUGIN: MESSAGE; …", the first three */
} review_refusal;

/* The deciding recorded comparison of each kind (`ferry compare loss|dump` audit events):
 * the newest, unless an older one failed and no later comparison of the same baseline (A's
 * SHA-256, or the same labels on both sides) passed: then that failure, with
 * "newer_event" naming the newest. A later pass of the same baseline that looked at less
 * (a loss comparison that stopped short of the failure's last aligned step, a dump
 * comparison of fewer tensor pairs) answers nothing: the failure stands with
 * "shorter_event" naming that pass, "shorter_by" the measure ("last_step", "aligned_steps"
 * or "pairs"), "shorter_reach" its value and "reach" the failure's. {"loss": {what,
 * verdict, tolerance, …, a{artifact, label, sha256}, b{…}, event, time, actor[,
 * newer_event | shorter_event, shorter_by, shorter_reach, reach]}, "dump": {…}}, a kind
 * absent when none was recorded. Caller frees. */
int review_comparisons(cJSON **out, store *s);

/* review_comparisons for the checks (ctx.comparisons()), the audit chain read once, with
 * two additions to each comparison:
 * - "code_changed" when its compared run (B) predates a change of the project's code: the
 *   run is dated by the first event that holds B's bytes (an ingest of the same SHA-256
 *   under any label, or a comparison that read them), and a file counts, once, when the
 *   project held it then and it reads otherwise at the newest checkpoint recorded since
 *   (new files alone change no run that happened). {event, kind, message, commit (of the
 *   first checkpoint that changed such a file), files (up to five), count (of all)};
 * - "compared": every recorded comparison of that kind, newest first, passing or failing,
 *   as {event, verdict, a{artifact, sha256}, b{…}} (artifact absent for a file compared
 *   directly), so that a check can tell whether given inputs were ever compared,
 *   whichever comparison decides.
 * Caller frees *out. */
int review_comparisons_judged(cJSON **out, workspace *ws);

/* Runs afresh the checks of the phase that judge evidence (those declaring `evidence`:
 * the environment checks of the probe, the acceptance checks of the comparisons and
 * benchmarks, the checks of settings), so a probe, comparison, benchmark or setting
 * recorded since the last check run is judged before the phase is signed. The caller
 * holds the writer lock. FERRY_EREFUSED when one of them failed to run. */
int review_signoff_gate(workspace *ws, const char *phase);

/* Runs again the checks that declare they judge evidence (EVIDENCE_* bits, plugin_host.h),
 * after the evidence changed: an ingest of that artifact kind, a comparison, a setting.
 * The findings, the phases' states and every report then agree with the evidence as it
 * is now, not as it was at the last `ferry check`. out->run is 0 when no check judges
 * that evidence (nothing ran); the caller shows out->errors and frees out
 * (check_result_done). The evidence stays recorded whatever happens here. */
struct check_result;
int review_rejudge(struct check_result *out, workspace *ws, unsigned evidence);

/* `ferry revert REV` (ws_revert), then the check whose fix the reverted checkpoint made
 * (or undid, for a revert of a revert) runs again: its findings open again where the code
 * now is, or close again when a revert of a revert brings the fix back. */
int review_revert(long long *cp_id, char oid[41], workspace *ws, const char *rev);
/* The sentence on what revert checkpoint cp left open, for the one who reverted: its
 * findings are open again, and a fix of many findings leaves them out (fix.h). NULL when
 * it reopened none. The caller frees it. */
char *review_reopened_text(workspace *ws, long long cp);
/* Whether phase may be signed off now; fills *why. FERRY_EUSAGE for an unknown phase. */
int review_signoff_check(review_refusal *why, workspace *ws, const char *phase);
/* Signs phase off as the workspace's actor, with an optional note. The tune and
 * infer-optimize phases first run their acceptance check (`<phase>.acceptance`) so the
 * latest comparisons and benchmarks are judged. Refused with FERRY_EREFUSED and a
 * one-line reason naming the blocking findings when review_signoff_check says no. */
int review_signoff(workspace *ws, const char *phase, const char *note);

/* Sets each phase's "status" in phases (store_phases rows, in order): "not started",
 * "in progress", "blocked" (open errors), "signed off", or "reopened" (signed off, then
 * new error findings); a signed-off phase after a reopened one gets "flagged" saying
 * which earlier phases reopened after its sign-off (English, for JSON readers) and
 * "flagged_by", the list of those phases. */
void review_phase_states(cJSON *phases);
/* The flag review_phase_states puts on a phase signed off before a later-reopened one
 * ("flagged_by"), in the interface language: malloc'd, or NULL when it has none. */
char *review_flag_text(const cJSON *phase);

#endif
