/* libFuzzer target: app/profile.c's CSV reader (kernel_details, op_statistic,
 * step_trace_time): the input follows a kernel_details.csv header, or is read as it is
 * when it starts with '#' (its own header). See profile_door.h for the checks.
 * fuzz-modules: profile artifact onnx bench accel compare_loss gbtext json ptfile util err */
#include "profile_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 && data[1] == '#')
		return door_profile("", data, size);
	return door_profile("Step Id,Device_id,Name,Type,Accelerator Core,Start Time(us),Duration(us),OP State\r\n", data,
	                    size);
}
