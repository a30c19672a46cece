/* Unit tests for pysrc: parsing, queries with predicates, errors, parallel parsing. */
#include "testutil.h"

#include <locale.h>
#include <time.h>

#include "err.h"
#include "pysrc.h"

/* One recorded capture, its text copied. */
typedef struct rec {
	char name[32];
	char type[32];
	char text[128];
	uint32_t line, col, end_line, end_col, start_byte, end_byte;
} rec;

typedef struct recs {
	rec r[64];
	size_t n;        /* captures recorded */
	size_t matches;  /* callback calls */
	int stop_after;  /* return non-zero after this many matches (0 = never) */
} recs;

static int record(const pysrc_capture *caps, size_t ncaps, void *payload)
{
	recs *rs = payload;
	rs->matches++;
	for (size_t i = 0; i < ncaps && rs->n < 64; i++) {
		rec *r = &rs->r[rs->n++];
		snprintf(r->name, sizeof r->name, "%s", caps[i].name);
		snprintf(r->type, sizeof r->type, "%s", caps[i].type);
		size_t len = caps[i].end_byte - caps[i].start_byte;
		if (len >= sizeof r->text)
			len = sizeof r->text - 1;
		memcpy(r->text, caps[i].text, len);
		r->text[len] = '\0';
		r->line = caps[i].line;
		r->col = caps[i].col;
		r->end_line = caps[i].end_line;
		r->end_col = caps[i].end_col;
		r->start_byte = caps[i].start_byte;
		r->end_byte = caps[i].end_byte;
	}
	return rs->stop_after && (int)rs->matches >= rs->stop_after ? 7 : 0;
}

/* Parses text, runs query, records captures into *rs; returns the run's result. */
static int run_q(recs *rs, const char *text, const char *query)
{
	pysrc *src = NULL;
	pysrc_query *q = NULL;
	int stop = rs->stop_after;
	memset(rs, 0, sizeof *rs);
	rs->stop_after = stop;
	assert_int_equal(pysrc_parse(&src, "t.py", text, strlen(text)), 0);
	if (pysrc_query_new(&q, query) != 0)
		fail_msg("query refused: %s", err_message());
	int rc = pysrc_query_run(src, q, record, rs);
	pysrc_query_free(q);
	pysrc_free(src);
	return rc;
}

static void test_cuda_method(void **state)
{
	(void)state;
	recs rs = {0};
	const char *text = "import torch\nx = torch.zeros(3)\ny = x.cuda()\n";
	run_q(&rs, text,
	      "(call function: (attribute object: (_) @obj attribute: (identifier) @m)"
	      " (#eq? @m \"cuda\")) @call");
	assert_int_equal(rs.matches, 1);
	assert_int_equal(rs.n, 3);
	assert_string_equal(rs.r[0].name, "call");
	assert_string_equal(rs.r[0].type, "call");
	assert_string_equal(rs.r[0].text, "x.cuda()");
	assert_int_equal(rs.r[0].line, 3);
	assert_int_equal(rs.r[0].col, 5);
	assert_int_equal(rs.r[0].end_line, 3);
	assert_int_equal(rs.r[0].end_col, 13);
	assert_int_equal(rs.r[0].start_byte, 36);
	assert_string_equal(rs.r[1].name, "obj");
	assert_string_equal(rs.r[1].text, "x");
	assert_string_equal(rs.r[2].name, "m");
	assert_string_equal(rs.r[2].type, "identifier");
	assert_int_equal(rs.r[2].col, 7);
}

static void test_torch_cuda_call(void **state)
{
	(void)state;
	recs rs = {0};
	const char *text = "def f():\n    torch.cuda.synchronize()\n    torch.cpu.synchronize()\n";
	run_q(&rs, text,
	      "(call function: (attribute object: (attribute object: (identifier) @a"
	      " attribute: (identifier) @b) attribute: (identifier) @fn)"
	      " (#eq? @a \"torch\") (#eq? @b \"cuda\")) @call");
	assert_int_equal(rs.matches, 1);
	assert_string_equal(rs.r[0].text, "torch.cuda.synchronize()");
	assert_int_equal(rs.r[0].line, 2);
	assert_int_equal(rs.r[0].col, 5);
	assert_string_equal(rs.r[3].text, "synchronize");
}

static void test_keyword_backend(void **state)
{
	(void)state;
	recs rs = {0};
	const char *text = "import torch.distributed as dist\n"
	                   "dist.init_process_group(backend='nccl', rank=0)\n"
	                   "dist.init_process_group(backend=\"gloo\")\n";
	run_q(&rs, text,
	      "(keyword_argument name: (identifier) @k value: (string (string_content) @v)"
	      " (#eq? @k \"backend\") (#eq? @v \"nccl\")) @kw");
	assert_int_equal(rs.matches, 1);
	assert_string_equal(rs.r[0].text, "backend='nccl'");
	assert_int_equal(rs.r[0].line, 2);
	assert_int_equal(rs.r[0].col, 25);
	assert_string_equal(rs.r[2].text, "nccl");
	assert_int_equal(rs.r[2].col, 34);
}

static const char *preds_text = "a = foo\nb = bar\nc = baz\nd = d\n";

