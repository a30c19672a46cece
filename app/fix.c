/* fix — see fix.h. */
#include "fix.h"
#include "phase.h"
#include "audit.h"
#include "check.h"
#include "err.h"
#include "intl.h"
#include "json.h"
#include "subject.h"
#include "projfs.h"
#include "pysrc.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fedit {
	unsigned start, end;  /* range in the original text */
	const char *text;     /* replacement (borrowed from the plan's findings) */
	size_t plugin;        /* index into plan->plugins */
} fedit;

typedef struct ffile {
	char *path;           /* relative path */
	char *orig;           /* text at planning time */
	size_t len;
	projfs_stamp stamp;   /* the file as read (then as last written): a write checks it first */
	fedit *edits;         /* accepted edits, sorted by start */
	size_t n, cap;
	int parsed_ok;        /* the original parses without error (Python only) */
	int utf8;             /* the original is UTF-8 (a file in a declared encoding is not edited) */
	const finding **accepted; /* findings whose edits were accepted without a parse check */
	size_t nacc;
	const finding **planned;  /* every finding whose edits are in the plan */
	size_t nplanned;
	const finding **refusedf; /* findings refused because their edit broke the parse */
	size_t nrefusedf;
} ffile;

typedef struct fplugin {
	char *id;
	char *phase;
	cJSON *findings;      /* array of finding ids fixed by this plugin */
} fplugin;

struct fix_plan {
	finding *rows;        /* the findings considered (owns the edit texts) */
	size_t nrows;
	ffile *files;
	size_t nfiles;
	fplugin *plugins;
	size_t nplugins;
	char **refused;
	size_t nrefused;
	char **errors;        /* plugins whose fix writes where ferry must not */
	size_t nerrors;
	cJSON *bad_plugins;   /* their ids (object keys) */
	sbuf diff;
	size_t nfindings;
	fix_hunk *hunks;      /* the diff's hunks in order, each with the findings it shows */
	size_t nhunks;
	size_t nwithdrawn;    /* findings the user left out (fix_plan_withdraw) */
	fix_superseded *superseded; /* findings asked for that the fresh run closed */
	size_t nsuperseded;
};

static void refuse(fix_plan *p, const finding *f, const char *fmt, const char *detail)
{
	char *why = xasprintf(fmt, detail);
	p->refused = xrealloc(p->refused, sizeof(char *) * (p->nrefused + 1));
	p->refused[p->nrefused++] = xasprintf(_("finding %lld (%s:%lld): %s"), f->id, f->file ? f->file : "",
	                                      (long long)f->line, why);
	free(why);
}

static void push_finding(const finding ***list, size_t *n, const finding *f)
{
	*list = xrealloc(*list, sizeof **list * (*n + 1));
	(*list)[(*n)++] = f;
}

static int is_python(const char *path) { return util_ends_with(path, ".py"); }

/* 1 when text parses without a syntax error, for every Python 3 (an f-string whose field
 * holds its own quote parses only on 3.12 and later). */
static int parses(const char *path, const char *text, size_t len)
{
	pysrc *src = NULL;
	if (pysrc_parse(&src, path, text, len) != 0) {
		err_clear();
		return 0;
	}
	uint32_t line, col;
	int bad = pysrc_first_error(src, &line, &col) || pysrc_fstring_quote_clash(src, &line, &col);
	pysrc_free(src);
	return !bad;
}

static ffile *file_get(fix_plan *p, workspace *ws, const char *path)
{
	for (size_t i = 0; i < p->nfiles; i++)
		if (strcmp(p->files[i].path, path) == 0)
			return &p->files[i];
	/* a missing file reads as "": a fix may create one (a generated script or plan) */
	char *text = NULL;
	size_t len = 0;
	projfs_stamp stamp;
	if (projfs_read(&text, &len, &stamp, ws->root, path))
		return NULL;
	p->files = xrealloc(p->files, sizeof(ffile) * (p->nfiles + 1));
	ffile *f = &p->files[p->nfiles++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	f->orig = text;
	f->len = len;
	f->stamp = stamp;
	f->utf8 = util_utf8_valid(text, len);
	f->parsed_ok = is_python(path) ? parses(path, text, len) : 1;
	return f;
}

static size_t plugin_get(fix_plan *p, const char *id, const char *phase)
{
	for (size_t i = 0; i < p->nplugins; i++)
		if (strcmp(p->plugins[i].id, id) == 0)
			return i;
	p->plugins = xrealloc(p->plugins, sizeof(fplugin) * (p->nplugins + 1));
	fplugin *pl = &p->plugins[p->nplugins];
	pl->id = xstrdup(id);
	pl->phase = xstrdup(phase);
	pl->findings = cJSON_CreateArray();
	return p->nplugins++;
}

/* The file's text with the accepted edits of plugins 0..upto applied. Caller frees. */
static char *render(const ffile *f, size_t upto, size_t *len)
{
	sbuf b;
	sbuf_init(&b);
	size_t pos = 0;
	for (size_t i = 0; i < f->n; i++) {
		const fedit *e = &f->edits[i];
		if (e->plugin > upto)
			continue;
		sbuf_add(&b, f->orig + pos, e->start - pos);
		sbuf_adds(&b, e->text);
		pos = e->end;
	}
	sbuf_add(&b, f->orig + pos, f->len - pos);
	*len = b.len;
	return sbuf_detach(&b);
}

/* Renders f with extra edits (not yet accepted) on top of the accepted ones. */
static char *render_with(const ffile *f, const fedit *extra, size_t nextra, size_t *len)
{
	ffile tmp = *f;
	tmp.n = f->n + nextra;
	tmp.edits = xmalloc(sizeof(fedit) * (tmp.n ? tmp.n : 1));
	if (f->n)
		memcpy(tmp.edits, f->edits, sizeof(fedit) * f->n);
	if (nextra)
		memcpy(tmp.edits + f->n, extra, sizeof(fedit) * nextra);
	for (size_t i = 1; i < tmp.n; i++) /* insertion sort by start */
		for (size_t k = i; k > 0 && tmp.edits[k].start < tmp.edits[k - 1].start; k--) {
			fedit t = tmp.edits[k];
			tmp.edits[k] = tmp.edits[k - 1];
			tmp.edits[k - 1] = t;
		}
	char *out = render(&tmp, (size_t)-1, len);
	free(tmp.edits);
	return out;
}

static void accept_edits(ffile *f, const fedit *e, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (f->n == f->cap) {
			f->cap = f->cap ? 2 * f->cap : 8;
			f->edits = xrealloc(f->edits, sizeof(fedit) * f->cap);
		}
		size_t k = f->n++;
		while (k > 0 && f->edits[k - 1].start > e[i].start) {
			f->edits[k] = f->edits[k - 1];
			k--;
		}
		f->edits[k] = e[i];
	}
}

