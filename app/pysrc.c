/* pysrc — see pysrc.h. */
#include "intl.h"
#include "pysrc.h"
#include "pyenc.h"
#include "err.h"
#include "util.h"

#include <errno.h>
#include <locale.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <tree_sitter/api.h>

const TSLanguage *tree_sitter_python(void);

/* One capture of a remembered run: a pysrc_capture without the borrowed strings that
 * depend on the query object. */
typedef struct ccap {
	const char *type;  /* static grammar string */
	uint32_t index;    /* capture id in the query */
	uint32_t start_byte, end_byte, line, col, end_line, end_col;
} ccap;

/* The matches of one query over this file, kept so that the same query text run again
 * (checks share helper queries) replays them instead of walking the tree. Immutable once
 * linked into the list. */
typedef struct cached_run {
	struct cached_run *next;
	char *source;       /* the query text, compared in full */
	size_t source_len;
	uint64_t hash;
	ccap *caps;         /* every capture of every match, in order */
	uint32_t *ends;     /* ends[m]: index in caps after match m */
	size_t nmatches;
} cached_run;

struct pysrc {
	char *path;   /* as given, for messages */
	char *text;   /* copy of the source, NUL-terminated (the NUL is not part of len) */
	size_t len;   /* bytes of text */
	TSTree *tree; /* owned; deleted by pysrc_free */
	pthread_mutex_t lock;  /* guards runs and cache_bytes */
	cached_run *runs;      /* newest first; owned */
	size_t cache_bytes;    /* memory held by runs */
	bool chains_done;      /* pysrc_chains worked out (guarded by lock) */
	pysrc_chain *chains;   /* its result; owned */
	char *chain_text;      /* their dotted names, one buffer; owned */
	size_t nchains;
};

/* Remembered matches per file stay below sixteen times the file's size (plus a little).
 * Every query of a full assessment together captures about 8 bytes of remembered matches
 * per byte of real code (diffusers: 9 million captures of 40 bytes for 45 MB of Python);
 * the budget is twice that, so that every query a run asks of a file is answered by one
 * walk of its tree. At four times the size, a third of the runs were not remembered and
 * the union was walked again for every check that asked: a quarter more CPU in all. The
 * tree itself takes about as much as the matches, and both go when the file is done. */
#define PYSRC_CACHE_BYTES(len) (16 * (len) + 65536)
/* A query remembered on the chance that it is asked for (PYSRC_WANT_SPARE) may take an
 * eighth of that: a handful of try statements, not every call of the file. */
#define PYSRC_CACHE_SPARE_BYTES(len) (2 * (len) + 8192)

/* Counts for pysrc_walk_stats, over the whole process. */
static atomic_size_t stat_alone, stat_together, stat_replayed, stat_dropped;
static atomic_size_t stat_compiled, stat_compile_ns;

void pysrc_walk_stats(pysrc_walk_counts *out)
{
	out->alone = atomic_load(&stat_alone);
	out->together = atomic_load(&stat_together);
	out->replayed = atomic_load(&stat_replayed);
	out->dropped = atomic_load(&stat_dropped);
	out->compiled = atomic_load(&stat_compiled);
	out->compile_seconds = (double)atomic_load(&stat_compile_ns) / 1e9;
}

enum pred_op { PRED_EQ, PRED_MATCH, PRED_ANY_OF };

typedef struct pred {
	enum pred_op op;
	bool negate;        /* the #not- form */
	uint32_t cap;       /* capture tested */
	uint32_t cap2;      /* second capture of #eq? capture-vs-capture, else UINT32_MAX */
	const char *str;    /* #eq? literal; borrowed from the TSQuery */
	uint32_t str_len;
	regex_t *re;        /* #match? pattern, compiled once; owned */
	const char **list;  /* #any-of? literals; array owned, strings borrowed from the TSQuery */
	uint32_t *list_len;
	uint32_t nlist;
	bool required;      /* a positive #eq?/#any-of? on a capture every match has: the text
	                     * must contain one of its strings for the pattern to match */
} pred;

struct pysrc_query {
	TSQuery *ts;        /* owned */
	char *source;       /* the query text, the key of the per-file match cache */
	size_t source_len;
	uint64_t hash;
	char **cap_names;   /* NUL-terminated copies, indexed by capture id */
	uint32_t ncaps;
	pred **preds;       /* per pattern: array of predicates (NULL when none) */
	uint32_t *npreds;   /* per pattern */
	uint32_t npatterns;
};

/* PYSRC_MAX_BYTES: bigger files are generated code or data, and tree-sitter's offsets are
 * 32-bit anyway. */

/* ---- parsing ---------------------------------------------------------------------------- */

static TSParser *parser_new(void)
{
	TSParser *p = ts_parser_new();
	if (!p)
		abort();
	if (!ts_parser_set_language(p, tree_sitter_python()))
		abort(); /* grammar and runtime ABI disagree: a build problem, not user input */
	return p;
}

/* The calling thread's parser for pysrc_parse, created on first use and deleted when the
 * thread exits. */
static pthread_key_t parser_key;
static pthread_once_t parser_once = PTHREAD_ONCE_INIT;

static void parser_key_free(void *p) { ts_parser_delete(p); }
static void parser_key_make(void) { pthread_key_create(&parser_key, parser_key_free); }

static TSParser *thread_parser(void)
{
	pthread_once(&parser_once, parser_key_make);
	TSParser *p = pthread_getspecific(parser_key);
	if (!p) {
		p = parser_new();
		pthread_setspecific(parser_key, p);
	}
	return p;
}

/* Index of the first byte that makes text unacceptable (NUL or bad UTF-8), or len. */
static size_t first_bad_byte(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		if (c == 0)
			return i;
		if (c < 0x80) {
			i++;
			continue;
		}
		size_t n;
		if ((c & 0xE0) == 0xC0)
			n = 2;
		else if ((c & 0xF0) == 0xE0)
			n = 3;
		else if ((c & 0xF8) == 0xF0)
			n = 4;
		else
			return i;
		if (n > len - i || !util_utf8_valid(text + i, n))
			return i;
		i += n;
	}
	return len;
}

/* Moves the cursor past the current node's subtree: to its next sibling, or the next
 * sibling of the nearest ancestor that has one; false when the walk is over. */
static bool cursor_skip(TSTreeCursor *cur)
{
	while (!ts_tree_cursor_goto_next_sibling(cur))
		if (!ts_tree_cursor_goto_parent(cur))
			return false;
	return true;
}

/* tree-sitter-python (0.23.6; 0.25.0 has the same rules) has no starred item in a bare
 * expression list: `return None, *a` parses only because `*a` passes for an assignment
 * pattern, and `return None, *(None,) * len(b)` or `x = 1, *"ab"`, which Python 3.8+
 * accepts, is an ERROR. In each ERROR subtree, every `*` token that starts an item (first
 * in the subtree, or after `,`, `return`, `yield`, `=` or `in`) is blanked in copy;
 * returns how many were. */
static size_t blank_item_stars(TSNode error, char *copy)
{
	size_t n = 0;
	const char *prev = NULL;
	TSTreeCursor cur = ts_tree_cursor_new(error);
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&cur);
		if (ts_node_child_count(node) == 0) {
			const char *type = ts_node_type(node);
			if (strcmp(type, "*") == 0 && !ts_node_is_named(node) &&
			    (!prev || strcmp(prev, ",") == 0 || strcmp(prev, "return") == 0 ||
			     strcmp(prev, "yield") == 0 || strcmp(prev, "=") == 0 || strcmp(prev, "in") == 0)) {
				copy[ts_node_start_byte(node)] = ' ';
				n++;
			}
			prev = type;
		} else if (ts_tree_cursor_goto_first_child(&cur)) {
			continue;
		}
		if (!cursor_skip(&cur))
			break;
	}
	ts_tree_cursor_delete(&cur);
	return n;
}

