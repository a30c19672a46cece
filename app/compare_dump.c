/* compare_dump — see compare_dump.h. */
#include "compare_dump.h"
#include "dump_engine.h"
#include "dump_input.h"
#include "err.h"
#include "intl.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const dump_stat_names[4] = { "Max", "Min", "Mean", "Norm" };

/* ------------------------------------------------------------------ pairing */

typedef struct name_idx {
	const char *name;
	size_t idx;
} name_idx;

static int cmp_name_idx(const void *x, const void *y)
{
	return strcmp(((const name_idx *)x)->name, ((const name_idx *)y)->name);
}

/* The dtype a dump.json record states, as written ("" without a record or one). */
static const char *record_dtype(const cJSON *rec)
{
	const cJSON *d = rec ? cJSON_GetObjectItemCaseSensitive(rec, "dtype") : NULL;
	return cJSON_IsString(d) ? d->valuestring : "";
}

/* Whether stated, a dtype as a dump.json record names it (torch's "torch.float32" or
 * "torch.half", MindSpore's "Float32", numpy's "float32"), is name, as npy_dtype_name
 * gives it. */
static int dtype_is(const char *stated, const char *name)
{
	static const char *const aliases[][2] = { { "half", "float16" }, { "float", "float32" }, { "double", "float64" },
		                                      { "short", "int16" },  { "int", "int32" },     { "long", "int64" } };
	const char *dot = strrchr(stated, '.');
	char low[32];
	snprintf(low, sizeof low, "%s", dot ? dot + 1 : stated);
	for (char *c = low; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	for (size_t i = 0; i < sizeof aliases / sizeof *aliases; i++)
		if (strcmp(low, aliases[i][0]) == 0)
			return strcmp(aliases[i][1], name) == 0;
	return strcmp(low, name) == 0;
}

/* A tensor stored as 2-byte integers or opaque values holds bfloat16 bits when the
 * user says so (--dtype-a/--dtype-b bf16) or its dump.json record does (msprobe writes
 * "dtype": "torch.bfloat16"): from then on it decodes as bfloat16. */
static void apply_bf16(npy_info *h, const char *override, const cJSON *rec)
{
	int said = (override && dump_dtype_is_bf16(override)) || dtype_is(record_dtype(rec), "bfloat16");
	if (!said || h->itemsize != 2 || (h->kind != 'u' && h->kind != 'i' && h->kind != 'V'))
		return;
	h->kind = 'B';
	snprintf(h->descr, sizeof h->descr, "bf16");
}

/* Into out (size bytes) the dtype rec states for a tensor whose file holds another, as
 * written ("torch.bfloat16" of a float32 file), and into *held the file's dtype by name;
 * "" and NULL when the record agrees, states none, or the file's values are opaque. The
 * file's own dtype is what its bytes are, and is what is compared: dump.json's is read
 * only where the bytes cannot tell (apply_bf16). */
static void stated_dtype(char *out, size_t size, const char **held, const npy_info *h, const cJSON *rec)
{
	const char *stated = record_dtype(rec), *name = npy_dtype_name(h);
	*out = '\0';
	*held = NULL;
	if (*stated && name && !dtype_is(stated, name)) {
		snprintf(out, size, "%s", stated);
		*held = name;
	}
}

/* A pair with a file whose dtype its dump.json record contradicts: counted, and when it
 * passes, one to double-check (which dtype did the run compute in?), said on the pair. */
static void judge_stated_dtype(dump_result *out, dump_pair *p)
{
	if (!p->dtype_json_a[0] && !p->dtype_json_b[0])
		return;
	out->ndtype++;
	if (p->pass && !p->warn) {
		p->warn = 1;
		p->note = N_("dump.json states another dtype than its file holds: the file's own was compared");
	}
}

int dump_dtype_is_bf16(const char *name)
{
	return strcmp(name, "bf16") == 0 || strcmp(name, "bfloat16") == 0;
}

static int is_float_kind(char k)
{
	return k == 'f' || k == 'B';
}

static void fill_meta_npy(dump_pair *p, const npy_info *a, const npy_info *b)
{
	snprintf(p->dtype_a, sizeof p->dtype_a, "%s", a->descr);
	snprintf(p->dtype_b, sizeof p->dtype_b, "%s", b->descr);
	npy_shape_text(p->shape_a, sizeof p->shape_a, a);
	npy_shape_text(p->shape_b, sizeof p->shape_b, b);
}

static int same_shape(const npy_info *a, const npy_info *b)
{
	if (a->ndim != b->ndim)
		return 0;
	for (int i = 0; i < a->ndim; i++)
		if (a->shape[i] != b->shape[i])
			return 0;
	return 1;
}

/* More than one dimension longer than 1: element order depends on the memory order. */
static int order_matters(const npy_info *h)
{
	int big = 0;
	for (int i = 0; i < h->ndim; i++)
		big += h->shape[i] > 1;
	return big > 1;
}

/* One side of a pair read from its tensor data: the element layout into h, its archive
 * and tensor when it is a .pt (*pf, *pt), and its file added once to the files hashed
 * (*file: its index there for a .npy, else (size_t)-1). */
static int side_open(npy_info *h, const ptfile **pf, const pt_tensor **pt, size_t *file, dump_input *in,
                     const dump_tensor_ref *t, dump_hash_file *files, size_t *nfiles, size_t *side, size_t *nside)
{
	*file = (size_t)-1;
	if (t->npy) {
		int rc = npy_read_info(h, t->npy);
		if (rc)
			return rc;
		*file = *nfiles;
		files[*nfiles].path = t->npy;
		side[(*nside)++] = (*nfiles)++;
		return 0;
	}
	size_t k = t->ptf - 1;
	*pf = in->pts[k];
	*pt = &in->pts[k]->t[t->ptt];
	dump_input_pt_layout(h, *pt, (*pf)->big_endian);
	if (!in->pt_hashed[k]) {
		in->pt_hashed[k] = 1;
		files[*nfiles].path = in->pts[k]->path;
		side[(*nside)++] = (*nfiles)++;
	}
	return 0;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Lists for hashing every tensor file of in that is not listed yet (a file no pair reads,
 * or one whose partner has only statistics): .npy files, opened .pt files, and the .pt
 * files dump.json records name that are there; each once (records may share a file). */
static void add_unlisted(dump_input *in, dump_hash_file *files, size_t *nfiles, size_t *side, size_t *nside)
{
	const char **listed = xmalloc((*nside ? *nside : 1) * sizeof *listed);
	for (size_t i = 0; i < *nside; i++)
		listed[i] = files[side[i]].path;
	qsort(listed, *nside, sizeof *listed, cmp_str);
	const char **paths = xmalloc((in->n ? in->n : 1) * sizeof *paths);
	size_t n = 0, nlisted = *nside;
	for (size_t i = 0; i < in->n; i++) {
		const dump_tensor_ref *t = &in->t[i];
		if (t->npy) {
			paths[n++] = t->npy;
		} else if (t->ptf) {
			size_t k = t->ptf - 1;
			if (!in->pt_hashed[k]) {
				in->pt_hashed[k] = 1;
				paths[n++] = in->pts[k]->path;
			}
		} else if (t->pt && access(t->pt, R_OK) == 0) {
			paths[n++] = t->pt;
		}
	}
	qsort(paths, n, sizeof *paths, cmp_str);
	for (size_t i = 0; i < n; i++)
		if ((i == 0 || strcmp(paths[i], paths[i - 1]) != 0) &&
		    !bsearch(&paths[i], listed, nlisted, sizeof *listed, cmp_str)) {
			files[*nfiles].path = paths[i];
			side[(*nside)++] = (*nfiles)++;
		}
	free(paths);
	free(listed);
}

/* ------------------------------------------------------------ unchecked tensors */

/* A tensor's value as its dump.json record states it: dtype, shape and the four
 * statistics, or NULL without them (the caller frees). Two records with the same text
 * hold the same tensor, as where one call's output is the next call's input. */
static char *value_key(const cJSON *rec)
{
	if (!rec)
		return NULL;
	double v[4];
	for (int k = 0; k < 4; k++) {
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(rec, dump_stat_names[k]);
		if (!cJSON_IsNumber(x))
			return NULL;
		v[k] = x->valuedouble;
	}
	char dtype[32], shape[64];
	dump_input_record_meta(dtype, sizeof dtype, shape, sizeof shape, rec);
	return xasprintf("%s|%s|%.17g|%.17g|%.17g|%.17g", dtype, shape, v[0], v[1], v[2], v[3]);
}

static int is_output(const dump_tensor_ref *t)
{
	size_t n = strlen(t->layer);
	return strncmp(t->name, t->layer, n) == 0 && strncmp(t->name + n, ".output", 7) == 0;
}

/* Counts A's tensors B lacks that no compared tensor vouches for (out->unchecked, and the
 * first of them). B may lack tensors in the middle, as where an NPU fuses several
 * operators into one: a divergence there shows in the compared calls computed from them.
 * So, walking A's calls backwards, a call is checked when one of its outputs was compared
 * or has the value of a compared tensor or of a checked call's input; then its inputs are
 * checked too. A tensor without statistics to trace is checked when a compared pair
 * comes after it. paired[i] says A's tensor i has a partner. */
static void find_unchecked(dump_result *out, const dump_input *ia, const char *paired)
{
	size_t n = ia->n, last = 0, any = 0;
	char **key = xcalloc(n ? n : 1, sizeof *key);
	name_idx *sorted = xmalloc((n ? n : 1) * sizeof *sorted); /* by value key */
	size_t *cls = xmalloc((n ? n : 1) * sizeof *cls), nk = 0;
	for (size_t i = 0; i < n; i++) {
		key[i] = value_key(ia->t[i].rec);
		if (key[i])
			sorted[nk++] = (name_idx){ key[i], i };
		if (paired[i]) {
			last = i;
			any = 1;
		}
	}
	qsort(sorted, nk, sizeof *sorted, cmp_name_idx);
	size_t nclass = 0;
	for (size_t k = 0; k < nk; k++) {
		if (k && strcmp(sorted[k].name, sorted[k - 1].name) != 0)
			nclass++;
		cls[sorted[k].idx] = nclass;
	}
	char *seen = xcalloc(nclass + 1, 1); /* a value a compared or checked tensor holds */
	for (size_t i = 0; i < n; i++)
		if (paired[i] && key[i])
			seen[cls[i]] = 1;
	long long first = -1;
	for (size_t hi = n; hi > 0;) {
		size_t lo = hi - 1;
		while (lo > 0 && ia->t[lo - 1].order == ia->t[hi - 1].order)
			lo--;
		int missing = 0, ok = 0;
		for (size_t i = lo; i < hi; i++) {
			missing |= !paired[i];
			if (is_output(&ia->t[i]) &&
			    (paired[i] || (key[i] ? seen[cls[i]] : any && i < last)))
				ok = 1;
		}
		for (size_t i = lo; missing && i < hi; i++) {
			if (ok && key[i])
				seen[cls[i]] = 1;
			if (paired[i] || ok || (key[i] ? seen[cls[i]] : any && i < last))
				continue;
			out->unchecked++;
			if (first < 0 || (long long)i < first)
				first = (long long)i;
		}
		hi = lo;
	}
	if (first >= 0)
		out->first_unchecked = xstrdup(ia->t[first].name);
	for (size_t i = 0; i < n; i++)
		free(key[i]);
	free(key);
	free(sorted);
	free(cls);
	free(seen);
}

int dump_compare(dump_result *out, const char *a, const char *b, const dump_opts *opts)
{
	memset(out, 0, sizeof *out);
	out->first_fail = -1;
	if (opts)
		out->th = opts->th;
	dump_input ia, ib;
	dump_tensor_io *io = NULL;
	dump_hash_file *files = NULL;
	dump_metrics *metrics = NULL;
	name_idx *sorted = NULL;
	size_t *pair_a = NULL, *pair_b = NULL;
	size_t *real_of = NULL, *side_a = NULL, *side_b = NULL;
	size_t nreal = 0, nfiles = 0, na_files = 0, nb_files = 0;
	char *used = NULL; /* B's tensors that have a partner */
	int rc = dump_input_load(&ia, a);
	if (rc) {
		memset(&ib, 0, sizeof ib);
		goto out;
	}
	if ((rc = dump_input_load(&ib, b)))
		goto out;
	if (dump_input_is_single(ia.form) != dump_input_is_single(ib.form)) {
		rc = err_set(FERRY_EUSAGE, _("%s: a %s cannot be compared with the %s %s"), b, dump_input_form_name(ib.form),
		             dump_input_form_name(ia.form), a);
		goto out;
	}
	out->form_a = xstrdup(dump_input_form_name(ia.form));
	out->form_b = xstrdup(dump_input_form_name(ib.form));

	/* match by name (two single files match each other whatever their names) */
	sorted = xmalloc((ib.n ? ib.n : 1) * sizeof *sorted);
	for (size_t i = 0; i < ib.n; i++)
		sorted[i] = (name_idx){ ib.t[i].name, i };
	qsort(sorted, ib.n, sizeof *sorted, cmp_name_idx);
	used = xcalloc(ib.n ? ib.n : 1, 1);
	out->pairs = xcalloc(ia.n ? ia.n : 1, sizeof *out->pairs);
	pair_a = xmalloc((ia.n ? ia.n : 1) * sizeof *pair_a);
	pair_b = xmalloc((ia.n ? ia.n : 1) * sizeof *pair_b);
	for (size_t i = 0; i < ia.n; i++) {
		size_t k;
		if (dump_input_is_single(ia.form) && dump_input_is_single(ib.form) && ia.n == 1 && ib.n == 1) {
			k = 0;
		} else {
			name_idx key = { ia.t[i].name, 0 };
			name_idx *hit = bsearch(&key, sorted, ib.n, sizeof *sorted, cmp_name_idx);
			if (!hit) {
				out->only_a++;
				continue;
			}
			k = hit->idx;
		}
		used[k] = 1;
		pair_a[out->n] = i;
		pair_b[out->n] = k;
		dump_pair *p = &out->pairs[out->n++];
		p->name = xstrdup(ia.t[i].name);
		p->layer = xstrdup(ia.t[i].layer);
		p->order = ia.t[i].order;
	}
	for (size_t k = 0; k < ib.n; k++)
		out->only_b += !used[k];

	/* headers of every tensor to read; statistics for the rest */
	io = xcalloc(out->n ? out->n : 1, sizeof *io);
	real_of = xmalloc((out->n ? out->n : 1) * sizeof *real_of);
	size_t cap = 2 * out->n + 2 + ia.n + ib.n; /* dump.json, both sides' pairs, every other file */
	files = xcalloc(cap, sizeof *files);
	side_a = xmalloc(cap * sizeof *side_a);
	side_b = xmalloc(cap * sizeof *side_b);
	if (ia.json_path) {
		files[nfiles].path = ia.json_path;
		side_a[na_files++] = nfiles++;
	}
	if (ib.json_path) {
		files[nfiles].path = ib.json_path;
		side_b[nb_files++] = nfiles++;
	}
	for (size_t i = 0; i < out->n; i++) {
		dump_pair *p = &out->pairs[i];
		dump_tensor_ref *ta = &ia.t[pair_a[i]], *tb = &ib.t[pair_b[i]];
		real_of[i] = (size_t)-1;
		if ((rc = dump_input_resolve_pt(&ia, ta)) || (rc = dump_input_resolve_pt(&ib, tb)))
			goto out;
		if ((ta->npy || ta->ptf) && (tb->npy || tb->ptf)) {
			dump_tensor_io *t = &io[nreal];
			if ((rc = side_open(&t->a, &t->fa, &t->ta, &t->file_a, &ia, ta, files, &nfiles, side_a, &na_files)) ||
			    (rc = side_open(&t->b, &t->fb, &t->tb, &t->file_b, &ib, tb, files, &nfiles, side_b, &nb_files)))
				goto out;
			t->path_a = t->fa ? t->fa->path : ta->npy;
			t->path_b = t->fb ? t->fb->path : tb->npy;
			apply_bf16(&t->a, opts ? opts->dtype_a : NULL, ta->rec);
			apply_bf16(&t->b, opts ? opts->dtype_b : NULL, tb->rec);
			fill_meta_npy(p, &t->a, &t->b);
			stated_dtype(p->dtype_json_a, sizeof p->dtype_json_a, &p->dtype_held_a, &t->a, ta->rec);
			stated_dtype(p->dtype_json_b, sizeof p->dtype_json_b, &p->dtype_held_b, &t->b, tb->rec);
			if (!same_shape(&t->a, &t->b)) {
				p->mode = DUMP_UNMATCHED;
				p->note = N_("shapes differ: not compared");
				continue;
			}
			if (t->a.kind == 'V' || t->b.kind == 'V') {
				p->mode = DUMP_UNMATCHED;
				p->note = N_("opaque 2-byte values (|V2): name their dtype (--dtype-a/--dtype-b bf16)");
				continue;
			}
			if (is_float_kind(t->a.kind) != is_float_kind(t->b.kind)) {
				p->mode = DUMP_UNMATCHED;
				p->note = N_("an integer tensor against a float tensor: not compared (bfloat16 stored as "
				          "integers? --dtype-a/--dtype-b bf16)");
				continue;
			}
			if (t->a.fortran != t->b.fortran && order_matters(&t->a)) {
				rc = err_set(FERRY_ECORRUPT,
				             _("%s: %s-order array against the %s-order %s of shape %s: element orders differ "
				             "(save both in the same order)"),
				             t->path_b, t->b.fortran ? "Fortran" : "C", t->a.fortran ? "Fortran" : "C", t->path_a,
				             p->shape_a);
				goto out;
			}
			p->mode = DUMP_REAL;
			real_of[i] = nreal++;
		} else if ((ta->missing && !ia.stats_task) || (tb->missing && !ib.stats_task)) {
			/* a tensor dump's record whose file is gone: statistics could only warn, so a
			 * deleted diverging tensor would pass */
			p->mode = DUMP_UNMATCHED;
			p->note = N_("its tensor file is missing from the dump (dump.json names it): not compared");
		} else if (ta->rec && tb->rec) {
			p->mode = DUMP_STATS;
			dump_input_record_meta(p->dtype_a, sizeof p->dtype_a, p->shape_a, sizeof p->shape_a, ta->rec);
			dump_input_record_meta(p->dtype_b, sizeof p->dtype_b, p->shape_b, sizeof p->shape_b, tb->rec);
			if (strcmp(p->shape_a, p->shape_b) != 0) {
				p->mode = DUMP_UNMATCHED;
				p->note = N_("shapes differ: not compared");
			}
		} else {
			/* a tensor file on one side only and no statistics on the other */
			p->mode = DUMP_UNMATCHED;
			p->note = N_("tensor data on one side only");
		}
	}

	/* the tensor files no pair reads are part of what was dumped: their hashes go into
	 * the manifests too, so two dumps that differ only there are told apart */
	add_unlisted(&ia, files, &nfiles, side_a, &na_files);
	add_unlisted(&ib, files, &nfiles, side_b, &nb_files);
	/* hashes recorded when a dump was ingested spare reading its files twice */
	dump_known_hashes(files, nfiles, a);
	dump_known_hashes(files, nfiles, b);
	metrics = xcalloc(nreal ? nreal : 1, sizeof *metrics);
	rc = dump_engine_run(metrics, io, nreal, files, nfiles, opts ? opts->chunk_elems : 0, opts ? opts->threads : 0,
	                     opts ? &opts->th : NULL);
	if (rc)
		goto out;
	for (size_t i = 0; i < out->n; i++) {
		dump_pair *p = &out->pairs[i];
		if (p->mode == DUMP_REAL) {
			p->m = metrics[real_of[i]];
			dump_judge_real(p, opts ? &opts->th : NULL);
			out->nreal++;
		} else if (p->mode == DUMP_STATS) {
			dump_judge_stats(p, ia.t[pair_a[i]].rec, ib.t[pair_b[i]].rec, opts ? &opts->th : NULL);
			out->nstats++;
		} else {
			p->pass = 0;
			out->nunmatched++;
		}
		judge_stated_dtype(out, p);
	}
	for (size_t i = 0; i < out->n; i++) {
		out->nempty += out->pairs[i].mode == DUMP_REAL && !dump_pair_compares(&out->pairs[i]);
		if (out->pairs[i].pass && out->pairs[i].warn)
			out->nwarn++;
		else if (!out->pairs[i].pass) {
			out->nfailed++;
			if (out->first_fail < 0)
				out->first_fail = (long long)i;
		}
	}
	if (out->nstats) {
		out->stats_reason = xstrdup(ia.pt_missing || ib.pt_missing
		                                ? _("the dump's .pt files are not there (a statistics-only dump)")
		                                : _("the dump holds no readable tensor files"));
	}
	/* a single file is known by its own hash, a dump by its manifest's */
	if (dump_input_is_single(ia.form) && na_files == 1)
		snprintf(out->sha_a, sizeof out->sha_a, "%s", files[side_a[0]].sha);
	else
		dump_manifest_hash(out->sha_a, files, side_a, na_files, a);
	if (dump_input_is_single(ib.form) && nb_files == 1)
		snprintf(out->sha_b, sizeof out->sha_b, "%s", files[side_b[0]].sha);
	else
		dump_manifest_hash(out->sha_b, files, side_b, nb_files, b);
	size_t in_a = out->n + out->only_a;
	out->coverage = in_a ? (double)out->n / (double)in_a : 1.0;
	char *paired = xcalloc(ia.n ? ia.n : 1, 1);
	for (size_t i = 0; i < out->n; i++)
		paired[pair_a[i]] = 1;
	find_unchecked(out, &ia, paired);
	free(paired);
	out->incomplete = out->n > 0 && (out->coverage < DUMP_MIN_COVERAGE || out->unchecked);
	out->pass = out->n > out->nempty && out->nfailed == 0 && !out->incomplete;
out:
	free(used);
	free(sorted);
	free(pair_a);
	free(pair_b);
	free(real_of);
	free(side_a);
	free(side_b);
	free(io);
	free(files);
	free(metrics);
	dump_input_done(&ia);
	dump_input_done(&ib);
	if (rc)
		dump_result_done(out);
	return rc;
}

int dump_result_same_values(const dump_result *r)
{
	if (!r->n || r->only_a || r->only_b)
		return 0;
	for (size_t i = 0; i < r->n; i++) {
		const dump_pair *p = &r->pairs[i];
		if (!dump_pair_compares(p))
			return 0;
		if (p->mode == DUMP_REAL && (p->m.max_abs != 0 || p->m.nonfinite_mismatch || p->m.nonfinite_a != p->m.nonfinite_b))
			return 0;
		if (p->mode == DUMP_STATS)
			for (int k = 0; k < 4; k++)
				if (p->stat_rel[k] != 0 && !(isnan(p->stat_a[k]) && isnan(p->stat_b[k])))
					return 0;
	}
	return 1;
}

void dump_result_done(dump_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++) {
		free(r->pairs[i].name);
		free(r->pairs[i].layer);
	}
	free(r->pairs);
	free(r->form_a);
	free(r->form_b);
	free(r->stats_reason);
	free(r->first_unchecked);
	memset(r, 0, sizeof *r);
	r->first_fail = -1;
}
