/* libFuzzer target: the streaming ONNX reader (app/onnx.c) behind ingest's validation and
 * ctx.onnx. Any input must read or fail with one error line; never crash, leak or run
 * past its bytes. The external-data check runs on what was read (against a directory
 * that does not exist, so nothing on disk is touched).
 * fuzz-modules: onnx artifact profile bench accel compare_loss gbtext json ptfile util err */
#include "err.h"
#include "onnx.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	artifact_mem m = { data, size, 0 };
	artifact_source src = { artifact_mem_read_at, &m, size };
	onnx_model *model = NULL;
	int rc = onnx_read(&model, "fuzz.onnx", &src);
	if (rc) {
		const char *msg = err_message();
		if (!msg || !*msg || strchr(msg, '\n'))
			abort(); /* every failure is one line */
	} else {
		onnx_check_external(model, "/nonexistent-fuzz-dir");
		for (size_t i = 1; i < model->nops; i++)
			if (model->ops[i - 1].count < model->ops[i].count)
				abort(); /* the inventory is sorted */
	}
	onnx_model_free(model);
	return 0;
}