/* When tree has errors, parses again with those stars blanked (same length, so every byte
 * offset and position holds; the item keeps its own node, without the list_splat around
 * it) and returns that tree if it has no error at all; otherwise returns tree. A real
 * syntax error stays one. Node texts always come from the file's own text. */
static TSTree *reparse_starred(TSParser *parser, const char *text, size_t len, TSTree *tree)
{
	TSNode root = ts_tree_root_node(tree);
	if (!ts_node_has_error(root))
		return tree;
	char *copy = xstrndup(text, len);
	size_t blanked = 0;
	TSTreeCursor cur = ts_tree_cursor_new(root);
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		if (ts_node_symbol(n) == (TSSymbol)-1) {
			blanked += blank_item_stars(n, copy);
		} else if (ts_node_has_error(n) && ts_tree_cursor_goto_first_child(&cur)) {
			continue;
		}
		if (!cursor_skip(&cur))
			break;
	}
	ts_tree_cursor_delete(&cur);
	TSTree *again = blanked ? ts_parser_parse_string(parser, NULL, copy, (uint32_t)len) : NULL;
	free(copy);
	if (!again)
		return tree;
	if (ts_node_has_error(ts_tree_root_node(again))) {
		ts_tree_delete(again);
		return tree;
	}
	ts_tree_delete(tree);
	return again;
}

/* Parses text into *out with parser. With owned non-NULL (text itself, NUL-terminated,
 * from malloc), the pysrc takes it instead of copying; it is freed on failure. */
static int parse_with(TSParser *parser, pysrc **out, const char *path, const char *text,
                      size_t len, char *owned)
{
	int rc = 0;
	pysrc *src = NULL;
	*out = NULL;
	if (len > PYSRC_MAX_BYTES) {
		rc = err_set(FERRY_ECORRUPT, _("%s: larger than %u MiB, not parsed"), path,
		             PYSRC_MAX_BYTES >> 20);
		goto out;
	}
	size_t bad = first_bad_byte(text, len);
	if (bad < len && text[bad]) {
		/* not UTF-8: a file that declares its encoding (PEP 263) is read as Python reads it */
		char *decoded = NULL, enc[32];
		size_t dlen = 0;
		int d = pyenc_decode(&decoded, &dlen, enc, path, text, len);
		if (d < 0) {
			rc = d;
			goto out;
		}
		if (d == 1) {
			free(owned);
			owned = decoded;
			text = decoded;
			len = dlen;
			if (len > PYSRC_MAX_BYTES) {
				rc = err_set(FERRY_ECORRUPT, _("%s: larger than %u MiB, not parsed"), path,
				             PYSRC_MAX_BYTES >> 20);
				goto out;
			}
			bad = first_bad_byte(text, len);
		}
	}
	if (bad < len) {
		rc = err_set(FERRY_ECORRUPT, _("%s: not UTF-8 text (%s at byte %zu)"), path,
		             text[bad] ? "invalid sequence" : "NUL", bad);
		goto out;
	}
	src = xcalloc(1, sizeof *src);
	pthread_mutex_init(&src->lock, NULL);
	src->path = xstrdup(path);
	src->text = owned ? owned : xstrndup(text, len);
	owned = NULL;
	src->len = len;
	src->tree = ts_parser_parse_string(parser, NULL, src->text, (uint32_t)len);
	if (!src->tree) {
		ts_parser_reset(parser);
		rc = err_set(FERRY_ECORRUPT, _("%s: tree-sitter could not parse the file"), path);
		goto out;
	}
	src->tree = reparse_starred(parser, src->text, len, src->tree);
	*out = src;
	src = NULL;
out:
	free(owned);
	pysrc_free(src);
	return rc;
}

int pysrc_parse(pysrc **out, const char *path, const char *text, size_t len)
{
	return parse_with(thread_parser(), out, path, text, len, NULL);
}

void pysrc_free(pysrc *src)
{
	if (!src)
		return;
	if (src->tree)
		ts_tree_delete(src->tree);
	for (cached_run *r = src->runs, *next; r; r = next) {
		next = r->next;
		free(r->source);
		free(r->caps);
		free(r->ends);
		free(r);
	}
	pthread_mutex_destroy(&src->lock);
	free(src->chains);
	free(src->chain_text);
	free(src->text);
	free(src->path);
	free(src);
}

const char *pysrc_path(const pysrc *src) { return src->path; }

const char *pysrc_text(const pysrc *src, size_t *len)
{
	if (len)
		*len = src->len;
	return src->text;
}

static bool node_is_error(TSNode n)
{
	return ts_node_is_missing(n) || ts_node_symbol(n) == (TSSymbol)-1;
}

/* Pre-order walk of src's tree, descending only into nodes `descend` accepts: 1 and the
 * 1-based line/col of the first node `hit` accepts, else 0. */
static int first_node(const pysrc *src, bool (*hit)(const pysrc *, TSNode), bool (*descend)(TSNode), uint32_t *line,
                      uint32_t *col)
{
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(src->tree));
	int found = 0;
	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		if (hit(src, n)) {
			TSPoint p = ts_node_start_point(n);
			uint32_t bom = p.row == 0 ? (uint32_t)util_utf8_bom(src->text, src->len) : 0;
			*line = p.row + 1;
			*col = (p.column > bom ? p.column - bom : 0) + 1; /* the mark is no column */
			found = 1;
			break;
		}
		if (descend(n) && ts_tree_cursor_goto_first_child(&cur))
			continue;
		while (!ts_tree_cursor_goto_next_sibling(&cur))
			if (!ts_tree_cursor_goto_parent(&cur))
				goto out;
	}
out:
	ts_tree_cursor_delete(&cur);
	return found;
}

static bool error_here(const pysrc *src, TSNode n)
{
	(void)src;
	return node_is_error(n);
}

int pysrc_first_error(const pysrc *src, uint32_t *line, uint32_t *col)
{
	uint32_t l = 1, c = 1;
	if (!ts_node_has_error(ts_tree_root_node(src->tree)))
		return 0;
	/* only subtrees containing an error are entered, so the first ERROR or MISSING node
	 * met is the earliest in the file; has_error with none of them should not happen, and
	 * reports the root */
	first_node(src, error_here, ts_node_has_error, &l, &c);
	if (line)
		*line = l;
	if (col)
		*col = c;
	return 1;
}

/* 1 when the f-string node n (a "string" with replacement fields) is delimited by a single
 * quote character that also appears inside one of its fields. */
static int fstring_clash(const pysrc *src, TSNode n)
{
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
	const char *t = src->text + a;
	size_t k = 0;
	int f = 0;
	while (a + k < b && strchr("rRbBuUfF", t[k]))
		f |= t[k++] == 'f' || t[k - 1] == 'F';
	if (!f || a + k >= b || (t[k] != '"' && t[k] != '\'') || (a + k + 2 < b && t[k + 1] == t[k] && t[k + 2] == t[k]))
		return 0; /* not an f-string, or triple-quoted */
	char q = t[k];
	for (uint32_t i = 0; i < ts_node_named_child_count(n); i++) {
		TSNode c = ts_node_named_child(n, i);
		if (strcmp(ts_node_type(c), "interpolation") != 0)
			continue;
		uint32_t s = ts_node_start_byte(c), e = ts_node_end_byte(c);
		if (memchr(src->text + s, q, e - s))
			return 1;
	}
	return 0;
}

static bool fstring_clash_here(const pysrc *src, TSNode n)
{
	return strcmp(ts_node_type(n), "string") == 0 && fstring_clash(src, n);
}

static bool not_string(TSNode n) { return strcmp(ts_node_type(n), "string") != 0; }

