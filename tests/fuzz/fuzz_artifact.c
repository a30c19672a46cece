/* libFuzzer target: every artifact validator on arbitrary bytes. The first byte picks
 * the kind; the rest is the artifact. Validators must refuse or accept, never crash,
 * read out of bounds or leak. The same bytes go through the streaming validator of large
 * artifacts too, read in short pieces (the first byte also sets their size); for an ONNX
 * model both must reach the same verdict. */
#include "err.h"
#include "artifact.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct pieces {
	const uint8_t *data;
	size_t len, piece;
} pieces;

static long long read_pieces(void *ctx, unsigned long long off, void *buf, size_t n)
{
	const pieces *p = ctx;
	size_t left = off < p->len ? p->len - (size_t)off : 0;
	size_t k = n < p->piece ? n : p->piece;
	k = k < left ? k : left;
	memcpy(buf, p->data + (off < p->len ? off : 0), k);
	return (long long)k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t nkinds = 0;
	while (artifact_kinds[nkinds])
		nkinds++;
	const char *kind = artifact_kinds[data[0] % nkinds];
	int whole = artifact_validate(kind, "fuzz-input", (const char *)data + 1, size - 1);
	err_clear();
	pieces p = { data + 1, size - 1, (size_t)(data[0] >> 4) + 1 };
	artifact_source src = { read_pieces, &p, size - 1 };
	int streamed = artifact_validate_source(kind, "fuzz-input", &src);
	if (strchr(err_message(), '\n'))
		abort();
	if (strcmp(kind, "onnx") == 0 && (whole == 0) != (streamed == 0))
		abort();
	err_clear();
	return 0;
}
