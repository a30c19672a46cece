/* onnx — see onnx.h. Field numbers are onnx.proto's (ONNX 1.12 and later). */
#include "intl.h"
#include "onnx.h"
#include "err.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* protobuf wire types */
enum { WIRE_VARINT = 0, WIRE_I64 = 1, WIRE_LEN = 2, WIRE_I32 = 5 };

#define BUF_SIZE ((size_t)1 << 16)

/* A buffered cursor over the source: bytes [bstart, bstart + blen) are in buf. Skipping a
 * payload only moves pos; the next read refills the buffer there. */
typedef struct reader {
	const artifact_source *src;
	const char *name;
	unsigned long long pos;
	unsigned long long bstart;
	size_t blen;
	unsigned char *buf;
	onnx_model *m;
	char **init_names;        /* names of the main graph's initializers (to tell inputs from weights) */
	size_t ninit_names, init_cap;
	size_t ops_cap;           /* slots of the op hash table (m->ops during the read) */
	size_t nodes_cap, ext_cap;
} reader;

static int corrupt(reader *r, const char *what)
{
	return err_set(FERRY_ECORRUPT, _("%s: damaged ONNX model (%s at byte %llu)"), r->name, _(what), r->pos);
}

static int get_byte(reader *r, unsigned char *out)
{
	if (r->pos < r->bstart || r->pos >= r->bstart + r->blen) {
		if (r->pos >= r->src->size)
			return corrupt(r, N_("truncated: unexpected end of file"));
		size_t want = BUF_SIZE;
		if (r->src->size - r->pos < want)
			want = (size_t)(r->src->size - r->pos);
		long long got = r->src->read_at(r->src->ctx, r->pos, r->buf, want);
		if (got < 0)
			return err_set(FERRY_EIO, _("%s: read error at byte %llu"), r->name, r->pos);
		if (got == 0)
			return err_set(FERRY_ECORRUPT, _("%s: shorter than its size (%llu of %llu bytes)"), r->name, r->pos,
			               r->src->size);
		r->bstart = r->pos;
		r->blen = (size_t)got;
	}
	*out = r->buf[r->pos - r->bstart];
	r->pos++;
	return 0;
}

/* A varint that must end before end. */
static int get_varint(reader *r, unsigned long long end, unsigned long long *out)
{
	unsigned long long v = 0;
	for (int shift = 0; shift < 70; shift += 7) {
		if (r->pos >= end)
			return corrupt(r, N_("truncated varint"));
		unsigned char b;
		int rc = get_byte(r, &b);
		if (rc)
			return rc;
		if (shift == 63 && (b & 0x7e))
			return corrupt(r, N_("varint over 64 bits"));
		v |= (unsigned long long)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*out = v;
			return 0;
		}
	}
	return corrupt(r, N_("varint longer than 10 bytes"));
}

/* The length of a length-delimited field; its payload must end by end. */
static int get_len(reader *r, unsigned long long end, unsigned long long *out)
{
	int rc = get_varint(r, end, out);
	if (!rc && *out > end - r->pos)
		rc = corrupt(r, N_("length past the end of its message: truncated"));
	return rc;
}

static int get_tag(reader *r, unsigned long long end, unsigned *field, unsigned *wire)
{
	unsigned long long tag;
	int rc = get_varint(r, end, &tag);
	if (rc)
		return rc;
	if (tag >> 3 == 0 || tag >> 3 > 0x1fffffff)
		return corrupt(r, N_("field number 0 or out of range"));
	*field = (unsigned)(tag >> 3);
	*wire = (unsigned)(tag & 7);
	return 0;
}

/* Skips the value of a field of wire type wire. */
static int skip(reader *r, unsigned long long end, unsigned wire)
{
	unsigned long long n;
	int rc = 0;
	switch (wire) {
	case WIRE_VARINT:
		return get_varint(r, end, &n);
	case WIRE_I64:
		n = 8;
		break;
	case WIRE_I32:
		n = 4;
		break;
	case WIRE_LEN:
		if ((rc = get_len(r, end, &n)))
			return rc;
		break;
	default:
		return corrupt(r, wire == 3 || wire == 4 ? N_("group wire type (not used by ONNX)") : N_("unknown wire type"));
	}
	if (n > end - r->pos)
		return corrupt(r, N_("fixed-size field past the end of its message"));
	r->pos += n;
	return 0;
}

