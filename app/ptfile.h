/*
 * ptfile — a safe reader for PyTorch's torch.save files (.pt), for the tune phase's
 * dump comparison (msprobe saves one tensor per .pt; a state_dict holds several).
 *
 * A torch.save file is a zip archive: <archive>/data.pkl (a pickle describing the
 * tensors), <archive>/data/<key> (each storage's raw little-endian bytes, stored
 * uncompressed), <archive>/version and sometimes <archive>/byteorder. The pickle is
 * never executed: a restricted machine understands only the opcodes torch.save emits
 * for tensors and containers, and only the globals torch._utils._rebuild_tensor_v2,
 * torch.<Type>Storage and collections.OrderedDict, and the ('storage', type, key,
 * location, numel) persistent ids. Any other global or opcode, nesting deeper than
 * PT_MAX_DEPTH, a count beyond the limits, a storage the archive does not hold or a
 * view that reaches past its storage is refused (FERRY_ECORRUPT, one line naming the
 * file and the reason).
 *
 * Owns: the zip layer (libzip: the only file that includes zip.h), the pickle machine,
 * and reading a tensor's elements in logical (C) order from its storage, strided views
 * included, in caller-sized pieces (memory bounded by the piece, never the tensor).
 * Touches no workspace. Fuzzed by tests/fuzz/fuzz_ptfile.c.
 *
 * Ownership: a ptfile from ptfile_open/ptfile_parse belongs to the caller (ptfile_free,
 * harmless on NULL) and owns its tensors and their names. ptfile_read opens the archive
 * again for each call, so one ptfile may be read from several threads at once.
 */
#ifndef FERRY_PTFILE_H
#define FERRY_PTFILE_H

#include <stddef.h>

#define PT_MAX_DIMS 32
#define PT_MAX_DEPTH 16

/* The storage element types torch.save writes that ferry reads. */
enum pt_dtype { PT_F32, PT_F16, PT_F64, PT_BF16, PT_I8, PT_I16, PT_I32, PT_I64, PT_U8, PT_BOOL };

/* One tensor of a .pt file: a view into one storage. */
typedef struct pt_tensor {
	char *name;              /* its key path ("conv.weight", "a.0"); "" for a file holding one tensor */
	int dtype;               /* enum pt_dtype */
	int itemsize;            /* bytes per element */
	int ndim;                /* 0 for a scalar */
	long long shape[PT_MAX_DIMS];
	long long stride[PT_MAX_DIMS];   /* in elements, never negative */
	unsigned long long offset;       /* storage offset, in elements */
	unsigned long long count;        /* elements: the product of the shape */
	int contiguous;          /* 1 when the elements lie in C order from offset on */
	size_t storage;          /* index of its storage (ptfile_parse: into keys[]) */
} pt_tensor;

typedef struct ptfile {
	char *path;              /* the file, as given */
	int big_endian;          /* the archive's byteorder entry says "big" */
	pt_tensor *t;            /* in the pickle's order (dict insertion order) */
	size_t n;
	size_t *zip_index;       /* per storage: its entry in the archive (ptfile_open only) */
	size_t nstorages;
} ptfile;

/* Opens the torch.save archive at path and describes its tensors. Fails with
 * FERRY_EIO when the file cannot be read, FERRY_ECORRUPT naming the file for anything
 * else: not a zip (or the pre-1.6 torch.save format), a truncated or inconsistent
 * archive, no or several data.pkl, compressed or encrypted storages, a refused pickle,
 * a storage that is too small for its view, no tensor at all. *out belongs to the caller. */
int ptfile_open(ptfile **out, const char *path);

/* Reads every entry of the torch.save archive at path to its end, which makes libzip
 * compare each with its CRC-32: FERRY_ECORRUPT naming the damaged entry (a flipped byte
 * in a tensor would otherwise read as a real difference). Reads the whole file. */
int ptfile_check_crc(const char *path);

/* 1 when head (n bytes, the file's first) starts a torch.save file in the legacy format
 * (a bare pickle stream: `_use_new_zipfile_serialization=False`, or torch before 1.6). */
int ptfile_is_legacy(const unsigned char *head, size_t n);

/* The refusal of such a file, naming it: FERRY_ECORRUPT. */
int ptfile_refuse_legacy(const char *name);

/* Runs the pickle pkl (len bytes) of the file `name` against storages keys[i] of
 * sizes[i] bytes (nkeys of them): the machine behind ptfile_open, without the archive
 * (for tests and fuzzing). Same refusals. *out belongs to the caller; its zip_index is NULL. */
int ptfile_parse(ptfile **out, const char *name, const unsigned char *pkl, size_t len, const char *const *keys,
                 const unsigned long long *sizes, size_t nkeys);

void ptfile_free(ptfile *f);

/* Reads elements [from, from + n) of tensor t of f (opened with ptfile_open) in C order
 * into out (n × itemsize bytes, as stored: little-endian unless f->big_endian). Fails
 * with FERRY_EIO or FERRY_ECORRUPT naming the file (changed or truncated since opened). */
int ptfile_read(unsigned char *out, const ptfile *f, const pt_tensor *t, unsigned long long from, size_t n);

/* The dtype as torch names it ("float32", "bfloat16", …). Static text. */
const char *ptfile_dtype_name(int dtype);

#endif
