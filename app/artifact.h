/*
 * artifact — validators for the artifacts ferry ingests (environment probes, loss
 * logs, dumps, profiles, ONNX models, benchmarks, converter logs). Each reads bytes in
 * memory, trusts nothing in them, and refuses malformed, truncated or binary input
 * with one error line naming the artifact. No state, no I/O; fuzzed by
 * tests/fuzz/fuzz_artifact.c.
 */
#ifndef FERRY_ARTIFACT_H
#define FERRY_ARTIFACT_H

#include <stddef.h>

/* The kinds `ferry ingest` accepts, NULL-terminated. */
extern const char *const artifact_kinds[];

/* Checks that data (len bytes) is a well-formed artifact of kind; on failure sets the
 * error (FERRY_ECORRUPT; FERRY_EUSAGE for an unknown kind) naming `name`. */
int artifact_validate(const char *kind, const char *name, const char *data, size_t len);

/* A text log: not empty, no NUL bytes. */
int artifact_validate_text(const char *name, const char *data, size_t len);

#endif