/* A known field arrived with another wire type than its declaration's. */
static int wrong_wire(reader *r, const char *msg, unsigned field, unsigned wire)
{
	char what[192];
	snprintf(what, sizeof what, _("wrong wire type %u for field %u of %s"), wire, field, msg);
	return corrupt(r, what);
}

/* A string field (after its tag): at most ONNX_STRING_MAX bytes are kept. */
static int get_string(reader *r, unsigned long long end, char **out)
{
	unsigned long long len;
	int rc = get_len(r, end, &len);
	if (rc)
		return rc;
	size_t keep = len < ONNX_STRING_MAX ? (size_t)len : ONNX_STRING_MAX;
	char *s = xmalloc(keep + 1);
	for (size_t i = 0; i < keep; i++) {
		unsigned char b;
		if ((rc = get_byte(r, &b))) {
			free(s);
			return rc;
		}
		s[i] = b ? (char)b : '?';
	}
	s[keep] = '\0';
	r->pos += len - keep;
	free(*out);
	*out = s;
	return 0;
}

/* A varint field, or a packed run of them (calls fn for each value). */
static int get_ints(reader *r, unsigned long long end, unsigned wire, const char *msg, unsigned field,
                    void (*fn)(unsigned long long v, void *payload), void *payload)
{
	unsigned long long v;
	int rc;
	if (wire == WIRE_VARINT) {
		if (!(rc = get_varint(r, end, &v)))
			fn(v, payload);
		return rc;
	}
	if (wire != WIRE_LEN)
		return wrong_wire(r, msg, field, wire);
	unsigned long long len;
	if ((rc = get_len(r, end, &len)))
		return rc;
	unsigned long long stop = r->pos + len;
	while (!rc && r->pos < stop)
		if (!(rc = get_varint(r, stop, &v)))
			fn(v, payload);
	return rc;
}

/* Calls per_field for each field of the message ending at end. */
typedef int (*field_fn)(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload);

static int each_field(reader *r, unsigned long long end, field_fn fn, void *payload)
{
	int rc = 0;
	while (!rc && r->pos < end) {
		unsigned field = 0, wire = 0;
		if ((rc = get_tag(r, end, &field, &wire)))
			break;
		rc = fn(r, end, field, wire, payload);
	}
	return rc;
}

/* Enters a length-delimited sub-message: its end goes to *sub_end. */
static int enter(reader *r, unsigned long long end, unsigned wire, const char *msg, unsigned field,
                 unsigned long long *sub_end)
{
	if (wire != WIRE_LEN)
		return wrong_wire(r, msg, field, wire);
	unsigned long long len;
	int rc = get_len(r, end, &len);
	if (!rc)
		*sub_end = r->pos + len;
	return rc;
}

/* ---- operator inventory: an open-addressing table in m->ops while reading ----------- */

static unsigned long long hash2(const char *a, const char *b)
{
	unsigned long long h = 1469598103934665603ULL;
	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	h = (h ^ 0xff) * 1099511628211ULL;
	for (const unsigned char *p = (const unsigned char *)b; *p; p++)
		h = (h ^ *p) * 1099511628211ULL;
	return h;
}

static void ops_insert(reader *r, const char *domain, const char *op_type, long long count, int copy);

static void ops_grow(reader *r)
{
	onnx_op *old = r->m->ops;
	size_t old_cap = r->ops_cap;
	r->ops_cap = old_cap ? old_cap * 2 : 64;
	r->m->ops = xcalloc(r->ops_cap, sizeof *r->m->ops);
	r->m->nops = 0;
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].op_type)
			ops_insert(r, old[i].domain, old[i].op_type, old[i].count, 0);
	free(old);
}

/* Adds count nodes of (domain, op_type); copy: the strings are duplicated, else adopted. */
static void ops_insert(reader *r, const char *domain, const char *op_type, long long count, int copy)
{
	if ((r->m->nops + 1) * 2 > r->ops_cap)
		ops_grow(r);
	size_t mask = r->ops_cap - 1;
	for (size_t i = (size_t)hash2(domain, op_type) & mask;; i = (i + 1) & mask) {
		onnx_op *o = &r->m->ops[i];
		if (!o->op_type) {
			o->domain = copy ? xstrdup(domain) : (char *)domain;
			o->op_type = copy ? xstrdup(op_type) : (char *)op_type;
			o->count = count;
			r->m->nops++;
			return;
		}
		if (strcmp(o->op_type, op_type) == 0 && strcmp(o->domain, domain) == 0) {
			o->count += count;
			return;
		}
	}
}

