/* libFuzzer target: app/profile.c's streaming Chrome-trace tokenizer (trace_view.json):
 * arbitrary JSON-ish input, events, escapes, nesting, truncation. See profile_door.h.
 * fuzz-dict: json
 * fuzz-modules: profile artifact onnx bench accel compare_loss gbtext json ptfile util err */
#include "profile_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return door_profile("", data, size);
}
