/* libFuzzer target: NPU run logs as tune.run_log reads them (ctx.scan_artifact and plugins/data/run_errors.json).
 * Inputs that ingest's validator accepts go to the checks as an ingested run-log artifact
 * (see plugin_door.h); a check failing on one aborts.
 * fuzz-modules: app embedded_data */
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "tune.run_log" };
	static door d = { .kind = "run-log", .ids = ids, .nids = 1, .validate = 1 };
	return door_run(&d, data, size);
}