static int op_cmp(const void *a, const void *b)
{
	const onnx_op *p = a, *q = b;
	if (p->count != q->count)
		return p->count > q->count ? -1 : 1;
	int c = strcmp(p->domain, q->domain);
	return c ? c : strcmp(p->op_type, q->op_type);
}

/* Packs the table into a sorted array. */
static void ops_finish(reader *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->ops_cap; i++)
		if (r->m->ops[i].op_type)
			r->m->ops[n++] = r->m->ops[i];
	r->m->nops = n;
	if (n)
		qsort(r->m->ops, n, sizeof *r->m->ops, op_cmp);
}

/* ---- messages ------------------------------------------------------------------------ */

static const char *fold_domain(const char *d) { return strcmp(d, "ai.onnx") == 0 ? "" : d; }

typedef struct dim_ctx {
	onnx_dim *d;
} dim_ctx;

static int dim_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	onnx_dim *d = ((dim_ctx *)payload)->d;
	if (field == 1) { /* dim_value */
		unsigned long long v;
		if (wire != WIRE_VARINT)
			return wrong_wire(r, "TensorShapeProto.Dimension", field, wire);
		int rc = get_varint(r, end, &v);
		if (!rc)
			d->value = (long long)v < 0 ? -1 : (long long)v;
		return rc;
	}
	if (field == 2) { /* dim_param */
		if (wire != WIRE_LEN)
			return wrong_wire(r, "TensorShapeProto.Dimension", field, wire);
		return get_string(r, end, &d->param);
	}
	return skip(r, end, wire);
}

static int shape_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	onnx_value *v = payload;
	if (field != 1)
		return skip(r, end, wire);
	unsigned long long sub;
	int rc = enter(r, end, wire, "TensorShapeProto", field, &sub);
	if (rc)
		return rc;
	v->dims = xrealloc(v->dims, (v->ndims + 1) * sizeof *v->dims);
	onnx_dim *d = &v->dims[v->ndims++];
	d->value = -1;
	d->param = NULL;
	dim_ctx dc = { d };
	if (!(rc = each_field(r, sub, dim_field, &dc)) && d->param)
		d->value = -1;
	return rc;
}

static int tensor_type_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	onnx_value *v = payload;
	if (field == 1) { /* elem_type */
		unsigned long long t;
		if (wire != WIRE_VARINT)
			return wrong_wire(r, "TypeProto.Tensor", field, wire);
		int rc = get_varint(r, end, &t);
		v->elem_type = t < 1000 ? (int)t : 0;
		return rc;
	}
	if (field == 2) { /* shape */
		unsigned long long sub;
		int rc = enter(r, end, wire, "TypeProto.Tensor", field, &sub);
		if (rc)
			return rc;
		v->has_shape = 1;
		return each_field(r, sub, shape_field, v);
	}
	return skip(r, end, wire);
}

static int type_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	if (field != 1 && field != 8) /* tensor_type, sparse_tensor_type: the same layout */
		return skip(r, end, wire);
	unsigned long long sub;
	int rc = enter(r, end, wire, "TypeProto", field, &sub);
	return rc ? rc : each_field(r, sub, tensor_type_field, payload);
}

static int value_info_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	onnx_value *v = payload;
	if (field == 1) {
		if (wire != WIRE_LEN)
			return wrong_wire(r, "ValueInfoProto", field, wire);
		return get_string(r, end, &v->name);
	}
	if (field == 2) {
		unsigned long long sub;
		int rc = enter(r, end, wire, "ValueInfoProto", field, &sub);
		return rc ? rc : each_field(r, sub, type_field, v);
	}
	return skip(r, end, wire);
}

static void value_done(onnx_value *v)
{
	free(v->name);
	for (size_t i = 0; i < v->ndims; i++)
		free(v->dims[i].param);
	free(v->dims);
}

