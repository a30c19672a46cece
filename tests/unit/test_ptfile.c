/* Unit tests for ptfile: the restricted pickle machine on hand-built pickles (what
 * torch.save writes, and what it never writes), and the archive layer on zip files
 * written here with libzip. */
#include "testutil.h"

#include "err.h"
#include "ptfile.h"

#include <zip.h>

/* A pickle being built, opcode by opcode. */
typedef struct pk {
	unsigned char b[1 << 16];
	size_t n;
} pk;

static void raw(pk *p, const void *s, size_t n)
{
	assert_true(p->n + n <= sizeof p->b);
	memcpy(p->b + p->n, s, n);
	p->n += n;
}

static void ops(pk *p, const char *s)
{
	raw(p, s, strlen(s));
}

/* A literal opcode string, NUL bytes included. */
#define op(p, lit) raw((p), (lit), sizeof(lit) - 1)

static void str(pk *p, const char *s)
{
	unsigned char h[5] = { 'X', (unsigned char)strlen(s), 0, 0, 0 };
	raw(p, h, 5);
	raw(p, s, strlen(s));
}

static void i32(pk *p, int v)
{
	unsigned char h[5] = { 'J', (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
		                   (unsigned char)(v >> 24) };
	raw(p, h, 5);
}

static void tup(pk *p, const int *v, int n)
{
	op(p, "(");
	for (int i = 0; i < n; i++)
		i32(p, v[i]);
	op(p, "t");
}

static void proto(pk *p)
{
	p->n = 0;
	raw(p, "\x80\x02", 2);
}

/* _rebuild_tensor_v2((storage, cls, key, cpu, numel), offset, size, stride, False, OrderedDict()) */
static void tensor(pk *p, const char *cls, const char *key, int numel, int offset, const int *size, const int *stride,
                   int nd)
{
	op(p, "ctorch._utils\n_rebuild_tensor_v2\n((");
	str(p, "storage");
	op(p, "ctorch\n");
	ops(p, cls);
	op(p, "\n");
	str(p, key);
	str(p, "cpu");
	i32(p, numel);
	op(p, "tQ");
	i32(p, offset);
	tup(p, size, nd);
	tup(p, stride, nd);
	raw(p, "\x89", 1);
	op(p, "ccollections\nOrderedDict\n)RtR");
}

static const char *const keys[] = { "0", "1" };
static const unsigned long long sizes[] = { 24, 8 }; /* six float32, one int64 */

static int parse(ptfile **f, const pk *p)
{
	err_clear();
	return ptfile_parse(f, "t.pt", p->b, p->n, keys, sizes, 2);
}

static void refused(const pk *p, const char *why)
{
	ptfile *f = NULL;
	assert_int_equal(parse(&f, p), FERRY_ECORRUPT);
	assert_null(f);
	if (!strstr(err_message(), why) || !strstr(err_message(), "t.pt: "))
		fail_msg("message '%s' lacks '%s'", err_message(), why);
}

static void test_single_tensor(void **state)
{
	(void)state;
	pk p;
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 2, 3 }, (int[]){ 3, 1 }, 2);
	op(&p, ".");
	ptfile *f = NULL;
	assert_int_equal(parse(&f, &p), 0);
	assert_int_equal(f->n, 1);
	const pt_tensor *t = &f->t[0];
	assert_string_equal(t->name, "");
	assert_int_equal(t->dtype, PT_F32);
	assert_int_equal(t->ndim, 2);
	assert_int_equal(t->count, 6);
	assert_true(t->contiguous);
	ptfile_free(f);
	ptfile_free(NULL);
}

static void test_views(void **state)
{
	(void)state;
	pk p;
	ptfile *f = NULL;
	/* the transpose of a 2x3: not contiguous, reaches element 5 */
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 3, 2 }, (int[]){ 1, 3 }, 2);
	op(&p, ".");
	assert_int_equal(parse(&f, &p), 0);
	assert_false(f->t[0].contiguous);
	ptfile_free(f);
	/* a 0-d scalar at offset 5 */
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 5, NULL, NULL, 0);
	op(&p, ".");
	assert_int_equal(parse(&f, &p), 0);
	assert_int_equal(f->t[0].ndim, 0);
	assert_int_equal(f->t[0].count, 1);
	assert_int_equal(f->t[0].offset, 5);
	ptfile_free(f);
	/* an empty tensor reaches nothing, whatever its offset */
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 6, (int[]){ 0, 4 }, (int[]){ 4, 1 }, 2);
	op(&p, ".");
	assert_int_equal(parse(&f, &p), 0);
	assert_int_equal(f->t[0].count, 0);
	ptfile_free(f);
}