static void test_eq_not_eq(void **state)
{
	(void)state;
	recs rs = {0};
	run_q(&rs, preds_text, "(assignment right: (identifier) @r (#eq? @r \"bar\"))");
	assert_int_equal(rs.matches, 1);
	assert_string_equal(rs.r[0].text, "bar");
	run_q(&rs, preds_text, "(assignment right: (identifier) @r (#not-eq? @r \"bar\"))");
	assert_int_equal(rs.matches, 3);
	/* capture vs capture */
	run_q(&rs, preds_text, "(assignment left: (identifier) @l right: (identifier) @r (#eq? @l @r))");
	assert_int_equal(rs.matches, 1);
	assert_string_equal(rs.r[0].text, "d");
	assert_int_equal(rs.r[0].line, 4);
	run_q(&rs, preds_text,
	      "(assignment left: (identifier) @l right: (identifier) @r (#not-eq? @l @r))");
	assert_int_equal(rs.matches, 3);
}

static void test_match_not_match(void **state)
{
	(void)state;
	recs rs = {0};
	run_q(&rs, preds_text, "(assignment right: (identifier) @r (#match? @r \"^ba[rz]$\"))");
	assert_int_equal(rs.matches, 2);
	assert_string_equal(rs.r[0].text, "bar");
	assert_string_equal(rs.r[1].text, "baz");
	run_q(&rs, preds_text, "(assignment right: (identifier) @r (#not-match? @r \"^ba\"))");
	assert_int_equal(rs.matches, 2);
	assert_string_equal(rs.r[0].text, "foo");
	assert_string_equal(rs.r[1].text, "d");
	/* extended syntax: alternation and + without backslashes; anchors on the node only */
	run_q(&rs, "x = 'cuda:0'\ny = 'cpu'\nz = 'cudaa'\n",
	      "((string_content) @s (#match? @s \"^(cuda|npu)(:[0-9]+)?$\"))");
	assert_int_equal(rs.matches, 1);
	assert_string_equal(rs.r[0].text, "cuda:0");
}

static void test_any_of(void **state)
{
	(void)state;
	recs rs = {0};
	run_q(&rs, preds_text, "(assignment right: (identifier) @r (#any-of? @r \"foo\" \"baz\" \"q\"))");
	assert_int_equal(rs.matches, 2);
	assert_string_equal(rs.r[0].text, "foo");
	assert_string_equal(rs.r[1].text, "baz");
	run_q(&rs, preds_text, "(assignment right: (identifier) @r (#not-any-of? @r \"foo\" \"baz\"))");
	assert_int_equal(rs.matches, 2);
	assert_string_equal(rs.r[0].text, "bar");
	assert_string_equal(rs.r[1].text, "d");
}

static void test_comments_and_strings(void **state)
{
	(void)state;
	recs rs = {0};
	const char *text = "# x.cuda() in a comment\n"
	                   "s = 'x.cuda() in a string'\n"
	                   "t = \"\"\"torch.cuda.synchronize()\n  cuda\"\"\"\n"
	                   "u = f'{y}.cuda()'\n";
	run_q(&rs, text, "((identifier) @id (#eq? @id \"cuda\"))");
	assert_int_equal(rs.matches, 0);
	run_q(&rs, text, "(attribute attribute: (identifier) @a)");
	assert_int_equal(rs.matches, 0);
	/* only the interpolated name inside the f-string is code */
	run_q(&rs, text, "((identifier) @id (#match? @id \"^[xy]$\"))");
	assert_int_equal(rs.matches, 1);
	assert_string_equal(rs.r[0].text, "y");
	assert_int_equal(rs.r[0].line, 5);
	/* the comment is there as a node of its own */
	run_q(&rs, text, "(comment) @c");
	assert_int_equal(rs.matches, 1);
	assert_int_equal(rs.r[0].line, 1);
}

static void test_crlf_tabs(void **state)
{
	(void)state;
	recs rs = {0};
	const char *crlf = "import torch\r\nif True:\r\n    y = x.cuda()\r\n";
	run_q(&rs, crlf, "(call function: (attribute attribute: (identifier) @m) (#eq? @m \"cuda\")) @c");
	assert_int_equal(rs.matches, 1);
	assert_int_equal(rs.r[0].line, 3);
	assert_int_equal(rs.r[0].col, 9);
	assert_int_equal(rs.r[0].end_col, 17);
	assert_int_equal(rs.r[0].start_byte, 32);

	const char *tabs = "def f():\n\tif a:\n\t\tb.cuda()\n\treturn 1\n";
	run_q(&rs, tabs, "(call function: (attribute attribute: (identifier) @m)) @c");
	assert_int_equal(rs.matches, 1);
	assert_int_equal(rs.r[0].line, 3);
	assert_int_equal(rs.r[0].col, 3); /* columns count bytes: two tabs */
	assert_int_equal(rs.r[1].col, 5);

	pysrc *src = NULL;
	uint32_t line = 0, col = 0;
	assert_int_equal(pysrc_parse(&src, "t.py", tabs, strlen(tabs)), 0);
	assert_int_equal(pysrc_first_error(src, &line, &col), 0);
	pysrc_free(src);
	assert_int_equal(pysrc_parse(&src, "t.py", crlf, strlen(crlf)), 0);
	assert_int_equal(pysrc_first_error(src, &line, &col), 0);
	pysrc_free(src);
}

