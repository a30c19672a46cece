/* ptfile — see ptfile.h. */
#include "intl.h"
#include "ptfile.h"
#include "err.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zip.h>

/* Limits: far above what torch.save writes for any model, far below what would hurt. */
#define MAX_PICKLE ((size_t)64 << 20)     /* data.pkl bytes */
#define MAX_VALUES ((size_t)1 << 22)      /* values the machine may create */
#define MAX_STACK ((size_t)1 << 20)       /* stack depth (MARKs included) */
#define MAX_MEMO ((size_t)1 << 20)        /* highest memo index (about 10 per tensor) */
#define MAX_ENTRIES ((zip_int64_t)1 << 20) /* archive entries */
#define MAX_TENSORS ((size_t)1 << 16)     /* tensors in one file (a large model's shard: thousands) */
#define READ_WINDOW ((size_t)64 << 10)    /* bytes read at once for a strided view */

/* ------------------------------------------------------------------ values */

enum vtype { V_MARK, V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_TUPLE, V_LIST, V_DICT, V_GLOBAL, V_STORAGE, V_TENSOR };

/* The only callables a pickle may name. */
enum gname { G_REBUILD, G_PARAM, G_ODICT, G_STORAGE };

typedef struct val {
	int type;              /* enum vtype */
	long long i;           /* V_BOOL, V_INT; V_GLOBAL: enum gname; V_STORAGE: index into keys */
	int dtype;             /* V_GLOBAL G_STORAGE, V_STORAGE: enum pt_dtype */
	char *s;               /* V_STR (NUL-terminated copy) */
	struct val **items;    /* V_TUPLE, V_LIST; V_DICT: key, value, key, value … */
	size_t n, cap;
	pt_tensor *tensor;     /* V_TENSOR: the description (owned) */
} val;

typedef struct vm {
	const char *name;      /* the file, for messages */
	const unsigned char *p, *end;
	val **all;             /* every value made, freed together */
	size_t nall, capall;
	val **stack;
	size_t sp, capstack;
	val **memo;
	size_t nmemo;
	const char *const *keys;
	const unsigned long long *sizes;
	size_t nkeys;
	val mark;              /* the one MARK sentinel */
} vm;

static const struct {
	const char *cls;
	int dtype;
	int size;
} storage_types[] = {
	{ "FloatStorage", PT_F32, 4 },  { "HalfStorage", PT_F16, 2 }, { "DoubleStorage", PT_F64, 8 },
	{ "BFloat16Storage", PT_BF16, 2 }, { "CharStorage", PT_I8, 1 }, { "ShortStorage", PT_I16, 2 },
	{ "IntStorage", PT_I32, 4 },    { "LongStorage", PT_I64, 8 }, { "ByteStorage", PT_U8, 1 },
	{ "BoolStorage", PT_BOOL, 1 },
};

static const char *const dtype_names[] = { "float32", "float16", "float64", "bfloat16", "int8",
	                                       "int16",   "int32",   "int64",   "uint8",    "bool" };

const char *ptfile_dtype_name(int dtype)
{
	return dtype >= 0 && dtype <= PT_BOOL ? dtype_names[dtype] : "?";
}

static int dtype_size(int dtype)
{
	for (size_t i = 0; i < sizeof storage_types / sizeof *storage_types; i++)
		if (storage_types[i].dtype == dtype)
			return storage_types[i].size;
	return 0;
}

static int refuse(const vm *m, const char *fmt, const char *arg)
{
	char why[256];
	snprintf(why, sizeof why, fmt, arg);
	return err_set(FERRY_ECORRUPT, _("%s: refused pickle in data.pkl: %s"), m->name, why);
}

static val *new_val(vm *m, int type)
{
	if (m->nall >= MAX_VALUES)
		return NULL;
	if (m->nall == m->capall) {
		m->capall = m->capall ? m->capall * 2 : 64;
		m->all = xrealloc(m->all, m->capall * sizeof *m->all);
	}
	val *v = xcalloc(1, sizeof *v);
	v->type = type;
	m->all[m->nall++] = v;
	return v;
}

static void free_vals(vm *m)
{
	for (size_t i = 0; i < m->nall; i++) {
		free(m->all[i]->s);
		free(m->all[i]->items);
		if (m->all[i]->tensor)
			free(m->all[i]->tensor->name);
		free(m->all[i]->tensor);
		free(m->all[i]);
	}
	free(m->all);
	free(m->stack);
	free(m->memo);
}

static int push(vm *m, val *v)
{
	if (!v)
		return refuse(m, _("more than %s values"), "4194304");
	if (m->sp >= MAX_STACK)
		return refuse(m, _("stack deeper than %s"), "1048576");
	if (m->sp == m->capstack) {
		m->capstack = m->capstack ? m->capstack * 2 : 64;
		m->stack = xrealloc(m->stack, m->capstack * sizeof *m->stack);
	}
	m->stack[m->sp++] = v;
	return 0;
}

static val *pop(vm *m)
{
	if (!m->sp || m->stack[m->sp - 1] == &m->mark)
		return NULL;
	return m->stack[--m->sp];
}

/* The position of the topmost MARK, or (size_t)-1. */
static size_t find_mark(const vm *m)
{
	for (size_t i = m->sp; i > 0; i--)
		if (m->stack[i - 1] == &m->mark)
			return i - 1;
	return (size_t)-1;
}