/* Tries to add one finding's edits to the plan; refuses it with a reason when they
 * are out of range, overlap other edits, or (with check_parse) would break the parse.
 * Without check_parse the finding is remembered so verify_parses can check the file
 * once for all its findings. */
static void plan_finding(fix_plan *p, workspace *ws, const finding *f, int check_parse)
{
	ffile *file = file_get(p, ws, f->file ? f->file : "");
	if (!file) {
		refuse(p, f, _("cannot read the file: %s"), err_message());
		err_clear();
		return;
	}
	if (!file->utf8) {
		/* its edits were planned on the UTF-8 text the checks read (pyenc.h), not its bytes */
		refuse(p, f, "%s", _("the file is not UTF-8 (it declares another encoding), so ferry does not edit it; change it by hand"));
		return;
	}
	size_t nnew = 0;
	fedit *mine = xcalloc(f->nedits ? f->nedits : 1, sizeof(fedit));
	size_t pidx = plugin_get(p, f->plugin, phase_name((size_t)f->phase));
	for (size_t k = 0; k < f->nedits; k++) {
		long long s = f->edits[k].start_byte, en = f->edits[k].end_byte;
		const char *text = f->edits[k].text;
		if (s < 0 || en < s || (size_t)en > file->len) {
			refuse(p, f, "%s", _("its edit lies outside the file (the file changed; run the check again)"));
			goto out;
		}
		int dup = 0;
		for (size_t i = 0; i < file->n; i++) {
			const fedit *o = &file->edits[i];
			if (o->start == (unsigned)s && o->end == (unsigned)en && strcmp(o->text, text) == 0) {
				dup = 1; /* the same edit from another finding: merged, applied once */
				break;
			}
			if ((unsigned)s < o->end && o->start < (unsigned)en) {
				/* not a statement left half done: the fix it overlaps edits the same code */
				refuse(p, f, "%s", _("its edit overlaps another fix; apply that one first, then check again"));
				goto out;
			}
			if (s == en && o->start == o->end && o->start == (unsigned)s) {
				refuse(p, f, "%s", _("two insertions at the same place; apply one, then check again"));
				goto out;
			}
		}
		if (!dup)
			mine[nnew++] = (fedit){ (unsigned)s, (unsigned)en, text, pidx };
	}
	if (check_parse && is_python(file->path) && file->parsed_ok) {
		size_t len = 0;
		char *text = render_with(file, mine, nnew, &len);
		int ok = parses(file->path, text, len);
		free(text);
		if (!ok) {
			refuse(p, f, "%s", _("the edited file would no longer parse as Python, so this fix is refused"));
			push_finding(&file->refusedf, &file->nrefusedf, f);
			goto out;
		}
	}
	accept_edits(file, mine, nnew);
	push_finding(&file->planned, &file->nplanned, f);
	cJSON_AddItemToArray(p->plugins[pidx].findings, cJSON_CreateNumber((double)f->id));
	p->nfindings++;
	if (!check_parse) {
		file->accepted = xrealloc(file->accepted, sizeof *file->accepted * (file->nacc + 1));
		file->accepted[file->nacc++] = f;
	}
out:
	free(mine);
}

/* Withdraws finding f from its plugin's list (its edits are dropped by the caller). */
static void unplan_finding(fix_plan *p, const finding *f)
{
	for (size_t i = 0; i < p->nplugins; i++) {
		cJSON *ids = p->plugins[i].findings;
		for (int k = 0; k < cJSON_GetArraySize(ids); k++)
			if ((long long)cJSON_GetArrayItem(ids, k)->valuedouble == f->id) {
				cJSON_DeleteItemFromArray(ids, k);
				p->nfindings--;
				return;
			}
	}
}

/* Plans the findings fs of file i again from nothing, each checked on its own (the
 * file's other edits are dropped). */
