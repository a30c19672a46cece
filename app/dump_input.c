/* dump_input — see dump_input.h. */
#include "dump_input.h"
#include "err.h"
#include "intl.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *const form_names[] = { "npy", "dump.json", "tensor folder", "pt" };

const char *dump_input_form_name(int form)
{
	return form_names[form];
}

int dump_input_is_single(int form)
{
	return form == DUMP_FORM_NPY || form == DUMP_FORM_PT;
}

void dump_input_done(dump_input *in)
{
	for (size_t i = 0; i < in->n; i++) {
		free(in->t[i].name);
		free(in->t[i].layer);
		free(in->t[i].npy);
		free(in->t[i].pt);
	}
	for (size_t i = 0; i < in->npts; i++)
		ptfile_free(in->pts[i]);
	free(in->pts);
	free(in->pt_hashed);
	free(in->t);
	free(in->dir);
	free(in->json_path);
	cJSON_Delete(in->doc);
	memset(in, 0, sizeof *in);
}

static dump_tensor_ref *add_tensor(dump_input *in, const char *name, const char *layer, size_t order)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 64;
		in->t = xrealloc(in->t, in->cap * sizeof *in->t);
	}
	dump_tensor_ref *t = &in->t[in->n++];
	memset(t, 0, sizeof *t);
	t->name = xstrdup(name);
	t->layer = xstrdup(layer);
	t->order = order;
	return t;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Python's json writes NaN, Infinity and -Infinity bare; cJSON refuses them. Rewrites them
 * as strings outside string literals. */
static char *quote_nonfinite(const char *s, size_t len, size_t *outlen)
{
	sbuf b;
	sbuf_init(&b);
	int in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];
		if (in_str) {
			sbuf_addc(&b, c);
			if (c == '\\' && i + 1 < len)
				sbuf_addc(&b, s[++i]);
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '"')
			in_str = 1;
		static const char *const words[] = { "-Infinity", "Infinity", "NaN", NULL };
		int done = 0;
		for (size_t k = 0; words[k] && !done; k++) {
			size_t wl = strlen(words[k]);
			if (len - i >= wl && memcmp(s + i, words[k], wl) == 0) {
				sbuf_addc(&b, '"');
				sbuf_add(&b, words[k], wl);
				sbuf_addc(&b, '"');
				i += wl - 1;
				done = 1;
			}
		}
		if (!done)
			sbuf_addc(&b, c);
	}
	*outlen = b.len;
	return sbuf_detach(&b);
}

static int is_tensor_record(const cJSON *o)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(o, "type");
	return cJSON_IsObject(o) && cJSON_IsString(t) && strstr(t->valuestring, "Tensor") != NULL;
}

/* Collects the tensor records under node, named prefix.key.index… */
static void walk_records(dump_input *in, const cJSON *node, const char *prefix, const char *layer, size_t order,
                         int depth)
{
	if (depth > 64)
		return;
	if (is_tensor_record(node)) {
		dump_tensor_ref *t = add_tensor(in, prefix, layer, order);
		t->rec = node;
		const cJSON *dn = cJSON_GetObjectItemCaseSensitive(node, "data_name");
		if (cJSON_IsString(dn) && !strchr(dn->valuestring, '/') && strcmp(dn->valuestring, "..") != 0) {
			if (util_ends_with(dn->valuestring, ".npy")) {
				char *sub = util_path_join(in->dir, "dump_tensor_data");
				char *p = util_path_join(sub, dn->valuestring);
				free(sub);
				if (is_file(p)) {
					t->npy = p;
				} else {
					free(p);
					t->missing = 1;
				}
			} else if (util_ends_with(dn->valuestring, ".pt")) {
				char *sub = util_path_join(in->dir, "dump_tensor_data");
				char *p = util_path_join(sub, dn->valuestring);
				free(sub);
				if (is_file(p)) {
					t->pt = p;
				} else {
					free(p);
					in->pt_missing++;
					t->missing = 1;
				}
			}
			if (t->missing && !in->missing++)
				in->first_missing = dn->valuestring;
		}
		return;
	}
	if (!cJSON_IsArray(node) && !cJSON_IsObject(node))
		return;
	size_t i = 0;
	const cJSON *c;
	cJSON_ArrayForEach(c, node)
	{
		char *name;
		if (cJSON_IsArray(node)) {
			name = xasprintf("%s.%zu", prefix, i);
		} else {
			const char *k = c->string ? c->string : "";
			if (depth == 0 && (strcmp(k, "input_args") == 0 || strcmp(k, "input_kwargs") == 0))
				k = "input";
			name = xasprintf("%s.%s", prefix, k);
		}
		walk_records(in, c, name, layer, order, depth + 1);
		free(name);
		i++;
	}
}