static void test_view_past_storage(void **state)
{
	(void)state;
	pk p;
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 1, (int[]){ 2, 3 }, (int[]){ 3, 1 }, 2);
	op(&p, ".");
	refused(&p, "a view reaching storage element 6 of a storage of 6");
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 2, 2 }, (int[]){ 0x7fffffff, 1 }, 2);
	op(&p, ".");
	refused(&p, "a view reaching storage element");
	proto(&p); /* strides whose reach overflows 64 bits */
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 0x7fffffff, 0x7fffffff, 0x7fffffff },
	       (int[]){ 0x7fffffff, 0x7fffffff, 0x7fffffff }, 3);
	op(&p, ".");
	refused(&p, "overflow");
	proto(&p); /* a negative stride */
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 2 }, (int[]){ -1 }, 1);
	op(&p, ".");
	refused(&p, "non-negative integers");
	proto(&p); /* more elements promised than the archive holds */
	tensor(&p, "FloatStorage", "0", 7, 0, (int[]){ 2 }, (int[]){ 1 }, 1);
	op(&p, ".");
	refused(&p, "7 float32 elements promised, the archive holds 24 bytes");
	proto(&p); /* a storage the archive does not have */
	tensor(&p, "FloatStorage", "9", 6, 0, (int[]){ 2 }, (int[]){ 1 }, 1);
	op(&p, ".");
	refused(&p, "storage '9' is not in the archive");
}

static void test_globals_refused(void **state)
{
	(void)state;
	pk p;
	proto(&p);
	op(&p, "cos\nsystem\n");
	str(&p, "true");
	op(&p, "\x85R.");
	refused(&p, "global os.system is not allowed");
	proto(&p); /* the protocol 4 spelling */
	str(&p, "builtins");
	str(&p, "eval");
	op(&p, "\x93");
	refused(&p, "global builtins.eval is not allowed");
	proto(&p);
	op(&p, "ctorch\nload\n");
	refused(&p, "global torch.load is not allowed");
	proto(&p); /* an allowed storage class used as a function */
	op(&p, "ctorch\nFloatStorage\n)R.");
	refused(&p, "a storage type called as a function");
	proto(&p); /* OrderedDict with arguments (it would run their iteration) */
	op(&p, "ccollections\nOrderedDict\n");
	str(&p, "x");
	op(&p, "\x85R.");
	refused(&p, "OrderedDict called with arguments");
	proto(&p); /* persistent ids other than storages */
	str(&p, "file");
	op(&p, "\x85Q.");
	refused(&p, "persistent id");
}

static void test_opcodes_refused(void **state)
{
	(void)state;
	pk p;
	proto(&p);
	op(&p, "K\x01\xff.");
	refused(&p, "opcode 0xff");
	proto(&p);
	op(&p, "i"); /* INST: constructs a class by name */
	refused(&p, "opcode 0x69");
	proto(&p);
	op(&p, "N"); /* no STOP */
	refused(&p, "no STOP");
	proto(&p);
	op(&p, "X\xff\xff\x00\x00" "ab"); /* a string longer than the pickle */
	refused(&p, "truncated");
	proto(&p);
	op(&p, "h\x07."); /* memo fetch of nothing */
	refused(&p, "memo fetch");
	proto(&p);
	op(&p, "Nr\xff\xff\xff\xff."); /* a memo index of 4 G */
	refused(&p, "memo index");
	proto(&p);
	op(&p, "NN."); /* STOP with two values */
	refused(&p, "STOP with other than one value");
	proto(&p);
	op(&p, "(N\x86."); /* TUPLE2 across a MARK */
	refused(&p, "across a MARK");
	proto(&p);
	op(&p, "Nt."); /* TUPLE without a MARK */
	refused(&p, "without a MARK");
	proto(&p);
	op(&p, "]Nb."); /* BUILD on a list */
	refused(&p, "BUILD");
	proto(&p);
	op(&p, "N.");
	refused(&p, "holds no tensor");
	p.n = 0;
	op(&p, "\x80\x09N.");
	refused(&p, "protocol");
}

static void test_state_dict(void **state)
{
	(void)state;
	pk p;
	proto(&p);
	op(&p, "ccollections\nOrderedDict\nq\x00)R(");
	str(&p, "conv.weight");
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 2, 3 }, (int[]){ 3, 1 }, 2);
	str(&p, "bn.num_batches_tracked");
	tensor(&p, "LongStorage", "1", 1, 0, NULL, NULL, 0);
	str(&p, "nested");
	op(&p, "}");
	str(&p, "list");
	op(&p, "]");
	tensor(&p, "FloatStorage", "0", 6, 2, (int[]){ 2 }, (int[]){ 1 }, 1);
	op(&p, "a");
	op(&p, "s");
	str(&p, "lr");
	raw(&p, "G\x3f\xb9\x99\x99\x99\x99\x99\x9a", 9);
	op(&p, "u");
	/* a state_dict's _metadata: BUILD on the OrderedDict, ignored */
	op(&p, "}");
	str(&p, "_metadata");
	op(&p, "h\x00)R(");
	str(&p, "");
	op(&p, "}");
	str(&p, "version");
	op(&p, "K\x01sus");
	op(&p, "b.");
	ptfile *f = NULL;
	assert_int_equal(parse(&f, &p), 0);
	assert_int_equal(f->n, 3);
	assert_string_equal(f->t[0].name, "conv.weight");
	assert_string_equal(f->t[1].name, "bn.num_batches_tracked");
	assert_int_equal(f->t[1].dtype, PT_I64);
	assert_int_equal(f->t[1].itemsize, 8);
	assert_string_equal(f->t[2].name, "nested.list.0");
	assert_int_equal(f->t[2].offset, 2);
	ptfile_free(f);
}