static void replan_checked(fix_plan *p, workspace *ws, size_t i, const finding **fs, size_t n)
{
	for (size_t k = 0; k < n; k++)
		unplan_finding(p, fs[k]);
	/* their refusals of an earlier plan are decided again */
	ffile *file = &p->files[i];
	size_t kept = 0;
	for (size_t r = 0; r < file->nrefusedf; r++) {
		int again = 0;
		for (size_t k = 0; k < n; k++)
			again |= file->refusedf[r] == fs[k];
		if (!again)
			file->refusedf[kept++] = file->refusedf[r];
	}
	file->nrefusedf = kept;
	p->files[i].n = 0;
	p->files[i].nplanned = 0;
	for (size_t k = 0; k < n; k++)
		plan_finding(p, ws, fs[k], 1);
}

/* Parses each edited Python file once with all its accepted edits. A file that would no
 * longer parse is planned again finding by finding, each checked on its own, so only the
 * edits that break it are refused. */
static void verify_parses(fix_plan *p, workspace *ws)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		ffile *file = &p->files[i];
		if (!file->nacc || !is_python(file->path) || !file->parsed_ok)
			continue;
		size_t len = 0;
		char *text = render(file, (size_t)-1, &len);
		int ok = parses(file->path, text, len);
		free(text);
		const finding **again = file->accepted;
		size_t nagain = file->nacc;
		file->accepted = NULL;
		file->nacc = 0;
		if (!ok) {
			replan_checked(p, ws, i, again, nagain);
			file = &p->files[i]; /* plan_finding may grow p->files */
		}
		free(again);
	}
}

/* The statements a fix may not split: the simple statements, and the parts of a compound
 * one that are code (a condition, a for's iterable, a with's items, a def's parameters,
 * a decorator). */
static const char STATEMENTS[] =
    "[(expression_statement) (return_statement) (assert_statement) (delete_statement)"
    " (raise_statement) (import_statement) (import_from_statement) (global_statement)"
    " (nonlocal_statement) (decorator) (with_clause)] @s\n"
    "(if_statement condition: (_) @s)\n(elif_clause condition: (_) @s)\n"
    "(while_statement condition: (_) @s)\n(for_statement right: (_) @s)\n"
    "(function_definition parameters: (_) @s)\n";

typedef struct span {
	unsigned start, end;
} span;

typedef struct spans {
	span *v;
	size_t n;
} spans;

static int collect_span(const pysrc_capture *caps, size_t ncaps, void *payload)
{
	spans *all = payload;
	for (size_t i = 0; i < ncaps; i++) {
		all->v = xrealloc(all->v, sizeof *all->v * (all->n + 1));
		all->v[all->n++] = (span){ caps[i].start_byte, caps[i].end_byte };
	}
	return 0;
}

/* The innermost statement holding the range [s, e), or 0. */
static int statement_of(const spans *all, unsigned s, unsigned e, span *out)
{
	int found = 0;
	for (size_t i = 0; i < all->n; i++) {
		const span *x = &all->v[i];
		if (x->start <= s && e <= x->end && (!found || x->end - x->start < out->end - out->start)) {
			*out = *x;
			found = 1;
		}
	}
	return found;
}

/* Whether one of f's edits lies in a statement of the set. */
static int touches(const finding *f, const spans *all, const spans *set)
{
	for (size_t k = 0; k < f->nedits; k++) {
		span st;
		long long s = f->edits[k].start_byte, e = f->edits[k].end_byte;
		if (s < 0 || e < s || !statement_of(all, (unsigned)s, (unsigned)e, &st))
			continue;
		for (size_t i = 0; i < set->n; i++)
			if (set->v[i].start == st.start && set->v[i].end == st.end)
				return 1;
	}
	return 0;
}

static void add_statements(const finding *f, const spans *all, spans *set)
{
	for (size_t k = 0; k < f->nedits; k++) {
		span st;
		long long s = f->edits[k].start_byte, e = f->edits[k].end_byte;
		if (s >= 0 && e >= s && statement_of(all, (unsigned)s, (unsigned)e, &st)) {
			set->v = xrealloc(set->v, sizeof *set->v * (set->n + 1));
			set->v[set->n++] = st;
		}
	}
}

/* A statement is migrated whole or not at all: where a fix was refused because its edit
 * broke the parse, the other fixes with an edit in the same statement are withdrawn and
 * refused too (a line with one call migrated and its sibling left on CUDA runs neither
 * way). A fix refused for overlapping another leaves nothing half done: the other edits
 * the same code. The file's remaining fixes are planned again, each checked, until
 * nothing more is refused. */
static void keep_statements_whole(fix_plan *p, workspace *ws)
{
	pysrc_query *q = NULL;
	for (size_t i = 0; i < p->nfiles; i++) {
		if (!p->files[i].nrefusedf || !p->files[i].nplanned || !is_python(p->files[i].path) ||
		    !p->files[i].parsed_ok)
			continue;
		pysrc *src = NULL;
		if ((!q && pysrc_query_new(&q, STATEMENTS) != 0) ||
		    pysrc_parse(&src, p->files[i].path, p->files[i].orig, p->files[i].len) != 0) {
			err_clear();
			pysrc_free(src);
			continue;
		}
		spans all = { 0 }, set = { 0 };
		pysrc_query_run(src, q, collect_span, &all);
		pysrc_free(src);
		size_t seen = 0;
		for (;;) {
			ffile *file = &p->files[i];
			for (; seen < file->nrefusedf; seen++)
				add_statements(file->refusedf[seen], &all, &set);
			const finding **keep = xcalloc(file->nplanned ? file->nplanned : 1, sizeof *keep);
			size_t nkeep = 0, nplanned = file->nplanned;
			int withdrew = 0;
			for (size_t k = 0; k < nplanned; k++) {
				const finding *g = file->planned[k];
				if (touches(g, &all, &set)) {
					unplan_finding(p, g);
					refuse(p, g, "%s", _("another fix in the same statement was refused, and a statement is migrated whole or not at all"));
					add_statements(g, &all, &set);
					withdrew = 1;
				} else {
					keep[nkeep++] = g;
				}
			}
			if (withdrew)
				replan_checked(p, ws, i, keep, nkeep);
			free(keep);
			if (!withdrew && seen == p->files[i].nrefusedf)
				break;
		}
		free(all.v);
		free(set.v);
	}
	pysrc_query_free(q);
}