static void test_syntax_error(void **state)
{
	(void)state;
	pysrc *src = NULL;
	uint32_t line = 0, col = 0;
	const char *text = "import os\n\ndef f(:\n    return 1\n";
	assert_int_equal(pysrc_parse(&src, "bad.py", text, strlen(text)), 0);
	assert_int_equal(pysrc_first_error(src, &line, &col), 1);
	assert_int_equal(line, 3);
	assert_true(col >= 1 && col <= 7);
	pysrc_free(src);

	/* a missing token is reported too */
	text = "x = (1 + \ny = 2\n";
	assert_int_equal(pysrc_parse(&src, "bad.py", text, strlen(text)), 0);
	assert_int_equal(pysrc_first_error(src, &line, &col), 1);
	assert_int_equal(line, 1);
	pysrc_free(src);

	text = "a = 1\nb = 2\nc = )\n";
	assert_int_equal(pysrc_parse(&src, "bad.py", text, strlen(text)), 0);
	assert_int_equal(pysrc_first_error(src, &line, &col), 1);
	assert_int_equal(line, 3);
	assert_true(col >= 1 && col <= 5);
	pysrc_free(src);
}

/* An f-string whose replacement field holds its own quote parses (Python 3.12 takes it)
 * but ends the string on every earlier Python; the other quote, a triple-quoted f-string
 * or a plain string with braces do not clash. */
static void test_fstring_quote_clash(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int clash;
		uint32_t line;
	} cases[] = {
		{ "x = 1\ns = f\"{getattr(t, \"npu\", 0)} GB\"\n", 1, 2 },
		{ "s = f'{d[\"k\"]}'\n", 0, 0 },
		{ "s = f\"{d['k']}\"\n", 0, 0 },
		{ "s = f\"\"\"{d[\"k\"]}\"\"\"\n", 0, 0 },
		{ "s = \"{\\\"k\\\"}\"\n", 0, 0 },
		{ "s = rf'{x[\'a\']}'\n", 1, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		pysrc *src = NULL;
		uint32_t line = 0, col = 0;
		assert_int_equal(pysrc_parse(&src, "f.py", cases[i].text, strlen(cases[i].text)), 0);
		assert_int_equal(pysrc_fstring_quote_clash(src, &line, &col), cases[i].clash);
		if (cases[i].clash)
			assert_int_equal(line, cases[i].line);
		pysrc_free(src);
	}
}

/* Python 3.8+ unpacks in a bare return list; tree-sitter-python 0.23 fails on a starred
 * parenthesised operand followed by an operator. The shape is Megatron-LM's
 * transformer/cuda_graphs.py backward. */
static void test_starred_return(void **state)
{
	(void)state;
	pysrc *src = NULL;
	uint32_t line = 0, col = 0;
	const char *text = "def backward(ctx, a, b):\n"
	                   "    return None, None, *a, *(None,) * len(b)\n"
	                   "\n"
	                   "\n"
	                   "def g(x):\n"
	                   "    return x.cuda()\n";
	assert_int_equal(pysrc_parse(&src, "cg.py", text, strlen(text)), 0);
	assert_int_equal(pysrc_first_error(src, &line, &col), 0);
	pysrc_free(src);
	/* the tree is whole: both calls are found, with the file's own text */
	recs rs = {0};
	run_q(&rs, text, "(call) @c");
	assert_int_equal(rs.matches, 2);
	assert_string_equal(rs.r[0].text, "len(b)");
	assert_string_equal(rs.r[1].text, "x.cuda()");

	/* a real error near the same construct is still one */
	text = "def f(a):\n    return None, *(None,) * \n";
	assert_int_equal(pysrc_parse(&src, "bad.py", text, strlen(text)), 0);
	assert_int_equal(pysrc_first_error(src, &line, &col), 1);
	assert_int_equal(line, 2);
	pysrc_free(src);
}

static void test_refused_bytes(void **state)
{
	(void)state;
	pysrc *src = (pysrc *)1;
	const char latin1[] = "s = 'caf\xe9'\n";
	assert_int_equal(pysrc_parse(&src, "l1.py", latin1, sizeof latin1 - 1), FERRY_ECORRUPT);
	assert_null(src);
	assert_non_null(strstr(err_message(), "l1.py: not UTF-8 text"));
	assert_non_null(strstr(err_message(), "byte 8"));

	const char nul[] = "a = 1\n\0b = 2\n";
	assert_int_equal(pysrc_parse(&src, "nul.py", nul, sizeof nul - 1), FERRY_ECORRUPT);
	assert_non_null(strstr(err_message(), "nul.py: "));
	assert_non_null(strstr(err_message(), "byte 6"));

	const char trunc[] = "s = '\xe4\xb8'";
	assert_int_equal(pysrc_parse(&src, "tr.py", trunc, sizeof trunc - 1), FERRY_ECORRUPT);
	const char surrogate[] = "s = '\xed\xa0\x80'\n";
	assert_int_equal(pysrc_parse(&src, "sg.py", surrogate, sizeof surrogate - 1), FERRY_ECORRUPT);

	/* real UTF-8 is fine, and columns stay in bytes */
	recs rs = {0};
	run_q(&rs, "s = '中文'; x.cuda()\n", "(call) @c");
	assert_int_equal(rs.matches, 1);
	assert_int_equal(rs.r[0].col, 15);
}

