/* libFuzzer target: the .npy header parser and decoder, and the streaming comparison
 * reading the same bytes as a file (through a memfd) on two threads with a tiny chunk,
 * so headers, size checks, chunk boundaries and the dump.json reader (bytes that are not
 * a .npy are read as a dump.json) all see arbitrary input.
 * fuzz-modules: compare_dump npy dump_input dump_engine dump_render ptfile util err */
#include "compare_dump.h"
#include "npy.h"
#include "err.h"
#include "memfile.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	npy_info h;
	if (npy_parse_header(&h, "fuzz.npy", data, size) == 0) {
		if (h.data_offset > size)
			abort();
		size_t avail = (size - (size_t)h.data_offset) / (size_t)h.itemsize;
		if (avail > h.count)
			avail = (size_t)h.count;
		if (avail > 4096)
			avail = 4096;
		double out[4096];
		npy_decode(out, &h, data + h.data_offset, avail);
		char shape[64];
		npy_shape_text(shape, sizeof shape, &h);
		const char *name = npy_dtype_name(&h);
		if (name ? !*name : h.kind != 'V')
			abort(); /* every dtype the parser takes has a name but opaque values */
	}
	err_clear();
	char path[64];
	int fd = fuzz_memfile(path, data, size);
	if (fd >= 0) {
		dump_opts o = { 2, 3, NULL, NULL, { 0, 0, 0 } };
		dump_result r;
		if (dump_compare(&r, path, path, &o) == 0) {
			sbuf b;
			sbuf_init(&b);
			dump_render_text(&b, &r, "a", "b", NULL);
			dump_render_csv(&b, &r);
			sbuf_done(&b);
			cJSON_Delete(dump_result_json(&r, NULL, NULL));
			dump_result_done(&r);
		}
		close(fd);
	}
	err_clear();
	return 0;
}
