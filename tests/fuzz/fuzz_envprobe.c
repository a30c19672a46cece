/* libFuzzer target: the environment probe JSON as the environment and design checks read it (plugins/lib/envprobe.lua and the checks).
 * Inputs that ingest's validator accepts go to the checks as an ingested env-probe artifact
 * (see plugin_door.h); a check failing on one aborts.
 * fuzz-dict: json
 * fuzz-modules: app embedded_data */
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const phases[] = { "environment", "design" };
	static door d = { .kind = "env-probe", .phases = phases, .nphases = 2, .validate = 1 };
	return door_run(&d, data, size);
}