static void add_item(val *c, val *v)
{
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 8;
		c->items = xrealloc(c->items, c->cap * sizeof *c->items);
	}
	c->items[c->n++] = v;
}

/* A container of the values from stack position `from` to the top, which are popped. */
static val *collect(vm *m, int type, size_t from)
{
	val *c = new_val(m, type);
	if (!c)
		return NULL;
	for (size_t i = from; i < m->sp; i++)
		add_item(c, m->stack[i]);
	m->sp = from;
	return c;
}

static int need(vm *m, size_t n)
{
	if ((size_t)(m->end - m->p) < n)
		return refuse(m, "%s", _("truncated (an opcode's argument runs past the end)"));
	return 0;
}

static unsigned long long le(const unsigned char *p, size_t n)
{
	unsigned long long v = 0;
	for (size_t i = n; i > 0; i--)
		v = v << 8 | p[i - 1];
	return v;
}

static int memo_put(vm *m, unsigned long long idx)
{
	if (!m->sp || m->stack[m->sp - 1] == &m->mark)
		return refuse(m, "%s", _("memo store with nothing on the stack"));
	if (idx >= MAX_MEMO)
		return refuse(m, "%s", _("memo index beyond the limit"));
	if (idx >= m->nmemo) {
		size_t n = (size_t)idx + 1;
		m->memo = xrealloc(m->memo, n * sizeof *m->memo);
		memset(m->memo + m->nmemo, 0, (n - m->nmemo) * sizeof *m->memo);
		m->nmemo = n;
	}
	m->memo[idx] = m->stack[m->sp - 1];
	return 0;
}

static int memo_get(vm *m, unsigned long long idx)
{
	if (idx >= m->nmemo || !m->memo[idx])
		return refuse(m, "%s", _("memo fetch of an index never stored"));
	return push(m, m->memo[idx]);
}

static int push_str(vm *m, size_t len)
{
	if (need(m, len))
		return FERRY_ECORRUPT;
	val *v = new_val(m, V_STR);
	if (v) {
		v->s = xstrndup((const char *)m->p, len);
		m->p += len;
	}
	return push(m, v);
}

static int push_int(vm *m, long long i)
{
	val *v = new_val(m, V_INT);
	if (v)
		v->i = i;
	return push(m, v);
}

static int do_global(vm *m, const char *mod, const char *name)
{
	val *g = new_val(m, V_GLOBAL);
	if (!g)
		return push(m, g);
	if (strcmp(mod, "torch._utils") == 0 && strcmp(name, "_rebuild_tensor_v2") == 0) {
		g->i = G_REBUILD;
		return push(m, g);
	}
	/* an nn.Parameter (a model's weight saved on its own, named_parameters()) wraps the
	 * tensor: _rebuild_parameter(tensor, requires_grad, hooks), torch 2.x's
	 * _rebuild_parameter_with_state(…, state) */
	if (strcmp(mod, "torch._utils") == 0 &&
	    (strcmp(name, "_rebuild_parameter") == 0 || strcmp(name, "_rebuild_parameter_with_state") == 0)) {
		g->i = G_PARAM;
		return push(m, g);
	}
	if (strcmp(mod, "collections") == 0 && strcmp(name, "OrderedDict") == 0) {
		g->i = G_ODICT;
		return push(m, g);
	}
	if (strcmp(mod, "torch") == 0)
		for (size_t i = 0; i < sizeof storage_types / sizeof *storage_types; i++)
			if (strcmp(name, storage_types[i].cls) == 0) {
				g->i = G_STORAGE;
				g->dtype = storage_types[i].dtype;
				return push(m, g);
			}
	char what[160];
	snprintf(what, sizeof what, "%.70s.%.70s", mod, name);
	return refuse(m, _("global %s is not allowed (only torch tensors, parameters, their storages and OrderedDict)"), what);
}

/* GLOBAL: "module\nname\n". */
static int op_global(vm *m)
{
	const unsigned char *nl1 = memchr(m->p, '\n', (size_t)(m->end - m->p));
	const unsigned char *nl2 = nl1 ? memchr(nl1 + 1, '\n', (size_t)(m->end - nl1 - 1)) : NULL;
	if (!nl2)
		return refuse(m, "%s", _("truncated GLOBAL"));
	char *mod = xstrndup((const char *)m->p, (size_t)(nl1 - m->p));
	char *name = xstrndup((const char *)nl1 + 1, (size_t)(nl2 - nl1 - 1));
	m->p = nl2 + 1;
	int rc = do_global(m, mod, name);
	free(mod);
	free(name);
	return rc;
}