/* Appends a ValueInfoProto to *list. */
static int read_value_info(reader *r, unsigned long long end, unsigned wire, unsigned field, onnx_value **list,
                           size_t *n)
{
	unsigned long long sub;
	int rc = enter(r, end, wire, "GraphProto", field, &sub);
	if (rc)
		return rc;
	*list = xrealloc(*list, (*n + 1) * sizeof **list);
	onnx_value *v = &(*list)[(*n)++];
	memset(v, 0, sizeof *v);
	rc = each_field(r, sub, value_info_field, v);
	if (!v->name)
		v->name = xstrdup("");
	return rc;
}

/* TensorProto: shape, type, name, where its data is. */
typedef struct tensor {
	char *name;
	int data_type;
	unsigned long long elems;  /* product of dims (saturating) */
	int overflow;
	unsigned long long payload; /* bytes of inline data fields */
	int external;
	char *location;
	long long offset, length;
	char *key, *value;          /* the external_data entry being read */
} tensor;

static void dims_mul(unsigned long long v, void *payload)
{
	tensor *t = payload;
	if ((long long)v < 0)
		v = 0;
	if (v && t->elems > ULLONG_MAX / v)
		t->overflow = 1;
	else
		t->elems *= v;
}

static int entry_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	tensor *t = payload;
	if (field == 1 || field == 2) {
		if (wire != WIRE_LEN)
			return wrong_wire(r, "StringStringEntryProto", field, wire);
		return get_string(r, end, field == 1 ? &t->key : &t->value);
	}
	return skip(r, end, wire);
}

/* A non-negative decimal number of an external_data entry, or -1. */
static long long parse_count(const char *s)
{
	if (!s || !*s)
		return -1;
	long long v = 0;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (LLONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	return v;
}

static int tensor_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	tensor *t = payload;
	int rc;
	unsigned long long v, sub;
	switch (field) {
	case 1: /* dims */
		return get_ints(r, end, wire, "TensorProto", field, dims_mul, t);
	case 2: /* data_type */
		if (wire != WIRE_VARINT)
			return wrong_wire(r, "TensorProto", field, wire);
		rc = get_varint(r, end, &v);
		t->data_type = v < 1000 ? (int)v : 0;
		return rc;
	case 8: /* name */
		if (wire != WIRE_LEN)
			return wrong_wire(r, "TensorProto", field, wire);
		return get_string(r, end, &t->name);
	case 13: /* external_data */
		if ((rc = enter(r, end, wire, "TensorProto", field, &sub)))
			return rc;
		free(t->key);
		free(t->value);
		t->key = t->value = NULL;
		if ((rc = each_field(r, sub, entry_field, t)) || !t->key)
			return rc;
		if (strcmp(t->key, "location") == 0) {
			free(t->location);
			t->location = t->value;
			t->value = NULL;
		} else if (strcmp(t->key, "offset") == 0) {
			t->offset = parse_count(t->value);
		} else if (strcmp(t->key, "length") == 0) {
			t->length = parse_count(t->value);
		}
		return 0;
	case 14: /* data_location */
		if (wire != WIRE_VARINT)
			return wrong_wire(r, "TensorProto", field, wire);
		rc = get_varint(r, end, &v);
		t->external = v == 1;
		return rc;
	case 4: case 5: case 6: case 7: case 9: case 10: case 11: /* the data: skipped, counted */
		if (wire == WIRE_LEN) {
			if ((rc = get_len(r, end, &v)))
				return rc;
			r->pos += v;
			t->payload += v;
			return 0;
		}
		t->payload += wire == WIRE_I64 ? 8 : wire == WIRE_I32 ? 4 : 1;
		return skip(r, end, wire);
	default:
		return skip(r, end, wire);
	}
}

/* Bits per element of a TensorProto.DataType, 0 when unknown or variable (strings). */
static unsigned elem_bits(int t)
{
	static const unsigned char bits[] = { 0, 32, 8, 8, 16, 16, 32, 64, 0, 8, 16, 64, 32, 64, 64, 128, 16,
	                                      8, 8,  8, 8,  4,  4,  4 };
	return t > 0 && (size_t)t < sizeof bits ? bits[t] : 0;
}

static void tensor_done(tensor *t)
{
	free(t->name);
	free(t->location);
	free(t->key);
	free(t->value);
}

static long long sat_add(long long a, unsigned long long b)
{
	return b > (unsigned long long)(LLONG_MAX - a) ? LLONG_MAX : a + (long long)b;
}

/* Reads an initializer (or, initializer == 0, a tensor attribute): external data is
 * recorded for both, sizes counted for initializers; main_graph: its name is remembered. */
