/*
 * artifact — validators for the artifacts ferry ingests (environment probes, loss
 * logs, dumps, profiles, ONNX models, benchmarks, converter logs). Each reads bytes in
 * memory, trusts nothing in them, and refuses malformed, truncated or binary input
 * with one error line naming the artifact. No state, no I/O (large artifacts are read
 * through the caller's callback); fuzzed by tests/fuzz/fuzz_artifact.c.
 */
#ifndef FERRY_ARTIFACT_H
#define FERRY_ARTIFACT_H

#include <stddef.h>

/* The kinds `ferry ingest` accepts, declared once: X(name, id, form), separated by SEP.
 * form is how a file of the kind is read: JSON (one document, parsed whole), TEXT (lines),
 * LOSS (lines holding loss values), SNIFFED (told by its first bytes: JSON, .npy, .pt or
 * CSV) or ONNX (protobuf, weights skipped); id names its validator. The kind list of
 * artifact_kinds, the ingest usage and completion, and the validators derive from it. */
#define ARTIFACT_KINDS(X, SEP)                                                                            \
	X("env-probe", env_probe, JSON) SEP X("loss-log", loss_log, LOSS) SEP X("dump", dump, SNIFFED) SEP       \
	X("profile", profile, SNIFFED) SEP X("onnx", onnx, ONNX) SEP X("bench", bench, JSON) SEP                 \
	X("atc-log", atc_log, TEXT) SEP X("run-log", run_log, TEXT) SEP X("first-step", first_step, JSON) SEP    \
	X("overflow", overflow, JSON)
#define ARTIFACT_KIND_NAME(name, id, form) name
#define ARTIFACT_KIND_COMMA ,
/* The kinds as one string literal, sep between them: ARTIFACT_KIND_LIST("|") */
#define ARTIFACT_KIND_LIST(sep) ARTIFACT_KINDS(ARTIFACT_KIND_NAME, sep)

/* The kinds `ferry ingest` accepts, in ARTIFACT_KINDS' order, NULL-terminated. */
extern const char *const artifact_kinds[];

/* Whether kind is one of them. */
int artifact_kind_known(const char *kind);

/* Checks that data (len bytes) is a well-formed artifact of kind; on failure sets the
 * error (FERRY_ECORRUPT; FERRY_EUSAGE for an unknown kind) naming `name`. */
int artifact_validate(const char *kind, const char *name, const char *data, size_t len);

/* A text log: not empty, no NUL bytes. */
int artifact_validate_text(const char *name, const char *data, size_t len);

/* JSON artifacts (env-probe, bench, a dump.json) are parsed whole, up to
 * this size; a larger one is refused, never accepted unvalidated. */
#define ARTIFACT_JSON_LIMIT ((unsigned long long)256 << 20)

/* An artifact read through a callback rather than held in memory (a model or log of any
 * size): read_at reads up to n bytes at offset off into buf and returns how many (0 at
 * the end, -1 on a read error). size is the artifact's length in bytes. */
typedef struct artifact_source {
	long long (*read_at)(void *ctx, unsigned long long off, void *buf, size_t n);
	void *ctx;
	unsigned long long size;
} artifact_source;

/* Bytes in memory as an artifact_source (ctx = an artifact_mem), handed out at most
 * piece bytes per read when piece is not 0 (tests use it to cut tokens at read
 * boundaries). */
typedef struct artifact_mem {
	const void *data;
	size_t len;
	size_t piece;
} artifact_mem;
long long artifact_mem_read_at(void *ctx, unsigned long long off, void *buf, size_t n);

/* artifact_validate for an artifact of any size, streaming over it in small pieces:
 * text kinds are scanned whole, an ONNX model is read by onnx.h (skipping the
 * weights), a .npy dump's header is checked; JSON kinds larger
 * than ARTIFACT_JSON_LIMIT are refused (a trace profile is streamed by profile.c at any
 * size); smaller ones are read whole and validated as
 * by artifact_validate. */
int artifact_validate_source(const char *kind, const char *name, const artifact_source *src);

#endif