static int load_dump_json(dump_input *in)
{
	char *text = NULL, *clean = NULL;
	size_t len = 0, clen = 0;
	int rc = util_read_file(&text, &len, in->json_path);
	if (rc)
		return rc;
	if (memchr(text, '\0', len)) {
		rc = err_set(FERRY_ECORRUPT, _("%s: binary data where a dump.json was expected"), in->json_path);
		goto out;
	}
	clean = quote_nonfinite(text, len, &clen);
	const char *end = NULL;
	in->doc = cJSON_ParseWithLengthOpts(clean, clen, &end, 0);
	if (!in->doc) {
		rc = err_set(FERRY_ECORRUPT, _("%s: not valid JSON (broken or truncated near byte %zu)"), in->json_path,
		             end ? (size_t)(end - clean) : 0);
		goto out;
	}
	const cJSON *task = cJSON_GetObjectItemCaseSensitive(in->doc, "task");
	in->stats_task = cJSON_IsString(task) && strcmp(task->valuestring, "statistics") == 0;
	const cJSON *data = cJSON_GetObjectItemCaseSensitive(in->doc, "data");
	if (!cJSON_IsObject(data)) {
		rc = err_set(FERRY_ECORRUPT, _("%s: not an msprobe dump.json (no \"data\" object)"), in->json_path);
		goto out;
	}
	size_t order = 0;
	const cJSON *entry;
	cJSON_ArrayForEach(entry, data)
	{
		if (entry->string)
			walk_records(in, entry, entry->string, entry->string, order++, 0);
	}
out:
	free(text);
	free(clean);
	return rc;
}

/* The layer of a tensor named after msprobe's grammar: the name before
 * ".input."/".output."/".parameters." (or the whole name). */
static char *layer_of(const char *name)
{
	static const char *const parts[] = { ".input.", ".output.", ".parameters.", ".parameters_grad", NULL };
	const char *cut = NULL;
	for (size_t i = 0; parts[i]; i++) {
		const char *s = strstr(name, parts[i]);
		if (s && (!cut || s < cut))
			cut = s;
	}
	return cut ? xstrndup(name, (size_t)(cut - name)) : xstrdup(name);
}

/* Opens the .pt at path into the input's list; *out gets its index there. */
static int input_open_pt(size_t *out, dump_input *in, const char *path)
{
	ptfile *f = NULL;
	int rc = ptfile_open(&f, path);
	if (rc)
		return rc;
	if (in->npts == in->ptcap) {
		in->ptcap = in->ptcap ? in->ptcap * 2 : 16;
		in->pts = xrealloc(in->pts, in->ptcap * sizeof *in->pts);
		in->pt_hashed = xrealloc(in->pt_hashed, in->ptcap);
	}
	in->pts[in->npts] = f;
	in->pt_hashed[in->npts] = 0;
	*out = in->npts++;
	return 0;
}

/* Adds the tensors of the .pt at path, named `base` (a file of one unnamed tensor),
 * base.key, or by key alone when keyed is 1 (a state_dict compared key by key). */
static int add_pt_tensors(dump_input *in, const char *path, const char *base, int keyed)
{
	size_t k;
	int rc = input_open_pt(&k, in, path);
	if (rc)
		return rc;
	const ptfile *f = in->pts[k];
	for (size_t i = 0; i < f->n; i++) {
		const char *key = f->t[i].name;
		char *name = !*key ? xstrdup(base) : keyed ? xstrdup(key) : xasprintf("%s.%s", base, key);
		char *layer = layer_of(name);
		dump_tensor_ref *t = add_tensor(in, name, layer, in->n);
		t->ptf = k + 1;
		t->ptt = i;
		free(name);
		free(layer);
	}
	return 0;
}

/* A .pt file a dump.json record names, opened when its pair is compared: it must hold
 * the one tensor the record describes. */
int dump_input_resolve_pt(dump_input *in, dump_tensor_ref *t)
{
	if (!t->pt || t->ptf)
		return 0;
	size_t k;
	int rc = input_open_pt(&k, in, t->pt);
	if (rc)
		return rc;
	if (in->pts[k]->n != 1)
		return err_set(FERRY_ECORRUPT, _("%s: holds %zu tensors where its dump.json record describes one"), t->pt,
		               in->pts[k]->n);
	t->ptf = k + 1;
	t->ptt = 0;
	return 0;
}

