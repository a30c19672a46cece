/* Unit tests for the streaming ONNX reader (onnx.c): the real exports under
 * tests/fixtures/onnx/ (made by make_onnx.py with torch and onnx), hand-made protobuf for
 * each kind of damage, external data checks, and a 5 GiB model read through a virtual
 * source without holding its weights. Run from the source tree's top directory. */
#include "testutil.h"

#include "err.h"
#include "onnx.h"

#define FIX "tests/fixtures/onnx/"

/* ---- a small protobuf writer ---------------------------------------------------------- */

typedef struct pb {
	unsigned char *p;
	size_t n;
} pb;

static void put(pb *b, const void *d, size_t n)
{
	b->p = xrealloc(b->p, b->n + n + 1);
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void varint(pb *b, unsigned long long v)
{
	do {
		unsigned char c = (unsigned char)((v & 0x7f) | (v >> 7 ? 0x80 : 0));
		put(b, &c, 1);
		v >>= 7;
	} while (v);
}

static void field_int(pb *b, unsigned f, unsigned long long v)
{
	varint(b, (unsigned long long)f << 3);
	varint(b, v);
}

static void field_bytes(pb *b, unsigned f, const void *d, size_t n)
{
	varint(b, (unsigned long long)f << 3 | 2);
	varint(b, n);
	put(b, d, n);
}

static void field_str(pb *b, unsigned f, const char *s) { field_bytes(b, f, s, strlen(s)); }

static void field_msg(pb *b, unsigned f, pb *m)
{
	field_bytes(b, f, m->p, m->n);
	free(m->p);
	m->p = NULL;
	m->n = 0;
}

static int read_mem(onnx_model **out, const pb *b)
{
	artifact_mem m = { b->p, b->n, 0 };
	artifact_source src = { artifact_mem_read_at, &m, b->n };
	return onnx_read(out, "t.onnx", &src);
}

/* A model: ir_version 8, opset 13, graph holding `graph` (consumed). */
static void model_of(pb *out, pb *graph)
{
	pb opset = { 0 };
	field_str(&opset, 1, "");
	field_int(&opset, 2, 13);
	field_int(out, 1, 8);
	field_msg(out, 8, &opset);
	field_msg(out, 7, graph);
}

static const onnx_op *op(const onnx_model *m, const char *domain, const char *type)
{
	for (size_t i = 0; i < m->nops; i++)
		if (strcmp(m->ops[i].domain, domain) == 0 && strcmp(m->ops[i].op_type, type) == 0)
			return &m->ops[i];
	return NULL;
}

static long long opset(const onnx_model *m, const char *domain)
{
	for (size_t i = 0; i < m->nopsets; i++)
		if (strcmp(m->opsets[i].domain, domain) == 0)
			return m->opsets[i].version;
	return -1;
}

/* ---- real exports ----------------------------------------------------------------------- */

static void test_cnn(void **state)
{
	(void)state;
	onnx_model *m = NULL;
	assert_int_equal(onnx_read_path(&m, FIX "cnn_op11.onnx"), 0);
	assert_int_equal(opset(m, ""), 11);
	assert_string_equal(m->producer_name, "pytorch");
	assert_int_equal(m->nodes_total, 7);
	assert_int_equal(op(m, "", "Conv")->count, 2);
	assert_int_equal(op(m, "", "Relu")->count, 2);
	assert_int_equal(op(m, "", "Gemm")->count, 1);
	assert_int_equal(m->ninputs, 1); /* weights are not inputs */
	assert_string_equal(m->inputs[0].name, "image");
	assert_int_equal(m->inputs[0].ndims, 4);
	assert_string_equal(m->inputs[0].dims[0].param, "batch");
	assert_int_equal(m->inputs[0].dims[0].value, -1);
	assert_int_equal(m->inputs[0].dims[1].value, 3);
	assert_int_equal(m->inputs[0].dims[3].value, 32);
	assert_int_equal(m->initializers, 6);
	/* conv 4x3x3x3+4, conv 8x4x3x3+8, fc 10x8+10, float32 */
	assert_int_equal(m->initializer_bytes, (108 + 4 + 288 + 8 + 80 + 10) * 4);
	assert_int_equal(m->nexternal, 0);
	onnx_model_free(m);

	assert_int_equal(onnx_read_path(&m, FIX "cnn_op13.onnx"), 0);
	assert_int_equal(opset(m, ""), 13);
	assert_int_equal(m->inputs[0].dims[0].value, 1);
	assert_string_equal(m->inputs[0].dims[2].param, "height");
	assert_string_equal(m->inputs[0].dims[3].param, "width");
	onnx_model_free(m);
}

static void test_transformer(void **state)
{
	(void)state;
	static const char *const files[] = { FIX "tiny_lm_op13.onnx", FIX "tiny_lm_op17.onnx" };
	for (int i = 0; i < 2; i++) {
		onnx_model *m = NULL;
		assert_int_equal(onnx_read_path(&m, files[i]), 0);
		assert_int_equal(opset(m, ""), i ? 17 : 13);
		assert_int_equal(m->ninputs, 2);
		assert_string_equal(m->inputs[0].name, "input_ids");
		assert_string_equal(m->inputs[1].name, "attention_mask");
		assert_int_equal(m->inputs[0].elem_type, 7); /* int64 */
		assert_int_equal(m->inputs[0].ndims, 2);
		assert_string_equal(m->inputs[0].dims[0].param, "batch");
		assert_string_equal(m->inputs[0].dims[1].param, "sequence");
		assert_int_equal(op(m, "", "MatMul")->count, 4);
		assert_int_equal(op(m, "", "Softmax")->count, 1);
		/* opset 17 exports LayerNorm as one operator, older opsets decompose it */
		assert_true(i ? op(m, "", "LayerNormalization") != NULL : op(m, "", "LayerNormalization") == NULL);
		assert_int_equal(m->noutputs, 1);
		assert_int_equal(m->outputs[0].ndims, 3);
		assert_int_equal(m->outputs[0].dims[2].value, 64);
		onnx_model_free(m);
	}
}

static void test_control_flow(void **state)
{
	(void)state;
	onnx_model *m = NULL;
	assert_int_equal(onnx_read_path(&m, FIX "control_flow.onnx"), 0);
	assert_int_equal(m->subgraphs, 3); /* the Loop body, If's then and else */
	assert_int_equal(m->max_depth, 2);
	assert_int_equal(m->nodes_total, 7);
	assert_int_equal(op(m, "", "Loop")->count, 1);
	assert_int_equal(op(m, "", "If")->count, 1);
	assert_int_equal(op(m, "", "Add")->count, 1);
	assert_int_equal(op(m, "", "Sub")->count, 1);
	assert_int_equal(m->nodes[0].subgraphs, 1);
	assert_string_equal(m->nodes[0].op_type, "Loop");
	assert_int_equal(m->nodes[0].inputs_total, 3);
	assert_int_equal(m->ninputs, 1);
	assert_int_equal(m->inputs[0].dims[1].value, 4);
	onnx_model_free(m);
}

static void test_external_data(void **state)
{
	(void)state;
	onnx_model *m = NULL;
	assert_int_equal(onnx_read_path(&m, FIX "cnn_external.onnx"), 0);
	assert_int_equal(m->nexternal, 6);
	assert_string_equal(m->external[0].location, "cnn_external.data");
	assert_int_equal(m->initializer_bytes, 1992);
	onnx_check_external(m, FIX);
	assert_int_equal(m->nfiles, 1);
	assert_true(m->files[0].present);
	assert_null(m->files[0].problem);
	assert_int_equal(m->files[0].tensors, 6);
	assert_int_equal(m->files[0].needed, 1992);
	assert_int_equal(m->files[0].size, 1992);

	/* elsewhere: the data file is missing, then too short */
	char *dir = tu_mkdtemp();
	onnx_check_external(m, dir);
	assert_false(m->files[0].present);
	assert_non_null(strstr(m->files[0].problem, "'cnn_external.data' is missing"));
	char *data = util_path_join(dir, "cnn_external.data");
	assert_int_equal(util_write_atomic(data, "short", 5, 0644), 0);
	onnx_check_external(m, dir);
	assert_true(m->files[0].present);
	assert_non_null(strstr(m->files[0].problem, "fewer than the 1992"));
	free(data);
	tu_rmdir(dir);
	free(dir);
	onnx_model_free(m);
}

static void test_external_outside(void **state)
{
	(void)state;
	pb g = { 0 }, t = { 0 }, e = { 0 }, model = { 0 };
	static const char *const locs[] = { "../secret.bin", "/etc/passwd", "sub/ok.bin" };
	for (int i = 0; i < 3; i++) {
		field_str(&t, 8, "w");
		field_int(&t, 2, 1);
		field_int(&t, 1, 4);
		field_str(&e, 1, "location");
		field_str(&e, 2, locs[i]);
		field_msg(&t, 13, &e);
		field_str(&e, 1, "length");
		field_str(&e, 2, "16");
		field_msg(&t, 13, &e);
		field_int(&t, 14, 1);
		field_msg(&g, 5, &t);
	}
	model_of(&model, &g);
	onnx_model *m = NULL;
	assert_int_equal(read_mem(&m, &model), 0);
	assert_int_equal(m->nexternal, 3);
	char *dir = tu_mkdtemp();
	onnx_check_external(m, dir);
	assert_int_equal(m->nfiles, 3);
	assert_non_null(strstr(m->files[0].problem, "outside the model's directory"));
	assert_non_null(strstr(m->files[1].problem, "outside the model's directory"));
	assert_non_null(strstr(m->files[2].problem, "missing"));
	tu_rmdir(dir);
	free(dir);
	onnx_model_free(m);
	free(model.p);
}

/* ---- damage: one line naming the file and the reason ---------------------------------- */

static void expect_damage(const pb *b, const char *why)
{
	onnx_model *m = NULL;
	assert_int_equal(read_mem(&m, b), FERRY_ECORRUPT);
	assert_null(m);
	const char *msg = err_message();
	if (!strstr(msg, why))
		fail_msg("'%s' does not say '%s'", msg, why);
	assert_non_null(strstr(msg, "t.onnx: "));
	assert_null(strchr(msg, '\n'));
}

static void test_damage(void **state)
{
	(void)state;
	pb g = { 0 }, n = { 0 }, b = { 0 };
	field_str(&n, 4, "Relu");
	field_msg(&g, 1, &n);
	model_of(&b, &g);
	onnx_model *m = NULL;
	assert_int_equal(read_mem(&m, &b), 0);
	onnx_model_free(m);

	pb cut = { b.p, b.n - 3 };
	expect_damage(&cut, "length past the end of its message: truncated");

	pb v = { 0 };
	put(&v, "\x08\xff\xff", 3); /* ir_version: a varint that never ends */
	expect_damage(&v, "truncated varint");
	free(v.p);
	v.p = NULL;
	v.n = 0;

	field_int(&v, 1, 8);
	varint(&v, 7 << 3 | 0); /* graph as a varint */
	varint(&v, 1);
	expect_damage(&v, "wrong wire type 0 for field 7 of ModelProto");
	free(v.p);
	v.p = NULL;
	v.n = 0;

	field_int(&v, 1, 8);
	varint(&v, 4 << 3 | 3); /* a group where a skipped field (domain) is */
	expect_damage(&v, "group wire type");
	free(v.p);
	v.p = NULL;
	v.n = 0;

	put(&v, "hello, I am not a model", 23);
	onnx_model *none = NULL;
	assert_int_equal(read_mem(&none, &v), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "not an ONNX model"));
	free(v.p);
	v.p = NULL;
	v.n = 0;

	pb only = { 0 };
	field_int(&only, 1, 8);
	assert_int_equal(read_mem(&none, &only), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "no graph"));
	free(only.p);
	free(b.p);
}