static int selected(const fix_select *sel, const finding *f)
{
	if (sel->phase && phase_index(sel->phase) != f->phase)
		return 0;
	if (sel->file && strcmp(sel->file, f->file ? f->file : "") != 0)
		return 0;
	if (sel->nids) {
		for (size_t i = 0; i < sel->nids; i++)
			if (sel->ids[i] == f->id)
				return 1;
		return 0;
	}
	if (sel->plugin)
		return strcmp(sel->plugin, f->plugin ? f->plugin : "") == 0;
	return sel->all;
}

/* Every write must stay inside the project's sources (projfs.h): a plugin whose fix
 * names a path that breaks the rules is an error, and none of its edits is planned. */
static void refuse_bad_paths(fix_plan *p, workspace *ws, const fix_select *sel)
{
	for (size_t i = 0; i < p->nrows; i++) {
		const finding *f = &p->rows[i];
		const char *plugin = f->plugin ? f->plugin : "";
		if (!selected(sel, f) || !f->fixable || cJSON_GetObjectItem(p->bad_plugins, plugin))
			continue;
		if (!file_get(p, ws, f->file ? f->file : "") && err_code() == FERRY_EREFUSED) {
			p->errors = xrealloc(p->errors, sizeof(char *) * (p->nerrors + 1));
			p->errors[p->nerrors++] =
			    xasprintf(_("plugin %s: its fix is refused and nothing of it is written: %s"), plugin, err_message());
			cJSON_AddTrueToObject(p->bad_plugins, plugin);
		}
		err_clear();
	}
}

/* Plugin ids of the selected open findings that have a fix (before the fresh run);
 * *candidates counts the selected open findings. Findings without a fix (among them
 * the host's own ferry.source warnings) need no fresh run: they are only refused. */
static int involved_plugins(cJSON **out, size_t *candidates, workspace *ws, const fix_select *sel)
{
	finding *rows = NULL;
	size_t nrows = 0;
	store_finding_filter fl = { sel->phase, "open", NULL, sel->ids, sel->nids, 1 };
	int rc = store_finding_list(&rows, &nrows, ws->db, &fl);
	if (rc)
		return rc;
	*out = cJSON_CreateArray();
	*candidates = 0;
	for (size_t i = 0; i < nrows; i++) {
		const finding *f = &rows[i];
		if (!selected(sel, f))
			continue;
		(*candidates)++;
		if (!f->fixable)
			continue;
		int seen = 0;
		const cJSON *x;
		cJSON_ArrayForEach(x, *out) seen |= strcmp(x->valuestring, f->plugin) == 0;
		if (!seen)
			cJSON_AddItemToArray(*out, cJSON_CreateString(f->plugin));
	}
	if (sel->plugin && !cJSON_GetArraySize(*out))
		cJSON_AddItemToArray(*out, cJSON_CreateString(sel->plugin));
	finding_list_free(rows, nrows);
	return 0;
}

/* The 1-based line of byte offset off in text. */
static int line_of(const char *text, size_t off)
{
	int line = 1;
	for (size_t i = 0; i < off; i++)
		line += text[i] == '\n';
	return line;
}

static void hunks_free(fix_plan *p)
{
	for (size_t i = 0; i < p->nhunks; i++) {
		free(p->hunks[i].file);
		free(p->hunks[i].ids);
	}
	free(p->hunks);
	p->hunks = NULL;
	p->nhunks = 0;
}

/* Records the hunks of one file's diff d, each with the planned findings whose edits lie
 * in the lines it replaces (an insertion: at its edge). */
static void add_hunks(fix_plan *p, const ffile *file, const char *d)
{
	for (const char *l = d; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		int a = 0, b = 1;
		/* "@@ -a,b +c,d @@"; "@@ -a +c @@" is one line */
		if (strncmp(l, "@@ -", 4) != 0 || sscanf(l + 4, "%d,%d", &a, &b) < 1)
			continue;
		p->hunks = xrealloc(p->hunks, (p->nhunks + 1) * sizeof *p->hunks);
		fix_hunk *h = &p->hunks[p->nhunks++];
		*h = (fix_hunk){ xstrdup(file->path), a, b, NULL, 0 };
		for (size_t r = 0; r < p->nrows; r++) {
			const finding *f = &p->rows[r];
			if (strcmp(f->file ? f->file : "", file->path) != 0 || !fix_plan_has(p, f->id))
				continue;
			int in = 0;
			for (size_t k = 0; k < f->nedits; k++) {
				long long s0 = f->edits[k].start_byte, s1 = f->edits[k].end_byte;
				if (s0 < 0 || s1 < s0 || (size_t)s1 > file->len)
					continue;
				int l0 = line_of(file->orig, (size_t)s0), l1 = line_of(file->orig, (size_t)s1);
				/* an insertion goes before line l0: up to one past the hunk's old lines (an
				 * append at the end of the file is after its last line) */
				if (s0 == s1 || b == 0)
					in |= l0 >= a && l0 <= a + (b ? b : 1);
				else
					in |= l0 <= a + b - 1 && l1 >= a;
			}
			if (in) {
				h->ids = xrealloc(h->ids, (h->nids + 1) * sizeof *h->ids);
				h->ids[h->nids++] = f->id;
			}
		}
	}
}