/* The layout of a .pt tensor in .npy terms, so one decoder serves both. */
void dump_input_pt_layout(npy_info *h, const pt_tensor *t, int big_endian)
{
	static const char kinds[] = { [PT_F32] = 'f', [PT_F16] = 'f', [PT_F64] = 'f', [PT_BF16] = 'B', [PT_I8] = 'i',
		                          [PT_I16] = 'i', [PT_I32] = 'i', [PT_I64] = 'i', [PT_U8] = 'u',  [PT_BOOL] = 'b' };
	memset(h, 0, sizeof *h);
	h->kind = kinds[t->dtype];
	h->itemsize = t->itemsize;
	h->big_endian = big_endian && t->itemsize > 1;
	h->ndim = t->ndim;
	for (int d = 0; d < t->ndim; d++)
		h->shape[d] = t->shape[d];
	h->count = t->count;
	if (h->kind == 'B')
		snprintf(h->descr, sizeof h->descr, "bf16");
	else
		snprintf(h->descr, sizeof h->descr, "%c%c%d", t->itemsize == 1 ? '|' : big_endian ? '>' : '<', h->kind,
		         t->itemsize);
}

typedef struct npy_entry {
	char *name;
} npy_entry;

/* Natural order ("conv2d.2" before "conv2d.10"): dump tools number the calls of each
 * API, so the names give the execution order where no dump.json does. Never the files'
 * times, which a copy or an archive rewrites. */
static int cmp_npy_entry(const void *x, const void *y)
{
	const npy_entry *a = x, *b = y;
	return strverscmp(a->name, b->name);
}

/* A folder of .npy and .pt files: tensors named by file name (and a .pt file's keys),
 * in natural name order. */
static int load_npy_folder(dump_input *in)
{
	DIR *d = opendir(in->dir);
	if (!d)
		return err_set(FERRY_EIO, "%s: %s", in->dir, strerror(errno));
	npy_entry *e = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if ((!util_ends_with(de->d_name, ".npy") && !util_ends_with(de->d_name, ".pt")) || de->d_name[0] == '.')
			continue;
		char *p = util_path_join(in->dir, de->d_name);
		struct stat st;
		if (stat(p, &st) == 0 && S_ISREG(st.st_mode)) {
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				e = xrealloc(e, cap * sizeof *e);
			}
			e[n].name = xstrdup(de->d_name);
			n++;
		}
		free(p);
	}
	closedir(d);
	qsort(e, n, sizeof *e, cmp_npy_entry);
	int rc = 0;
	for (size_t i = 0; i < n; i++) {
		int pt = util_ends_with(e[i].name, ".pt");
		char *base = xstrndup(e[i].name, strlen(e[i].name) - (pt ? 3 : 4));
		char *path = util_path_join(in->dir, e[i].name);
		if (pt) {
			if (!rc)
				rc = add_pt_tensors(in, path, base, 0);
			free(path);
		} else {
			char *layer = layer_of(base);
			dump_tensor_ref *t = add_tensor(in, base, layer, in->n);
			t->npy = path;
			free(layer);
		}
		free(base);
		free(e[i].name);
	}
	free(e);
	if (!rc && !in->n)
		rc = err_set(FERRY_ECORRUPT, _("%s: not a dump (no dump.json and no .npy or .pt files)"), in->dir);
	return rc;
}

/* Finds dump.json at dir, dir/x/ or dir/x/y/ (step and rank folders). Returns the
 * number found; *out gets the first. */
static size_t find_dump_json(char **out, const char *dir, int depth)
{
	char *p = util_path_join(dir, "dump.json");
	if (is_file(p)) {
		*out = p;
		return 1;
	}
	free(p);
	if (depth >= 2)
		return 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	size_t found = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || strcmp(de->d_name, "dump_tensor_data") == 0)
			continue;
		char *sub = util_path_join(dir, de->d_name);
		if (is_dir(sub)) {
			char *hit = NULL;
			size_t k = find_dump_json(&hit, sub, depth + 1);
			if (k && !found)
				*out = hit;
			else
				free(hit);
			found += k;
		}
		free(sub);
	}
	closedir(d);
	return found;
}