static int read_tensor(reader *r, unsigned long long end, unsigned wire, const char *msg, unsigned field,
                       int initializer, int main_graph)
{
	unsigned long long sub;
	int rc = enter(r, end, wire, msg, field, &sub);
	if (rc)
		return rc;
	tensor t = { .elems = 1, .length = -1 };
	rc = each_field(r, sub, tensor_field, &t);
	onnx_model *m = r->m;
	if (!rc && initializer) {
		m->initializers++;
		unsigned bits = elem_bits(t.data_type);
		unsigned long long bytes = t.payload;
		if (bits && !t.overflow && t.elems <= ULLONG_MAX / bits)
			bytes = (t.elems * bits + 7) / 8;
		else if (t.external && t.length > 0)
			bytes = (unsigned long long)t.length;
		m->initializer_bytes = sat_add(m->initializer_bytes, bytes);
		if (main_graph && t.name) {
			if (r->ninit_names == r->init_cap) {
				r->init_cap = r->init_cap ? r->init_cap * 2 : 64;
				r->init_names = xrealloc(r->init_names, r->init_cap * sizeof *r->init_names);
			}
			r->init_names[r->ninit_names++] = xstrdup(t.name);
		}
	}
	if (!rc && t.external) {
		if (m->nexternal == r->ext_cap) {
			r->ext_cap = r->ext_cap ? r->ext_cap * 2 : 16;
			m->external = xrealloc(m->external, r->ext_cap * sizeof *m->external);
		}
		onnx_external *e = &m->external[m->nexternal++];
		e->tensor = t.name ? t.name : xstrdup("");
		t.name = NULL;
		e->location = t.location;
		t.location = NULL;
		e->offset = t.offset < 0 ? 0 : t.offset;
		e->length = t.length;
	}
	tensor_done(&t);
	return rc;
}

static int read_graph(reader *r, unsigned long long end, int depth);

typedef struct node_ctx {
	long long kept;           /* index of the kept copy in m->nodes, -1 beyond ONNX_NODES_KEPT
	                           * (an index: subgraph nodes may move the array) */
	char *op_type, *domain;
	int depth;
	long long subgraphs;
} node_ctx;

static int attribute_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	node_ctx *nc = payload;
	unsigned long long sub;
	int rc;
	if (field == 6 || field == 11) { /* g, graphs */
		if ((rc = enter(r, end, wire, "AttributeProto", field, &sub)))
			return rc;
		nc->subgraphs++;
		return read_graph(r, sub, nc->depth + 1);
	}
	if (field == 5 || field == 10) /* t, tensors: constants; only external data is of interest */
		return read_tensor(r, end, wire, "AttributeProto", field, 0, 0);
	return skip(r, end, wire);
}

static void push_io(char ***list, size_t *n, long long *total, char *s)
{
	(*total)++;
	if (*n >= ONNX_NODE_IO_KEPT) {
		free(s);
		return;
	}
	*list = xrealloc(*list, (*n + 1) * sizeof **list);
	(*list)[(*n)++] = s;
}

static int node_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	node_ctx *nc = payload;
	onnx_node *n = nc->kept >= 0 ? &r->m->nodes[nc->kept] : NULL;
	char *s = NULL;
	int rc;
	unsigned long long sub;
	switch (field) {
	case 1: case 2: /* input, output */
		if (wire != WIRE_LEN)
			return wrong_wire(r, "NodeProto", field, wire);
		if ((rc = get_string(r, end, &s)))
			return rc;
		if (!n)
			free(s);
		else if (field == 1)
			push_io(&n->inputs, &n->ninputs, &n->inputs_total, s);
		else
			push_io(&n->outputs, &n->noutputs, &n->outputs_total, s);
		return 0;
	case 3: /* name */
		if (wire != WIRE_LEN)
			return wrong_wire(r, "NodeProto", field, wire);
		if ((rc = get_string(r, end, &s)))
			return rc;
		if (n) {
			free(n->name);
			n->name = s;
		} else {
			free(s);
		}
		return 0;
	case 4: /* op_type */
	case 7: /* domain */
		if (wire != WIRE_LEN)
			return wrong_wire(r, "NodeProto", field, wire);
		return get_string(r, end, field == 4 ? &nc->op_type : &nc->domain);
	case 5: /* attribute */
		if ((rc = enter(r, end, wire, "NodeProto", field, &sub)))
			return rc;
		return each_field(r, sub, attribute_field, nc);
	default:
		return skip(r, end, wire);
	}
}

