/*
 * fuzz_pysrc — arbitrary bytes as a Python file: pysrc_parse, a few fixed queries with
 * each kind of predicate, the dotted chains (pysrc_chains), pysrc_first_error and
 * pysrc_fstring_quote_clash. Checks
 * that every capture and chain lies inside the source, that chains come in source order
 * and are dotted names, and that refused input leaves no result behind.
 */
#include "err.h"
#include "pysrc.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>

static const char *const queries[] = {
	"(call function: (attribute object: (_) @obj attribute: (identifier) @m)"
	" (#eq? @m \"cuda\")) @call",
	"(keyword_argument name: (identifier) @k value: (string (string_content) @v)"
	" (#any-of? @k \"backend\" \"device\") (#match? @v \"^(nccl|cuda(:[0-9]+)?)$\")) @kw",
	"((attribute object: (identifier) @a attribute: (identifier) @b)"
	" (#not-eq? @a @b) (#not-match? @b \"^_\") (#not-any-of? @a \"self\"))",
	"(assignment left: (identifier) @l right: (identifier) @r (#eq? @l @r))",
	"(ERROR) @e",
};
#define NQ (sizeof queries / sizeof *queries)

static pysrc_query *compiled[NQ];

typedef struct check {
	const char *text;
	size_t len;
} check;

static int on_match(const pysrc_capture *caps, size_t ncaps, void *payload)
{
	const check *c = payload;
	for (size_t i = 0; i < ncaps; i++) {
		const pysrc_capture *k = &caps[i];
		if (k->start_byte > k->end_byte || k->end_byte > c->len || k->text != c->text + k->start_byte)
			abort();
		if (k->line < 1 || k->col < 1 || k->end_line < k->line || !k->name || !k->type)
			abort();
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!compiled[0])
		for (size_t i = 0; i < NQ; i++)
			if (pysrc_query_new(&compiled[i], queries[i]) != 0)
				abort();
	pysrc *src = NULL;
	if (pysrc_parse(&src, "fuzz.py", (const char *)data, size) != 0) {
		if (src || err_code() != FERRY_ECORRUPT)
			abort();
		return 0;
	}
	check c;
	c.text = pysrc_text(src, &c.len);
	if (c.len != size)
		abort();
	for (size_t i = 0; i < NQ; i++)
		pysrc_query_run(src, compiled[i], on_match, &c);
	size_t n = 0;
	const pysrc_chain *ch = pysrc_chains(src, &n);
	for (size_t i = 0; i < n; i++) {
		const pysrc_chain *k = &ch[i];
		if (k->start_byte >= k->end_byte || k->end_byte > c.len || k->line < 1 || k->col < 1 ||
		    k->end_line < k->line || (i && k->start_byte <= ch[i - 1].start_byte))
			abort();
		/* identifiers joined by dots: no empty part, none starting with a digit */
		const char *d = k->dotted;
		for (int start = 1; *d; d++) {
			unsigned char x = (unsigned char)*d;
			if (x == '.') {
				if (start)
					abort();
				start = 1;
			} else if (!(x == '_' || (x < 128 && (start ? isalpha(x) : isalnum(x))))) {
				abort();
			} else {
				start = 0;
			}
		}
		if (d == k->dotted || d[-1] == '.')
			abort();
	}
	uint32_t line = 0, col = 0;
	if (pysrc_first_error(src, &line, &col) && (line < 1 || col < 1))
		abort();
	if (pysrc_fstring_quote_clash(src, &line, &col) && (line < 1 || col < 1))
		abort();
	pysrc_free(src);
	return 0;
}