int dump_input_load(dump_input *in, const char *path)
{
	memset(in, 0, sizeof *in);
	in->arg = path;
	struct stat st;
	if (stat(path, &st) < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode)) {
		char *json = NULL;
		size_t k = find_dump_json(&json, path, 0);
		if (k > 1) {
			int rc = err_set(FERRY_EUSAGE, _("%s: holds %zu dump.json files (steps or ranks); name one, e.g. %s"), path,
			                 k, json);
			free(json);
			return rc;
		}
		if (k == 1) {
			in->form = DUMP_FORM_JSON;
			in->json_path = json;
			char *slash = strrchr(json, '/');
			in->dir = slash ? xstrndup(json, (size_t)(slash - json)) : xstrdup(".");
			return load_dump_json(in);
		}
		in->form = DUMP_FORM_FOLDER;
		in->dir = xstrdup(path);
		return load_npy_folder(in);
	}
	if (!S_ISREG(st.st_mode))
		return err_set(FERRY_EIO, _("%s: not a regular file or folder"), path);
	unsigned char magic[6] = { 0 };
	FILE *f = fopen(path, "rb");
	if (!f)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	size_t got = fread(magic, 1, sizeof magic, f);
	fclose(f);
	if ((got >= 4 && memcmp(magic, "PK\x03\x04", 4) == 0) || util_ends_with(path, ".pt") ||
	    util_ends_with(path, ".pth")) {
		in->form = DUMP_FORM_PT;
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		size_t ext = util_ends_with(base, ".pt") ? 3 : util_ends_with(base, ".pth") ? 4 : 0;
		char *name = xstrndup(base, strlen(base) - ext);
		int rc = add_pt_tensors(in, path, name, 1);
		free(name);
		return rc;
	}
	if ((got == 6 && memcmp(magic, "\x93NUMPY", 6) == 0) || util_ends_with(path, ".npy")) {
		in->form = DUMP_FORM_NPY;
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		char *name = util_ends_with(base, ".npy") ? xstrndup(base, strlen(base) - 4) : xstrdup(base);
		char *layer = layer_of(name);
		dump_tensor_ref *t = add_tensor(in, name, layer, 0);
		t->npy = xstrdup(path);
		free(name);
		free(layer);
		return 0;
	}
	in->form = DUMP_FORM_JSON;
	in->json_path = xstrdup(path);
	const char *slash = strrchr(path, '/');
	in->dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	return load_dump_json(in);
}

void dump_input_record_meta(char *dtype, size_t dsize, char *shape, size_t ssize, const cJSON *rec)
{
	const cJSON *dt = cJSON_GetObjectItemCaseSensitive(rec, "dtype");
	snprintf(dtype, dsize, "%s", cJSON_IsString(dt) ? dt->valuestring : "");
	const cJSON *sh = cJSON_GetObjectItemCaseSensitive(rec, "shape");
	size_t n = (size_t)snprintf(shape, ssize, "(");
	int i = 0;
	const cJSON *d;
	cJSON_ArrayForEach(d, sh)
	{
		if (n >= ssize)
			break;
		/* a shape dimension as written (%.15g: any JSON number, however large) */
		n += (size_t)snprintf(shape + n, ssize - n, "%s%.15g", i++ ? ", " : "",
		                      cJSON_IsNumber(d) ? d->valuedouble : -1.0);
	}
	if (n < ssize)
		snprintf(shape + n, ssize - n, i == 1 ? ",)" : ")");
}

int dump_input_verify(const char *path)
{
	dump_input in;
	memset(&in, 0, sizeof in);
	int rc = dump_input_load(&in, path);
	/* a tensor dump that lost files is damaged evidence, not a statistics dump */
	if (!rc && in.missing && !in.stats_task)
		rc = err_set(FERRY_ECORRUPT,
		             P_("%s: %zu tensor file that its dump.json names is missing (%s); copy the whole dump "
		                "folder with dump_tensor_data/",
		                "%s: %zu tensor files that its dump.json names are missing (the first: %s); copy the whole "
		                "dump folder with dump_tensor_data/",
		                in.missing),
		             in.json_path, in.missing, in.first_missing);
	for (size_t i = 0; !rc && i < in.n; i++) {
		dump_tensor_ref *t = &in.t[i];
		if (t->npy) {
			npy_info info;
			rc = npy_read_info(&info, t->npy);
		} else if (t->pt) {
			rc = dump_input_resolve_pt(&in, t);
		}
	}
	/* every .pt opened, whole inputs and those the dump.json names: intact to the byte */
	for (size_t i = 0; !rc && i < in.npts; i++)
		rc = ptfile_check_crc(in.pts[i]->path);
	dump_input_done(&in);
	return rc;
}