static void test_empty_and_bom(void **state)
{
	(void)state;
	pysrc *src = NULL;
	size_t len = 99;
	assert_int_equal(pysrc_parse(&src, "empty.py", "", 0), 0);
	assert_string_equal(pysrc_path(src), "empty.py");
	assert_string_equal(pysrc_text(src, &len), "");
	assert_int_equal(len, 0);
	assert_int_equal(pysrc_first_error(src, NULL, NULL), 0);
	pysrc_query *q = NULL;
	assert_int_equal(pysrc_query_new(&q, "(identifier) @i"), 0);
	recs rs = {0};
	assert_int_equal(pysrc_query_run(src, q, record, &rs), 0);
	assert_int_equal(rs.matches, 0);
	pysrc_query_free(q);
	pysrc_free(src);

	const char *bom = "\xef\xbb\xbfimport torch\ntorch.cuda.init()\n";
	assert_int_equal(pysrc_parse(&src, "bom.py", bom, strlen(bom)), 0);
	assert_int_equal(pysrc_first_error(src, NULL, NULL), 0);
	pysrc_free(src);
	run_q(&rs, bom, "(import_statement) @i");
	assert_int_equal(rs.matches, 1);
	assert_int_equal(rs.r[0].line, 1);
	assert_int_equal(rs.r[0].col, 4); /* after the three BOM bytes */
	run_q(&rs, bom, "(call) @c");
	assert_int_equal(rs.r[0].line, 2);
	assert_int_equal(rs.r[0].col, 1);
}

static void test_stop_and_quantified(void **state)
{
	(void)state;
	recs rs = {.stop_after = 2};
	assert_int_equal(run_q(&rs, preds_text, "(identifier) @i"), 7);
	assert_int_equal(rs.matches, 2);
	rs.stop_after = 0;
	/* every node captured under the name must satisfy the predicate */
	run_q(&rs, "f(a, b)\ng(a, a)\n",
	      "(call arguments: (argument_list (identifier) @x (identifier) @x) (#eq? @x \"a\")) @c");
	assert_int_equal(rs.matches, 1);
	assert_string_equal(rs.r[0].text, "g(a, a)");
}

static void test_cache_and_prefilter(void **state)
{
	(void)state;
	const char *text = "import torch\nx.cuda()\ny.cuda(1)\nz.cpu()\n";
	const char *qs = "(call function: (attribute attribute: (identifier) @m) (#eq? @m \"cuda\")) @c";
	pysrc *src = NULL;
	pysrc_query *q1 = NULL, *q2 = NULL, *q3 = NULL;
	assert_int_equal(pysrc_parse(&src, "c.py", text, strlen(text)), 0);
	assert_int_equal(pysrc_query_new(&q1, qs), 0);
	assert_int_equal(pysrc_query_new(&q2, qs), 0);
	/* same patterns, other capture names: a different text, so its own run */
	assert_int_equal(pysrc_query_new(&q3, "(call function: (attribute attribute: (identifier) @meth)"
	                                      " (#eq? @meth \"cuda\")) @call"),
	                 0);
	recs a = {.stop_after = 1}, b = {0}, c = {0}, d = {0};
	/* a run stopped early is not remembered; later runs see every match */
	assert_int_equal(pysrc_query_run(src, q1, record, &a), 7);
	assert_int_equal(a.matches, 1);
	assert_int_equal(pysrc_query_run(src, q1, record, &b), 0);
	assert_int_equal(pysrc_query_run(src, q2, record, &c), 0);
	assert_int_equal(b.matches, 2);
	assert_int_equal(c.matches, 2);
	assert_int_equal(c.n, b.n);
	for (size_t i = 0; i < b.n; i++) {
		assert_string_equal(b.r[i].name, c.r[i].name);
		assert_string_equal(b.r[i].type, c.r[i].type);
		assert_string_equal(b.r[i].text, c.r[i].text);
		assert_int_equal(b.r[i].line, c.r[i].line);
		assert_int_equal(b.r[i].end_col, c.r[i].end_col);
	}
	assert_int_equal(pysrc_query_run(src, q3, record, &d), 0);
	assert_int_equal(d.matches, 2);
	assert_string_equal(d.r[0].name, "call");
	assert_string_equal(d.r[1].name, "meth");
	/* a replay can be stopped too */
	recs e = {.stop_after = 1};
	assert_int_equal(pysrc_query_run(src, q2, record, &e), 7);
	assert_int_equal(e.matches, 1);
	pysrc_query_free(q1);
	pysrc_query_free(q2);
	pysrc_query_free(q3);
	pysrc_free(src);

	/* the literal prefilter must not hide matches whose capture may be absent */
	recs f = {0};
	run_q(&f, "f()\n", "(call arguments: (argument_list (identifier)* @a) (#eq? @a \"cuda\")) @c");
	assert_int_equal(f.matches, 1);
	run_q(&f, "f()\n", "(call arguments: (argument_list (identifier) @a) (#eq? @a \"cuda\")) @c");
	assert_int_equal(f.matches, 0);
	/* one pattern ruled out, another still runs */
	run_q(&f, "f(x)\n", "((identifier) @a (#any-of? @a \"cuda\" \"npu\"))\n((identifier) @b (#eq? @b \"x\"))");
	assert_int_equal(f.matches, 1);
	assert_string_equal(f.r[0].name, "b");
}