static int read_node(reader *r, unsigned long long end, unsigned wire, unsigned field, int depth)
{
	unsigned long long sub;
	int rc = enter(r, end, wire, "GraphProto", field, &sub);
	if (rc)
		return rc;
	onnx_model *m = r->m;
	node_ctx nc = { .depth = depth, .kept = -1 };
	if (m->nnodes < ONNX_NODES_KEPT) {
		if (m->nnodes == r->nodes_cap) {
			r->nodes_cap = r->nodes_cap ? r->nodes_cap * 2 : 64;
			m->nodes = xrealloc(m->nodes, r->nodes_cap * sizeof *m->nodes);
		}
		nc.kept = (long long)m->nnodes++;
		memset(&m->nodes[nc.kept], 0, sizeof *m->nodes);
		m->nodes[nc.kept].depth = depth;
	}
	/* the node is counted in file order, before the nodes of its subgraphs */
	m->nodes_total++;
	rc = each_field(r, sub, node_field, &nc);
	const char *domain = fold_domain(nc.domain ? nc.domain : "");
	const char *op = nc.op_type ? nc.op_type : "";
	if (!rc)
		ops_insert(r, domain, op, 1, 1);
	if (nc.kept >= 0) {
		onnx_node *kept = &m->nodes[nc.kept];
		kept->op_type = xstrdup(op);
		kept->domain = xstrdup(domain);
		kept->subgraphs = nc.subgraphs;
	}
	free(nc.op_type);
	free(nc.domain);
	return rc;
}

typedef struct graph_ctx {
	int depth;
	onnx_value *inputs, *outputs;
	size_t ninputs, noutputs;
} graph_ctx;

static int graph_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	graph_ctx *g = payload;
	switch (field) {
	case 1: /* node */
		return read_node(r, end, wire, field, g->depth);
	case 5: /* initializer */
		return read_tensor(r, end, wire, "GraphProto", field, 1, g->depth == 0);
	case 11: /* input */
		if (g->depth)
			return wire == WIRE_LEN ? skip(r, end, wire) : wrong_wire(r, "GraphProto", field, wire);
		return read_value_info(r, end, wire, field, &g->inputs, &g->ninputs);
	case 12: /* output */
		if (g->depth)
			return wire == WIRE_LEN ? skip(r, end, wire) : wrong_wire(r, "GraphProto", field, wire);
		return read_value_info(r, end, wire, field, &g->outputs, &g->noutputs);
	default:
		return skip(r, end, wire);
	}
}

static int str_cmp(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int read_graph(reader *r, unsigned long long end, int depth)
{
	if (depth > ONNX_MAX_DEPTH) {
		char what[192];
		snprintf(what, sizeof what, _("subgraphs nested deeper than %d"), ONNX_MAX_DEPTH);
		return corrupt(r, what);
	}
	onnx_model *m = r->m;
	if (depth) {
		m->subgraphs++;
		if (depth > m->max_depth)
			m->max_depth = depth;
	}
	graph_ctx g = { .depth = depth };
	int rc = each_field(r, end, graph_field, &g);
	if (depth == 0) {
		/* graph inputs that are initializers (IR < 4 lists weights as inputs) are not inputs */
		if (r->ninit_names)
			qsort(r->init_names, r->ninit_names, sizeof *r->init_names, str_cmp);
		for (size_t i = 0; i < g.ninputs; i++) {
			const char *key = g.inputs[i].name;
			if (r->ninit_names && bsearch(&key, r->init_names, r->ninit_names, sizeof *r->init_names, str_cmp)) {
				value_done(&g.inputs[i]);
				continue;
			}
			m->inputs = xrealloc(m->inputs, (m->ninputs + 1) * sizeof *m->inputs);
			m->inputs[m->ninputs++] = g.inputs[i];
		}
		free(g.inputs);
		for (size_t i = 0; i < m->noutputs; i++)
			value_done(&m->outputs[i]);
		free(m->outputs);
		m->outputs = g.outputs;
		m->noutputs = g.noutputs;
	}
	return rc;
}

typedef struct opset_ctx {
	char *domain;
	long long version;
	int has_version;
} opset_ctx;

static int opset_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	opset_ctx *o = payload;
	if (field == 1) {
		if (wire != WIRE_LEN)
			return wrong_wire(r, "OperatorSetIdProto", field, wire);
		return get_string(r, end, &o->domain);
	}
	if (field == 2) {
		unsigned long long v;
		if (wire != WIRE_VARINT)
			return wrong_wire(r, "OperatorSetIdProto", field, wire);
		int rc = get_varint(r, end, &v);
		o->version = (long long)v;
		o->has_version = 1;
		return rc;
	}
	return skip(r, end, wire);
}

