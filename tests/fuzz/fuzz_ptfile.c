/* libFuzzer target: the .pt reader. Input starting with "PK" is a whole torch.save
 * archive, written to a memfd and opened, every tensor read in two pieces (the archive
 * layer, the storage checks, strided reads); any other input is 32 bytes giving the
 * sizes of storages "0" to "15" (16-bit little-endian each) and a data.pkl run on the
 * restricted pickle machine against them.
 * fuzz-modules: ptfile util err */
#include "err.h"
#include "memfile.h"
#include "ptfile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const ptfile *f)
{
	for (size_t i = 0; i < f->n; i++) {
		const pt_tensor *t = &f->t[i];
		if (t->itemsize < 1 || t->itemsize > 8 || t->ndim > PT_MAX_DIMS || !t->name)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const keys[] = { "0", "1", "2",  "3",  "4",  "5",  "6",  "7",
		                                "8", "9", "10", "11", "12", "13", "14", "15" };
	ptfile *f = NULL;
	if (size < 2 || data[0] != 'P' || data[1] != 'K') {
		if (size < 32)
			return 0;
		unsigned long long sizes[16];
		for (int k = 0; k < 16; k++)
			sizes[k] = (unsigned long long)data[2 * k] | (unsigned long long)data[2 * k + 1] << 8;
		if (ptfile_parse(&f, "fuzz.pkl", data + 32, size - 32, keys, sizes, 16) == 0)
			check(f);
		ptfile_free(f);
		err_clear();
		return 0;
	}
	char path[64];
	int fd = fuzz_memfile(path, data, size);
	if (fd >= 0) {
		if (ptfile_open(&f, path) == 0) {
			check(f);
			unsigned char buf[512 * 8];
			for (size_t i = 0; i < f->n; i++) {
				const pt_tensor *t = &f->t[i];
				size_t n = t->count < 512 ? (size_t)t->count : 512;
				ptfile_read(buf, f, t, 0, n);
				if (t->count > 512)
					ptfile_read(buf, f, t, t->count - 512, 512);
				err_clear();
			}
		}
		ptfile_free(f);
		close(fd);
	}
	err_clear();
	return 0;
}