/* A union walked once remembers for each part the matches its own run finds: same
 * captures under the part's names, same order, predicates applied per part. */
static void test_union(void **state)
{
	(void)state;
	const char *text = "import torch as t\nx = t.cuda.synchronize()\nif x == 'cuda':\n"
	                   "    y.cuda(1)\nfor i in r:\n    z.item()\n";
	const char *parts[] = {
		"(call function: (attribute object: (_) @obj attribute: (identifier) @m) (#eq? @m \"cuda\")) @call",
		"(attribute) @attr ; a trailing comment",
		"(comparison_operator (string) @s) @cmp\n(for_statement body: (block) @loop)",
		"((identifier) @obj (#match? @obj \"^[xz]$\"))",
		"((identifier) @m (#eq? @m \"absent_name\"))",
	};
	enum { N = sizeof parts / sizeof *parts };
	pysrc_query *q[N];
	for (size_t i = 0; i < N; i++)
		assert_int_equal(pysrc_query_new(&q[i], parts[i]), 0);
	recs alone[N];
	for (size_t i = 0; i < N; i++) {
		pysrc *src = NULL;
		assert_int_equal(pysrc_parse(&src, "u.py", text, strlen(text)), 0);
		memset(&alone[i], 0, sizeof alone[i]);
		assert_int_equal(pysrc_query_run(src, q[i], record, &alone[i]), 0);
		pysrc_free(src);
	}
	pysrc_combo *c = NULL;
	assert_int_equal(pysrc_combo_new(&c, (const pysrc_query *const *)q, N), 0);
	enum { L = PYSRC_WANT_LIKELY, S = PYSRC_WANT_SPARE, O = PYSRC_WANT_NONE };
	unsigned char want[N] = {L, L, L, L, L};
	pysrc *src = NULL;
	assert_int_equal(pysrc_parse(&src, "u.py", text, strlen(text)), 0);
	pysrc_combo_run(src, c, want);
	for (size_t i = 0; i < N; i++) {
		/* every part that can match is remembered; the last cannot, and walks alone */
		assert_int_equal(pysrc_query_cached(src, q[i]), i < N - 1);
		recs r = {0};
		assert_int_equal(pysrc_query_run(src, q[i], record, &r), 0);
		assert_int_equal(r.matches, alone[i].matches);
		assert_int_equal(r.n, alone[i].n);
		for (size_t k = 0; k < r.n; k++) {
			assert_string_equal(r.r[k].name, alone[i].r[k].name);
			assert_string_equal(r.r[k].type, alone[i].r[k].type);
			assert_string_equal(r.r[k].text, alone[i].r[k].text);
			assert_int_equal(r.r[k].start_byte, alone[i].r[k].start_byte);
			assert_int_equal(r.r[k].end_line, alone[i].r[k].end_line);
			assert_int_equal(r.r[k].end_col, alone[i].r[k].end_col);
		}
	}
	assert_true(alone[0].matches == 1 && alone[2].matches == 2 && alone[3].matches == 3);
	pysrc_free(src);

	/* parts not wanted are left alone; a single likely part is not worth a walk, however
	 * many spare ones come with it */
	assert_int_equal(pysrc_parse(&src, "u.py", text, strlen(text)), 0);
	unsigned char some[N] = {O, L, O, L, O};
	pysrc_combo_run(src, c, some);
	assert_false(pysrc_query_cached(src, q[0]));
	assert_true(pysrc_query_cached(src, q[1]) && pysrc_query_cached(src, q[3]));
	unsigned char one[N] = {L, S, S, S, S};
	pysrc_combo_run(src, c, one);
	assert_false(pysrc_query_cached(src, q[0]) || pysrc_query_cached(src, q[2]));
	pysrc_free(src);

	/* a spare part rides along with two likely ones and is remembered while its matches
	 * are few */
	assert_int_equal(pysrc_parse(&src, "u.py", text, strlen(text)), 0);
	unsigned char spare[N] = {L, O, S, L, O};
	pysrc_combo_run(src, c, spare);
	assert_true(pysrc_query_cached(src, q[0]) && pysrc_query_cached(src, q[2]) &&
	            pysrc_query_cached(src, q[3]));
	assert_false(pysrc_query_cached(src, q[1]));
	pysrc_free(src);
	pysrc_combo_free(c);
	for (size_t i = 0; i < N; i++) {
		assert_true(pysrc_query_same(q[i], q[i]));
		pysrc_query_free(q[i]);
	}
}

/* A part remembered on the chance it is asked for takes a small share of the cache: one
 * that captures every identifier of the file is dropped (and would walk alone if asked),
 * while the same query, likely to be asked, is remembered. */