typedef struct model_ctx {
	int has_ir, has_graph;
} model_ctx;

static int model_field(reader *r, unsigned long long end, unsigned field, unsigned wire, void *payload)
{
	model_ctx *mc = payload;
	onnx_model *m = r->m;
	unsigned long long v, sub;
	int rc;
	switch (field) {
	case 1: /* ir_version */
		if (wire != WIRE_VARINT)
			return wrong_wire(r, "ModelProto", field, wire);
		rc = get_varint(r, end, &v);
		m->ir_version = (long long)v;
		mc->has_ir = 1;
		return rc;
	case 2: /* producer_name */
	case 3: /* producer_version */
		if (wire != WIRE_LEN)
			return wrong_wire(r, "ModelProto", field, wire);
		return get_string(r, end, field == 2 ? &m->producer_name : &m->producer_version);
	case 7: /* graph */
		if ((rc = enter(r, end, wire, "ModelProto", field, &sub)))
			return rc;
		if (mc->has_graph)
			return corrupt(r, N_("a second graph"));
		mc->has_graph = 1;
		return read_graph(r, sub, 0);
	case 8: { /* opset_import */
		if ((rc = enter(r, end, wire, "ModelProto", field, &sub)))
			return rc;
		opset_ctx o = { 0 };
		rc = each_field(r, sub, opset_field, &o);
		if (!rc && o.has_version) {
			m->opsets = xrealloc(m->opsets, (m->nopsets + 1) * sizeof *m->opsets);
			m->opsets[m->nopsets].domain = xstrdup(fold_domain(o.domain ? o.domain : ""));
			m->opsets[m->nopsets++].version = o.version;
		}
		free(o.domain);
		return rc;
	}
	case 25: /* functions */
		if (wire != WIRE_LEN)
			return wrong_wire(r, "ModelProto", field, wire);
		m->functions++;
		return skip(r, end, wire);
	case 4: case 5: case 6: case 14: case 20: /* domain, model_version, doc_string, metadata, training */
		return skip(r, end, wire);
	default:
		return err_set(FERRY_ECORRUPT, _("%s: not an ONNX model (unexpected field %u at byte %llu)"), r->name, field,
		               r->pos);
	}
}

int onnx_read(onnx_model **out, const char *name, const artifact_source *src)
{
	*out = NULL;
	reader r = { .src = src, .name = name };
	r.buf = xmalloc(BUF_SIZE);
	r.m = xcalloc(1, sizeof *r.m);
	model_ctx mc = { 0 };
	int rc = each_field(&r, src->size, model_field, &mc);
	ops_finish(&r);
	if (!rc && (!mc.has_ir || !mc.has_graph))
		rc = err_set(FERRY_ECORRUPT, _("%s: not an ONNX model (no %s)"), name, mc.has_ir ? "graph" : "ir_version");
	/* every model since IR version 3 names its operator sets (onnx.checker refuses one that
	 * does not); a model cut short just before its trailing opset_import looks whole else */
	if (!rc && r.m->ir_version >= 3 && !r.m->nopsets)
		rc = err_set(FERRY_ECORRUPT, _("%s: no opset_import, which every ONNX model since IR version 3 has: cut short, "
		                               "or not written by an exporter"),
		             name);
	for (size_t i = 0; i < r.ninit_names; i++)
		free(r.init_names[i]);
	free(r.init_names);
	free(r.buf);
	if (rc)
		onnx_model_free(r.m);
	else
		*out = r.m;
	return rc;
}

static long long fd_read_at(void *ctx, unsigned long long off, void *buf, size_t n)
{
	for (;;) {
		ssize_t got = pread(*(int *)ctx, buf, n, (off_t)off);
		if (got >= 0 || errno != EINTR)
			return got;
	}
}