/* BINPERSID: ('storage', <torch.XStorage>, key, location, numel). */
static int op_persid(vm *m)
{
	val *t = pop(m);
	if (!t || t->type != V_TUPLE || t->n != 5 || t->items[0]->type != V_STR || strcmp(t->items[0]->s, "storage") ||
	    t->items[1]->type != V_GLOBAL || t->items[1]->i != G_STORAGE || t->items[2]->type != V_STR ||
	    t->items[3]->type != V_STR || t->items[4]->type != V_INT || t->items[4]->i < 0)
		return refuse(m, "%s", _("a persistent id that is not ('storage', type, key, location, numel)"));
	const char *key = t->items[2]->s;
	size_t k = 0;
	while (k < m->nkeys && strcmp(m->keys[k], key) != 0)
		k++;
	if (k == m->nkeys)
		return refuse(m, _("storage '%.100s' is not in the archive"), key);
	int dt = t->items[1]->dtype, size = dtype_size(dt);
	unsigned long long numel = (unsigned long long)t->items[4]->i;
	if (numel > UINT64_MAX / (unsigned)size || numel * (unsigned)size != m->sizes[k]) {
		char what[200];
		snprintf(what, sizeof what, "storage '%.60s': %llu %s elements promised, the archive holds %llu bytes", key,
		         numel, ptfile_dtype_name(dt), m->sizes[k]);
		return refuse(m, "%s", what);
	}
	val *s = new_val(m, V_STORAGE);
	if (s) {
		s->i = (long long)k;
		s->dtype = dt;
	}
	return push(m, s);
}

/* A tuple of non-negative ints into dims; returns the count or -1. */
static int int_tuple(long long *dims, const val *t)
{
	if (t->type != V_TUPLE || t->n > PT_MAX_DIMS)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		if (t->items[i]->type != V_INT || t->items[i]->i < 0)
			return -1;
		dims[i] = t->items[i]->i;
	}
	return (int)t->n;
}

/* _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, hooks[, metadata]):
 * the view is checked against its storage here, once. */
static int rebuild_tensor(vm *m, const val *args)
{
	if (args->n < 6 || args->n > 7 || args->items[0]->type != V_STORAGE || args->items[1]->type != V_INT ||
	    args->items[1]->i < 0 || args->items[4]->type != V_BOOL)
		return refuse(m, "%s", _("_rebuild_tensor_v2 with arguments torch.save does not write"));
	pt_tensor t;
	memset(&t, 0, sizeof t);
	const val *st = args->items[0];
	t.dtype = st->dtype;
	t.itemsize = dtype_size(st->dtype);
	t.storage = (size_t)st->i;
	t.offset = (unsigned long long)args->items[1]->i;
	long long stride[PT_MAX_DIMS];
	int nd = int_tuple(t.shape, args->items[2]), ns = int_tuple(stride, args->items[3]);
	if (nd < 0 || ns != nd)
		return refuse(m, "%s", _("a tensor whose size and stride are not matching tuples of non-negative integers"));
	t.ndim = nd;
	memcpy(t.stride, stride, sizeof stride);
	/* elements, and the last storage element the view reaches, without overflow */
	unsigned long long count = 1, reach = t.offset, numel = m->sizes[t.storage] / (unsigned)t.itemsize;
	for (int d = 0; d < nd; d++) {
		unsigned long long s = (unsigned long long)t.shape[d];
		if (s && count > UINT64_MAX / s)
			return refuse(m, "%s", _("a tensor whose element count overflows"));
		count *= s;
	}
	for (int d = 0; d < nd && count; d++) {
		unsigned long long span = (unsigned long long)(t.shape[d] - 1), step = (unsigned long long)t.stride[d];
		if (step && span > (UINT64_MAX - reach) / step)
			return refuse(m, "%s", _("a tensor whose strides overflow"));
		reach += span * step;
	}
	if (count && reach >= numel) {
		char what[160];
		snprintf(what, sizeof what, "a view reaching storage element %llu of a storage of %llu", reach, numel);
		return refuse(m, "%s", what);
	}
	t.count = count;
	t.contiguous = 1;
	unsigned long long expect = 1;
	for (int d = nd - 1; d >= 0; d--) {
		if (t.shape[d] != 1 && (unsigned long long)t.stride[d] != expect)
			t.contiguous = 0;
		expect *= (unsigned long long)t.shape[d];
	}
	val *v = new_val(m, V_TENSOR);
	if (v) {
		v->tensor = xmalloc(sizeof t);
		*v->tensor = t;
	}
	return push(m, v);
}

static int op_reduce(vm *m)
{
	val *args = pop(m), *fn = pop(m);
	if (!args || !fn || args->type != V_TUPLE || fn->type != V_GLOBAL)
		return refuse(m, "%s", _("REDUCE of something that is not an allowed global and a tuple"));
	if (fn->i == G_ODICT) {
		if (args->n)
			return refuse(m, "%s", _("OrderedDict called with arguments"));
		return push(m, new_val(m, V_DICT));
	}
	if (fn->i == G_REBUILD)
		return rebuild_tensor(m, args);
	if (fn->i == G_PARAM) {
		if (args->n < 3 || args->n > 4 || args->items[0]->type != V_TENSOR || args->items[1]->type != V_BOOL ||
		    args->items[2]->type != V_DICT || (args->n == 4 && args->items[3]->type != V_DICT &&
		                                       args->items[3]->type != V_NONE))
			return refuse(m, "%s", _("_rebuild_parameter with arguments torch.save does not write"));
		return push(m, args->items[0]); /* the parameter is its tensor */
	}
	return refuse(m, "%s", _("a storage type called as a function"));
}

/* 1 when a MARK lies among the stack values from `from` to the top. */
static int mark_above(const vm *m, size_t from)
{
	for (size_t i = from; i < m->sp; i++)
		if (m->stack[i] == &m->mark)
			return 1;
	return 0;
}