static void test_union_spare_budget(void **state)
{
	(void)state;
	sbuf b;
	sbuf_init(&b);
	for (int i = 0; i < 2000; i++)
		sbuf_adds(&b, "a = b\n");
	pysrc_query *q[3];
	assert_int_equal(pysrc_query_new(&q[0], "(identifier) @id"), 0);
	assert_int_equal(pysrc_query_new(&q[1], "(module) @m"), 0);
	assert_int_equal(pysrc_query_new(&q[2], "(comment) @c"), 0);
	pysrc_combo *c = NULL;
	assert_int_equal(pysrc_combo_new(&c, (const pysrc_query *const *)q, 3), 0);
	pysrc *src = NULL;
	assert_int_equal(pysrc_parse(&src, "many.py", b.buf, b.len), 0);
	unsigned char spare_ids[3] = {PYSRC_WANT_SPARE, PYSRC_WANT_LIKELY, PYSRC_WANT_LIKELY};
	pysrc_combo_run(src, c, spare_ids);
	assert_false(pysrc_query_cached(src, q[0]));
	assert_true(pysrc_query_cached(src, q[1]) && pysrc_query_cached(src, q[2]));
	pysrc_free(src);
	assert_int_equal(pysrc_parse(&src, "many.py", b.buf, b.len), 0);
	unsigned char likely_ids[3] = {PYSRC_WANT_LIKELY, PYSRC_WANT_LIKELY, PYSRC_WANT_SPARE};
	pysrc_combo_run(src, c, likely_ids);
	assert_true(pysrc_query_cached(src, q[0]) && pysrc_query_cached(src, q[1]));
	pysrc_free(src);
	pysrc_combo_free(c);
	for (size_t i = 0; i < 3; i++)
		pysrc_query_free(q[i]);
	sbuf_done(&b);
}

/* #match? works on bytes whatever the locale: in a UTF-8 locale "." is still one byte, so
 * the two Chinese characters before "npu" are six of them. */
static void test_match_bytes_in_utf8_locale(void **state)
{
	(void)state;
	char *was = xstrdup(setlocale(LC_ALL, NULL));
	if (!setlocale(LC_ALL, "C.UTF-8")) {
		free(was);
		skip();
	}
	recs rs = {0};
	const char *text = "d = '\xe8\xae\xbe\xe5\xa4\x87npu'\n";
	run_q(&rs, text, "((string_content) @s (#match? @s \"^.{6}npu$\"))");
	assert_int_equal(rs.matches, 1);
	run_q(&rs, text, "((string_content) @s (#match? @s \"^.{2}npu$\"))");
	assert_int_equal(rs.matches, 0);
	setlocale(LC_ALL, was);
	free(was);
}

/* Queries whose compilation would take minutes are refused before the runtime sees them;
 * the limits leave room for any real check. */
static void test_costly_queries(void **state)
{
	(void)state;
	sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, "(module ");
	for (int i = 0; i < 200; i++)
		sbuf_adds(&b, "(_)? ");
	sbuf_adds(&b, ")");
	pysrc_query *q = (pysrc_query *)1;
	time_t t0 = time(NULL);
	assert_int_equal(pysrc_query_new(&q, b.buf), FERRY_EPLUGIN);
	assert_true(time(NULL) - t0 <= 1);
	assert_null(q);
	assert_non_null(strstr(err_message(), "too many quantifiers"));
	b.len = 0;
	sbuf_adds(&b, "(_ [");
	for (int i = 0; i < 300; i++)
		sbuf_adds(&b, "(identifier) ");
	sbuf_adds(&b, "])");
	assert_int_equal(pysrc_query_new(&q, b.buf), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "too many alternatives"));
	b.len = 0;
	while (b.len < 40000)
		sbuf_adds(&b, "(identifier) @i ");
	assert_int_equal(pysrc_query_new(&q, b.buf), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "too long"));
	/* at the limit it still compiles, quickly */
	b.len = 0;
	sbuf_adds(&b, "(module ");
	for (int i = 0; i < 32; i++)
		sbuf_adds(&b, "(_)? ");
	sbuf_adds(&b, ") @m");
	t0 = time(NULL);
	assert_int_equal(pysrc_query_new(&q, b.buf), 0);
	assert_true(time(NULL) - t0 <= 5);
	pysrc_query_free(q);
	sbuf_done(&b);
}