/* The permission bits the file at path will have once written: its own (a write keeps
 * them), or those a fix creates it with (a generated shell script is executable). */
static unsigned file_mode(const char *path, const projfs_stamp *st)
{
	if (st->exists)
		return st->mode;
	return util_ends_with(path, ".sh") ? 0755 : 0644;
}

/* The plan's unified diff and its hunks, from the accepted edits. */
static int build_diff(fix_plan *p)
{
	sbuf_done(&p->diff);
	sbuf_init(&p->diff);
	hunks_free(p);
	for (size_t i = 0; i < p->nfiles; i++) {
		ffile *file = &p->files[i];
		if (!file->n)
			continue;
		size_t len = 0;
		char *text = render(file, (size_t)-1, &len), *d = NULL;
		/* a file that does not exist yet is a new file, not an edit of an empty one; the
		 * mode is the one its checkpoint will record (executable: owner's x bit, as git) */
		int exec = (file_mode(file->path, &file->stamp) & 0100) != 0;
		int rc = history_diff_buffers(&d, file->path, file->stamp.exists ? file->orig : NULL, file->len, text, len,
		                              exec);
		free(text);
		if (rc)
			return rc;
		sbuf_adds(&p->diff, d);
		add_hunks(p, file, d);
		free(d);
	}
	return 0;
}

int fix_plan_has(const fix_plan *p, long long id)
{
	for (size_t i = 0; i < p->nplugins; i++) {
		const cJSON *v;
		cJSON_ArrayForEach(v, p->plugins[i].findings)
			if ((long long)v->valuedouble == id)
				return 1;
	}
	return 0;
}

const fix_hunk *fix_plan_hunks(const fix_plan *p, size_t *n)
{
	*n = p->nhunks;
	return p->hunks;
}

int fix_plan_withdraw(fix_plan *p, workspace *ws, const long long *ids, size_t n)
{
	/* the findings that stay, planned again from the files as read, in the same order */
	const finding **keep = xcalloc(p->nfindings ? p->nfindings : 1, sizeof *keep);
	size_t nkeep = 0, before = p->nfindings;
	for (size_t r = 0; r < p->nrows; r++) {
		const finding *f = &p->rows[r];
		long long id = f->id;
		int out = 0;
		for (size_t i = 0; i < n; i++)
			out |= ids[i] == id;
		if (fix_plan_has(p, id) && !out && nkeep < before)
			keep[nkeep++] = f;
	}
	for (size_t i = 0; i < p->nfiles; i++) {
		p->files[i].n = 0;
		free(p->files[i].accepted);
		p->files[i].accepted = NULL;
		p->files[i].nacc = 0;
		p->files[i].nplanned = 0;
		p->files[i].nrefusedf = 0; /* planned again from the files as read */
	}
	for (size_t i = 0; i < p->nplugins; i++) {
		cJSON_Delete(p->plugins[i].findings);
		p->plugins[i].findings = cJSON_CreateArray();
	}
	p->nfindings = 0;
	for (size_t i = 0; i < nkeep; i++)
		plan_finding(p, ws, keep[i], 0);
	verify_parses(p, ws);
	keep_statements_whole(p, ws);
	free(keep);
	p->nwithdrawn += before - nkeep;
	return build_diff(p);
}

size_t fix_plan_withdrawn(const fix_plan *p)
{
	return p->nwithdrawn;
}

/* The index of the phase a plugin id names ("adapt.device_calls" is of adapt), or -1. */
static int id_phase(const char *id)
{
	const char *dot = strchr(id, '.');
	char name[64];
	if (!dot || (size_t)(dot - id) >= sizeof name)
		return -1;
	memcpy(name, id, (size_t)(dot - id));
	name[dot - id] = '\0';
	int ph = phase_index(name);
	return ph < PHASE_MAX ? ph : -1;
}

/* Marks in touched[] the phases of the plugin ids; 0 when one of them names no phase (a
 * run by plugin is then the only choice). */
static int phases_of(int touched[PHASE_MAX], const char *const *ids, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int ph = id_phase(ids[i]);
		if (ph < 0)
			return 0;
		touched[ph] = 1;
	}
	return n > 0;
}

static int refusal(const char *error)
{
	return err_set(FERRY_EPLUGIN,
	               _("fix: a check of the phase failed, so its edits are missing and the others' alone could "
	                 "leave half-migrated code; nothing was changed (%s). Fix what it reports and check again, "
	                 "or choose findings one by one with --finding"),
	               error);
}

/* Refuses when a check of a touched phase failed in its latest run (one that included it:
 * a later run of other checks only does not clear it). */