static int op_setitems(vm *m, size_t from)
{
	if (from == 0 || mark_above(m, from) || (m->sp - from) % 2 || m->stack[from - 1]->type != V_DICT)
		return refuse(m, "%s", _("SETITEM(S) on something that is not a dict"));
	val *d = m->stack[from - 1];
	for (size_t i = from; i < m->sp; i++)
		add_item(d, m->stack[i]);
	m->sp = from;
	return 0;
}

static int op_appends(vm *m, size_t from)
{
	if (from == 0 || mark_above(m, from) || m->stack[from - 1]->type != V_LIST)
		return refuse(m, "%s", _("APPEND(S) on something that is not a list"));
	val *l = m->stack[from - 1];
	for (size_t i = from; i < m->sp; i++)
		add_item(l, m->stack[i]);
	m->sp = from;
	return 0;
}

/* Runs the machine to STOP; *out is the result (owned by the vm). */
static int run(vm *m, val **out)
{
	int rc = 0;
	size_t mk;
	while (!rc) {
		if (m->p >= m->end)
			return refuse(m, "%s", _("no STOP opcode (truncated)"));
		unsigned char op = *m->p++;
		switch (op) {
		case 0x80: /* PROTO */
			if ((rc = need(m, 1)))
				break;
			if (*m->p < 2 || *m->p > 5)
				return refuse(m, "%s", _("pickle protocol other than 2 to 5"));
			m->p++;
			break;
		case 0x95: /* FRAME: a length prefix only */
			if (!(rc = need(m, 8)))
				m->p += 8;
			break;
		case '.': /* STOP */
			if (m->sp != 1 || m->stack[0] == &m->mark)
				return refuse(m, "%s", _("STOP with other than one value on the stack"));
			*out = m->stack[0];
			return 0;
		case '(': /* MARK */
			rc = push(m, &m->mark);
			break;
		case 'N':
			rc = push(m, new_val(m, V_NONE));
			break;
		case 0x88: /* NEWTRUE */
		case 0x89: /* NEWFALSE */ {
			val *v = new_val(m, V_BOOL);
			if (v)
				v->i = op == 0x88;
			rc = push(m, v);
			break;
		}
		case 'K': /* BININT1 */
			if (!(rc = need(m, 1)))
				rc = push_int(m, *m->p++);
			break;
		case 'M': /* BININT2 */
			if (!(rc = need(m, 2))) {
				rc = push_int(m, (long long)le(m->p, 2));
				m->p += 2;
			}
			break;
		case 'J': /* BININT */
			if (!(rc = need(m, 4))) {
				rc = push_int(m, (long long)(int32_t)(uint32_t)le(m->p, 4));
				m->p += 4;
			}
			break;
		case 0x8a: /* LONG1 */ {
			if ((rc = need(m, 1)))
				break;
			size_t n = *m->p++;
			if (n > 8)
				return refuse(m, "%s", _("an integer wider than 64 bits"));
			if ((rc = need(m, n)))
				break;
			unsigned long long u = le(m->p, n);
			if (n && n < 8 && (m->p[n - 1] & 0x80))
				u |= ~0ULL << (8 * n); /* sign-extend */
			m->p += n;
			rc = push_int(m, (long long)u);
			break;
		}
		case 'G': /* BINFLOAT: only in metadata ferry does not use; its value is not kept */
			if (!(rc = need(m, 8))) {
				m->p += 8;
				rc = push(m, new_val(m, V_FLOAT));
			}
			break;
		case 'X': /* BINUNICODE */
			if (!(rc = need(m, 4))) {
				size_t n = (size_t)le(m->p, 4);
				m->p += 4;
				rc = push_str(m, n);
			}
			break;
		case 0x8c: /* SHORT_BINUNICODE */
			if (!(rc = need(m, 1))) {
				size_t n = *m->p++;
				rc = push_str(m, n);
			}
			break;
		case 'q': /* BINPUT */
			if (!(rc = need(m, 1)))
				rc = memo_put(m, *m->p++);
			break;
		case 'r': /* LONG_BINPUT */
			if (!(rc = need(m, 4))) {
				rc = memo_put(m, le(m->p, 4));
				m->p += 4;
			}
			break;
		case 0x94: /* MEMOIZE */
			rc = memo_put(m, m->nmemo);
			break;
		case 'h': /* BINGET */
			if (!(rc = need(m, 1)))
				rc = memo_get(m, *m->p++);
			break;
		case 'j': /* LONG_BINGET */
			if (!(rc = need(m, 4))) {
				rc = memo_get(m, le(m->p, 4));
				m->p += 4;
			}
			break;
		case '}': /* EMPTY_DICT */
			rc = push(m, new_val(m, V_DICT));
			break;
		case ']': /* EMPTY_LIST */
			rc = push(m, new_val(m, V_LIST));
			break;
		case ')': /* EMPTY_TUPLE */
			rc = push(m, new_val(m, V_TUPLE));
			break;
		case 0x85: /* TUPLE1 */
		case 0x86: /* TUPLE2 */
		case 0x87: /* TUPLE3 */ {
			size_t k = (size_t)(op - 0x84);
			if (m->sp < k)
				return refuse(m, "%s", _("TUPLEn with too few values on the stack"));
			if (mark_above(m, m->sp - k))
				return refuse(m, "%s", _("TUPLEn across a MARK"));
			rc = push(m, collect(m, V_TUPLE, m->sp - k));
			break;
		}
		case 't': /* TUPLE */
		case 'l': /* LIST */
			if ((mk = find_mark(m)) == (size_t)-1)
				return refuse(m, "%s", _("TUPLE/LIST without a MARK"));
			{
				val *c = collect(m, op == 't' ? V_TUPLE : V_LIST, mk + 1);
				m->sp = mk;
				rc = push(m, c);
			}
			break;
		case 'd': /* DICT */
			if ((mk = find_mark(m)) == (size_t)-1 || (m->sp - mk - 1) % 2)
				return refuse(m, "%s", _("DICT without a MARK or with an odd count"));
			{
				val *c = collect(m, V_DICT, mk + 1);
				m->sp = mk;
				rc = push(m, c);
			}
			break;
		case 's': /* SETITEM */
			if (m->sp < 3)
				return refuse(m, "%s", _("SETITEM with too few values on the stack"));
			rc = op_setitems(m, m->sp - 2);
			break;
		case 'u': /* SETITEMS */
			if ((mk = find_mark(m)) == (size_t)-1)
				return refuse(m, "%s", _("SETITEMS without a MARK"));
			memmove(m->stack + mk, m->stack + mk + 1, (m->sp - mk - 1) * sizeof *m->stack);
			m->sp--;
			rc = op_setitems(m, mk);
			break;
		case 'a': /* APPEND */
			if (m->sp < 2)
				return refuse(m, "%s", _("APPEND with too few values on the stack"));
			rc = op_appends(m, m->sp - 1);
			break;
		case 'e': /* APPENDS */
			if ((mk = find_mark(m)) == (size_t)-1)
				return refuse(m, "%s", _("APPENDS without a MARK"));
			memmove(m->stack + mk, m->stack + mk + 1, (m->sp - mk - 1) * sizeof *m->stack);
			m->sp--;
			rc = op_appends(m, mk);
			break;
		case 'c': /* GLOBAL */
			rc = op_global(m);
			break;
		case 0x93: /* STACK_GLOBAL */ {
			val *name = pop(m), *mod = pop(m);
			if (!name || !mod || name->type != V_STR || mod->type != V_STR)
				return refuse(m, "%s", _("STACK_GLOBAL without two strings"));
			rc = do_global(m, mod->s, name->s);
			break;
		}
		case 'Q': /* BINPERSID */
			rc = op_persid(m);
			break;
		case 'R': /* REDUCE */
			rc = op_reduce(m);
			break;
		case 'b': /* BUILD: only a state_dict's _metadata on its OrderedDict, ignored */ {
			val *state = pop(m);
			if (!state || !m->sp || m->stack[m->sp - 1]->type != V_DICT)
				return refuse(m, "%s", _("BUILD on something that is not an OrderedDict"));
			break;
		}
		case '0': /* POP */
			if (!pop(m))
				return refuse(m, "%s", _("POP of nothing"));
			break;
		default: {
			char what[8];
			snprintf(what, sizeof what, "0x%02x", op);
			return refuse(m, _("opcode %s is not one torch.save writes for tensors"), what);
		}
		}
	}
	return rc;
}

