/*
 * probe — the environment probe (DESIGN §2 phase 3): the POSIX sh script app/probe.sh,
 * embedded in the binary, that describes an Ascend NPU host as one JSON document
 * (schema "ferry-env-probe/1"), and running it on this machine.
 *
 * Consultants who cannot run ferry on the client's host print the script
 * (`ferry probe-script`), run it there and ingest its output; when ferry runs on the
 * host itself, probe_run_local runs the same script directly. This module only runs
 * the script and returns its bytes: validation and storage belong to ingest.
 *
 * Ownership: probe_script hands out a borrowed pointer into the static embedded table;
 * probe_run_local's *json belongs to the caller (free()).
 */
#ifndef FERRY_PROBE_H
#define FERRY_PROBE_H

#include <stddef.h>

/* Longest a local probe run may take before it is killed (the script's own commands
 * have shorter limits of their own). */
#define PROBE_TIME_LIMIT_MS 60000
/* What the smoke test (--smoke) may add: its own limit is 120 s. */
#define PROBE_SMOKE_EXTRA_MS 130000
/* Largest probe output accepted. */
#define PROBE_MAX_OUTPUT ((size_t)16 << 20)

/* Sets *text (borrowed, NUL-terminated, static) and *len to the embedded probe script.
 * Fails with FERRY_ENOTFOUND when the binary was built without it. */
int probe_script(const char **text, size_t *len);

/* Runs the embedded script with /bin/sh on this machine (stdin /dev/null, stderr
 * discarded, its own process group, killed after PROBE_TIME_LIMIT_MS) and returns its
 * standard output in *json (caller frees, NUL-terminated) and *len. Fails with
 * FERRY_EIO when the shell cannot start, the run times out, exits non-zero, is killed
 * or prints nothing; the output is not validated here (ingest does that). smoke non-zero
 * passes --smoke (the NPU smoke test) and allows it PROBE_SMOKE_EXTRA_MS more. */
int probe_run_local(char **json, size_t *len, int smoke);

#endif
