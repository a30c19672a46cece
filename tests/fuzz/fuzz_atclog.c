/* libFuzzer target: ATC converter logs as infer-convert.atc_log reads them (patterns of plugins/data/atc.json).
 * Inputs that ingest's validator accepts go to the checks as an ingested atc-log artifact
 * (see plugin_door.h); a check failing on one aborts.
 * fuzz-modules: app embedded_data */
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "infer-convert.atc_log" };
	static door d = { .kind = "atc-log", .ids = ids, .nids = 1, .validate = 1 };
	return door_run(&d, data, size);
}