static void test_nesting_bound(void **state)
{
	(void)state;
	/* If nodes nested ONNX_MAX_DEPTH + 1 deep: refused; ONNX_MAX_DEPTH deep: read */
	for (int depth = ONNX_MAX_DEPTH; depth <= ONNX_MAX_DEPTH + 1; depth++) {
		pb g = { 0 };
		field_str(&g, 2, "leaf");
		for (int i = 0; i < depth; i++) {
			pb a = { 0 }, n = { 0 }, outer = { 0 };
			field_str(&a, 1, "then_branch");
			field_msg(&a, 6, &g);
			field_str(&n, 4, "If");
			field_msg(&n, 5, &a);
			field_msg(&outer, 1, &n);
			g = outer;
		}
		pb b = { 0 };
		model_of(&b, &g);
		onnx_model *m = NULL;
		if (depth == ONNX_MAX_DEPTH) {
			assert_int_equal(read_mem(&m, &b), 0);
			assert_int_equal(m->max_depth, ONNX_MAX_DEPTH);
			assert_int_equal(op(m, "", "If")->count, depth);
			onnx_model_free(m);
		} else {
			expect_damage(&b, "nested deeper than");
		}
		free(b.p);
	}
}

static void test_packed_dims_and_domains(void **state)
{
	(void)state;
	pb g = { 0 }, t = { 0 }, dims = { 0 }, n = { 0 }, b = { 0 }, o = { 0 };
	varint(&dims, 1000);
	varint(&dims, 1000);
	field_str(&t, 8, "w");
	field_msg(&t, 1, &dims); /* packed dims */
	field_int(&t, 2, 10);     /* float16 */
	field_msg(&g, 5, &t);
	field_str(&n, 4, "FusedGelu");
	field_str(&n, 7, "com.microsoft");
	field_msg(&g, 1, &n);
	field_str(&n, 4, "Relu");
	field_str(&n, 7, "ai.onnx");
	field_msg(&g, 1, &n);
	model_of(&b, &g);
	field_str(&o, 1, "com.microsoft");
	field_int(&o, 2, 1);
	field_msg(&b, 8, &o);
	onnx_model *m = NULL;
	assert_int_equal(read_mem(&m, &b), 0);
	assert_int_equal(m->initializer_bytes, 2000000);
	assert_int_equal(op(m, "com.microsoft", "FusedGelu")->count, 1);
	assert_int_equal(op(m, "", "Relu")->count, 1); /* "ai.onnx" is the default domain */
	assert_int_equal(opset(m, "com.microsoft"), 1);
	onnx_model_free(m);
	free(b.p);
}

