/*
 * dump_input — one side of a dump comparison read into a list of named tensors: a .npy
 * file, a .pt file (a state_dict: one tensor per key), an msprobe dump (a folder holding
 * dump.json, possibly a step/rank level down, or the dump.json itself) whose records name
 * .npy or .pt files under dump_tensor_data/, or a folder of .npy/.pt files.
 *
 * Order: a dump.json gives the execution order of its layers; a folder without one is
 * ordered by file name in natural order (conv2d.2 before conv2d.10), never by file times.
 * .pt files are read through ptfile.h: whole .pt inputs are opened at load time, those
 * a dump.json names only when their pair is compared (dump_input_resolve_pt).
 *
 * Reads only: tensor data is not read here, only listed (the engine streams it).
 *
 * Ownership: a dump_input owns its tensor list and every string in it, the parsed
 * dump.json (the records point into it) and the .pt files it opened; dump_input_done
 * frees them all and is harmless on a zeroed input. dump_input_load leaves a
 * half-filled input on failure, to be freed the same way.
 */
#ifndef FERRY_DUMP_INPUT_H
#define FERRY_DUMP_INPUT_H

#include "npy.h"
#include "ptfile.h"

#include <cjson/cJSON.h>
#include <stddef.h>

/* One tensor found in an input. Its strings belong to the input. */
typedef struct dump_tensor_ref {
	char *name;        /* e.g. Functional.conv2d.0.forward.output.0 */
	char *layer;       /* its API or module call, e.g. Functional.conv2d.0.forward */
	size_t order;      /* execution order of the layer (dump.json), else of the file by name */
	const cJSON *rec;  /* dump.json record, or NULL */
	char *npy;         /* .npy path when the tensor data can be read, else NULL */
	char *pt;          /* a .pt file a dump.json record names, not opened yet, else NULL */
	size_t ptf;        /* 1 + index into the input's opened .pt files; 0: none */
	size_t ptt;        /* the tensor's index in that file */
	int missing;       /* its dump.json record names a .npy or .pt file that is not there */
} dump_tensor_ref;

/* What an input is. */
enum dump_form { DUMP_FORM_NPY, DUMP_FORM_JSON, DUMP_FORM_FOLDER, DUMP_FORM_PT };

typedef struct dump_input {
	const char *arg;    /* the path as given (borrowed) */
	int form;           /* enum dump_form: a .npy file, a dump.json, a folder of .npy/.pt, a .pt file */
	char *dir;          /* the dump's folder */
	char *json_path;    /* dump.json, or NULL */
	cJSON *doc;         /* parsed dump.json */
	dump_tensor_ref *t; /* the tensors, in execution order */
	size_t n, cap;      /* tensors held, allocated */
	size_t pt_missing;  /* .pt files the dump.json names that are not there */
	size_t missing;     /* tensor files (.npy or .pt) the dump.json names that are not there */
	const char *first_missing; /* the first of them, as dump.json names it (in doc), or NULL */
	int stats_task;     /* dump.json says "task": "statistics": its records need no files */
	ptfile **pts;       /* the .pt files opened (owned) */
	char *pt_hashed;    /* per opened .pt file: already in the list of files hashed */
	size_t npts, ptcap; /* .pt files opened, allocated */
} dump_input;

/* Reads what path is (a file or a folder) into out. Fails naming the file or folder:
 * FERRY_EIO for what cannot be read or is neither a file nor a folder, FERRY_EUSAGE for
 * a folder holding several dump.json files, FERRY_ECORRUPT for a broken dump.json or .pt,
 * or a folder with nothing to compare. */
int dump_input_load(dump_input *out, const char *path);

/* Reads path as a comparison does and checks every byte of it: the dump.json parses,
 * every tensor file a tensor dump's records name is there,
 * every .npy holds exactly the data its header promises, every .pt's pickle reads as
 * tensors and each archive entry matches its CRC-32 (reads the .pt files whole). Fails
 * with FERRY_ECORRUPT (or FERRY_EIO) naming the file, as dump_input_load does. */
int dump_input_verify(const char *path);

/* Frees what in owns and zeroes it. */
void dump_input_done(dump_input *in);

/* Opens the .pt file t's dump.json record names, once (sets t->ptf, t->ptt). Nothing to
 * do for a tensor without one. FERRY_ECORRUPT when the file is broken or holds other than
 * one tensor. */
int dump_input_resolve_pt(dump_input *in, dump_tensor_ref *t);

/* The layout of a .pt tensor in .npy terms, so one decoder serves both. */
void dump_input_pt_layout(npy_info *out, const pt_tensor *t, int big_endian);

/* The dtype and shape a dump.json record states, as text ("" and "()" when absent). */
void dump_input_record_meta(char *dtype, size_t dsize, char *shape, size_t ssize, const cJSON *rec);

/* "npy", "dump.json", "npy folder" or "pt" (static). */
const char *dump_input_form_name(int form);

/* 1 for the forms that are one file (.npy, .pt), whose single tensors pair whatever
 * their names. */
int dump_input_is_single(int form);

#endif