static int refuse_failed_checks(workspace *ws, const int touched[PHASE_MAX])
{
	cJSON *rows = NULL;
	int rc = store_plugin_errors_standing(&rows, ws->db);
	const cJSON *row;
	cJSON_ArrayForEach(row, rows) {
		const cJSON *plugin = cJSON_GetObjectItem(row, "plugin"), *msg = cJSON_GetObjectItem(row, "message");
		if (rc || !cJSON_IsString(plugin) || !cJSON_IsString(msg))
			continue;
		int ph = id_phase(plugin->valuestring);
		if (ph >= 0 && touched[ph]) {
			char *line = xasprintf("%s: %s", plugin->valuestring, msg->valuestring);
			rc = refusal(line);
			free(line);
		}
	}
	cJSON_Delete(rows);
	return rc;
}

/* The row of finding id among rows, or NULL. */
static const finding *row_of(const finding *rows, size_t n, long long id)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].id == id)
			return &rows[i];
	return NULL;
}

/* The findings asked for by id, whatever their status, into *out (the caller frees them
 * with finding_list_free); FERRY_ENOTFOUND, as `waive`, for an id the engagement does not
 * hold, before anything is run or written. */
static int requested_rows(finding **out, size_t *n, workspace *ws, const fix_select *sel)
{
	store_finding_filter fl = { NULL, NULL, NULL, sel->ids, sel->nids, 1 };
	int rc = store_finding_list(out, n, ws->db, &fl);
	for (size_t i = 0; !rc && i < sel->nids; i++)
		if (!row_of(*out, *n, sel->ids[i]))
			rc = err_set(FERRY_ENOTFOUND, _("finding %lld: no such finding"), sel->ids[i]);
	if (rc) {
		finding_list_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return rc;
}

/* The open finding of the plan that reports, in f's stead, the place f reported: same
 * plugin and file, overlapping lines, another id; NULL when there is none. */
static const finding *successor(const fix_plan *p, const finding *f)
{
	int l0 = f->line, l1 = f->end_line > f->line ? f->end_line : f->line;
	for (size_t i = 0; f->file && *f->file && i < p->nrows; i++) {
		const finding *g = &p->rows[i];
		int g1 = g->end_line > g->line ? g->end_line : g->line;
		if (g->id != f->id && g->status == STATUS_OPEN && strcmp(g->plugin, f->plugin) == 0 && g->file &&
		    strcmp(g->file, f->file) == 0 && g->line <= l1 && g1 >= l0)
			return g;
	}
	return NULL;
}

/* Accounts for every finding asked for by id that the plan does not fix as an open
 * finding of the selection, so none is dropped silently: one refusal each, saying why.
 * before holds the rows as they stood before the fresh run: a finding open then and closed
 * now was closed by that run (its code changed, so its identity did) and is superseded by
 * the finding now reported at its place, which is named but not fixed in its stead. */
static int refuse_unselected(fix_plan *p, workspace *ws, const fix_select *sel, const finding *before,
                             size_t nbefore)
{
	finding *now = NULL;
	size_t nnow = 0;
	store_finding_filter fl = { NULL, NULL, NULL, sel->ids, sel->nids, 1 };
	int rc = store_finding_list(&now, &nnow, ws->db, &fl);
	for (size_t i = 0; !rc && i < sel->nids; i++) {
		long long id = sel->ids[i];
		int again = 0;
		for (size_t k = 0; k < i; k++)
			again |= sel->ids[k] == id;
		const finding *f = row_of(now, nnow, id), *was = row_of(before, nbefore, id), *open = row_of(p->rows, p->nrows, id);
		if (again || !f || (open && selected(sel, open)))
			continue;
		if (f->status == STATUS_OPEN) {
			refuse(p, f, "%s", _("it is outside the phase or file the fix is limited to"));
		} else if (was && was->status == STATUS_OPEN) {
			const finding *g = successor(p, f);
			p->superseded = xrealloc(p->superseded, (p->nsuperseded + 1) * sizeof *p->superseded);
			p->superseded[p->nsuperseded++] = (fix_superseded){ id, g ? g->id : 0 };
			if (g) {
				char *why = xasprintf(_("no longer stands as it was (the code changed): #%lld reports %s:%d now; fix #%lld"),
				                      g->id, g->file, g->line, g->id);
				refuse(p, f, "%s", why);
				free(why);
			} else {
				refuse(p, f, "%s", _("no longer stands as it was (the code changed) and nothing is reported at its place now"));
			}
		} else if (f->status == STATUS_WAIVED) {
			refuse(p, f, "%s", _("is waived, only open findings can be fixed"));
		} else {
			/* closed earlier, by a fix or by a run that no longer saw it: what is at its place now */
			const finding *g = successor(p, f);
			char *why = g ? xasprintf(_("is fixed, only open findings can be fixed; #%lld reports %s:%d now"), g->id,
			                          g->file, g->line)
			              : xstrdup(_("is fixed, only open findings can be fixed"));
			refuse(p, f, "%s", why);
			free(why);
		}
	}
	finding_list_free(now, nnow);
	return rc;
}

/* When nothing asked for by id can be fixed: one error line made of the refusals. */
/* In a fix of many findings (all, a plugin's, a file's), a finding whose fix someone
 * reverted is left out with the reason: the revert was a decision, which the next bulk fix
 * must not undo. Asked for by id, it is fixed. 1 when f is left out. */
static int leave_declined(fix_plan *p, const fix_select *sel, const cJSON *declined, const finding *f)
{
	const cJSON *d;
	if (sel->nids)
		return 0;
	cJSON_ArrayForEach(d, declined)
		if (json_int(d, "id") == f->id) {
			char *why = xasprintf(_("its fix (checkpoint %lld) was undone by checkpoint %lld, so a fix of many findings "
			                        "leaves it out; `ferry fix --finding %lld` applies it again"),
			                      json_int(d, "fixed_by"), json_int(d, "reverted_by"), f->id);
			refuse(p, f, "%s", why);
			free(why);
			return 1;
		}
	return 0;
}

static int refuse_all(const fix_plan *p)
{
	if (!p->nrefused)
		return err_set(FERRY_EUSAGE, _("fix: the selection names no open finding"));
	sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < p->nrefused; i++)
		sbuf_addf(&b, "%s%s", i ? _("; ") : "", p->refused[i]);
	int rc = err_set(FERRY_EREFUSED, _("fix: %s"), b.buf);
	sbuf_done(&b);
	return rc;
}

