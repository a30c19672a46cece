/*
 * pysrc — Python sources through tree-sitter: parse a file once, run queries with
 * their predicates (#eq?, #match?, #any-of? and their #not- forms) evaluated here,
 * and parse many files in parallel.
 *
 * The only module that includes tree_sitter/api.h. A pysrc owns a copy of the text
 * and its tree; pysrc_free releases both. Queries are compiled once (pysrc_query_new)
 * and may be shared by threads for reading; each thread runs its own cursor.
 * Captures handed to callbacks borrow from the pysrc and live only during the call.
 *
 * A pysrc remembers the matches of each query text run over it to completion (bounded
 * by a few times the file's size) and replays them when the same text is run again,
 * from any pysrc_query compiled from it; this is invisible to callers. A pysrc may be
 * queried from several threads at once.
 */
#ifndef FERRY_PYSRC_H
#define FERRY_PYSRC_H

#include <stddef.h>
#include <stdint.h>

/* Files larger than this are refused rather than parsed. */
#define PYSRC_MAX_BYTES (32u * 1024 * 1024)

typedef struct pysrc pysrc;
typedef struct pysrc_query pysrc_query;

typedef struct pysrc_capture {
	const char *name;     /* capture name without '@' */
	const char *type;     /* node type, e.g. "call", "identifier" */
	const char *text;     /* points into the source; NOT NUL-terminated */
	uint32_t start_byte;  /* byte offsets into the source */
	uint32_t end_byte;
	uint32_t line;        /* 1-based */
	uint32_t col;         /* 1-based, in bytes */
	uint32_t end_line;
	uint32_t end_col;
} pysrc_capture;

/* Parses text (copied) of the file named path (for messages). Never fails on syntax
 * errors: those are reported by pysrc_first_error. Fails with FERRY_ECORRUPT for text
 * that is not UTF-8 or contains NUL bytes ("path: not UTF-8 text (NUL at byte N)"), or
 * is larger than PYSRC_MAX_BYTES, naming path. A UTF-8 BOM, CRLF and tabs are fine;
 * columns count bytes. */
int pysrc_parse(pysrc **out, const char *path, const char *text, size_t len);
void pysrc_free(pysrc *src);

const char *pysrc_path(const pysrc *src);
const char *pysrc_text(const pysrc *src, size_t *len);
/* 1 and the 1-based line/col of the first ERROR or MISSING node, else 0 (a byte-order mark
 * is not a column of line 1). */
int pysrc_first_error(const pysrc *src, uint32_t *line, uint32_t *col);

/* 1 and the 1-based line/col of the first f-string whose replacement field holds the
 * f-string's own (single) quote character, else 0. Python 3.12 accepts that and so does
 * the grammar; every earlier Python ends the string there. */
int pysrc_fstring_quote_clash(const pysrc *src, uint32_t *line, uint32_t *col);

/* Compiles a query; fails with FERRY_EPLUGIN naming the offset and kind of the error,
 * or an unsupported predicate. Also refused, because the tree-sitter runtime loops or
 * crashes on them or regcomp/regexec could blow up: '*' or '?' applied to a pattern that
 * can match nothing ("(call)**"), predicates outside parentheses, without '#', inside
 * alternations or as field values, non-ASCII outside strings, nesting deeper than 128,
 * and #match? regexes with back-references or nested or large repetitions. */
int pysrc_query_new(pysrc_query **out, const char *source);
void pysrc_query_free(pysrc_query *q);

/* Called once per match whose predicates hold. Return non-zero to stop. */
typedef int (*pysrc_match_cb)(const pysrc_capture *caps, size_t ncaps, void *payload);

/* Runs q over src; returns 0, or the callback's non-zero value. */
int pysrc_query_run(const pysrc *src, const pysrc_query *q, pysrc_match_cb cb, void *payload);

/* A union of queries walked together: one walk of a tree remembers the matches of each
 * part, as its own pysrc_query_run would have found them, in the tree's cache; runs of
 * those queries then replay them. Parts already remembered, that cannot match the text, or
 * whose matches exceed the cache are left to their own runs. */
typedef struct pysrc_combo pysrc_combo;
int pysrc_combo_new(pysrc_combo **out, const pysrc_query *const *qs, size_t n);
void pysrc_combo_free(pysrc_combo *c);
/* 1 when a and b were compiled from the same text. */
int pysrc_query_same(const pysrc_query *a, const pysrc_query *b);
/* How much a union's walk is for a part: none, on the chance that a plugin offered the file
 * asks for it later (remembered only when its matches are few), or for a query that plugins
 * are likely to ask for on this file. */
enum { PYSRC_WANT_NONE, PYSRC_WANT_SPARE, PYSRC_WANT_LIKELY };
/* Walks src once for the parts of c with want[i] set (c's parts in order), when at least two
 * are PYSRC_WANT_LIKELY (one query walks as well alone). */
void pysrc_combo_run(const pysrc *src, const pysrc_combo *c, const unsigned char *want);
/* 1 when src remembers the matches of q's text (a run replays them). */
int pysrc_query_cached(const pysrc *src, const pysrc_query *q);

/* The outermost dotted attribute chains of the file (torch.cuda.synchronize, self.x.y), as
 * `(attribute) @a` finds them and a check keeps them: for each start byte, the outermost
 * attribute whose text is a dotted name once comments, line continuations and white space
 * are dropped (every part an ASCII identifier); `a.b(c).d` gives `a.b`. In source order.
 * Worked out once per tree, on the first call from any thread, and kept with it. */
typedef struct pysrc_chain {
	uint32_t start_byte, end_byte, line, col, end_line, end_col;
	const char *dotted; /* NUL-terminated, owned by the pysrc */
} pysrc_chain;
const pysrc_chain *pysrc_chains(const pysrc *src, size_t *n);

/* How the process's queries met the trees so far: walks of one query alone, walks of a
 * union, runs answered from remembered matches, and runs whose matches were too many to
 * remember (the next run of the same query walks the tree again); and the queries and
 * unions compiled, with the CPU time tree-sitter took to compile them. */
typedef struct pysrc_walk_counts {
	size_t alone, together, replayed, dropped;
	size_t compiled;
	double compile_seconds;
} pysrc_walk_counts;
void pysrc_walk_stats(pysrc_walk_counts *out);

/* Reads and parses the file rel under root (root NULL or "" = rel as given) with the calling
 * thread's parser. *out receives the pysrc, or NULL with *err a malloc'd "rel: reason". */
void pysrc_parse_file(pysrc **out, char **err, const char *root, const char *rel);

/* Called once per file by pysrc_parse_each, from any of its threads: src (or NULL and err,
 * a malloc'd "rel: reason") now belongs to the callback. */
typedef void (*pysrc_parsed_cb)(size_t i, pysrc *src, char *err, void *payload);

/* Parses paths[0..n) (relative to root) on up to nthreads threads (0 = all cores), handing
 * each result to done as soon as it is parsed, so a caller that frees each tree holds only
 * one per thread. */
void pysrc_parse_each(const char *root, const char *const *paths, size_t n, unsigned nthreads,
                      pysrc_parsed_cb done, void *payload);

/* Parses paths[0..n) (relative to root) using up to nthreads threads (0 = all cores).
 * out[i] receives the pysrc or NULL; errs[i] a malloc'd one-line reason or NULL.
 * Both arrays are caller-allocated with n entries; their contents belong to the caller. */
void pysrc_parse_many(pysrc **out, char **errs, const char *root, const char *const *paths,
                      size_t n, unsigned nthreads);

#endif
