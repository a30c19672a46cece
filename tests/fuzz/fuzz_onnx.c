/* libFuzzer target: the ONNX protobuf reader written in Lua (plugins/lib/onnx.lua) behind the infer-convert checks.
 * Inputs that ingest's validator accepts go to the checks as an ingested onnx artifact
 * (see plugin_door.h); a check failing on one aborts.
 * fuzz-modules: plugin_host plugin_api pysrc project finding textscan artifact profile embedded embedded_data util err */
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const phases[] = { "infer-convert" };
	static door d = { .kind = "onnx", .phases = phases, .nphases = 1, .validate = 1 };
	return door_run(&d, data, size);
}