int fix_plan_new(fix_plan **out, workspace *ws, const fix_select *sel)
{
	*out = NULL;
	cJSON *plugins = NULL, *declined = NULL;
	finding *before = NULL;
	size_t ncand = 0, nbefore = 0;
	int rc = sel->nids ? requested_rows(&before, &nbefore, ws, sel) : 0;
	if (rc || (rc = involved_plugins(&plugins, &ncand, ws, sel)))
		goto early;
	size_t np = (size_t)cJSON_GetArraySize(plugins);
	long long runs = 0;
	if (!np && !ncand && sel->all && !(rc = store_run_count(&runs, ws->db)) && !runs)
		rc = err_set(FERRY_EUSAGE, _("fix: no check has run yet, so nothing is known to fix; run `ferry check` first"));
	else if (!rc && !np && !ncand && !sel->all && !sel->nids) /* ids: each is accounted for below */
		rc = err_set(FERRY_EUSAGE, _("fix: the selection names no open finding"));
	if (rc)
		goto early;
	if (np) {
		const char **ids = xcalloc(np, sizeof(char *));
		for (size_t i = 0; i < np; i++)
			ids[i] = cJSON_GetArrayItem(plugins, (int)i)->valuestring;
		/* a bulk fix over a phase whose last check failed somewhere: that check's edits are
		 * missing, and the others' alone can leave code half-migrated */
		int touched[PHASE_MAX] = { 0 };
		if (!sel->nids && phases_of(touched, ids, np))
			rc = refuse_failed_checks(ws, touched);
		/* a fresh run: offsets must match the files as they are now */
		check_opts co = { NULL, 0, ids, np, NULL, NULL, NULL, NULL, NULL, 0 };
		check_result res = { 0 };
		if (!rc)
			rc = check_run(&res, ws, &co);
		if (!rc && res.nerrors && !sel->nids)
			rc = refusal(res.errors[0]);
		check_result_done(&res);
		free(ids);
	}
	if (rc)
		goto early;
	fix_plan *p = xcalloc(1, sizeof *p);
	sbuf_init(&p->diff);
	p->bad_plugins = cJSON_CreateObject();
	store_finding_filter fl = { sel->phase, "open", NULL, NULL, 0, 0 };
	if ((rc = store_finding_list(&p->rows, &p->nrows, ws->db, &fl)) ||
	    (!sel->nids && (rc = store_findings_declined(&declined, ws->db))))
		goto fail;
	refuse_bad_paths(p, ws, sel);
	size_t candidates = 0;
	for (size_t r = 0; r < p->nrows; r++) {
		const finding *f = &p->rows[r];
		if (!selected(sel, f))
			continue;
		if (!f->fixable) {
			if (sel->nids)
				refuse(p, f, "%s", _("no automatic fix exists for it; change the code by hand or waive it"));
			continue;
		}
		if (leave_declined(p, sel, declined, f))
			continue;
		candidates++; /* findings named that have no fix are refused as the rest are */
		if (!cJSON_GetObjectItem(p->bad_plugins, f->plugin))
			plan_finding(p, ws, f, 0);
	}
	verify_parses(p, ws);
	keep_statements_whole(p, ws);
	if (sel->nids && (rc = refuse_unselected(p, ws, sel, before, nbefore)))
		goto fail;
	if (!candidates && sel->nids) {
		rc = refuse_all(p);
		goto fail;
	}
	if ((rc = build_diff(p)))
		goto fail;
	cJSON_Delete(plugins);
	cJSON_Delete(declined);
	finding_list_free(before, nbefore);
	*out = p;
	return 0;
fail:
	fix_plan_free(p);
early:
	cJSON_Delete(declined);
	cJSON_Delete(plugins);
	finding_list_free(before, nbefore);
	return rc;
}

void fix_plan_free(fix_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].path);
		free(p->files[i].orig);
		free(p->files[i].edits);
		free(p->files[i].accepted);
		free(p->files[i].planned);
		free(p->files[i].refusedf);
	}
	free(p->files);
	for (size_t i = 0; i < p->nplugins; i++) {
		free(p->plugins[i].id);
		free(p->plugins[i].phase);
		cJSON_Delete(p->plugins[i].findings);
	}
	free(p->plugins);
	for (size_t i = 0; i < p->nrefused; i++)
		free(p->refused[i]);
	free(p->refused);
	for (size_t i = 0; i < p->nerrors; i++)
		free(p->errors[i]);
	free(p->errors);
	cJSON_Delete(p->bad_plugins);
	free(p->superseded);
	hunks_free(p);
	sbuf_done(&p->diff);
	finding_list_free(p->rows, p->nrows);
	free(p);
}

const char *fix_plan_diff(const fix_plan *p) { return p->diff.buf ? p->diff.buf : ""; }