int pysrc_fstring_quote_clash(const pysrc *src, uint32_t *line, uint32_t *col)
{
	if (!memchr(src->text, '{', src->len))
		return 0;
	return first_node(src, fstring_clash_here, not_string, line, col);
}

/* ---- queries ---------------------------------------------------------------------------- */

static const char *query_error_kind(TSQueryError e)
{
	switch (e) {
	case TSQueryErrorSyntax: return "syntax";
	case TSQueryErrorNodeType: return _("node type");
	case TSQueryErrorField: return "field";
	case TSQueryErrorCapture: return "capture";
	case TSQueryErrorStructure: return "structure";
	case TSQueryErrorLanguage: return "language";
	default: return "unknown";
	}
}

/* #match? regexes are POSIX extended regexes over bytes: compiled and run in the C locale
 * whatever the user's. In a UTF-8 locale glibc first decodes every text it searches into
 * wide characters, which made a match four times slower, and the predicates of a union
 * walk test every condition and string of a file. Lua's patterns, which checks use on the
 * same texts, see bytes too. (locale_t)0 when the C locale cannot be made: the user's. */
static pthread_once_t byte_locale_once = PTHREAD_ONCE_INIT;
static locale_t byte_locale_c;
static void byte_locale_make(void) { byte_locale_c = newlocale(LC_ALL_MASK, "C", (locale_t)0); }

static locale_t use_byte_locale(void)
{
	pthread_once(&byte_locale_once, byte_locale_make);
	return byte_locale_c ? uselocale(byte_locale_c) : (locale_t)0;
}

static void end_byte_locale(locale_t previous)
{
	if (previous)
		uselocale(previous);
}

static bool regex_finds(const regex_t *re, const char *text, size_t len)
{
	regmatch_t span = {.rm_so = 0, .rm_eo = (regoff_t)len};
	locale_t previous = use_byte_locale();
	bool found = regexec(re, text, 1, &span, REG_STARTEND) == 0;
	end_byte_locale(previous);
	return found;
}

static void pred_done(pred *p)
{
	if (p->re) {
		regfree(p->re);
		free(p->re);
	}
	free(p->list);
	free(p->list_len);
}

void pysrc_query_free(pysrc_query *q)
{
	if (!q)
		return;
	for (uint32_t i = 0; i < q->npatterns && q->preds; i++) {
		for (uint32_t j = 0; j < q->npreds[i]; j++)
			pred_done(&q->preds[i][j]);
		free(q->preds[i]);
	}
	free(q->preds);
	free(q->npreds);
	for (uint32_t i = 0; i < q->ncaps && q->cap_names; i++)
		free(q->cap_names[i]);
	free(q->cap_names);
	free(q->source);
	if (q->ts)
		ts_query_delete(q->ts);
	free(q);
}

/* Refuses regexes that would make regcomp or regexec blow up: back-references (exponential
 * matching), quantifiers applied to quantified expressions ("a+++", "((a+)+)+": glibc's
 * automaton grows exponentially with their nesting) and counted repetitions whose product
 * is large (each is expanded into copies). Identifiers never need any of these. */
static const char *regex_unsafe(const char *re, size_t len)
{
	unsigned long product = 1;
	unsigned nested = 0;
	enum { ATOM, GROUP_END, QUANT } prev = ATOM;
	for (size_t i = 0; i < len; i++) {
		char c = re[i];
		if (c == '*' || c == '+' || c == '?' || c == '{') {
			if (prev != ATOM && ++nested > 3)
				return _("quantifiers nested too deeply");
			prev = QUANT;
			if (c != '{')
				continue;
			unsigned long bound = 0;
			for (i++; i < len && re[i] != '}'; i++) {
				if (re[i] < '0' || re[i] > '9')
					continue;
				unsigned long v = 0;
				while (i < len && re[i] >= '0' && re[i] <= '9' && v < 100000)
					v = v * 10 + (unsigned long)(re[i++] - '0');
				i--;
				if (v > bound)
					bound = v;
			}
			product *= bound ? bound : 1;
			if (product > 1000)
				return _("counted repetitions are too large");
			continue;
		}
		prev = c == ')' ? GROUP_END : ATOM;
		if (c == '\\') {
			if (i + 1 < len && re[i + 1] >= '1' && re[i + 1] <= '9')
				return _("back-references are not supported");
			i++;
		} else if (c == '[') {
			/* skip the bracket expression; a ']' right after '[' or '[^' is literal */
			size_t j = i + 1;
			if (j < len && re[j] == '^')
				j++;
			if (j < len && re[j] == ']')
				j++;
			while (j < len && re[j] != ']')
				j++;
			i = j;
		}
	}
	return NULL;
}

/* Builds one predicate from its steps (name first, then arguments, no Done step). */
static int pred_build(pred *p, const TSQuery *ts, const TSQueryPredicateStep *st, uint32_t n,
                      uint32_t pattern)
{
	uint32_t len;
	const char *name = ts_query_string_value_for_id(ts, st[0].value_id, &len);
	const TSQueryPredicateStep *arg = st + 1;
	uint32_t nargs = n - 1;
	memset(p, 0, sizeof *p);
	p->cap2 = UINT32_MAX;

	if (strcmp(name, "eq?") == 0 || strcmp(name, "not-eq?") == 0) {
		p->op = PRED_EQ;
	} else if (strcmp(name, "match?") == 0 || strcmp(name, "not-match?") == 0) {
		p->op = PRED_MATCH;
	} else if (strcmp(name, "any-of?") == 0 || strcmp(name, "not-any-of?") == 0) {
		p->op = PRED_ANY_OF;
	} else {
		return err_set(FERRY_EPLUGIN, _("query: unsupported predicate #%s in pattern %u"), name,
		               pattern + 1);
	}
	p->negate = strncmp(name, "not-", 4) == 0;

	if (nargs < 2 || arg[0].type != TSQueryPredicateStepTypeCapture)
		return err_set(FERRY_EPLUGIN,
		               _("query: #%s in pattern %u needs a capture and %s"), name, pattern + 1,
		               p->op == PRED_ANY_OF ? _("one or more strings") : _("one more argument"));
	p->cap = arg[0].value_id;

	switch (p->op) {
	case PRED_EQ:
		if (nargs != 2)
			return err_set(FERRY_EPLUGIN, _("query: #%s in pattern %u takes two arguments"),
			               name, pattern + 1);
		if (arg[1].type == TSQueryPredicateStepTypeCapture)
			p->cap2 = arg[1].value_id;
		else
			p->str = ts_query_string_value_for_id(ts, arg[1].value_id, &p->str_len);
		break;
	case PRED_MATCH: {
		if (nargs != 2 || arg[1].type != TSQueryPredicateStepTypeString)
			return err_set(FERRY_EPLUGIN,
			               _("query: #%s in pattern %u takes a capture and a regex string"), name,
			               pattern + 1);
		const char *re = ts_query_string_value_for_id(ts, arg[1].value_id, &len);
		if (memchr(re, '\0', len))
			return err_set(FERRY_EPLUGIN, _("query: regex in pattern %u contains NUL"),
			               pattern + 1);
		const char *why = regex_unsafe(re, len);
		if (why)
			return err_set(FERRY_EPLUGIN, _("query: regex \"%s\" in pattern %u: %s"), re,
			               pattern + 1, why);
		p->re = xmalloc(sizeof *p->re);
		locale_t previous = use_byte_locale();
		int rc = regcomp(p->re, re, REG_EXTENDED | REG_NOSUB);
		end_byte_locale(previous);
		if (rc != 0) {
			char msg[128];
			regerror(rc, p->re, msg, sizeof msg);
			free(p->re);
			p->re = NULL;
			return err_set(FERRY_EPLUGIN, _("query: bad regex \"%s\" in pattern %u: %s"), re,
			               pattern + 1, msg);
		}
		break;
	}
	case PRED_ANY_OF:
		p->nlist = nargs - 1;
		p->list = xcalloc(p->nlist, sizeof *p->list);
		p->list_len = xcalloc(p->nlist, sizeof *p->list_len);
		for (uint32_t i = 0; i < p->nlist; i++) {
			if (arg[i + 1].type != TSQueryPredicateStepTypeString)
				return err_set(FERRY_EPLUGIN,
				               _("query: #%s in pattern %u takes strings after the capture"),
				               name, pattern + 1);
			p->list[i] = ts_query_string_value_for_id(ts, arg[i + 1].value_id, &p->list_len[i]);
		}
		break;
	}
	TSQuantifier qn = ts_query_capture_quantifier_for_id(ts, pattern, p->cap);
	p->required = !p->negate && (qn == TSQuantifierOne || qn == TSQuantifierOneOrMore) &&
	              ((p->op == PRED_EQ && p->cap2 == UINT32_MAX) || p->op == PRED_ANY_OF);
	return 0;
}

