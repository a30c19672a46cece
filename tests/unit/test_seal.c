/* Unit tests for seal: a copy and a file kept by reference ("ref:") that still hash as
 * recorded, then altered (one line naming the artifact, its file and both hashes; a full
 * check is not fooled by a kept hash, a quick one only while the copy is unchanged);
 * a missing file; a dump view with a file altered, one added, and its manifest changed. */
#include "testutil.h"

#include "err.h"
#include "seal.h"

static char *sha_of(const char *text)
{
	char *out = xmalloc(65);
	util_sha256_hex(out, text, strlen(text));
	return out;
}

/* A temporary engagement folder: artifacts/ and cache/ below dir. */
typedef struct fixture {
	char *dir, *art, *cache;
} fixture;

static int setup(void **state)
{
	fixture *f = xcalloc(1, sizeof *f);
	f->dir = tu_mkdtemp();
	f->art = util_path_join(f->dir, "artifacts");
	f->cache = util_path_join(f->dir, "cache");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	tu_rmdir(f->dir);
	free(f->dir);
	free(f->art);
	free(f->cache);
	free(f);
	return 0;
}

/* The check of r fails with code and a line holding needle. */
static void refused(const cJSON *r, const fixture *f, const char *cache, int code, const char *needle)
{
	assert_int_equal(seal_check_row(r, f->art, cache), code);
	const char *m = err_message();
	if (!strstr(m, needle))
		fail_msg("no '%s' in: %s", needle, m);
	assert_null(strchr(m, '\n'));
	err_clear();
}

static cJSON *row(long long id, const char *kind, const char *label, const char *path, const char *sha)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "id", (double)id);
	cJSON_AddStringToObject(r, "kind", kind);
	cJSON_AddStringToObject(r, "label", label);
	cJSON_AddStringToObject(r, "path", path);
	cJSON_AddStringToObject(r, "sha256", sha);
	return r;
}

static void test_copy_and_reference(void **state)
{
	fixture *f = *state;
	const char *text = "{\"metrics\":{\"throughput\":1000}}\n";
	char *sha = sha_of(text);
	tu_write(f->art, "bench/abc-npu.json", text);
	tu_write(f->dir, "big/model.onnx", text);
	cJSON *copy = row(2, "bench", "npu", "bench/abc-npu.json", sha);
	char *refpath = xasprintf("ref:%s/big/model.onnx", f->dir);
	cJSON *ref = row(3, "onnx", "", refpath, sha);
	assert_int_equal(seal_check_row(copy, f->art, NULL), 0);
	assert_int_equal(seal_check_row(copy, f->art, f->cache), 0); /* keeps the hash */
	assert_int_equal(seal_check_row(ref, f->art, f->cache), 0);

	tu_write(f->art, "bench/abc-npu.json", "{\"metrics\":{\"throughput\":2400}}\n");
	char *line = xasprintf("artifact 2 (bench, npu) no longer matches the SHA-256 recorded at ingest (recorded %.12s, "
	                       "now ", sha);
	refused(copy, f, f->cache, FERRY_ECORRUPT, line); /* a new change time: hashed again */
	refused(copy, f, f->cache, FERRY_ECORRUPT, "/bench/abc-npu.json; "); /* the file, after the reason */
	refused(copy, f, f->cache, FERRY_ECORRUPT, "ingesting the original file again");
	refused(copy, f, NULL, FERRY_ECORRUPT, line);

	tu_write(f->dir, "big/model.onnx", "changed");
	refused(ref, f, NULL, FERRY_ECORRUPT, "artifact 3 (onnx) no longer matches");
	refused(ref, f, NULL, FERRY_ECORRUPT, "/big/model.onnx; ");
	refused(ref, f, NULL, FERRY_ECORRUPT, "put the original file back");
	char *gone = util_path_join(f->dir, "big/model.onnx");
	unlink(gone);
	refused(ref, f, f->cache, FERRY_EIO, "/big/model.onnx cannot be read");
	free(gone);
	free(line);
	cJSON_Delete(copy);
	cJSON_Delete(ref);
	free(refpath);
	free(sha);
}

static void test_dump_view(void **state)
{
	fixture *f = *state;
	char *sa = sha_of("tensor a"), *sb = sha_of("tensor b");
	tu_write(f->art, "dump/abc-gpu/r0/a.npy", "tensor a");
	tu_write(f->art, "dump/abc-gpu/r0/b.npy", "tensor b");
	char *manifest = xasprintf("%s  r0/a.npy\n%s  r0/b.npy\n", sa, sb);
	tu_write(f->art, "dump/abc-gpu.sha256", manifest);
	char *sha = sha_of(manifest);
	cJSON *r = row(4, "dump", "gpu", "dump/abc-gpu", sha);
	assert_int_equal(seal_check_row(r, f->art, NULL), 0);

	tu_write(f->art, "dump/abc-gpu/r0/extra.npy", "x");
	refused(r, f, NULL, FERRY_ECORRUPT, "r0/extra.npy was not in the dump recorded at ingest");
	char *extra = util_path_join(f->art, "dump/abc-gpu/r0/extra.npy");
	unlink(extra);

	tu_write(f->art, "dump/abc-gpu/r0/b.npy", "tensor B");
	refused(r, f, f->cache, FERRY_ECORRUPT, "r0/b.npy; ");
	tu_write(f->art, "dump/abc-gpu/r0/b.npy", "tensor b");
	assert_int_equal(seal_check_row(r, f->art, f->cache), 0);
	assert_int_equal(seal_check_row(r, f->art, f->cache), 0); /* from the kept hashes */

	tu_write(f->art, "dump/abc-gpu.sha256", "");
	refused(r, f, NULL, FERRY_ECORRUPT, "abc-gpu.sha256; ");
	cJSON_Delete(r);
	free(extra);
	free(manifest);
	free(sha);
	free(sa);
	free(sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_copy_and_reference, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dump_view, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
