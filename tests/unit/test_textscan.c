/* Unit tests for textscan: the one-pass search agrees with a search per literal. */
#include "testutil.h"

#include "textscan.h"

static void test_basic(void **state)
{
	(void)state;
	const char *pats[] = { ".cuda(", "nccl", "[", "", "torch.cuda", "x" };
	textscan *ts = textscan_new(pats, 6);
	unsigned char hits[6] = { 0 };
	const char *text = "model = net.cuda()\nbackend = 'nccl'\n";
	assert_int_equal(textscan_run(ts, text, strlen(text), hits), 2);
	assert_int_equal(hits[0], 1);
	assert_int_equal(hits[1], 1);
	assert_int_equal(hits[2] + hits[3] + hits[4] + hits[5], 0);
	memset(hits, 0, sizeof hits);
	const char *edge = "a[torch.cudy";
	assert_int_equal(textscan_run(ts, edge, strlen(edge), hits), 1); /* "[" only */
	assert_int_equal(hits[2], 1);
	memset(hits, 0, sizeof hits);
	assert_int_equal(textscan_run(ts, "ncc", 3, hits), 0); /* a prefix at the end is no match */
	textscan_free(ts);
}

/* Random texts over a small alphabet: every pattern's verdict equals memmem's. */
static void test_agrees_with_memmem(void **state)
{
	(void)state;
	srand(42);
	char *pats[40];
	for (int i = 0; i < 40; i++) {
		int n = 1 + rand() % 5;
		pats[i] = xmalloc((size_t)n + 1);
		for (int k = 0; k < n; k++)
			pats[i][k] = "abc.(\xe4"[rand() % 6];
		pats[i][n] = '\0';
	}
	textscan *ts = textscan_new((const char *const *)pats, 40);
	for (int round = 0; round < 500; round++) {
		char text[64];
		size_t len = (size_t)(rand() % 63);
		for (size_t k = 0; k < len; k++)
			text[k] = "abc.(\xe4\n"[rand() % 7];
		unsigned char hits[40] = { 0 };
		size_t found = textscan_run(ts, text, len, hits), want = 0;
		for (int i = 0; i < 40; i++) {
			int expect = memmem(text, len, pats[i], strlen(pats[i])) != NULL;
			assert_int_equal(hits[i], expect);
			want += (size_t)expect;
		}
		assert_int_equal(found, want);
	}
	textscan_free(ts);
	for (int i = 0; i < 40; i++)
		free(pats[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_basic), cmocka_unit_test(test_agrees_with_memmem) };
	return cmocka_run_group_tests_name("textscan", tests, NULL, NULL);
}