/* A pre-pass over the query text that refuses what the tree-sitter 0.20 runtime cannot
 * handle: '*' applied to a pattern that can already match nothing ("(call)**",
 * "((a)? (b)?)*") sends ts_query_new into an endless loop, '?' applied to one ("(call)??",
 * "((call)*)?") makes it read out of bounds, '+' applied to one inside a node
 * ("(comparison_operator (identifier)*+)") loops, and deep nesting overflows its recursive
 * parser. Anything else, well-formed or not, is left to ts_query_new. */
typedef struct qscan {
	const char *s;
	size_t n, i;
	unsigned depth;
	bool in_alt;      /* scanning the branches of an alternation */
	bool last_real;   /* the last item scanned was a pattern (not a predicate, anchor...) */
	const char *bad;  /* why the query is refused, or NULL */
	size_t bad_off;
	unsigned nquant;  /* quantifiers (* ? +) seen */
	unsigned nalt;    /* alternation branches seen */
} qscan;

/* Limits that keep compilation fast: the runtime's analysis of a pattern grows with the
 * product of its quantified and alternative parts (200 optional siblings take minutes),
 * while real checks use a handful of each. */
#define QSCAN_MAX_DEPTH 128
#define QSCAN_MAX_LEN (32u * 1024)
#define QSCAN_MAX_QUANT 32
#define QSCAN_MAX_ALT 256

static void qs_skip_ws(qscan *q)
{
	while (q->i < q->n) {
		char c = q->s[q->i];
		if (c == ';') {
			while (q->i < q->n && q->s[q->i] != '\n')
				q->i++;
		} else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
			q->i++;
		} else {
			break;
		}
	}
}

/* The query language's identifiers (node types, fields, captures, predicates) start with
 * one of these, as the runtime scans them in the C locale... */
