/*
 * onnx — reads the structure of an ONNX model (onnx.proto's ModelProto) by streaming over
 * its protobuf encoding: opset imports, the graph's nodes (subgraphs of Loop/If/Scan
 * included, up to ONNX_MAX_DEPTH), initializer shapes and sizes, graph inputs and outputs
 * with their dimensions, and the tensors whose data lives in external files.
 *
 * The model is never loaded: length-delimited payloads that are not needed (raw_data,
 * typed data, doc strings) are skipped by moving the read offset, so memory depends on
 * the number of nodes and names, never on the weights; offsets and lengths are 64-bit, so
 * models over 2 GB read like small ones. Nothing in the bytes is trusted: every malformed
 * input (truncated varint, a length past the end of its message, a wire type a field
 * cannot have, subgraphs nested too deep) fails with one error line naming the file.
 *
 * Ownership: onnx_read* give the caller an onnx_model (free with onnx_model_free, which
 * accepts NULL); every string and array inside belongs to it. No global state.
 * Fuzzed by tests/fuzz/fuzz_onnx.c.
 */
#ifndef FERRY_ONNX_H
#define FERRY_ONNX_H

#include "artifact.h"

#include <stddef.h>

#define ONNX_MAX_DEPTH 32        /* graphs nested in node attributes (Loop in If in Scan …) */
#define ONNX_NODES_KEPT 4096     /* nodes kept in onnx_model.nodes; all are counted */
#define ONNX_NODE_IO_KEPT 16     /* input/output names kept per node; all are counted */
#define ONNX_STRING_MAX 4096     /* bytes kept of a name; the rest is skipped */

/* A dimension: a fixed size (value >= 0), a symbolic one (param != NULL), or unknown
 * (value == -1 and param == NULL: no value, or a negative one as some exporters write). */
typedef struct onnx_dim {
	long long value;
	char *param;
} onnx_dim;

/* A graph input or output. has_shape == 0: the rank is unknown (no shape given). */
typedef struct onnx_value {
	char *name;
	int elem_type;            /* TensorProto.DataType, 0 when not a tensor or not given */
	int has_shape;
	size_t ndims;
	onnx_dim *dims;
} onnx_value;

typedef struct onnx_opset {
	char *domain;             /* "" for the default ai.onnx domain ("ai.onnx" is folded into "") */
	long long version;
} onnx_opset;

/* Nodes of one operator type, over the whole model (subgraphs included). */
typedef struct onnx_op {
	char *domain;             /* "" for ai.onnx */
	char *op_type;
	long long count;
} onnx_op;

typedef struct onnx_node {
	char *name, *op_type, *domain;
	char **inputs, **outputs; /* the first ONNX_NODE_IO_KEPT names */
	size_t ninputs, noutputs; /* how many are kept */
	long long inputs_total, outputs_total;
	long long subgraphs;      /* graphs in this node's attributes */
	int depth;                /* 0 for the main graph, 1 for a subgraph of it, … */
} onnx_node;

/* An initializer whose data lives in another file (data_location = EXTERNAL). */
typedef struct onnx_external {
	char *tensor;
	char *location;           /* the "location" entry, as written (NULL when absent) */
	long long offset;         /* "offset", 0 when absent */
	long long length;         /* "length", -1 when absent (the rest of the file) */
} onnx_external;

/* One file external data refers to, after onnx_check_external. */
typedef struct onnx_data_file {
	char *location;
	long long tensors;        /* references to it */
	long long bytes;          /* sum of their lengths (the ones that give one) */
	long long needed;         /* the file must be at least this long (max offset + length) */
	int present;              /* it exists as a regular file */
	long long size;           /* its size, -1 when not present */
	char *problem;            /* one line when it is missing, short or unsafe; NULL when fine */
} onnx_data_file;

typedef struct onnx_model {
	long long ir_version;
	char *producer_name, *producer_version;
	onnx_opset *opsets;
	size_t nopsets;
	onnx_value *inputs;       /* graph inputs that are not initializers */
	size_t ninputs;
	onnx_value *outputs;
	size_t noutputs;
	onnx_op *ops;             /* sorted by count (descending), then domain and op_type */
	size_t nops;
	long long nodes_total;    /* nodes in every graph */
	onnx_node *nodes;         /* the first ONNX_NODES_KEPT of them, in file order */
	size_t nnodes;
	long long initializers;   /* initializer tensors in every graph */
	long long initializer_bytes; /* their data size (from shapes and types, else payload lengths) */
	onnx_external *external;  /* initializers with external data */
	size_t nexternal;
	long long subgraphs;      /* graphs inside node attributes */
	int max_depth;            /* deepest subgraph nesting seen */
	long long functions;      /* model-local functions */
	onnx_data_file *files;    /* after onnx_check_external: the files external data names */
	size_t nfiles;
} onnx_model;

/* Reads the model from src (of src->size bytes); name is used in error messages.
 * FERRY_ECORRUPT for malformed input, FERRY_EIO when a read fails. */
int onnx_read(onnx_model **out, const char *name, const artifact_source *src);

/* onnx_read on the file at path. */
int onnx_read_path(onnx_model **out, const char *path);

/* Groups m->external by file and checks each file under dir (the model's directory): it
 * must exist and hold offset + length bytes; a location that is absolute or climbs out of
 * dir with ".." is not looked up and is reported as a problem. Fills m->files. */
void onnx_check_external(onnx_model *m, const char *dir);

void onnx_model_free(onnx_model *m);

#endif