/* ---- any size ------------------------------------------------------------------------------ */

/* A virtual model: head bytes, then zeros (the raw_data), counting bytes read. */
typedef struct virt {
	const unsigned char *head;
	size_t head_len;
	unsigned long long read;
} virt;

static long long virt_read_at(void *ctx, unsigned long long off, void *buf, size_t n)
{
	virt *v = ctx;
	for (size_t i = 0; i < n; i++)
		((unsigned char *)buf)[i] = off + i < v->head_len ? v->head[off + i] : 0;
	v->read += n;
	return (long long)n;
}

static void test_five_gib(void **state)
{
	(void)state;
	/* graph { node Relu; initializer { dims [5Gi/4] float raw_data <5 GiB> } }; the raw
	 * data is last, so the reader's only reads of it are the buffer refill at its start */
	unsigned long long raw = 5ULL << 30;
	pb t = { 0 }, g = { 0 }, n = { 0 }, b = { 0 };
	field_str(&t, 8, "big");
	field_int(&t, 1, raw / 4);
	field_int(&t, 2, 1);
	varint(&t, 9 << 3 | 2);
	varint(&t, raw);
	field_str(&n, 4, "Relu");
	field_msg(&g, 1, &n);
	varint(&g, 5 << 3 | 2);
	varint(&g, t.n + raw);
	put(&g, t.p, t.n);
	field_int(&b, 1, 8);
	pb o = { 0 }; /* opset_import { version: 13 } */
	field_int(&o, 2, 13);
	field_msg(&b, 8, &o);
	varint(&b, 7 << 3 | 2);
	varint(&b, g.n + raw);
	put(&b, g.p, g.n);
	virt v = { b.p, b.n, 0 };
	artifact_source src = { virt_read_at, &v, b.n + raw };
	onnx_model *m = NULL;
	assert_int_equal(onnx_read(&m, "big.onnx", &src), 0);
	assert_int_equal(m->initializers, 1);
	assert_int_equal(m->initializer_bytes, (long long)raw);
	assert_int_equal(m->nodes_total, 1);
	assert_true(v.read < (1u << 20)); /* the 5 GiB were skipped, not read */
	onnx_model_free(m);
	src.size--;
	assert_int_equal(onnx_read(&m, "big.onnx", &src), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "truncated"));
	free(t.p);
	free(g.p);
	free(b.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cnn),
		cmocka_unit_test(test_transformer),
		cmocka_unit_test(test_control_flow),
		cmocka_unit_test(test_external_data),
		cmocka_unit_test(test_external_outside),
		cmocka_unit_test(test_damage),
		cmocka_unit_test(test_nesting_bound),
		cmocka_unit_test(test_packed_dims_and_domains),
		cmocka_unit_test(test_five_gib),
	};
	return cmocka_run_group_tests_name("onnx", tests, NULL, NULL);
}
