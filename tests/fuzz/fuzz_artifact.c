/* libFuzzer target: every artifact validator on arbitrary bytes. The first byte picks
 * the kind; the rest is the artifact. Validators must refuse or accept, never crash,
 * read out of bounds or leak. */
#include "err.h"
#include "artifact.h"

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t nkinds = 0;
	while (artifact_kinds[nkinds])
		nkinds++;
	const char *kind = artifact_kinds[data[0] % nkinds];
	artifact_validate(kind, "fuzz-input", (const char *)data + 1, size - 1);
	err_clear();
	return 0;
}