static void test_duplicates_and_nesting(void **state)
{
	(void)state;
	pk p;
	proto(&p);
	op(&p, "}(");
	str(&p, "w");
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 6 }, (int[]){ 1 }, 1);
	op(&p, "q\x00");
	str(&p, "w");
	op(&p, "h\x00u.");
	refused(&p, "the tensor name 'w' appears twice");
	/* 20 nested lists around a tensor */
	proto(&p);
	for (int i = 0; i < 20; i++)
		op(&p, "]");
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 6 }, (int[]){ 1 }, 1);
	for (int i = 0; i < 20; i++)
		op(&p, "a");
	op(&p, ".");
	refused(&p, "nested deeper than 16");
	/* a list that holds itself */
	proto(&p);
	op(&p, "]q\x01h\x01" "a.");
	refused(&p, "nested deeper than 16");
	/* shared lists that would multiply the work: 3000 × 3000 references */
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 6 }, (int[]){ 1 }, 1);
	op(&p, "q\x00" "0]q\x01(");
	for (int i = 0; i < 3000; i++)
		op(&p, "h\x00");
	op(&p, "e0]q\x02(");
	for (int i = 0; i < 3000; i++)
		op(&p, "h\x01");
	op(&p, "e.");
	refused(&p, "more than 65536 tensors");
}

/* Writes entries (name, bytes, len) into a zip at path, stored or deflated. */
static void write_zip(const char *path, const char *const *names, const void *const *data, const size_t *lens,
                      size_t n, int deflate)
{
	int zerr = 0;
	zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
	assert_non_null(z);
	for (size_t i = 0; i < n; i++) {
		zip_source_t *s = zip_source_buffer(z, data[i], lens[i], 0);
		assert_non_null(s);
		zip_int64_t idx = zip_file_add(z, names[i], s, ZIP_FL_OVERWRITE);
		assert_true(idx >= 0);
		assert_int_equal(zip_set_file_compression(z, (zip_uint64_t)idx, deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 0), 0);
	}
	assert_int_equal(zip_close(z), 0);
}

static void test_archive(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	char *path = util_path_join(dir, "t.pt");
	pk p;
	proto(&p);
	tensor(&p, "FloatStorage", "0", 6, 0, (int[]){ 3, 2 }, (int[]){ 1, 3 }, 2);
	op(&p, ".");
	float v[6] = { 0, 1, 2, 3, 4, 5 };
	const char *names[] = { "t/data.pkl", "t/data/0", "t/version" };
	const void *data[] = { p.b, v, "3\n" };
	size_t lens[] = { p.n, sizeof v, 2 };
	write_zip(path, names, data, lens, 3, 0);
	ptfile *f = NULL;
	assert_int_equal(ptfile_open(&f, path), 0);
	float out[6];
	assert_int_equal(ptfile_read((unsigned char *)out, f, &f->t[0], 0, 6), 0);
	const float want[6] = { 0, 3, 1, 4, 2, 5 }; /* the transpose, in C order */
	assert_memory_equal(out, want, sizeof want);
	assert_int_equal(ptfile_read((unsigned char *)out, f, &f->t[0], 3, 3), 0);
	assert_memory_equal(out, want + 3, 3 * sizeof(float));
	assert_int_equal(ptfile_read((unsigned char *)out, f, &f->t[0], 5, 2), FERRY_EUSAGE);
	ptfile_free(f);

	/* compressed storages are refused (torch.save stores them) */
	write_zip(path, names, data, lens, 3, 1);
	assert_int_equal(ptfile_open(&f, path), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "compressed"));
	/* no data.pkl */
	write_zip(path, names + 1, data + 1, lens + 1, 2, 0);
	assert_int_equal(ptfile_open(&f, path), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "data.pkl"));
	/* not a zip: the pre-1.6 format, or anything else */
	tu_write(dir, "t.pt", "\x80\x02\x8a\x0alegacy torch.save");
	assert_int_equal(ptfile_open(&f, path), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "not a torch.save zip archive"));
	/* missing */
	assert_int_equal(ptfile_open(&f, "/nonexistent/t.pt"), FERRY_EIO);
	assert_null(f);
	free(path);
	tu_rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_single_tensor),     cmocka_unit_test(test_views),
		cmocka_unit_test(test_view_past_storage), cmocka_unit_test(test_globals_refused),
		cmocka_unit_test(test_opcodes_refused),   cmocka_unit_test(test_state_dict),
		cmocka_unit_test(test_duplicates_and_nesting), cmocka_unit_test(test_archive),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