static void test_bad_queries(void **state)
{
	(void)state;
	pysrc_query *q = (pysrc_query *)1;
	assert_int_equal(pysrc_query_new(&q, "(call"), FERRY_EPLUGIN);
	assert_null(q);
	assert_non_null(strstr(err_message(), "query: syntax error at offset"));
	assert_int_equal(pysrc_query_new(&q, "(no_such_node) @x"), FERRY_EPLUGIN);
	assert_string_equal(err_message(), "query: node type error at offset 1");
	assert_int_equal(pysrc_query_new(&q, "(call nofield: (_))"), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "field error"));
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#eq? @j \"x\"))"), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "capture error"));

	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#frobnicate? @i \"x\"))"), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "#frobnicate?"));
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#set! foo \"x\"))"), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "#set!"));
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#eq? @i))"), FERRY_EPLUGIN);
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#eq? \"x\" @i))"), FERRY_EPLUGIN);
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i @i))"), FERRY_EPLUGIN);
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i \"(\"))"), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "bad regex"));
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i \"(a)\\\\1\"))"), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "back-references"));
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i \"(a{100}){100}\"))"),
	                 FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "too large"));
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i \"ab+++++c\"))"), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "nested too deeply"));
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i \"(((((a+)+)+)+)+)\"))"),
	                 FERRY_EPLUGIN);
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i \"^(a|b)+(c+)?_[a-z]*$\"))"), 0);
	pysrc_query_free(q);
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#match? @i \"^[{]x{2,30}[0-9]{1,3}\\\\{$\"))"), 0);
	pysrc_query_free(q);
	assert_int_equal(pysrc_query_new(&q, "((identifier) @i (#any-of? @i @i))"), FERRY_EPLUGIN);
	/* a later pattern's bad predicate fails the whole query, freeing earlier ones */
	assert_int_equal(pysrc_query_new(&q,
	                                 "((identifier) @i (#match? @i \"a\"))\n"
	                                 "((identifier) @j (#any-of? @j \"a\" \"b\") (#nope? @j))"),
	                 FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "#nope?"));
	/* a predicate outside the pattern's parentheses would match every node: refused */
	assert_int_equal(pysrc_query_new(&q, "(string_content) @s (#eq? @s \"cuda\")"), FERRY_EPLUGIN);
	assert_string_equal(err_message(), "query: predicate outside a pattern at offset 20 "
	                                   "(group them: ((node) @c (#eq? @c \"x\")))");
	assert_null(q);

	/* shapes the tree-sitter runtime loops on or recurses too deeply for are refused */
	const char *hang[] = {"(call)**", "((call)?)*", "(module [(call) (attribute)]* *)",
	                      "((call)? (identifier)? @x)*", "(call)*@x*", "(call)??",
	                      "((call)*)?", "_________???", "_??&", "(module name: (_)* ?)",
	                      "((call)? (#eq? @a \"x\"))*", "(comparison_operator (identifier)*@b+)",
	                      "((call)*)+"};
	for (size_t i = 0; i < sizeof hang / sizeof *hang; i++) {
		assert_int_equal(pysrc_query_new(&q, hang[i]), FERRY_EPLUGIN);
		assert_non_null(strstr(err_message(), "after a pattern that can match nothing"));
	}
	assert_int_equal(pysrc_query_new(&q, "((identifier) @x (#eq? @x \"é\"))"), 0);
	pysrc_query_free(q);
	assert_int_equal(pysrc_query_new(&q, "((identifier) @é)"), FERRY_EPLUGIN);
	assert_string_equal(err_message(), "query: non-ASCII character outside a string at offset 15");
	assert_int_equal(pysrc_query_new(&q, "((call) @c (eq? @c \"x\"))"), FERRY_EPLUGIN);
	assert_string_equal(err_message(), "query: predicate without '#' at offset 12");
	assert_int_equal(pysrc_query_new(&q, "(call function: (#eq? @a \"x\"))"), FERRY_EPLUGIN);
	assert_string_equal(err_message(), "query: field without a pattern at offset 16");
	assert_int_equal(pysrc_query_new(&q, "(call [(#eq? @a \"x\") (_) @a])"), FERRY_EPLUGIN);
	assert_string_equal(err_message(), "query: predicate inside an alternation at offset 8");
	sbuf deep;
	sbuf_init(&deep);
	for (int i = 0; i < 2000; i++)
		sbuf_adds(&deep, "(call ");
	assert_int_equal(pysrc_query_new(&q, deep.buf), FERRY_EPLUGIN);
	assert_non_null(strstr(err_message(), "nested too deeply"));
	sbuf_done(&deep);
	const char *fine[] = {"(call)+?", "(call)+*", "(module (_)* @x)",
	                      "(argument_list (identifier) @a . (identifier)* @b)",
	                      "((identifier) @i (#eq? @i \"x\"))*", "((call)? (identifier))*"};
	for (size_t i = 0; i < sizeof fine / sizeof *fine; i++) {
		if (pysrc_query_new(&q, fine[i]) != 0)
			fail_msg("%s refused: %s", fine[i], err_message());
		pysrc_query_free(q);
	}
	pysrc_query_free(NULL);
	pysrc_free(NULL);
}

/* The outermost dotted chains, as a check keeps them from `(attribute) @a`: per start byte
 * the outermost attribute that is a dotted name once comments, continuations and white
 * space are gone; calls, subscripts, literals and non-ASCII names break a chain. */
static void test_chains(void **state)
{
	(void)state;
	const char *text = "import torch\n"
	                   "torch.cuda.synchronize()\n"
	                   "x = a.b(c).d + self.w[0].t\n"
	                   "y = (torch  # the module\n"
	                   "     .cuda\n"
	                   "     .is_available)()\n"
	                   "z = torch.\\\n    npu\n"
	                   "s = 'x'.join(q) + f.\u00e9t\u00e9 + m.n.o\n";
	pysrc *src = NULL;
	assert_int_equal(pysrc_parse(&src, "t.py", text, strlen(text)), 0);
	size_t n = 0;
	const pysrc_chain *c = pysrc_chains(src, &n);
	const char *want[] = {"torch.cuda.synchronize", "a.b", "self.w", "torch.cuda.is_available",
	                      "torch.npu", "m.n.o"};
	assert_int_equal(n, sizeof want / sizeof *want);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(c[i].dotted, want[i]);
	assert_int_equal(c[0].line, 2);
	assert_int_equal(c[0].col, 1);
	assert_int_equal(c[3].line, 4);
	assert_int_equal(c[3].end_line, 6);
	assert_int_equal(c[3].col, 6);
	/* worked out once: the same array again */
	size_t n2 = 0;
	assert_ptr_equal(pysrc_chains(src, &n2), c);
	assert_int_equal(n2, n);
	pysrc_free(src);
	/* a file without attributes */
	assert_int_equal(pysrc_parse(&src, "e.py", "x = 1\n", 6), 0);
	pysrc_chains(src, &n);
	assert_int_equal(n, 0);
	pysrc_free(src);
}