static bool qs_ident_start(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

/* ...and go on with these. */
static bool qs_ident_char(char c)
{
	return qs_ident_start(c) || c == '.' || c == '?' || c == '!';
}

static void qs_skip_ident(qscan *q)
{
	while (q->i < q->n && qs_ident_char(q->s[q->i]))
		q->i++;
}

static void qs_skip_string(qscan *q)
{
	for (q->i++; q->i < q->n && q->s[q->i] != '"'; q->i++)
		if (q->s[q->i] == '\\')
			q->i++;
	q->i++;
}

static void qs_seq(qscan *q, char close, bool *all_nullable, bool *any_real);

/* Scans one item with its quantifiers and captures. Returns false at a closing bracket or
 * the end. *nullable: whether the item can match no node (predicates, anchors and negated
 * fields count as nullable: they add nothing to a sequence). */
static bool qs_item(qscan *q, bool *nullable)
{
	qs_skip_ws(q);
	if (q->i >= q->n || q->bad)
		return false;
	char c = q->s[q->i];
	bool quant = true; /* quantifiers apply to it (a pattern, or a group of anything) */
	bool real = true;  /* it matches nodes: not a predicate, anchor or group of those */
	*nullable = false;
	if ((unsigned char)c >= 0x80) {
		/* the runtime's idea of a letter would depend on the locale */
		q->bad = _("non-ASCII character outside a string");
		q->bad_off = q->i;
		return false;
	} else if (c == ')' || c == ']') {
		return false;
	} else if (c == '(' || c == '[') {
		if (++q->depth > QSCAN_MAX_DEPTH) {
			q->bad = _("patterns nested too deeply");
			q->bad_off = q->i;
			return false;
		}
		q->i++;
		qs_skip_ws(q);
		size_t name = q->i;
		char next = q->i < q->n ? q->s[q->i] : '\0';
		bool was_alt = q->in_alt;
		if (next == '#' && c == '(' && was_alt) {
			/* the runtime asserts or crashes on these */
			q->bad = _("predicate inside an alternation");
			q->bad_off = name;
			return false;
		}
		q->in_alt = c == '[';
		if (c == '[') {
			/* alternation: nullable when any branch is; a pattern when one branch is */
			bool any = false, item_null, some_real = false;
			while (qs_item(q, &item_null)) {
				any |= item_null;
				some_real |= q->last_real;
				if (++q->nalt > QSCAN_MAX_ALT && !q->bad) {
					q->bad = _("too many alternatives (the limit is 256 branches per query)");
					q->bad_off = q->i;
				}
			}
			*nullable = any;
			real = some_real;
			if (q->i < q->n && q->s[q->i] == ']')
				q->i++;
		} else if (next == '(' || next == '[' || next == '"') {
			qs_seq(q, ')', nullable, &real); /* grouped sequence */
		} else {
			/* a node, or a predicate: "#name" (the runtime also takes a name ending in
			 * '?' or '!' without the '#', and crashes on some placements of that form) */
			bool ignored, ignored_real;
			if (next == '#')
				q->i++;
			qs_skip_ident(q);
			if (next != '#' && q->i > name && (q->s[q->i - 1] == '?' || q->s[q->i - 1] == '!')) {
				q->bad = _("predicate without '#'");
				q->bad_off = name;
				return false;
			}
			if (next == '#') {
				quant = real = false;
				*nullable = true;
			}
			qs_seq(q, ')', &ignored, &ignored_real);
		}
		q->in_alt = was_alt;
		q->depth--;
	} else if (c == '"') {
		qs_skip_string(q);
	} else if (c == '_') {
		q->i++; /* the wildcard is one character, whatever follows */
	} else if (c == '.') {
		q->i++; /* anchor */
		quant = real = false;
		*nullable = true;
	} else if (c == '!') {
		q->i++; /* negated field */
		qs_skip_ident(q);
		quant = real = false;
		*nullable = true;
	} else if (qs_ident_start(c)) {
		qs_skip_ident(q);
		qs_skip_ws(q);
		if (q->i < q->n && q->s[q->i] == ':') {
			q->i++; /* field: the item is its value, quantifiers included */
			qs_skip_ws(q);
			size_t value = q->i;
			if (qs_item(q, nullable) && !q->last_real && !q->bad) {
				q->bad = _("field without a pattern");
				q->bad_off = value;
			}
			q->last_real = true;
			return true;
		}
	} else {
		q->i++; /* '@' without a pattern, stray characters: ts_query_new reports them */
		quant = real = false;
		*nullable = true;
	}
	for (;;) {
		qs_skip_ws(q);
		if (q->i >= q->n)
			break;
		c = q->s[q->i];
		if (c == '*' || c == '?' || c == '+') {
			if (*nullable && quant && !q->bad) {
				q->bad = c == '*'   ? _("'*' after a pattern that can match nothing")
				         : c == '?' ? _("'?' after a pattern that can match nothing")
				                    : _("'+' after a pattern that can match nothing");
				q->bad_off = q->i;
			}
			if (c != '+')
				*nullable = true;
			if (++q->nquant > QSCAN_MAX_QUANT && !q->bad) {
				q->bad = _("too many quantifiers (the limit is 32 of * ? + per query)");
				q->bad_off = q->i;
			}
			q->i++;
		} else if (c == '@') {
			q->i++;
			qs_skip_ident(q);
		} else {
			break;
		}
	}
	q->last_real = real;
	return true;
}

/* Scans items up to close (or the end); *all_nullable when every item is nullable,
 * *any_real when one is a pattern. */
static void qs_seq(qscan *q, char close, bool *all_nullable, bool *any_real)
{
	bool all = true, item_null, real = false;
	for (;;) {
		while (qs_item(q, &item_null)) {
			all &= item_null;
			real |= q->last_real;
		}
		if (q->bad || q->i >= q->n)
			break;
		q->i++; /* the closing bracket, or a mismatched one ts_query_new will report */
		if (q->s[q->i - 1] == close)
			break;
	}
	*all_nullable = all;
	*any_real = real;
}

/* 1 when the pattern starting at off is a bare predicate: tree-sitter accepts "(node) @c
 * (#eq? @c ...)" at the top level as two patterns, the second matching every node with no
 * capture, which is never what the author meant. */
static int predicate_only(const char *source, size_t slen, uint32_t off)
{
	size_t i = off;
	while (i < slen && (source[i] == ' ' || source[i] == '\t' || source[i] == '\n' ||
	                    source[i] == '\r'))
		i++;
	if (i >= slen || source[i] != '(')
		return 0;
	for (i++; i < slen; i++) {
		if (source[i] == ';') {
			while (i < slen && source[i] != '\n')
				i++;
		} else if (source[i] != ' ' && source[i] != '\t' && source[i] != '\n' &&
		           source[i] != '\r') {
			if (source[i] == '#')
				return 1;
			size_t j = i;
			while (j < slen && qs_ident_char(source[j]))
				j++;
			return j > i && (source[j - 1] == '?' || source[j - 1] == '!');
		}
	}
	return 0;
}

/* Compiles source (slen bytes); queries longer than QSCAN_MAX_LEN are refused unless
 * combined (a union of queries that were each accepted alone). */
static int query_build(pysrc_query **out, const char *source, size_t slen, bool combined)
{
	int rc = 0;
	pysrc_query *q = xcalloc(1, sizeof *q);
	*out = NULL;
	if (slen > QSCAN_MAX_LEN && !combined) {
		rc = err_set(FERRY_EPLUGIN, _("query: too long (%zu bytes; the limit is %u)"), slen, QSCAN_MAX_LEN);
		goto out;
	}
	qscan scan = {.s = source, .n = slen};
	bool ignored, ignored_real;
	if (!combined) /* each part of a union was scanned alone */
		qs_seq(&scan, '\0', &ignored, &ignored_real);
	if (scan.bad) {
		rc = err_set(FERRY_EPLUGIN, _("query: %s at offset %zu"), scan.bad, scan.bad_off);
		goto out;
	}
	uint32_t eoff = 0;
	TSQueryError etype = TSQueryErrorNone;
	unsigned long long t0 = util_thread_cpu_ns();
	q->ts = ts_query_new(tree_sitter_python(), source, (uint32_t)slen, &eoff, &etype);
	atomic_fetch_add(&stat_compile_ns, (size_t)(util_thread_cpu_ns() - t0));
	atomic_fetch_add(&stat_compiled, 1);
	if (!q->ts) {
		rc = err_set(FERRY_EPLUGIN, _("query: %s error at offset %u"), query_error_kind(etype),
		             eoff);
		goto out;
	}

	q->source = xstrndup(source, slen);
	q->source_len = slen;
	q->hash = util_fnv1a(source, slen);

	q->ncaps = ts_query_capture_count(q->ts);
	q->cap_names = xcalloc(q->ncaps, sizeof *q->cap_names);
	for (uint32_t i = 0; i < q->ncaps; i++) {
		uint32_t len;
		const char *name = ts_query_capture_name_for_id(q->ts, i, &len);
		q->cap_names[i] = xstrndup(name, len);
	}

	q->npatterns = ts_query_pattern_count(q->ts);
	q->preds = xcalloc(q->npatterns, sizeof *q->preds);
	q->npreds = xcalloc(q->npatterns, sizeof *q->npreds);
	for (uint32_t pi = 0; pi < q->npatterns; pi++) {
		uint32_t nsteps;
		const TSQueryPredicateStep *st = ts_query_predicates_for_pattern(q->ts, pi, &nsteps);
		uint32_t count = 0;
		for (uint32_t i = 0; i < nsteps; i++)
			count += st[i].type == TSQueryPredicateStepTypeDone;
		if (!count)
			continue;
		if (predicate_only(source, slen, ts_query_start_byte_for_pattern(q->ts, pi))) {
			rc = err_set(FERRY_EPLUGIN,
			             _("query: predicate outside a pattern at offset %u (group them: "
			             "((node) @c (#eq? @c \"x\")))"),
			             ts_query_start_byte_for_pattern(q->ts, pi));
			goto out;
		}
		q->preds[pi] = xcalloc(count, sizeof **q->preds);
		for (uint32_t i = 0; i < nsteps;) {
			uint32_t j = i;
			while (st[j].type != TSQueryPredicateStepTypeDone)
				j++;
			if (j == i || st[i].type != TSQueryPredicateStepTypeString) {
				rc = err_set(FERRY_EPLUGIN, _("query: malformed predicate in pattern %u"),
				             pi + 1);
				goto out;
			}
			/* Counted before building so a half-built predicate is freed too. */
			q->npreds[pi]++;
			rc = pred_build(&q->preds[pi][q->npreds[pi] - 1], q->ts, st + i, j - i, pi);
			if (rc)
				goto out;
			i = j + 1;
		}
	}
	*out = q;
	q = NULL;
out:
	pysrc_query_free(q);
	return rc;
}

int pysrc_query_new(pysrc_query **out, const char *source)
{
	return query_build(out, source, strlen(source), false);
}

/* State of one pysrc_query_run: the captures of a match, reused across matches. */
typedef struct run_state {
	const pysrc *src;
	const pysrc_query *q;
	pysrc_capture *caps; /* grown as needed */
	size_t caps_cap;
} run_state;

static bool text_eq(const char *a, size_t alen, const char *b, size_t blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* One predicate over every node captured as p->cap (all must hold; none is vacuously true). */
static bool pred_holds(run_state *rs, const pred *p, const TSQueryMatch *m)
{
	const char *text = rs->src->text;
	for (uint16_t i = 0; i < m->capture_count; i++) {
		if (m->captures[i].index != p->cap)
			continue;
		TSNode n = m->captures[i].node;
		uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
		bool ok = false;
		switch (p->op) {
		case PRED_EQ:
			if (p->cap2 == UINT32_MAX) {
				ok = text_eq(text + s, e - s, p->str, p->str_len);
			} else {
				/* Compared with the first node of the other capture; absent is vacuous. */
				ok = true;
				for (uint16_t k = 0; k < m->capture_count; k++) {
					if (m->captures[k].index != p->cap2)
						continue;
					TSNode n2 = m->captures[k].node;
					uint32_t s2 = ts_node_start_byte(n2), e2 = ts_node_end_byte(n2);
					ok = text_eq(text + s, e - s, text + s2, e2 - s2);
					break;
				}
			}
			break;
		case PRED_MATCH:
			ok = regex_finds(p->re, text + s, e - s);
			break;
		case PRED_ANY_OF:
			for (uint32_t k = 0; k < p->nlist && !ok; k++)
				ok = text_eq(text + s, e - s, p->list[k], p->list_len[k]);
			break;
		}
		if (ok == p->negate)
			return false;
	}
	return true;
}

/* Every predicate of the match's pattern holds. */
static bool match_holds(run_state *rs, const TSQueryMatch *m)
{
	const pred *ps = rs->q->preds[m->pattern_index];
	for (uint32_t i = 0; i < rs->q->npreds[m->pattern_index]; i++)
		if (!pred_holds(rs, &ps[i], m))
			return false;
	return true;
}

/* 0 when some positive #eq?/#any-of? of every pattern names strings absent from the text,
 * so that no match is possible and the tree need not be walked. */
static bool patterns_may_match(const pysrc *src, const pysrc_query *q, uint32_t from, uint32_t to)
{
	for (uint32_t pi = from; pi < to; pi++) {
		bool possible = true;
		for (uint32_t k = 0; k < q->npreds[pi] && possible; k++) {
			const pred *p = &q->preds[pi][k];
			if (!p->required)
				continue;
			if (p->op == PRED_EQ) {
				possible = p->str_len == 0 || memmem(src->text, src->len, p->str, p->str_len);
			} else {
				possible = false;
				for (uint32_t i = 0; i < p->nlist && !possible; i++)
					possible = p->list_len[i] == 0 ||
					           memmem(src->text, src->len, p->list[i], p->list_len[i]);
			}
		}
		if (possible)
			return true;
	}
	return false;
}

static bool query_may_match(const pysrc *src, const pysrc_query *q)
{
	return patterns_may_match(src, q, 0, q->npatterns);
}

static const cached_run *cache_find(pysrc *src, const pysrc_query *q)
{
	pthread_mutex_lock(&src->lock);
	const cached_run *r = src->runs;
	while (r && !(r->hash == q->hash && r->source_len == q->source_len &&
	              memcmp(r->source, q->source, q->source_len) == 0))
		r = r->next;
	pthread_mutex_unlock(&src->lock);
	return r;
}

static int cache_replay(const pysrc *src, const pysrc_query *q, const cached_run *r,
                        run_state *rs, pysrc_match_cb cb, void *payload)
{
	size_t first = 0;
	for (size_t m = 0; m < r->nmatches; m++) {
		size_t n = r->ends[m] - first;
		if (n > rs->caps_cap) {
			rs->caps_cap = n * 2;
			rs->caps = xrealloc(rs->caps, rs->caps_cap * sizeof *rs->caps);
		}
		for (size_t i = 0; i < n; i++) {
			const ccap *k = &r->caps[first + i];
			pysrc_capture *c = &rs->caps[i];
			c->name = q->cap_names[k->index];
			c->type = k->type;
			c->text = src->text + k->start_byte;
			c->start_byte = k->start_byte;
			c->end_byte = k->end_byte;
			c->line = k->line;
			c->col = k->col;
			c->end_line = k->end_line;
			c->end_col = k->end_col;
		}
		first = r->ends[m];
		int rc = cb(rs->caps, n, payload);
		if (rc)
			return rc;
	}
	return 0;
}

/* Links a complete run into src's cache unless the budget is spent or another thread was
 * first; takes ownership of r either way. */
static void cache_add(pysrc *src, cached_run *r, size_t bytes)
{
	pthread_mutex_lock(&src->lock);
	bool fits = src->cache_bytes + bytes <= PYSRC_CACHE_BYTES(src->len), keep = fits;
	for (const cached_run *o = src->runs; o && keep; o = o->next)
		keep = !(o->hash == r->hash && o->source_len == r->source_len &&
		         memcmp(o->source, r->source, r->source_len) == 0);
	if (!fits)
		atomic_fetch_add(&stat_dropped, 1);
	if (keep) {
		r->next = src->runs;
		src->runs = r;
		src->cache_bytes += bytes;
	}
	pthread_mutex_unlock(&src->lock);
	if (!keep) {
		free(r->source);
		free(r->caps);
		free(r->ends);
		free(r);
	}
}

int pysrc_query_run(const pysrc *csrc, const pysrc_query *q, pysrc_match_cb cb, void *payload)
{
	/* The cache is invisible to callers: the source and its tree never change. */
	pysrc *src = (pysrc *)csrc;
	int rc = 0;
	run_state rs = {.src = src, .q = q};
	TSQueryCursor *cur = NULL;
	cached_run *rec = NULL;
	size_t caps_cap = 0, ends_cap = 0, ncaps = 0;

	const cached_run *hit = cache_find(src, q);
	if (hit) {
		atomic_fetch_add(&stat_replayed, 1);
		rc = cache_replay(src, q, hit, &rs, cb, payload);
		goto out;
	}
	if (!query_may_match(src, q))
		goto out;

	rec = xcalloc(1, sizeof *rec);
	size_t budget = PYSRC_CACHE_BYTES(src->len);
	atomic_fetch_add(&stat_alone, 1);
	cur = ts_query_cursor_new();
	ts_query_cursor_exec(cur, q->ts, ts_tree_root_node(src->tree));
	TSQueryMatch m;
	while (ts_query_cursor_next_match(cur, &m)) {
		if (!match_holds(&rs, &m))
			continue;
		if (m.capture_count > rs.caps_cap) {
			rs.caps_cap = m.capture_count * 2u;
			rs.caps = xrealloc(rs.caps, rs.caps_cap * sizeof *rs.caps);
		}
		if (rec && (ncaps + m.capture_count) * sizeof *rec->caps +
		                   (rec->nmatches + 1) * sizeof *rec->ends > budget) {
			free(rec->caps);
			free(rec->ends);
			free(rec);
			rec = NULL; /* too many matches to remember */
			atomic_fetch_add(&stat_dropped, 1);
		}
		if (rec && ncaps + m.capture_count > caps_cap) {
			caps_cap = (ncaps + m.capture_count) * 2;
			rec->caps = xrealloc(rec->caps, caps_cap * sizeof *rec->caps);
		}
		if (rec && rec->nmatches == ends_cap) {
			ends_cap = ends_cap ? ends_cap * 2 : 16;
			rec->ends = xrealloc(rec->ends, ends_cap * sizeof *rec->ends);
		}
		for (uint16_t i = 0; i < m.capture_count; i++) {
			TSNode n = m.captures[i].node;
			TSPoint a = ts_node_start_point(n), b = ts_node_end_point(n);
			pysrc_capture *c = &rs.caps[i];
			c->name = q->cap_names[m.captures[i].index];
			c->type = ts_node_type(n);
			c->start_byte = ts_node_start_byte(n);
			c->end_byte = ts_node_end_byte(n);
			c->text = src->text + c->start_byte;
			c->line = a.row + 1;
			c->col = a.column + 1;
			c->end_line = b.row + 1;
			c->end_col = b.column + 1;
			if (rec)
				rec->caps[ncaps++] = (ccap){c->type, m.captures[i].index, c->start_byte,
				                            c->end_byte, c->line, c->col, c->end_line, c->end_col};
		}
		if (rec)
			rec->ends[rec->nmatches++] = (uint32_t)ncaps;
		rc = cb(rs.caps, m.capture_count, payload);
		if (rc)
			break;
	}
	if (rec && !rc) {
		/* only complete runs are replayed; the query text is the key */
		rec->source = xstrndup(q->source, q->source_len);
		rec->source_len = q->source_len;
		rec->hash = q->hash;
		cache_add(src, rec, ncaps * sizeof *rec->caps + rec->nmatches * sizeof *rec->ends +
		                        q->source_len + sizeof *rec);
		rec = NULL;
	}
out:
	if (rec) {
		free(rec->caps);
		free(rec->ends);
		free(rec);
	}
	if (cur)
		ts_query_cursor_delete(cur);
	free(rs.caps);
	return rc;
}

/* ---- dotted attribute chains -------------------------------------------------------- */

/* The dotted name text[0..len) spells, appended to out with its NUL; false (out as it was)
 * when it is none: comments ("#" to the end of the line) and backslash-newlines are
 * dropped, then white space, and what is left must be identifiers joined by dots. */
static bool dotted_of(const char *text, size_t len, sbuf *out)
{
	size_t mark = out->len;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c == '#') {
			while (i + 1 < len && text[i + 1] != '\n')
				i++;
		} else if (c == '\\' && i + 1 < len && text[i + 1] == '\n') {
			i++;
		} else if (c == '\\' && i + 2 < len && text[i + 1] == '\r' && text[i + 2] == '\n') {
			i += 2;
		} else if (!(c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r')) {
			sbuf_addc(out, (char)c);
		}
	}
	const char *s = out->buf + mark;
	size_t n = out->len - mark;
	bool ok = n > 0;
	for (size_t i = 0; ok && i <= n; i++) {
		/* at the start of each part: an identifier up to the next dot or the end */
		if (!util_ident_start((unsigned char)s[i])) {
			ok = false;
			break;
		}
		while (i < n && util_ident_char((unsigned char)s[i]))
			i++;
		if (i < n && s[i] != '.')
			ok = false;
	}
	if (!ok) {
		out->len = mark;
		out->buf[mark] = '\0';
		return false;
	}
	sbuf_addc(out, '\0');
	return true;
}

const pysrc_chain *pysrc_chains(const pysrc *csrc, size_t *n)
{
	pysrc *src = (pysrc *)csrc;
	pthread_mutex_lock(&src->lock);
	bool done = src->chains_done;
	pthread_mutex_unlock(&src->lock);
	if (done) { /* immutable once done */
		*n = src->nchains;
		return src->chains;
	}
	TSSymbol attr = ts_language_symbol_for_name(tree_sitter_python(), "attribute", 9, true);
	pysrc_chain *v = NULL;
	size_t nv = 0, cap = 0;
	sbuf names;
	sbuf_init(&names);
	size_t *offs = NULL; /* where each chain's name starts in names (the buffer moves) */
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(src->tree));
	uint32_t taken = UINT32_MAX; /* start byte of the last chain kept: preorder never goes back */
	for (;;) {
		TSNode node = ts_tree_cursor_current_node(&cur);
		if (ts_node_symbol(node) == attr) {
			uint32_t a = ts_node_start_byte(node), b = ts_node_end_byte(node);
			size_t at = names.len;
			if (a != taken && dotted_of(src->text + a, b - a, &names)) {
				taken = a;
				if (nv == cap) {
					cap = cap ? cap * 2 : 64;
					v = xrealloc(v, cap * sizeof *v);
					offs = xrealloc(offs, cap * sizeof *offs);
				}
				TSPoint p = ts_node_start_point(node), q = ts_node_end_point(node);
				v[nv] = (pysrc_chain){a, b, p.row + 1, p.column + 1, q.row + 1, q.column + 1, NULL};
				offs[nv++] = at;
			}
		}
		if (ts_tree_cursor_goto_first_child(&cur))
			continue;
		if (!cursor_skip(&cur))
			break;
	}
	ts_tree_cursor_delete(&cur);
	char *text = sbuf_detach(&names);
	for (size_t i = 0; i < nv; i++)
		v[i].dotted = text + offs[i];
	free(offs);
	pthread_mutex_lock(&src->lock);
	if (src->chains_done) { /* another thread was first */
		free(v);
		free(text);
	} else {
		src->chains = v;
		src->chain_text = text;
		src->nchains = nv;
		src->chains_done = true;
	}
	*n = src->nchains;
	const pysrc_chain *c = src->chains;
	pthread_mutex_unlock(&src->lock);
	return c;
}

