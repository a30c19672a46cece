/*
 * npy — the reader of NumPy's .npy format: the header (magic, version, the dict literal
 * with descr, fortran_order and shape) and the elements that follow it, decoded to
 * doubles: little/big-endian float16/32/64, bfloat16 bits, signed and unsigned integers
 * and bool, in C or Fortran order (order is described, never rearranged).
 *
 * Owns no memory: npy_info is a plain value, buffers are the caller's. Reads files only
 * in npy_read_info; touches no workspace. Fuzzed by tests/fuzz/fuzz_npy.c.
 */
#ifndef FERRY_NPY_H
#define FERRY_NPY_H

#include <stddef.h>

#define NPY_MAX_DIMS 32

/* What a .npy header says about the array that follows it. */
typedef struct npy_info {
	char kind;                       /* 'f' float, 'i' signed int, 'u' unsigned int, 'b' bool,
	                                  * 'V' opaque 2-byte values, 'B' bfloat16 (never in a header:
	                                  * set when a 2-byte tensor is known to hold bfloat16 bits) */
	int itemsize;                    /* bytes per element: 1, 2, 4 or 8 */
	int big_endian;                  /* 1 when the elements are stored big-endian */
	int fortran;                     /* 1 for Fortran (column-major) order */
	int ndim;                        /* 0 for a scalar */
	long long shape[NPY_MAX_DIMS];
	unsigned long long count;        /* elements: the product of the shape */
	unsigned long long data_offset;  /* bytes of magic, version, length and header */
	char descr[8];                   /* as written, e.g. "<f4" */
} npy_info;

/* Parses the .npy header at the start of buf (len bytes: at least the whole header).
 * Fails with FERRY_ECORRUPT naming `name`: bad magic or version, truncated header, a
 * header that is not the expected dict literal, an unsupported dtype (structured,
 * complex, object, strings), or a shape whose byte size overflows. */
int npy_parse_header(npy_info *out, const char *name, const unsigned char *buf, size_t len);

/* Reads and parses path's header and checks that the file holds exactly the data the
 * header promises (truncated or trailing bytes: FERRY_ECORRUPT naming the file). */
int npy_read_info(npy_info *out, const char *path);

/* Decodes n elements of raw (stored as h describes) into doubles. */
void npy_decode(double *out, const npy_info *h, const unsigned char *raw, size_t n);

/* The elements' dtype by the name torch and numpy give it ("float32", "bfloat16",
 * "int64", "uint8", "bool"), whatever the byte order; NULL for opaque values ('V').
 * Static text. */
const char *npy_dtype_name(const npy_info *h);

/* "(2, 3)" into out (at least 16 bytes; long shapes are cut with "…"). */
void npy_shape_text(char *out, size_t size, const npy_info *h);

#endif