static void test_parse_many(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	enum { N = 23 };
	const char *paths[N];
	char names[N][32];
	for (int i = 0; i < N - 3; i++) {
		snprintf(names[i], sizeof names[i], "pkg/m%02d.py", i);
		char *text = xasprintf("import torch\n%*sdef f%d():\n    return x.cuda(%d)\n", 0, "", i, i);
		tu_write(dir, names[i], text);
		free(text);
		paths[i] = names[i];
	}
	paths[N - 3] = "missing.py";
	tu_write(dir, "bin.py", "x = 1\n");
	char *bin = util_path_join(dir, "bin.py");
	FILE *f = fopen(bin, "wb");
	fwrite("ab\0cd", 1, 5, f);
	fclose(f);
	free(bin);
	paths[N - 2] = "bin.py";
	tu_write(dir, "sub/dir.py/x", "");
	paths[N - 1] = "sub/dir.py";

	pysrc_query *q = NULL;
	assert_int_equal(pysrc_query_new(&q, "(call (attribute attribute: (identifier) @m (#eq? @m \"cuda\"))"
	                                     " (argument_list (integer) @n))"),
	                 0);
	unsigned threads[] = {3, 1, 0};
	for (size_t t = 0; t < sizeof threads / sizeof *threads; t++) {
		pysrc *out[N];
		char *errs[N];
		pysrc_parse_many(out, errs, dir, paths, N, threads[t]);
		for (int i = 0; i < N - 3; i++) {
			assert_non_null(out[i]);
			assert_null(errs[i]);
			assert_string_equal(pysrc_path(out[i]), names[i]);
			recs rs = {0};
			memset(&rs, 0, sizeof rs);
			assert_int_equal(pysrc_query_run(out[i], q, record, &rs), 0);
			assert_int_equal(rs.matches, 1);
			assert_int_equal(atoi(rs.r[1].text), i);
			assert_int_equal(rs.r[1].line, 3);
		}
		assert_null(out[N - 3]);
		assert_non_null(errs[N - 3]);
		assert_true(util_starts_with(errs[N - 3], "missing.py: "));
		assert_null(strchr(errs[N - 3], '\n'));
		assert_null(out[N - 2]);
		assert_true(util_starts_with(errs[N - 2], "bin.py: not UTF-8 text"));
		assert_null(out[N - 1]);
		assert_true(util_starts_with(errs[N - 1], "sub/dir.py: "));
		for (int i = 0; i < N; i++) {
			pysrc_free(out[i]);
			free(errs[i]);
		}
	}
	pysrc_parse_many(NULL, NULL, dir, NULL, 0, 4);
	pysrc_query_free(q);
	tu_rmdir(dir);
	free(dir);
}

static void test_parse_many_huge(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp();
	char *path = util_path_join(dir, "big.py");
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	/* sparse: the size is over the limit without writing 33 MiB */
	assert_int_equal(fseeko(f, 33 * 1024 * 1024, SEEK_SET), 0);
	fputc('\n', f);
	fclose(f);
	const char *paths[] = {"big.py"};
	pysrc *out[1];
	char *errs[1];
	pysrc_parse_many(out, errs, dir, paths, 1, 2);
	assert_null(out[0]);
	assert_non_null(errs[0]);
	assert_string_equal(errs[0], "big.py: larger than 32 MiB, not parsed");
	free(errs[0]);
	free(path);
	tu_rmdir(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda_method),
		cmocka_unit_test(test_torch_cuda_call),
		cmocka_unit_test(test_keyword_backend),
		cmocka_unit_test(test_eq_not_eq),
		cmocka_unit_test(test_match_not_match),
		cmocka_unit_test(test_any_of),
		cmocka_unit_test(test_comments_and_strings),
		cmocka_unit_test(test_crlf_tabs),
		cmocka_unit_test(test_syntax_error),
		cmocka_unit_test(test_starred_return),
		cmocka_unit_test(test_refused_bytes),
		cmocka_unit_test(test_empty_and_bom),
		cmocka_unit_test(test_stop_and_quantified),
		cmocka_unit_test(test_cache_and_prefilter),
		cmocka_unit_test(test_union),
		cmocka_unit_test(test_union_spare_budget),
		cmocka_unit_test(test_match_bytes_in_utf8_locale),
		cmocka_unit_test(test_bad_queries),
		cmocka_unit_test(test_costly_queries),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_fstring_quote_clash),
		cmocka_unit_test(test_parse_many),
		cmocka_unit_test(test_parse_many_huge),
	};
	return cmocka_run_group_tests_name("pysrc", tests, NULL, NULL);
}