void fix_plan_counts(const fix_plan *p, size_t *findings, size_t *files, size_t *plugins)
{
	size_t nf = 0, np = 0;
	for (size_t i = 0; i < p->nfiles; i++)
		nf += p->files[i].n > 0;
	for (size_t i = 0; i < p->nplugins; i++)
		np += cJSON_GetArraySize(p->plugins[i].findings) > 0;
	if (findings)
		*findings = p->nfindings;
	if (files)
		*files = nf;
	if (plugins)
		*plugins = np;
}

const char *const *fix_plan_refused(const fix_plan *p, size_t *n)
{
	*n = p->nrefused;
	return (const char *const *)p->refused;
}

const fix_superseded *fix_plan_superseded(const fix_plan *p, size_t *n)
{
	*n = p->nsuperseded;
	return p->superseded;
}

const char *const *fix_plan_errors(const fix_plan *p, size_t *n)
{
	*n = p->nerrors;
	return (const char *const *)p->errors;
}

/* Writes the files plugin k touches, at their state after plugins 0..k, and makes
 * its checkpoint; marks its findings fixed by it. */
static int apply_plugin(fix_plan *p, workspace *ws, size_t k, int *made)
{
	fplugin *pl = &p->plugins[k];
	size_t cap = p->nfiles ? p->nfiles : 1;
	const char **paths = xcalloc(cap, sizeof(char *));
	ffile **files = xcalloc(cap, sizeof(ffile *));
	char **texts = xcalloc(cap, sizeof(char *));
	size_t *lens = xcalloc(cap, sizeof(size_t));
	char (*sums)[65] = xcalloc(cap, sizeof *sums);
	const char **hashes = xcalloc(cap, sizeof(char *));
	size_t npaths = 0, nedits = 0;
	int rc = 0;
	char *message = NULL, *findings = NULL;
	for (size_t i = 0; i < p->nfiles; i++)
		for (size_t e = 0; e < p->files[i].n; e++)
			if (p->files[i].edits[e].plugin == k) {
				/* the file at its state after plugins 0..k, and what it will hash to */
				files[npaths] = &p->files[i];
				texts[npaths] = render(&p->files[i], k, &lens[npaths]);
				util_sha256_hex(sums[npaths], texts[npaths], lens[npaths]);
				hashes[npaths] = sums[npaths];
				paths[npaths++] = p->files[i].path;
				break;
			}
	*made = 0;
	if (!npaths)
		goto done;
	findings = cJSON_PrintUnformatted(pl->findings);
	int nf = cJSON_GetArraySize(pl->findings);
	for (size_t i = 0; i < p->nfiles; i++)
		for (size_t e = 0; e < p->files[i].n; e++)
			nedits += p->files[i].edits[e].plugin == k;
	message = subject_fix(pl->id, nf, nedits, npaths);
	ws_checkpoint_req req = { "fix", message, pl->phase, pl->id, findings, paths, npaths, 0, NULL };
	if ((rc = ws_pending_begin(ws, &req, hashes)))
		goto done;
	/* each write first checks the file is still what was read (or last written) */
	size_t written = 0;
	while (!rc && written < npaths) {
		size_t i = written;
		rc = projfs_write(&files[i]->stamp, ws->root, paths[i], texts[i], lens[i],
		                  file_mode(paths[i], &files[i]->stamp), -1, &files[i]->stamp);
		written += !rc;
	}
	if (rc == FERRY_EREFUSED && written == 0)
		ws_pending_clear(ws); /* refused before its first write: nothing to recover */
	long long cp = 0;
	char oid[41];
	if (!rc)
		rc = ws_checkpoint(&cp, oid, ws, &req);
	if (!rc && cp) {
		*made = 1;
		if (!(rc = store_begin(ws->db))) {
			const cJSON *id;
			cJSON_ArrayForEach(id, pl->findings)
				if (!rc)
					rc = store_finding_set_status(ws->db, (long long)id->valuedouble, "fixed", cp);
			if (!rc) {
				cJSON *d = cJSON_CreateObject();
				cJSON_AddStringToObject(d, "plugin", pl->id);
				cJSON_AddItemToObject(d, "findings", cJSON_Duplicate(pl->findings, 1));
				cJSON_AddNumberToObject(d, "checkpoint", (double)cp);
				rc = audit_append(NULL, ws->db, "fix", ws->actor, d);
			}
			if (!rc)
				rc = store_commit(ws->db);
			if (rc)
				store_rollback(ws->db);
		}
	}
done:
	free(message);
	free(findings);
	for (size_t i = 0; i < npaths; i++)
		free(texts[i]);
	free(texts);
	free(lens);
	free(sums);
	free(hashes);
	free(files);
	free(paths);
	return rc;
}

int fix_plan_apply(size_t *ncheckpoints, fix_plan *p, workspace *ws)
{
	*ncheckpoints = 0;
	/* nothing is written when any planned file changed since it was read */
	for (size_t i = 0; i < p->nfiles; i++)
		if (p->files[i].n && projfs_unchanged(ws->root, p->files[i].path, &p->files[i].stamp))
			return err_prefix("fix");
	for (size_t k = 0; k < p->nplugins; k++) {
		int made = 0;
		int rc = apply_plugin(p, ws, k, &made);
		if (rc)
			return err_prefix("fix %s", p->plugins[k].id);
		*ncheckpoints += (size_t)made;
	}
	return 0;
}
