/* libFuzzer target: profiler output, CSV tables and trace JSON, as app/profile.c aggregates them (ctx.profile) for tune.profile.
 * Inputs that ingest's validator accepts go to the checks as an ingested profile artifact
 * (see plugin_door.h); a check failing on one aborts.
 * fuzz-dict: json
 * fuzz-modules: app embedded_data */
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const ids[] = { "tune.profile" };
	static door d = { .kind = "profile", .ids = ids, .nids = 1, .validate = 1 };
	return door_run(&d, data, size);
}