/* ------------------------------------------------------------------ the result */

typedef struct collector {
	const vm *m;
	pt_tensor *t;
	size_t n, cap;
	size_t visits;  /* values visited: shared containers must not multiply the work */
} collector;

static int gather(collector *c, const val *v, const char *name, int depth)
{
	if (depth > PT_MAX_DEPTH)
		return refuse(c->m, _("containers nested deeper than %s"), "16");
	if (++c->visits > MAX_VALUES)
		return refuse(c->m, "%s", _("containers that reach more than 4194304 values"));
	if (v->type == V_TENSOR) {
		if (c->n >= MAX_TENSORS)
			return refuse(c->m, _("more than %s tensors"), "65536");
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 8;
			c->t = xrealloc(c->t, c->cap * sizeof *c->t);
		}
		c->t[c->n] = *v->tensor;
		c->t[c->n++].name = xstrdup(name);
		return 0;
	}
	int dict = v->type == V_DICT;
	if (!dict && v->type != V_LIST && v->type != V_TUPLE)
		return 0; /* numbers, strings, None: not tensors */
	for (size_t i = 0; i < v->n; i += dict ? 2 : 1) {
		const val *item = v->items[i + (size_t)dict];
		if (item->type != V_TENSOR && item->type != V_DICT && item->type != V_LIST && item->type != V_TUPLE)
			continue;
		char *sub;
		const val *k = v->items[i];
		if (!dict)
			sub = xasprintf("%s%s%zu", name, *name ? "." : "", i);
		else if (k->type == V_STR)
			sub = xasprintf("%s%s%s", name, *name ? "." : "", k->s);
		else if (k->type == V_INT)
			sub = xasprintf("%s%s%lld", name, *name ? "." : "", k->i);
		else
			return refuse(c->m, "%s", _("a dict of tensors whose key is not a string or integer"));
		int rc = gather(c, item, sub, depth + 1);
		free(sub);
		if (rc)
			return rc;
	}
	return 0;
}