int onnx_read_path(onnx_model **out, const char *path)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) != 0)
		rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	else if (!S_ISREG(st.st_mode))
		rc = err_set(FERRY_EIO, _("%s: not a regular file"), path);
	if (!rc) {
		artifact_source src = { fd_read_at, &fd, (unsigned long long)st.st_size };
		rc = onnx_read(out, path, &src);
	}
	close(fd);
	return rc;
}

/* ---- external data -------------------------------------------------------------------- */

/* A location that stays inside the model's directory: relative, no ".." component. */
static int location_is_safe(const char *loc)
{
	if (!*loc || loc[0] == '/' || loc[0] == '\\')
		return 0;
	for (const char *p = loc; *p;) {
		const char *e = p + strcspn(p, "/\\");
		if (e - p == 2 && p[0] == '.' && p[1] == '.')
			return 0;
		p = *e ? e + 1 : e;
	}
	return 1;
}

void onnx_check_external(onnx_model *m, const char *dir)
{
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].location);
		free(m->files[i].problem);
	}
	free(m->files);
	m->files = NULL;
	m->nfiles = 0;
	for (size_t i = 0; i < m->nexternal; i++) {
		const onnx_external *e = &m->external[i];
		const char *loc = e->location ? e->location : "";
		onnx_data_file *f = NULL;
		for (size_t j = 0; j < m->nfiles && !f; j++)
			if (strcmp(m->files[j].location, loc) == 0)
				f = &m->files[j];
		if (!f) {
			m->files = xrealloc(m->files, (m->nfiles + 1) * sizeof *m->files);
			f = &m->files[m->nfiles++];
			memset(f, 0, sizeof *f);
			f->location = xstrdup(loc);
			f->size = -1;
		}
		f->tensors++;
		if (e->length >= 0) {
			f->bytes = sat_add(f->bytes, (unsigned long long)e->length);
			long long need = sat_add(e->offset, (unsigned long long)e->length);
			if (need > f->needed)
				f->needed = need;
		} else if (e->offset > f->needed) {
			f->needed = e->offset;
		}
	}
	for (size_t j = 0; j < m->nfiles; j++) {
		onnx_data_file *f = &m->files[j];
		if (!*f->location) {
			f->problem = xstrdup("external data without a \"location\" entry");
			continue;
		}
		if (!location_is_safe(f->location)) {
			f->problem = xasprintf("external data file '%s' is outside the model's directory", f->location);
			continue;
		}
		char *path = util_path_join(dir, f->location);
		struct stat st;
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
			f->problem = xasprintf("external data file '%s' is missing next to the model", f->location);
		} else {
			f->present = 1;
			f->size = (long long)st.st_size;
			if (f->size < f->needed)
				f->problem = xasprintf("external data file '%s' has %lld bytes, fewer than the %lld its tensors need",
				                       f->location, f->size, f->needed);
		}
		free(path);
	}
}

static void node_done(onnx_node *n)
{
	free(n->name);
	free(n->op_type);
	free(n->domain);
	for (size_t i = 0; i < n->ninputs; i++)
		free(n->inputs[i]);
	for (size_t i = 0; i < n->noutputs; i++)
		free(n->outputs[i]);
	free(n->inputs);
	free(n->outputs);
}

void onnx_model_free(onnx_model *m)
{
	if (!m)
		return;
	free(m->producer_name);
	free(m->producer_version);
	for (size_t i = 0; i < m->nopsets; i++)
		free(m->opsets[i].domain);
	free(m->opsets);
	for (size_t i = 0; i < m->ninputs; i++)
		value_done(&m->inputs[i]);
	free(m->inputs);
	for (size_t i = 0; i < m->noutputs; i++)
		value_done(&m->outputs[i]);
	free(m->outputs);
	for (size_t i = 0; i < m->nops; i++) {
		free(m->ops[i].domain);
		free(m->ops[i].op_type);
	}
	free(m->ops);
	for (size_t i = 0; i < m->nnodes; i++)
		node_done(&m->nodes[i]);
	free(m->nodes);
	for (size_t i = 0; i < m->nexternal; i++) {
		free(m->external[i].tensor);
		free(m->external[i].location);
	}
	free(m->external);
	for (size_t i = 0; i < m->nfiles; i++) {
		free(m->files[i].location);
		free(m->files[i].problem);
	}
	free(m->files);
	free(m);
}