/* ---- parsing files, one or many in parallel ----------------------------------------------- */

/* ---- several queries in one walk -------------------------------------------------------- */

/* One query of a union: where its patterns are in the combined query and how the combined
 * capture ids map back to its own. */
typedef struct combo_part {
	char *source;       /* the part's text, the key of its cache entry */
	size_t source_len;
	uint64_t hash;
	uint32_t first, end; /* its patterns in the combined query */
	uint32_t *cap;      /* combined capture id -> the part's capture id */
} combo_part;

struct pysrc_combo {
	pysrc_query *all;   /* the parts' texts joined, compiled once */
	combo_part *parts;
	size_t nparts;
	uint32_t *owner;    /* per combined pattern: index of its part */
};

void pysrc_combo_free(pysrc_combo *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nparts; i++) {
		free(c->parts[i].source);
		free(c->parts[i].cap);
	}
	free(c->parts);
	free(c->owner);
	pysrc_query_free(c->all);
	free(c);
}

int pysrc_combo_new(pysrc_combo **out, const pysrc_query *const *qs, size_t n)
{
	*out = NULL;
	if (n == 0)
		return err_set(FERRY_EPLUGIN, _("query: %zu queries do not combine"), n);
	sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < n; i++) {
		sbuf_add(&b, qs[i]->source, qs[i]->source_len);
		sbuf_add(&b, "\n", 1); /* ends a trailing comment */
	}
	pysrc_combo *c = xcalloc(1, sizeof *c);
	int rc = query_build(&c->all, b.buf, b.len, true);
	sbuf_done(&b);
	if (rc) {
		free(c);
		return rc;
	}
	c->nparts = n;
	c->parts = xcalloc(n, sizeof *c->parts);
	c->owner = xcalloc(c->all->npatterns, sizeof *c->owner);
	uint32_t pi = 0;
	for (size_t i = 0; i < n; i++) {
		combo_part *part = &c->parts[i];
		part->source = xstrndup(qs[i]->source, qs[i]->source_len);
		part->source_len = qs[i]->source_len;
		part->hash = qs[i]->hash;
		part->first = pi;
		part->end = pi + qs[i]->npatterns;
		part->cap = xcalloc(c->all->ncaps ? c->all->ncaps : 1, sizeof *part->cap);
		for (uint32_t k = 0; k < c->all->ncaps; k++) {
			part->cap[k] = UINT32_MAX;
			for (uint32_t j = 0; j < qs[i]->ncaps; j++)
				if (strcmp(c->all->cap_names[k], qs[i]->cap_names[j]) == 0)
					part->cap[k] = j;
		}
		for (; pi < part->end && pi < c->all->npatterns; pi++)
			c->owner[pi] = (uint32_t)i;
	}
	if (pi != c->all->npatterns) { /* the parts did not stay apart: never expected */
		pysrc_combo_free(c);
		return err_set(FERRY_EPLUGIN, _("query: %zu queries do not combine"), n);
	}
	*out = c;
	return 0;
}