static int cmp_names(const void *x, const void *y)
{
	return strcmp((*(const pt_tensor *const *)x)->name, (*(const pt_tensor *const *)y)->name);
}

void ptfile_free(ptfile *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->t[i].name);
	free(f->t);
	free(f->zip_index);
	free(f->path);
	free(f);
}

int ptfile_parse(ptfile **out, const char *name, const unsigned char *pkl, size_t len, const char *const *keys,
                 const unsigned long long *sizes, size_t nkeys)
{
	*out = NULL;
	vm m;
	memset(&m, 0, sizeof m);
	m.name = name;
	m.p = pkl;
	m.end = pkl + len;
	m.keys = keys;
	m.sizes = sizes;
	m.nkeys = nkeys;
	m.mark.type = V_MARK;
	collector c = { &m, NULL, 0, 0, 0 };
	const pt_tensor **sorted = NULL;
	val *top = NULL;
	int rc = len > MAX_PICKLE ? refuse(&m, "%s", _("data.pkl larger than 64 MiB")) : run(&m, &top);
	if (!rc)
		rc = gather(&c, top, "", 0);
	if (!rc && !c.n)
		rc = err_set(FERRY_ECORRUPT, _("%s: holds no tensor"), name);
	if (!rc && c.n > 1) {
		sorted = xmalloc(c.n * sizeof *sorted);
		for (size_t i = 0; i < c.n; i++)
			sorted[i] = &c.t[i];
		qsort(sorted, c.n, sizeof *sorted, cmp_names);
		for (size_t i = 1; i < c.n && !rc; i++)
			if (strcmp(sorted[i]->name, sorted[i - 1]->name) == 0)
				rc = err_set(FERRY_ECORRUPT, _("%s: the tensor name '%.100s' appears twice"), name, sorted[i]->name);
	}
	free(sorted);
	free_vals(&m);
	ptfile *f = xcalloc(1, sizeof *f);
	f->path = xstrdup(name);
	f->t = c.t;
	f->n = c.n;
	f->nstorages = nkeys;
	if (rc) {
		ptfile_free(f);
		return rc;
	}
	*out = f;
	return 0;
}

/* ------------------------------------------------------------------ the archive */

int ptfile_is_legacy(const unsigned char *head, size_t n)
{
	/* pickle protocol 2, then the LONG1 magic number torch's legacy writer puts first */
	static const unsigned char magic[] = { 0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c,
		                                   0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19 };
	return n >= sizeof magic && memcmp(head, magic, sizeof magic) == 0;
}

int ptfile_refuse_legacy(const char *name)
{
	return err_set(FERRY_ECORRUPT,
	               _("%s: a torch.save file in the legacy format (_use_new_zipfile_serialization=False, or PyTorch "
	                 "before 1.6), which ferry does not read; save it again with torch.save's default format"),
	               name);
}

static int zip_fail(const char *path, zip_error_t *ze)
{
	int code = zip_error_code_zip(ze);
	if (code == ZIP_ER_OPEN || code == ZIP_ER_READ || code == ZIP_ER_SEEK)
		return err_set(FERRY_EIO, "%s: %s", path, zip_error_strerror(ze));
	if (code == ZIP_ER_NOZIP) {
		unsigned char head[16];
		size_t n = 0;
		FILE *fp = fopen(path, "rb");
		if (fp) {
			n = fread(head, 1, sizeof head, fp);
			fclose(fp);
		}
		if (ptfile_is_legacy(head, n))
			return ptfile_refuse_legacy(path);
		return err_set(FERRY_ECORRUPT, _("%s: not a torch.save zip archive, or one cut short (no zip directory at its end)"), path);
	}
	return err_set(FERRY_ECORRUPT, _("%s: corrupt or truncated zip archive (%s)"), path, zip_error_strerror(ze));
}

static zip_t *open_archive(const char *path, int flags, int *rc)
{
	int zerr = 0;
	zip_t *z = zip_open(path, flags | ZIP_RDONLY, &zerr);
	if (!z) {
		zip_error_t ze;
		zip_error_init_with_code(&ze, zerr);
		*rc = zip_fail(path, &ze);
		zip_error_fini(&ze);
	}
	return z;
}

/* Reads entry idx (exactly size bytes) into a new buffer. */
static int read_entry(unsigned char **out, zip_t *z, zip_uint64_t idx, size_t size, const char *path,
                      const char *what)
{
	*out = NULL;
	zip_file_t *zf = zip_fopen_index(z, idx, 0);
	if (!zf)
		return err_set(FERRY_ECORRUPT, _("%s: cannot read %s (%s)"), path, what, zip_strerror(z));
	unsigned char *buf = xmalloc(size ? size : 1);
	zip_int64_t got = zip_fread(zf, buf, size);
	int rc = 0;
	if (got < 0 || (size_t)got != size)
		rc = err_set(FERRY_ECORRUPT, _("%s: %s is truncated or corrupt (%s)"), path, what, zip_file_strerror(zf));
	zip_fclose(zf);
	if (rc)
		free(buf);
	else
		*out = buf;
	return rc;
}

