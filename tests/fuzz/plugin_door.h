/* Shared by the libFuzzer targets of the readers written in Lua (plugins/lib and the
 * bundled checks): one input is handed, as an ingested artifact, to the checks of the
 * source tree's plugins/ through the real plugin host (sandbox, budget, memory cap).
 *
 * The contract fuzzed: whatever passes ingest's validator (artifact_validate, as
 * `ferry ingest` would apply it) is turned by every reader into findings or a reasoned
 * refusal. A check that fails on it, a Lua error escaping a reader or a limit hit on an
 * input of a few kilobytes, aborts the target like a crash, with the plugin's message.
 * Included by exactly one target each (static state, one host per process); the
 * targets run from the source tree's top folder (tests/fuzz/run.sh does). */
#ifndef FERRY_FUZZ_PLUGIN_DOOR_H
#define FERRY_FUZZ_PLUGIN_DOOR_H

#include "artifact.h"
#include "err.h"
#include "plugin_host.h"
#include "util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A much smaller budget than a real run: readers get inputs of at most a few KiB. */
#define DOOR_BUDGET 20000000ULL

typedef struct door {
	const char *kind;             /* artifact kind the input is ingested as */
	const char *const *phases;    /* phases whose checks run (NULL: every phase) */
	size_t nphases;
	const char *const *ids;       /* or these checks */
	size_t nids;
	const char *plugin_lua;       /* an extra plugin written into a plugin folder; may be NULL */
	int validate;                 /* 1: inputs the validator refuses stop there */
	const char *fixed_artifact;   /* the artifact's text when the input is not the artifact */
	/* settings the checks read; the target may change them per input */
	const char *config_key, *config_value;
	/* state */
	plugin_host *host;
	char *dir, *artifact;
} door;

static char *door_config_get(const char *key, void *payload)
{
	door *d = payload;
	if (d->config_key && strcmp(key, d->config_key) == 0)
		return xstrdup(d->config_value);
	if (strcmp(key, "target.soc") == 0)
		return xstrdup("Ascend910B2");
	if (strcmp(key, "target.cards") == 0)
		return xstrdup("8");
	return NULL;
}

/* The input twice, as a GPU and an NPU artifact, so the checks that compare both run. */
static char *door_artifacts_json(const char *kind, void *payload)
{
	door *d = payload;
	if (kind && strcmp(kind, d->kind) != 0)
		return xstrdup("[]");
	/* the real hash: the host refuses a stored copy that no longer matches its record */
	char sha[65];
	if (util_sha256_file(sha, d->artifact) != 0)
		abort();
	return xasprintf("[{\"id\":1,\"kind\":\"%s\",\"label\":\"gpu\",\"path\":\"%s\",\"sha256\":\"%s\"},"
	                 "{\"id\":2,\"kind\":\"%s\",\"label\":\"npu\",\"path\":\"%s\",\"sha256\":\"%s\"}]",
	                 d->kind, d->artifact, sha, d->kind, d->artifact, sha);
}

static void door_error(const char *plugin_id, const char *message, void *payload)
{
	(void)payload;
	fprintf(stderr, "fuzz: check %s failed on the input: %s\n", plugin_id, message);
	abort();
}

static void door_finding(const finding *f, void *payload) { (void)f, (void)payload; }

static void door_init(door *d)
{
	char tmpl[] = "/tmp/ferry-fuzz-XXXXXX";
	if (!mkdtemp(tmpl))
		abort();
	d->dir = xstrdup(tmpl);
	char *root = util_path_join(d->dir, "project");
	char *plugins = util_path_join(d->dir, "plugins");
	d->artifact = util_path_join(d->dir, "artifact");
	util_mkdirs(root, 0755);
	util_mkdirs(plugins, 0755);
	char *py = util_path_join(root, "train.py");
	static const char train[] = "import torch\nimport torch_npu\nmodel = torch.nn.Linear(4, 2).npu()\n"
	                            "torch.onnx.export(model, torch.randn(1, 4), 'model.onnx')\n";
	util_write_atomic(py, train, sizeof train - 1, 0644);
	free(py);
	if (d->plugin_lua) {
		char *path = util_path_join(plugins, "fuzz_door.lua");
		util_write_atomic(path, d->plugin_lua, strlen(d->plugin_lua), 0644);
		free(path);
	}
	const char *dirs[] = { plugins };
	plugin_host_opts o = {
		.root = root, .dirs = dirs, .ndirs = 1, .source_dir = "plugins",
		.config_get = door_config_get, .artifacts_json = door_artifacts_json, .payload = d,
		.threads = 1, .instr_budget = DOOR_BUDGET,
	};
	if (plugin_host_new(&d->host, &o) != 0)
		abort();
	size_t nl;
	const char *const *le = plugin_host_load_errors(d->host, &nl);
	if (nl) {
		fprintf(stderr, "fuzz: plugins did not load: %s\n", le[0]);
		abort();
	}
	free(root);
	free(plugins);
}

static int door_run(door *d, const uint8_t *data, size_t size)
{
	if (d->fixed_artifact) {
		data = (const uint8_t *)d->fixed_artifact;
		size = strlen(d->fixed_artifact);
	}
	if (!d->host)
		door_init(d);
	if (d->validate && artifact_validate(d->kind, "fuzz-input", (const char *)data, size) != 0) {
		err_clear();
		return 0;
	}
	if (util_write_atomic(d->artifact, (const char *)data, size, 0644) != 0)
		abort();
	plugin_run_cb cb = { .finding = door_finding, .plugin_error = door_error, .payload = d };
	if (plugin_host_run(d->host, d->phases, d->nphases, d->ids, d->nids, &cb) != 0) {
		fprintf(stderr, "fuzz: the run failed: %s\n", err_message());
		abort();
	}
	err_clear();
	return 0;
}

#endif