int pysrc_query_same(const pysrc_query *a, const pysrc_query *b)
{
	return a->hash == b->hash && a->source_len == b->source_len &&
	       memcmp(a->source, b->source, a->source_len) == 0;
}

int pysrc_query_cached(const pysrc *src, const pysrc_query *q)
{
	return cache_find((pysrc *)src, q) != NULL;
}

/* The matches of one part during a combined walk, remembered as its own run would be. */
typedef struct part_rec {
	cached_run *rec;    /* NULL: not wanted here, or over the budget */
	size_t budget;      /* the most its matches may take */
	size_t ncaps, caps_cap, ends_cap;
} part_rec;

static void part_rec_drop(part_rec *r)
{
	if (!r->rec)
		return;
	free(r->rec->caps);
	free(r->rec->ends);
	free(r->rec);
	r->rec = NULL;
}

void pysrc_combo_run(const pysrc *csrc, const pysrc_combo *c, const unsigned char *want)
{
	pysrc *src = (pysrc *)csrc;
	const pysrc_query *q = c->all;
	size_t budget = PYSRC_CACHE_BYTES(src->len);
	part_rec *recs = xcalloc(c->nparts, sizeof *recs);
	size_t wanted = 0, likely = 0;
	for (size_t i = 0; i < c->nparts; i++) {
		const combo_part *part = &c->parts[i];
		/* parts already remembered, or that cannot match this text, are left out (a run
		 * alone skips the latter without a walk) */
		bool known = false;
		pthread_mutex_lock(&src->lock);
		for (const cached_run *r = src->runs; r && !known; r = r->next)
			known = r->hash == part->hash && r->source_len == part->source_len &&
			        memcmp(r->source, part->source, part->source_len) == 0;
		pthread_mutex_unlock(&src->lock);
		if (!want[i] || known || !patterns_may_match(src, q, part->first, part->end))
			continue;
		recs[i].rec = xcalloc(1, sizeof *recs[i].rec);
		recs[i].budget = want[i] == PYSRC_WANT_LIKELY ? budget : PYSRC_CACHE_SPARE_BYTES(src->len);
		likely += want[i] == PYSRC_WANT_LIKELY;
		wanted++;
	}
	if (likely < 2) { /* one query is walked as well by its own run */
		for (size_t i = 0; i < c->nparts; i++)
			part_rec_drop(&recs[i]);
		free(recs);
		return;
	}
	run_state rs = {.src = src, .q = q};
	atomic_fetch_add(&stat_together, 1);
	TSQueryCursor *cur = ts_query_cursor_new();
	ts_query_cursor_exec(cur, q->ts, ts_tree_root_node(src->tree));
	TSQueryMatch m;
	while (wanted && ts_query_cursor_next_match(cur, &m)) {
		part_rec *pr = &recs[c->owner[m.pattern_index]];
		if (!pr->rec)
			continue;
		const combo_part *part = &c->parts[c->owner[m.pattern_index]];
		if (!match_holds(&rs, &m))
			continue;
		cached_run *rec = pr->rec;
		if ((pr->ncaps + m.capture_count) * sizeof *rec->caps + (rec->nmatches + 1) * sizeof *rec->ends >
		    pr->budget) {
			if (want[c->owner[m.pattern_index]] == PYSRC_WANT_LIKELY)
				atomic_fetch_add(&stat_dropped, 1); /* a spare part's drop is no loss */
			part_rec_drop(pr); /* too many matches to remember, as in a run alone */
			wanted--;
			continue;
		}
		if (pr->ncaps + m.capture_count > pr->caps_cap) {
			pr->caps_cap = (pr->ncaps + m.capture_count) * 2;
			rec->caps = xrealloc(rec->caps, pr->caps_cap * sizeof *rec->caps);
		}
		if (rec->nmatches == pr->ends_cap) {
			pr->ends_cap = pr->ends_cap ? pr->ends_cap * 2 : 16;
			rec->ends = xrealloc(rec->ends, pr->ends_cap * sizeof *rec->ends);
		}
		for (uint16_t i = 0; i < m.capture_count; i++) {
			TSNode n = m.captures[i].node;
			TSPoint a = ts_node_start_point(n), e = ts_node_end_point(n);
			rec->caps[pr->ncaps++] = (ccap){ts_node_type(n), part->cap[m.captures[i].index],
			                                ts_node_start_byte(n), ts_node_end_byte(n),
			                                a.row + 1, a.column + 1, e.row + 1, e.column + 1};
		}
		rec->ends[rec->nmatches++] = (uint32_t)pr->ncaps;
	}
	ts_query_cursor_delete(cur);
	/* the likely parts first: a spare one must not take the cache's room from them */
	for (size_t k = 0; k < 2 * c->nparts; k++) {
		size_t i = k % c->nparts;
		cached_run *rec = recs[i].rec;
		if (!rec || (k < c->nparts) != (want[i] == PYSRC_WANT_LIKELY))
			continue;
		const combo_part *part = &c->parts[i];
		rec->source = xstrndup(part->source, part->source_len);
		rec->source_len = part->source_len;
		rec->hash = part->hash;
		cache_add(src, rec, recs[i].ncaps * sizeof *rec->caps + rec->nmatches * sizeof *rec->ends +
		                        part->source_len + sizeof *rec);
	}
	free(recs);
}