int ptfile_open(ptfile **out, const char *path)
{
	*out = NULL;
	struct stat st;
	if (stat(path, &st) < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	int rc = 0;
	zip_t *z = open_archive(path, ZIP_CHECKCONS, &rc);
	if (!z)
		return rc;
	char *prefix = NULL, **keys = NULL;
	unsigned long long *sizes = NULL;
	size_t *zidx = NULL, nkeys = 0;
	unsigned char *pkl = NULL;
	zip_int64_t n = zip_get_num_entries(z, 0);
	zip_int64_t pkl_idx = -1, order_idx = -1;
	if (n < 0 || n > MAX_ENTRIES) {
		rc = err_set(FERRY_ECORRUPT, _("%s: a zip archive with an implausible number of entries"), path);
		goto out;
	}
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(z, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
		const char *slash = name ? strchr(name, '/') : NULL;
		if (slash && strcmp(slash, "/data.pkl") == 0) {
			if (pkl_idx >= 0) {
				rc = err_set(FERRY_ECORRUPT, _("%s: holds more than one data.pkl (not one torch.save file)"), path);
				goto out;
			}
			pkl_idx = i;
			prefix = xstrndup(name, (size_t)(slash - name));
		}
	}
	if (pkl_idx < 0) {
		rc = err_set(FERRY_ECORRUPT, _("%s: a zip archive without <archive>/data.pkl (not a torch.save file)"), path);
		goto out;
	}
	keys = xcalloc((size_t)n, sizeof *keys);
	sizes = xcalloc((size_t)n, sizeof *sizes);
	zidx = xcalloc((size_t)n, sizeof *zidx);
	size_t plen = strlen(prefix);
	zip_stat_t zs;
	for (zip_int64_t i = 0; i < n; i++) {
		const char *name = zip_get_name(z, (zip_uint64_t)i, ZIP_FL_ENC_RAW);
		if (!name || strncmp(name, prefix, plen) != 0 || name[plen] != '/')
			continue;
		const char *rest = name + plen + 1;
		if (strcmp(rest, "byteorder") == 0)
			order_idx = i;
		if (strncmp(rest, "data/", 5) != 0 || !rest[5])
			continue;
		if (zip_stat_index(z, (zip_uint64_t)i, 0, &zs) < 0 || !(zs.valid & ZIP_STAT_SIZE) ||
		    !(zs.valid & ZIP_STAT_COMP_METHOD) || !(zs.valid & ZIP_STAT_COMP_SIZE)) {
			rc = err_set(FERRY_ECORRUPT, _("%s: cannot read the entry %.100s (%s)"), path, name, zip_strerror(z));
			goto out;
		}
		if (zs.comp_method != ZIP_CM_STORE || ((zs.valid & ZIP_STAT_ENCRYPTION_METHOD) && zs.encryption_method)) {
			rc = err_set(FERRY_ECORRUPT,
			             _("%s: storage %.100s is compressed or encrypted (torch.save stores storages as they are)"),
			             path, name);
			goto out;
		}
		/* the central directory's sizes, checked against the file that holds them */
		if (zs.size != zs.comp_size || zs.size > (zip_uint64_t)st.st_size) {
			rc = err_set(FERRY_ECORRUPT, _("%s: storage %.100s claims %llu bytes, more than the file holds"), path,
			             name, (unsigned long long)zs.size);
			goto out;
		}
		keys[nkeys] = xstrdup(rest + 5);
		sizes[nkeys] = zs.size;
		zidx[nkeys++] = (size_t)i;
	}
	if (zip_stat_index(z, (zip_uint64_t)pkl_idx, 0, &zs) < 0 || !(zs.valid & ZIP_STAT_SIZE)) {
		rc = err_set(FERRY_ECORRUPT, _("%s: cannot read data.pkl (%s)"), path, zip_strerror(z));
		goto out;
	}
	/* what data.pkl claims is bounded by the file: stored, or deflated at most 1032:1 */
	if (zs.size > MAX_PICKLE || !(zs.valid & ZIP_STAT_COMP_SIZE) || zs.comp_size > (zip_uint64_t)st.st_size ||
	    zs.size / 1032 > zs.comp_size) {
		rc = err_set(FERRY_ECORRUPT, _("%s: data.pkl claims an implausible size (%llu bytes)"), path,
		             (unsigned long long)zs.size);
		goto out;
	}
	int big = 0;
	if (order_idx >= 0) {
		unsigned char *order = NULL;
		if (zip_stat_index(z, (zip_uint64_t)order_idx, 0, &zs) < 0 || zs.size > 16) {
			rc = err_set(FERRY_ECORRUPT, _("%s: unreadable byteorder entry"), path);
			goto out;
		}
		if ((rc = read_entry(&order, z, (zip_uint64_t)order_idx, (size_t)zs.size, path, "byteorder")))
			goto out;
		if (zs.size == 3 && memcmp(order, "big", 3) == 0)
			big = 1;
		else if (!(zs.size == 6 && memcmp(order, "little", 6) == 0))
			rc = err_set(FERRY_ECORRUPT, _("%s: byteorder is neither \"little\" nor \"big\""), path);
		free(order);
		if (rc)
			goto out;
		zip_stat_index(z, (zip_uint64_t)pkl_idx, 0, &zs);
	}
	if ((rc = read_entry(&pkl, z, (zip_uint64_t)pkl_idx, (size_t)zs.size, path, "data.pkl")))
		goto out;
	if ((rc = ptfile_parse(out, path, pkl, (size_t)zs.size, (const char *const *)keys, sizes, nkeys)))
		goto out;
	(*out)->big_endian = big;
	(*out)->zip_index = zidx;
	zidx = NULL;
out:
	for (size_t i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(sizes);
	free(zidx);
	free(prefix);
	free(pkl);
	zip_discard(z);
	return rc;
}

int ptfile_check_crc(const char *path)
{
	int rc = 0;
	zip_t *z = open_archive(path, 0, &rc);
	if (!z)
		return rc;
	unsigned char *buf = xmalloc(READ_WINDOW);
	zip_int64_t n = zip_get_num_entries(z, 0);
	for (zip_int64_t i = 0; !rc && i < n; i++) {
		zip_file_t *zf = zip_fopen_index(z, (zip_uint64_t)i, 0);
		if (!zf) {
			rc = err_set(FERRY_ECORRUPT, _("%s: cannot read archive entry %s (%s)"), path,
			             zip_get_name(z, (zip_uint64_t)i, 0), zip_strerror(z));
			break;
		}
		zip_int64_t r;
		while ((r = zip_fread(zf, buf, READ_WINDOW)) > 0)
			;
		if (r < 0) /* at its end libzip compares the entry's CRC-32 with the directory's */
			rc = err_set(FERRY_ECORRUPT, _("%s: damaged archive entry %s (%s)"), path,
			             zip_get_name(z, (zip_uint64_t)i, 0), zip_file_strerror(zf));
		zip_fclose(zf);
	}
	free(buf);
	zip_discard(z);
	return rc;
}

/* Reads len bytes at byte pos of an open storage entry. */
static int read_at(unsigned char *out, zip_file_t *zf, unsigned long long pos, size_t len, const char *path)
{
	if (pos > INT64_MAX || zip_fseek(zf, (zip_int64_t)pos, SEEK_SET) < 0)
		return err_set(FERRY_ECORRUPT, _("%s: cannot seek in a storage (%s)"), path, zip_file_strerror(zf));
	size_t got = 0;
	while (got < len) {
		zip_int64_t r = zip_fread(zf, out + got, len - got);
		if (r <= 0)
			return err_set(FERRY_ECORRUPT, _("%s: a storage ends early (changed or truncated since it was opened)"),
			               path);
		got += (size_t)r;
	}
	return 0;
}

int ptfile_read(unsigned char *out, const ptfile *f, const pt_tensor *t, unsigned long long from, size_t n)
{
	if (!f->zip_index || t->storage >= f->nstorages)
		return err_set(FERRY_EUSAGE, _("%s: not opened from an archive"), f->path);
	if (from > t->count || n > t->count - from)
		return err_set(FERRY_EUSAGE, _("%s: elements %llu+%zu are beyond the tensor's %llu"), f->path, from, n,
		               t->count);
	if (!n)
		return 0;
	int rc = 0;
	zip_t *z = open_archive(f->path, 0, &rc);
	if (!z)
		return rc;
	zip_file_t *zf = zip_fopen_index(z, f->zip_index[t->storage], 0);
	unsigned char *win = NULL;
	size_t isz = (size_t)t->itemsize;
	if (!zf) {
		rc = err_set(FERRY_ECORRUPT, _("%s: cannot read a storage (%s)"), f->path, zip_strerror(z));
		goto out;
	}
	if (t->contiguous) {
		rc = read_at(out, zf, (t->offset + from) * isz, n * isz, f->path);
		goto out;
	}
	/* a strided view: walk the index in C order and serve each element from a window of
	 * the storage, read again only when the element falls outside it */
	zip_stat_t zs;
	if (zip_stat_index(z, f->zip_index[t->storage], 0, &zs) < 0) {
		rc = err_set(FERRY_ECORRUPT, _("%s: cannot read a storage (%s)"), f->path, zip_strerror(z));
		goto out;
	}
	unsigned long long total = zs.size, wstart = 0, wlen = 0;
	win = xmalloc(READ_WINDOW);
	long long idx[PT_MAX_DIMS];
	unsigned long long rest = from;
	for (int d = t->ndim - 1; d >= 0; d--) {
		idx[d] = (long long)(rest % (unsigned long long)t->shape[d]);
		rest /= (unsigned long long)t->shape[d];
	}
	for (size_t i = 0; i < n; i++) {
		unsigned long long e = t->offset;
		for (int d = 0; d < t->ndim; d++)
			e += (unsigned long long)idx[d] * (unsigned long long)t->stride[d];
		unsigned long long pos = e * isz;
		if (pos < wstart || pos + isz > wstart + wlen) {
			if (pos + isz > total) {
				rc = err_set(FERRY_ECORRUPT, _("%s: a view reaches past its storage"), f->path);
				goto out;
			}
			wstart = pos;
			wlen = total - pos < READ_WINDOW ? total - pos : READ_WINDOW;
			if ((rc = read_at(win, zf, wstart, (size_t)wlen, f->path)))
				goto out;
		}
		memcpy(out + i * isz, win + (pos - wstart), isz);
		for (int d = t->ndim - 1; d >= 0; d--) {
			if (++idx[d] < t->shape[d])
				break;
			idx[d] = 0;
		}
	}
out:
	free(win);
	if (zf)
		zip_fclose(zf);
	zip_discard(z);
	return rc;
}