/* "rel: reason" from the thread's error record, whose message names full. */
static char *reason_for(const char *rel, const char *full)
{
	const char *msg = err_message();
	size_t flen = strlen(full);
	if (strncmp(msg, full, flen) == 0 && strncmp(msg + flen, ": ", 2) == 0)
		msg += flen + 2;
	return xasprintf("%s: %s", rel, msg);
}

static void parse_file_with(TSParser *parser, pysrc **out, char **err, const char *root, const char *rel)
{
	*out = NULL;
	*err = NULL;
	char *full = root && *root ? util_path_join(root, rel) : xstrdup(rel);
	char *text = NULL;
	size_t len = 0;
	struct stat st;
	if (stat(full, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size > PYSRC_MAX_BYTES) {
		*err = xasprintf("%s: larger than %u MiB, not parsed", rel, PYSRC_MAX_BYTES >> 20);
		goto out;
	}
	if (util_read_file(&text, &len, full) != 0) {
		*err = reason_for(rel, full);
		goto out;
	}
	if (parse_with(parser, out, rel, text, len, text) != 0)
		*err = reason_for(rel, rel);
	text = NULL; /* taken by parse_with */
out:
	free(text);
	free(full);
}

void pysrc_parse_file(pysrc **out, char **err, const char *root, const char *rel)
{
	parse_file_with(thread_parser(), out, err, root, rel);
}

typedef struct pool {
	const char *root;
	const char *const *paths;
	size_t n;
	pysrc_parsed_cb done;
	void *payload;
	atomic_size_t next; /* next index to take */
} pool;

static void *pool_worker(void *arg)
{
	pool *pl = arg;
	TSParser *parser = parser_new();
	for (;;) {
		size_t i = atomic_fetch_add(&pl->next, 1);
		if (i >= pl->n)
			break;
		pysrc *src;
		char *err;
		parse_file_with(parser, &src, &err, pl->root, pl->paths[i]);
		pl->done(i, src, err, pl->payload);
	}
	ts_parser_delete(parser);
	return NULL;
}

void pysrc_parse_each(const char *root, const char *const *paths, size_t n, unsigned nthreads,
                      pysrc_parsed_cb done, void *payload)
{
	pool pl = {.root = root, .paths = paths, .n = n, .done = done, .payload = payload};
	atomic_init(&pl.next, 0);
	if (nthreads == 0) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = cores > 0 ? (unsigned)cores : 1;
	}
	if (nthreads > n)
		nthreads = n ? (unsigned)n : 1;
	if (nthreads > 64)
		nthreads = 64;
	/* The calling thread is one of the workers; threads that fail to start are just fewer. */
	pthread_t tids[64];
	unsigned started = 0;
	for (unsigned t = 1; t < nthreads; t++) {
		if (pthread_create(&tids[started], NULL, pool_worker, &pl) != 0)
			break;
		started++;
	}
	pool_worker(&pl);
	for (unsigned t = 0; t < started; t++)
		pthread_join(tids[t], NULL);
}

typedef struct keep_all {
	pysrc **out;
	char **errs;
} keep_all;

static void keep_one(size_t i, pysrc *src, char *err, void *payload)
{
	keep_all *k = payload;
	k->out[i] = src;
	k->errs[i] = err;
}

void pysrc_parse_many(pysrc **out, char **errs, const char *root, const char *const *paths,
                      size_t n, unsigned nthreads)
{
	keep_all k = {out, errs};
	for (size_t i = 0; i < n; i++) {
		out[i] = NULL;
		errs[i] = NULL;
	}
	pysrc_parse_each(root, paths, n, nthreads, keep_one, &k);
}
