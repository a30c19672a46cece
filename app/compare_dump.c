/* compare_dump — see compare_dump.h. */
#include "compare_dump.h"
#include "err.h"
#include "intl.h"
#include "ptfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_CHUNK ((size_t)128 << 10)
#define MAX_HEADER ((size_t)1 << 20)
#define REL_EPS 1e-12
/* msprobe's real-data rule (CompareConst: COS_THRESHOLD, MAX_ABS_ERR_THRESHOLD,
 * COS_MAX_THRESHOLD, MAX_ABS_ERR_MAX_THRESHOLD) and its statistics-mode MAGNITUDE. */
#define COS_THRESHOLD 0.99
#define MAX_ABS_ERR_THRESHOLD 0.001
#define COS_MAX_THRESHOLD 0.9
#define MAX_ABS_ERR_MAX_THRESHOLD 1.0
#define STAT_MAGNITUDE 0.5

static const char *const stat_names[4] = { "Max", "Min", "Mean", "Norm" };

/* ------------------------------------------------------------------ .npy header */

static const unsigned char *skip_ws(const unsigned char *p, const unsigned char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* A quoted Python string at *p into out (size bytes); advances *p. */
static int py_string(char *out, size_t size, const unsigned char **p, const unsigned char *end)
{
	if (*p >= end || (**p != '\'' && **p != '"'))
		return -1;
	unsigned char q = *(*p)++;
	size_t n = 0;
	while (*p < end && **p != q) {
		if (**p == '\\' || n + 1 >= size)
			return -1;
		out[n++] = (char)*(*p)++;
	}
	if (*p >= end)
		return -1;
	(*p)++;
	out[n] = '\0';
	return 0;
}

static int parse_descr(npy_info *h, const char *d)
{
	size_t len = strlen(d);
	if (len < 3 || len > 4 || !strchr("<>|=", d[0]))
		return -1;
	char *end = NULL;
	long size = strtol(d + 2, &end, 10);
	if (*end || (size != 1 && size != 2 && size != 4 && size != 8))
		return -1;
	char k = d[1];
	if (k == 'f' && size == 1)
		return -1;
	if (k == 'b' && size != 1)
		return -1;
	if (k == 'V' && size != 2)
		return -1; /* opaque 2-byte values: how tools without bfloat16 store it */
	if (k != 'f' && k != 'i' && k != 'u' && k != 'b' && k != 'V')
		return -1;
	h->kind = k;
	h->itemsize = (int)size;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	h->big_endian = d[0] == '>' || d[0] == '=';
#else
	h->big_endian = d[0] == '>';
#endif
	if (size == 1)
		h->big_endian = 0;
	memcpy(h->descr, d, len + 1); /* len <= 4 */
	return 0;
}

int npy_parse_header(npy_info *out, const char *name, const unsigned char *buf, size_t len)
{
	memset(out, 0, sizeof *out);
	if (len < 10 || memcmp(buf, "\x93NUMPY", 6) != 0)
		return err_set(FERRY_ECORRUPT, _("%s: not a .npy file (no \\x93NUMPY magic)"), name);
	unsigned major = buf[6];
	if (major < 1 || major > 3)
		return err_set(FERRY_ECORRUPT, _("%s: .npy format version %u.%u is not one this reader knows (1–3)"), name,
		               major, buf[7]);
	size_t lenbytes = major == 1 ? 2 : 4;
	if (len < 8 + lenbytes)
		return err_set(FERRY_ECORRUPT, _("%s: truncated .npy header"), name);
	unsigned long long hlen = (unsigned long long)buf[8] | (unsigned long long)buf[9] << 8;
	if (lenbytes == 4)
		hlen |= (unsigned long long)buf[10] << 16 | (unsigned long long)buf[11] << 24;
	size_t start = 8 + lenbytes;
	if (hlen > MAX_HEADER)
		return err_set(FERRY_ECORRUPT, _("%s: .npy header length %llu is implausibly large"), name, hlen);
	if (hlen > len - start)
		return err_set(FERRY_ECORRUPT, _("%s: truncated .npy header (%llu bytes promised, %zu present)"), name, hlen,
		               len - start);
	out->data_offset = start + hlen;
	const unsigned char *p = buf + start, *end = buf + start + hlen;
	int have_descr = 0, have_order = 0, have_shape = 0;
	p = skip_ws(p, end);
	if (p >= end || *p++ != '{')
		goto bad;
	for (;;) {
		p = skip_ws(p, end);
		if (p < end && *p == '}') {
			p++;
			break;
		}
		char key[32];
		if (py_string(key, sizeof key, &p, end))
			goto bad;
		p = skip_ws(p, end);
		if (p >= end || *p++ != ':')
			goto bad;
		p = skip_ws(p, end);
		if (strcmp(key, "descr") == 0 && !have_descr) {
			char d[16];
			if (p < end && *p == '[')
				return err_set(FERRY_ECORRUPT, _("%s: structured .npy dtypes are not supported"), name);
			if (py_string(d, sizeof d, &p, end))
				goto bad;
			if (parse_descr(out, d))
				return err_set(FERRY_ECORRUPT,
				               _("%s: .npy dtype '%s' is not supported (float16/32/64, signed and unsigned "
				               "integers, bool)"),
				               name, d);
			have_descr = 1;
		} else if (strcmp(key, "fortran_order") == 0 && !have_order) {
			if ((size_t)(end - p) >= 4 && memcmp(p, "True", 4) == 0) {
				out->fortran = 1;
				p += 4;
			} else if ((size_t)(end - p) >= 5 && memcmp(p, "False", 5) == 0) {
				p += 5;
			} else {
				goto bad;
			}
			have_order = 1;
		} else if (strcmp(key, "shape") == 0 && !have_shape) {
			if (p >= end || *p++ != '(')
				goto bad;
			unsigned long long count = 1;
			for (;;) {
				p = skip_ws(p, end);
				if (p < end && *p == ')') {
					p++;
					break;
				}
				unsigned long long v = 0;
				size_t digits = 0;
				while (p < end && *p >= '0' && *p <= '9' && digits < 19) {
					v = v * 10 + (unsigned long long)(*p++ - '0');
					digits++;
				}
				if (!digits || (p < end && *p >= '0' && *p <= '9'))
					goto bad;
				if (p < end && *p == 'L')
					p++; /* Python 2 long literals */
				if (out->ndim >= NPY_MAX_DIMS)
					return err_set(FERRY_ECORRUPT, _("%s: .npy array with more than %d dimensions"), name,
					               NPY_MAX_DIMS);
				out->shape[out->ndim++] = (long long)v;
				if (v && count > UINT64_MAX / v)
					return err_set(FERRY_ECORRUPT, _("%s: .npy shape too large"), name);
				count *= v;
				p = skip_ws(p, end);
				if (p < end && *p == ',')
					p++;
				else if (p >= end || *p != ')')
					goto bad;
			}
			out->count = count;
			have_shape = 1;
		} else {
			goto bad;
		}
		p = skip_ws(p, end);
		if (p < end && *p == ',')
			p++;
		else if (p >= end || *p != '}')
			goto bad;
	}
	p = skip_ws(p, end);
	if (p != end || !have_descr || !have_order || !have_shape)
		goto bad;
	if (out->count > UINT64_MAX / 8 || out->count * (unsigned long long)out->itemsize > UINT64_MAX - out->data_offset)
		return err_set(FERRY_ECORRUPT, _("%s: .npy shape too large"), name);
	return 0;
bad:
	return err_set(FERRY_ECORRUPT,
	               _("%s: corrupt .npy header (expected {'descr': …, 'fortran_order': …, 'shape': (…)})"), name);
}

int npy_read_info(npy_info *out, const char *path)
{
	unsigned char *buf = NULL;
	int rc = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		rc = err_set(FERRY_EIO, _("%s: not a regular file"), path);
		goto out;
	}
	unsigned char pre[12];
	ssize_t n = pread(fd, pre, sizeof pre, 0);
	if (n < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
		goto out;
	}
	if (n < 10 || memcmp(pre, "\x93NUMPY", 6) != 0 || (pre[6] > 1 && n < 12)) {
		rc = npy_parse_header(out, path, pre, (size_t)n); /* names the problem */
		if (!rc)
			rc = err_set(FERRY_ECORRUPT, _("%s: truncated .npy header"), path);
		goto out;
	}
	size_t lenbytes = pre[6] == 1 ? 2 : 4;
	unsigned long long hlen = (unsigned long long)pre[8] | (unsigned long long)pre[9] << 8;
	if (lenbytes == 4)
		hlen |= (unsigned long long)pre[10] << 16 | (unsigned long long)pre[11] << 24;
	if (hlen > MAX_HEADER) {
		rc = npy_parse_header(out, path, pre, (size_t)n);
		goto out;
	}
	size_t want = 8 + lenbytes + (size_t)hlen;
	if ((unsigned long long)st.st_size < want) {
		rc = err_set(FERRY_ECORRUPT, _("%s: truncated .npy header (%llu bytes promised, the file has %lld)"), path,
		             hlen, (long long)st.st_size);
		goto out;
	}
	buf = xmalloc(want);
	size_t got = 0;
	while (got < want) {
		ssize_t r = pread(fd, buf + got, want - got, (off_t)got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			rc = r < 0 ? err_set(FERRY_EIO, "%s: %s", path, strerror(errno))
			           : err_set(FERRY_ECORRUPT, _("%s: truncated .npy header"), path);
			goto out;
		}
		got += (size_t)r;
	}
	if ((rc = npy_parse_header(out, path, buf, want)))
		goto out;
	unsigned long long need = out->data_offset + out->count * (unsigned long long)out->itemsize;
	if ((unsigned long long)st.st_size < need)
		rc = err_set(FERRY_ECORRUPT,
		             _("%s: truncated .npy: the header promises %llu bytes of %s data, the file holds %llu"), path,
		             out->count * (unsigned long long)out->itemsize, out->descr,
		             (unsigned long long)st.st_size - out->data_offset);
	else if ((unsigned long long)st.st_size > need)
		rc = err_set(FERRY_ECORRUPT, _("%s: corrupt .npy: %llu bytes after the data the header describes"), path,
		             (unsigned long long)st.st_size - need);
out:
	free(buf);
	close(fd);
	return rc;
}

void npy_shape_text(char *out, size_t size, const npy_info *h)
{
	size_t n = (size_t)snprintf(out, size, "(");
	for (int i = 0; i < h->ndim && n < size; i++) {
		int w = snprintf(out + n, size - n, "%s%lld", i ? ", " : "", h->shape[i]);
		if (w < 0 || (size_t)w >= size - n) {
			snprintf(out + (size > 5 ? size - 5 : 0), size > 5 ? 5 : size, "…)");
			return;
		}
		n += (size_t)w;
	}
	if (n < size)
		snprintf(out + n, size - n, h->ndim == 1 ? ",)" : ")");
}

/* ------------------------------------------------------------------ decoding */

static float half_table[65536];
static pthread_once_t half_once = PTHREAD_ONCE_INIT;

static void half_init(void)
{
	for (uint32_t h = 0; h < 65536; h++) {
		uint32_t e = (h >> 10) & 0x1f, m = h & 0x3ff;
		double v = e == 0 ? ldexp((double)m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp((double)(m | 0x400), (int)e - 25);
		half_table[h] = (float)((h & 0x8000) ? -v : v);
	}
}

static uint16_t ld16(const unsigned char *p, int be)
{
	return be ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t ld32(const unsigned char *p, int be)
{
	if (be)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static uint64_t ld64(const unsigned char *p, int be)
{
	uint64_t hi = ld32(be ? p : p + 4, be), lo = ld32(be ? p + 4 : p, be);
	return hi << 32 | lo;
}

void npy_decode(double *out, const npy_info *h, const unsigned char *raw, size_t n)
{
	int be = h->big_endian;
	switch (h->kind << 8 | h->itemsize) {
	case 'f' << 8 | 2:
		pthread_once(&half_once, half_init);
		for (size_t i = 0; i < n; i++)
			out[i] = half_table[ld16(raw + 2 * i, be)];
		break;
	case 'B' << 8 | 2: /* bfloat16: the upper half of a float32 */
		for (size_t i = 0; i < n; i++) {
			uint32_t u = (uint32_t)ld16(raw + 2 * i, be) << 16;
			float f;
			memcpy(&f, &u, 4);
			out[i] = f;
		}
		break;
	case 'f' << 8 | 4:
		for (size_t i = 0; i < n; i++) {
			uint32_t u = ld32(raw + 4 * i, be);
			float f;
			memcpy(&f, &u, 4);
			out[i] = f;
		}
		break;
	case 'f' << 8 | 8:
		for (size_t i = 0; i < n; i++) {
			uint64_t u = ld64(raw + 8 * i, be);
			double d;
			memcpy(&d, &u, 8);
			out[i] = d;
		}
		break;
	case 'i' << 8 | 1:
		for (size_t i = 0; i < n; i++)
			out[i] = (int8_t)raw[i];
		break;
	case 'i' << 8 | 2:
		for (size_t i = 0; i < n; i++)
			out[i] = (int16_t)ld16(raw + 2 * i, be);
		break;
	case 'i' << 8 | 4:
		for (size_t i = 0; i < n; i++)
			out[i] = (int32_t)ld32(raw + 4 * i, be);
		break;
	case 'i' << 8 | 8:
		for (size_t i = 0; i < n; i++)
			out[i] = (double)(int64_t)ld64(raw + 8 * i, be);
		break;
	case 'u' << 8 | 1:
	case 'b' << 8 | 1:
		for (size_t i = 0; i < n; i++)
			out[i] = raw[i];
		break;
	case 'u' << 8 | 2:
		for (size_t i = 0; i < n; i++)
			out[i] = ld16(raw + 2 * i, be);
		break;
	case 'u' << 8 | 4:
		for (size_t i = 0; i < n; i++)
			out[i] = ld32(raw + 4 * i, be);
		break;
	case 'u' << 8 | 8:
		for (size_t i = 0; i < n; i++)
			out[i] = (double)ld64(raw + 8 * i, be);
		break;
	default:
		for (size_t i = 0; i < n; i++)
			out[i] = NAN;
	}
}

/* ------------------------------------------------------------------ the engine */

/* Sums over one chunk; combined in job order so results do not depend on threads. */
typedef struct partial {
	double dot, na, nb, sq, max_abs, max_rel;
	unsigned long long lt1, lt5, finite, nfa, nfb, mismatch;
} partial;

typedef struct tensor_io {
	const char *path_a, *path_b; /* borrowed from the pair list */
	npy_info a, b;
	const ptfile *fa, *fb;         /* the .pt archive of a side, or NULL for .npy (borrowed) */
	const pt_tensor *ta, *tb;      /* its tensor in that archive */
} tensor_io;

typedef struct job {
	size_t pair;                   /* index into engine.io, or the file index for a hash job */
	unsigned long long from, to;   /* element range */
	int hash;                      /* 1: hash a whole file */
} job;

typedef struct hash_file {
	const char *path;
	char sha[65];
} hash_file;

typedef struct engine {
	tensor_io *io;
	hash_file *files;
	job *jobs;
	size_t njobs;
	partial *parts;    /* one per job */
	size_t chunk;
	atomic_size_t next;
	atomic_int stop;
	pthread_mutex_t mu;
	int code;          /* the first failure */
	char msg[512];
} engine;

static int read_range(unsigned char *buf, const char *path, unsigned long long off, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	size_t got = 0;
	int rc = 0;
	while (got < len) {
		ssize_t r = pread(fd, buf + got, len - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
			break;
		}
		if (r == 0) {
			rc = err_set(FERRY_ECORRUPT, _("%s: truncated .npy: the data ends at byte %llu (changed while read?)"),
			             path, off + got);
			break;
		}
		got += (size_t)r;
	}
	close(fd);
	return rc;
}

/* 1 when x and y are the same kind of non-finite value. */
static int same_nonfinite(double x, double y)
{
	if (isnan(x) || isnan(y))
		return isnan(x) && isnan(y);
	return x == y; /* both infinite here: same sign */
}

static void accumulate(partial *p, const double *da, const double *db, size_t n)
{
	double dot = 0, na = 0, nb = 0, sq = 0, max_abs = p->max_abs, max_rel = p->max_rel;
	unsigned long long lt1 = 0, lt5 = 0, finite = 0;
	for (size_t i = 0; i < n; i++) {
		double x = da[i], y = db[i];
		if (!isfinite(x) || !isfinite(y)) {
			p->nfa += !isfinite(x);
			p->nfb += !isfinite(y);
			p->mismatch += !same_nonfinite(x, y);
			continue;
		}
		/* relative error |d| / den without a division per element */
		double d = y - x, ad = fabs(d), den = fabs(x) + REL_EPS;
		dot += x * y;
		na += x * x;
		nb += y * y;
		sq += d * d;
		max_abs = ad > max_abs ? ad : max_abs;
		if (ad > max_rel * den)
			max_rel = ad / den;
		lt1 += ad < 0.001 * den;
		lt5 += ad < 0.005 * den;
		finite++;
	}
	p->dot += dot;
	p->na += na;
	p->nb += nb;
	p->sq += sq;
	p->max_abs = max_abs;
	p->max_rel = max_rel;
	p->lt1 += lt1;
	p->lt5 += lt5;
	p->finite += finite;
}

typedef struct worker_buf {
	unsigned char *ra, *rb;
	double *da, *db;
} worker_buf;

static int run_job(engine *e, const job *j, worker_buf *w)
{
	if (j->hash)
		return util_sha256_file(e->files[j->pair].sha, e->files[j->pair].path);
	const tensor_io *t = &e->io[j->pair];
	partial *p = &e->parts[j - e->jobs];
	unsigned long long n = j->to - j->from;
	int rc = t->fa ? ptfile_read(w->ra, t->fa, t->ta, j->from, (size_t)n)
	               : read_range(w->ra, t->path_a, t->a.data_offset + j->from * (unsigned long long)t->a.itemsize,
	                            (size_t)n * (size_t)t->a.itemsize);
	if (!rc)
		rc = t->fb ? ptfile_read(w->rb, t->fb, t->tb, j->from, (size_t)n)
		           : read_range(w->rb, t->path_b, t->b.data_offset + j->from * (unsigned long long)t->b.itemsize,
		                        (size_t)n * (size_t)t->b.itemsize);
	if (rc)
		return rc;
	npy_decode(w->da, &t->a, w->ra, (size_t)n);
	npy_decode(w->db, &t->b, w->rb, (size_t)n);
	accumulate(p, w->da, w->db, (size_t)n);
	return 0;
}

static void *worker(void *arg)
{
	engine *e = arg;
	worker_buf w = { xmalloc(e->chunk * 8), xmalloc(e->chunk * 8), xmalloc(e->chunk * sizeof(double)),
		             xmalloc(e->chunk * sizeof(double)) };
	while (!atomic_load(&e->stop)) {
		size_t j = atomic_fetch_add(&e->next, 1);
		if (j >= e->njobs)
			break;
		int rc = run_job(e, &e->jobs[j], &w);
		if (rc) {
			pthread_mutex_lock(&e->mu);
			if (!e->code) {
				e->code = rc;
				snprintf(e->msg, sizeof e->msg, "%s", err_message());
			}
			pthread_mutex_unlock(&e->mu);
			atomic_store(&e->stop, 1);
		}
	}
	free(w.ra);
	free(w.rb);
	free(w.da);
	free(w.db);
	return NULL;
}

static int online_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* Runs the jobs on `threads` workers (the calling thread is one of them). */
static int engine_run(engine *e, int threads)
{
	if ((size_t)threads > e->njobs)
		threads = e->njobs ? (int)e->njobs : 1;
	pthread_t *tid = xcalloc((size_t)threads, sizeof *tid);
	int started = 0;
	for (int i = 1; i < threads; i++) {
		if (pthread_create(&tid[i], NULL, worker, e) != 0)
			break;
		started++;
	}
	worker(e);
	for (int i = 1; i <= started; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	if (e->code)
		return err_set(e->code, "%s", e->msg);
	return 0;
}

static void finish_metrics(dump_metrics *m, const partial *parts, size_t nparts, unsigned long long count)
{
	partial s = { 0 };
	for (size_t i = 0; i < nparts; i++) {
		const partial *p = &parts[i];
		s.dot += p->dot;
		s.na += p->na;
		s.nb += p->nb;
		s.sq += p->sq;
		s.max_abs = p->max_abs > s.max_abs ? p->max_abs : s.max_abs;
		s.max_rel = p->max_rel > s.max_rel ? p->max_rel : s.max_rel;
		s.lt1 += p->lt1;
		s.lt5 += p->lt5;
		s.finite += p->finite;
		s.nfa += p->nfa;
		s.nfb += p->nfb;
		s.mismatch += p->mismatch;
	}
	m->count = count;
	m->nonfinite_a = s.nfa;
	m->nonfinite_b = s.nfb;
	m->nonfinite_mismatch = s.mismatch;
	m->max_abs = s.max_abs;
	m->max_rel = s.max_rel;
	m->euc_dist = sqrt(s.sq);
	if (s.na == 0 && s.nb == 0)
		m->cosine = s.finite || !count ? 1.0 : NAN;
	else if (s.na == 0 || s.nb == 0)
		m->cosine = NAN;
	else {
		double c = s.dot / (sqrt(s.na) * sqrt(s.nb));
		m->cosine = c > 1 ? 1 : c < -1 ? -1 : c;
	}
	m->ratio_1e3 = s.finite ? (double)s.lt1 / (double)s.finite : count ? NAN : 1.0;
	m->ratio_5e3 = s.finite ? (double)s.lt5 / (double)s.finite : count ? NAN : 1.0;
}

/* msprobe's "Accuracy Reached or Not" for real data, plus NaN/inf agreement. */
static void judge_real(dump_pair *p)
{
	const dump_metrics *m = &p->m;
	p->pass = 1;
	if (m->nonfinite_mismatch) {
		p->pass = 0;
		p->note = N_("NaN/inf where the other side is finite");
	} else if (isnan(m->cosine)) {
		p->pass = 0;
		p->note = N_("cosine undefined (one side is all zero or non-finite)");
	} else if (m->cosine < COS_MAX_THRESHOLD || m->max_abs > MAX_ABS_ERR_MAX_THRESHOLD ||
	           (m->cosine < COS_THRESHOLD && m->max_abs > MAX_ABS_ERR_THRESHOLD)) {
		p->pass = 0;
		p->note = N_("outside msprobe's accuracy rule");
	}
}

/* ------------------------------------------------------------------ inputs */

/* One tensor found in an input. */
typedef struct tensor_ref {
	char *name;
	char *layer;
	size_t order;
	const cJSON *rec;  /* dump.json record, or NULL */
	char *npy;         /* .npy path when the tensor data can be read, else NULL */
	char *pt;          /* a .pt file a dump.json record names, not opened yet, else NULL */
	size_t ptf;        /* 1 + index into the input's opened .pt files; 0: none */
	size_t ptt;        /* the tensor's index in that file */
} tensor_ref;

enum { FORM_NPY, FORM_JSON, FORM_FOLDER, FORM_PT };

typedef struct dump_input {
	const char *arg;
	int form;           /* FORM_*: a .npy file, a dump.json, a folder of .npy/.pt, a .pt file */
	char *dir;          /* the dump's folder */
	char *json_path;    /* dump.json, or NULL */
	cJSON *doc;         /* parsed dump.json */
	tensor_ref *t;
	size_t n, cap;
	size_t pt_missing;  /* .pt files the dump.json names that are not there */
	ptfile **pts;       /* the .pt files opened (owned) */
	char *pt_hashed;    /* per opened .pt file: already in the list of files hashed */
	size_t npts, ptcap;
} dump_input;

static const char *const form_names[] = { "npy", "dump.json", "npy folder", "pt" };

static void input_done(dump_input *in)
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

static tensor_ref *add_tensor(dump_input *in, const char *name, const char *layer, size_t order)
{
	if (in->n == in->cap) {
		in->cap = in->cap ? in->cap * 2 : 64;
		in->t = xrealloc(in->t, in->cap * sizeof *in->t);
	}
	tensor_ref *t = &in->t[in->n++];
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
		tensor_ref *t = add_tensor(in, prefix, layer, order);
		t->rec = node;
		const cJSON *dn = cJSON_GetObjectItemCaseSensitive(node, "data_name");
		if (cJSON_IsString(dn) && !strchr(dn->valuestring, '/') && strcmp(dn->valuestring, "..") != 0) {
			if (util_ends_with(dn->valuestring, ".npy")) {
				char *sub = util_path_join(in->dir, "dump_tensor_data");
				char *p = util_path_join(sub, dn->valuestring);
				free(sub);
				if (is_file(p))
					t->npy = p;
				else
					free(p);
			} else if (util_ends_with(dn->valuestring, ".pt")) {
				char *sub = util_path_join(in->dir, "dump_tensor_data");
				char *p = util_path_join(sub, dn->valuestring);
				free(sub);
				if (is_file(p)) {
					t->pt = p;
				} else {
					free(p);
					in->pt_missing++;
				}
			}
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
		tensor_ref *t = add_tensor(in, name, layer, in->n);
		t->ptf = k + 1;
		t->ptt = i;
		free(name);
		free(layer);
	}
	return 0;
}

/* A .pt file a dump.json record names, opened when its pair is compared: it must hold
 * the one tensor the record describes. */
static int resolve_pt(dump_input *in, tensor_ref *t)
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
static void pt_npy_info(npy_info *h, const pt_tensor *t, int big_endian)
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
			tensor_ref *t = add_tensor(in, base, layer, in->n);
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

static int load_input(dump_input *in, const char *path)
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
			in->form = 1;
			in->json_path = json;
			char *slash = strrchr(json, '/');
			in->dir = slash ? xstrndup(json, (size_t)(slash - json)) : xstrdup(".");
			return load_dump_json(in);
		}
		in->form = 2;
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
		in->form = FORM_PT;
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		size_t ext = util_ends_with(base, ".pt") ? 3 : util_ends_with(base, ".pth") ? 4 : 0;
		char *name = xstrndup(base, strlen(base) - ext);
		int rc = add_pt_tensors(in, path, name, 1);
		free(name);
		return rc;
	}
	if ((got == 6 && memcmp(magic, "\x93NUMPY", 6) == 0) || util_ends_with(path, ".npy")) {
		in->form = 0;
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		char *name = util_ends_with(base, ".npy") ? xstrndup(base, strlen(base) - 4) : xstrdup(base);
		char *layer = layer_of(name);
		tensor_ref *t = add_tensor(in, name, layer, 0);
		t->npy = xstrdup(path);
		free(name);
		free(layer);
		return 0;
	}
	in->form = 1;
	in->json_path = xstrdup(path);
	const char *slash = strrchr(path, '/');
	in->dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
	return load_dump_json(in);
}

/* ------------------------------------------------------------------ pairing */

typedef struct name_idx {
	const char *name;
	size_t idx;
} name_idx;

static int cmp_name_idx(const void *x, const void *y)
{
	return strcmp(((const name_idx *)x)->name, ((const name_idx *)y)->name);
}

/* A statistic of a record: 1 and *v (NaN and ±inf included, as Python's json writes
 * them), or 0 when it is absent or null (not computable at dump time). */
static int stat_value(double *v, const cJSON *rec, const char *key)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(rec, key);
	*v = NAN;
	if (cJSON_IsNumber(j)) {
		*v = j->valuedouble;
		return 1;
	}
	if (!cJSON_IsString(j))
		return 0;
	if (strcmp(j->valuestring, "NaN") == 0)
		return 1;
	if (strcmp(j->valuestring, "Infinity") == 0 || strcmp(j->valuestring, "-Infinity") == 0) {
		*v = j->valuestring[0] == '-' ? -INFINITY : INFINITY;
		return 1;
	}
	return 0;
}

static void record_meta(char *dtype, size_t dsize, char *shape, size_t ssize, const cJSON *rec)
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

static void judge_stats(dump_pair *p, const cJSON *ra, const cJSON *rb)
{
	p->pass = 1;
	int any = 0;
	for (int k = 0; k < 4; k++) {
		double a, b;
		int ha = stat_value(&a, ra, stat_names[k]), hb = stat_value(&b, rb, stat_names[k]);
		p->stat_a[k] = a;
		p->stat_b[k] = b;
		p->stat_rel[k] = NAN;
		if (!ha || !hb || (isnan(a) && isnan(b)))
			continue; /* not recorded on one side, or NaN on both */
		if (!isfinite(a) || !isfinite(b)) {
			if (!(isinf(a) && a == b)) {
				p->pass = 0;
				p->note = N_("NaN/inf statistic where the other side is finite");
			}
			continue;
		}
		any = 1;
		/* against the larger magnitude, as msprobe does: a mean near zero on both sides
		 * (BatchNorm outputs) is not a 1000 % error */
		p->stat_rel[k] = fabs(b - a) / (fmax(fabs(a), fabs(b)) + REL_EPS);
		if (p->stat_rel[k] > STAT_MAGNITUDE)
			p->warn = 1;
	}
	if (p->warn && p->pass)
		/* xgettext:no-c-format */
		p->note = N_("a statistic differs by more than 50% of the larger value (msprobe's Warning: double-check)");
	if (!any && p->pass)
		p->note = N_("no statistics recorded");
}

/* A tensor stored as 2-byte integers or opaque values holds bfloat16 bits when the
 * user says so (--dtype-a/--dtype-b bf16) or its dump.json record does (msprobe writes
 * "dtype": "torch.bfloat16"): from then on it decodes as bfloat16. */
static void apply_bf16(npy_info *h, const char *override, const cJSON *rec)
{
	const cJSON *d = rec ? cJSON_GetObjectItemCaseSensitive(rec, "dtype") : NULL;
	const char *dt = cJSON_IsString(d) ? d->valuestring : "";
	int said = (override && dump_dtype_is_bf16(override)) || strcmp(dt, "torch.bfloat16") == 0 ||
	           strcmp(dt, "bfloat16") == 0;
	if (!said || h->itemsize != 2 || (h->kind != 'u' && h->kind != 'i' && h->kind != 'V'))
		return;
	h->kind = 'B';
	snprintf(h->descr, sizeof h->descr, "bf16");
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

static int is_single(int form)
{
	return form == FORM_NPY || form == FORM_PT;
}

/* One side of a pair read from its tensor data: the element layout into h, its archive
 * and tensor when it is a .pt (*pf, *pt), and its file added once to the files hashed. */
static int side_open(npy_info *h, const ptfile **pf, const pt_tensor **pt, dump_input *in, const tensor_ref *t,
                     hash_file *files, size_t *nfiles, size_t *side, size_t *nside)
{
	if (t->npy) {
		int rc = npy_read_info(h, t->npy);
		if (rc)
			return rc;
		files[*nfiles].path = t->npy;
		side[(*nside)++] = (*nfiles)++;
		return 0;
	}
	size_t k = t->ptf - 1;
	*pf = in->pts[k];
	*pt = &in->pts[k]->t[t->ptt];
	pt_npy_info(h, *pt, (*pf)->big_endian);
	if (!in->pt_hashed[k]) {
		in->pt_hashed[k] = 1;
		files[*nfiles].path = in->pts[k]->path;
		side[(*nside)++] = (*nfiles)++;
	}
	return 0;
}

/* Hashes taken when a dump folder was ingested (the sha256sum-style manifest ROOT.sha256
 * beside its stored copy, see ingest.c) for the files below root, so a stored dump is read
 * once, to compare it. Returns how many of files got their hash that way. */
static size_t known_hashes(hash_file *files, size_t n, const char *root)
{
	size_t rlen = strlen(root);
	while (rlen > 1 && root[rlen - 1] == '/')
		rlen--;
	char *mpath = xasprintf("%.*s.sha256", (int)rlen, root);
	char *text = NULL;
	size_t len = 0, found = 0;
	struct stat st;
	if (stat(mpath, &st) != 0 || !S_ISREG(st.st_mode) || util_read_file(&text, &len, mpath) != 0) {
		err_clear();
		free(mpath);
		return 0;
	}
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strlen(line) < 67 || line[64] != ' ' || line[65] != ' ')
			continue;
		const char *rel = line + 66;
		for (size_t i = 0; i < n; i++) {
			const char *path = files[i].path;
			if (!files[i].sha[0] && strncmp(path, root, rlen) == 0 && path[rlen] == '/' &&
			    strcmp(path + rlen + 1, rel) == 0) {
				memcpy(files[i].sha, line, 64);
				files[i].sha[64] = '\0';
				found++;
			}
		}
	}
	free(text);
	free(mpath);
	return found;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a + 66, *(char *const *)b + 66);
}

/* The SHA-256 of sha256sum-style lines for the dump's files that were read, named by
 * their path below root and sorted by it, so the same dump has the same hash wherever it
 * lies (the client's folder, or its copy stored by ingest). */
static void manifest_hash(char out[65], const hash_file *files, const size_t *idx, size_t n, const char *root)
{
	size_t rlen = strlen(root);
	while (rlen > 1 && root[rlen - 1] == '/')
		rlen--;
	char **lines = xcalloc(n ? n : 1, sizeof *lines);
	for (size_t i = 0; i < n; i++) {
		const char *path = files[idx[i]].path;
		if (strncmp(path, root, rlen) == 0 && path[rlen] == '/')
			path += rlen + 1;
		lines[i] = xasprintf("%s  %s\n", files[idx[i]].sha, path);
	}
	qsort(lines, n, sizeof *lines, line_cmp);
	sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < n; i++) {
		sbuf_adds(&b, lines[i]);
		free(lines[i]);
	}
	free(lines);
	util_sha256_hex(out, b.buf ? b.buf : "", b.len);
	sbuf_done(&b);
}

int dump_compare(dump_result *out, const char *a, const char *b, const dump_opts *opts)
{
	memset(out, 0, sizeof *out);
	out->first_fail = -1;
	dump_input ia, ib;
	engine e;
	memset(&e, 0, sizeof e);
	pthread_mutex_init(&e.mu, NULL);
	name_idx *sorted = NULL;
	size_t *pair_a = NULL, *pair_b = NULL;
	size_t *real_of = NULL, *side_a = NULL, *side_b = NULL;
	size_t nreal = 0, nfiles = 0, na_files = 0, nb_files = 0;
	int rc = load_input(&ia, a);
	if (rc) {
		memset(&ib, 0, sizeof ib);
		goto out;
	}
	if ((rc = load_input(&ib, b)))
		goto out;
	if (is_single(ia.form) != is_single(ib.form)) {
		rc = err_set(FERRY_EUSAGE, _("%s: a %s cannot be compared with the %s %s"), b, form_names[ib.form],
		             form_names[ia.form], a);
		goto out;
	}
	out->form_a = xstrdup(form_names[ia.form]);
	out->form_b = xstrdup(form_names[ib.form]);

	/* match by name (two single files match each other whatever their names) */
	sorted = xmalloc((ib.n ? ib.n : 1) * sizeof *sorted);
	for (size_t i = 0; i < ib.n; i++)
		sorted[i] = (name_idx){ ib.t[i].name, i };
	qsort(sorted, ib.n, sizeof *sorted, cmp_name_idx);
	char *used = xcalloc(ib.n ? ib.n : 1, 1);
	out->pairs = xcalloc(ia.n ? ia.n : 1, sizeof *out->pairs);
	pair_a = xmalloc((ia.n ? ia.n : 1) * sizeof *pair_a);
	pair_b = xmalloc((ia.n ? ia.n : 1) * sizeof *pair_b);
	for (size_t i = 0; i < ia.n; i++) {
		size_t k;
		if (is_single(ia.form) && is_single(ib.form) && ia.n == 1 && ib.n == 1) {
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
	free(used);

	/* headers of every tensor to read; statistics for the rest */
	e.io = xcalloc(out->n ? out->n : 1, sizeof *e.io);
	real_of = xmalloc((out->n ? out->n : 1) * sizeof *real_of);
	e.files = xcalloc(2 * out->n + 2, sizeof *e.files);
	side_a = xmalloc((2 * out->n + 2) * sizeof *side_a);
	side_b = xmalloc((2 * out->n + 2) * sizeof *side_b);
	if (ia.json_path) {
		e.files[nfiles].path = ia.json_path;
		side_a[na_files++] = nfiles++;
	}
	if (ib.json_path) {
		e.files[nfiles].path = ib.json_path;
		side_b[nb_files++] = nfiles++;
	}
	size_t chunk = opts && opts->chunk_elems ? opts->chunk_elems : DEFAULT_CHUNK;
	size_t njobs = 0, jcap = 0;
	for (size_t i = 0; i < out->n; i++) {
		dump_pair *p = &out->pairs[i];
		tensor_ref *ta = &ia.t[pair_a[i]], *tb = &ib.t[pair_b[i]];
		real_of[i] = (size_t)-1;
		if ((rc = resolve_pt(&ia, ta)) || (rc = resolve_pt(&ib, tb)))
			goto out;
		if ((ta->npy || ta->ptf) && (tb->npy || tb->ptf)) {
			tensor_io *t = &e.io[nreal];
			if ((rc = side_open(&t->a, &t->fa, &t->ta, &ia, ta, e.files, &nfiles, side_a, &na_files)) ||
			    (rc = side_open(&t->b, &t->fb, &t->tb, &ib, tb, e.files, &nfiles, side_b, &nb_files)))
				goto out;
			t->path_a = t->fa ? t->fa->path : ta->npy;
			t->path_b = t->fb ? t->fb->path : tb->npy;
			apply_bf16(&t->a, opts ? opts->dtype_a : NULL, ta->rec);
			apply_bf16(&t->b, opts ? opts->dtype_b : NULL, tb->rec);
			fill_meta_npy(p, &t->a, &t->b);
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
			njobs += (size_t)((t->a.count + chunk - 1) / chunk);
		} else if (ta->rec && tb->rec) {
			p->mode = DUMP_STATS;
			record_meta(p->dtype_a, sizeof p->dtype_a, p->shape_a, sizeof p->shape_a, ta->rec);
			record_meta(p->dtype_b, sizeof p->dtype_b, p->shape_b, sizeof p->shape_b, tb->rec);
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

	/* the jobs: hash every file read whose hash is not known already, then every chunk of
	 * every tensor pair */
	size_t known = known_hashes(e.files, nfiles, a) + known_hashes(e.files, nfiles, b);
	njobs += nfiles - known;
	jcap = njobs ? njobs : 1;
	e.jobs = xcalloc(jcap, sizeof *e.jobs);
	e.parts = xcalloc(jcap, sizeof *e.parts);
	e.chunk = chunk;
	size_t *first_job = xmalloc((nreal ? nreal : 1) * sizeof *first_job);
	for (size_t f = 0; f < nfiles; f++)
		if (!e.files[f].sha[0])
			e.jobs[e.njobs++] = (job){ f, 0, 0, 1 };
	for (size_t r = 0; r < nreal; r++) {
		first_job[r] = e.njobs;
		for (unsigned long long from = 0; from < e.io[r].a.count; from += chunk) {
			unsigned long long to = from + chunk < e.io[r].a.count ? from + chunk : e.io[r].a.count;
			e.jobs[e.njobs++] = (job){ r, from, to, 0 };
		}
	}
	int threads = opts && opts->threads > 0 ? opts->threads : online_cores();
	rc = engine_run(&e, threads);
	if (rc) {
		free(first_job);
		goto out;
	}
	for (size_t i = 0; i < out->n; i++) {
		dump_pair *p = &out->pairs[i];
		if (p->mode == DUMP_REAL) {
			size_t r = real_of[i];
			size_t end = r + 1 < nreal ? first_job[r + 1] : e.njobs;
			finish_metrics(&p->m, e.parts + first_job[r], end - first_job[r], e.io[r].a.count);
			judge_real(p);
			out->nreal++;
		} else if (p->mode == DUMP_STATS) {
			judge_stats(p, ia.t[pair_a[i]].rec, ib.t[pair_b[i]].rec);
			out->nstats++;
		} else {
			p->pass = 0;
			out->nunmatched++;
		}
	}
	free(first_job);
	for (size_t i = 0; i < out->n; i++)
		if (out->pairs[i].pass && out->pairs[i].warn)
			out->nwarn++;
		else if (!out->pairs[i].pass) {
			out->nfailed++;
			if (out->first_fail < 0)
				out->first_fail = (long long)i;
		}
	if (out->nstats) {
		out->stats_reason = xstrdup(ia.pt_missing || ib.pt_missing
		                                ? _("the dump's .pt files are not there (a statistics-only dump)")
		                                : _("the dump holds no readable tensor files"));
	}
	/* a single file is known by its own hash, a dump by its manifest's */
	if (is_single(ia.form) && na_files == 1)
		snprintf(out->sha_a, sizeof out->sha_a, "%s", e.files[side_a[0]].sha);
	else
		manifest_hash(out->sha_a, e.files, side_a, na_files, a);
	if (is_single(ib.form) && nb_files == 1)
		snprintf(out->sha_b, sizeof out->sha_b, "%s", e.files[side_b[0]].sha);
	else
		manifest_hash(out->sha_b, e.files, side_b, nb_files, b);
	out->pass = out->n > 0 && out->nfailed == 0;
out:
	free(sorted);
	free(pair_a);
	free(pair_b);
	free(real_of);
	free(side_a);
	free(side_b);
	free(e.io);
	free(e.files);
	free(e.jobs);
	free(e.parts);
	pthread_mutex_destroy(&e.mu);
	input_done(&ia);
	input_done(&ib);
	if (rc)
		dump_result_done(out);
	return rc;
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
	memset(r, 0, sizeof *r);
	r->first_fail = -1;
}

/* ------------------------------------------------------------------ rendering */

static const char *const mode_names[] = { "tensor", "statistics", "unmatched" };

/* How bad a pair is within its verdict: 1 − cosine (an undefined cosine worst), or the
 * largest relative statistic difference. */
static double badness(const dump_pair *p)
{
	double v;
	if (p->mode == DUMP_REAL)
		v = isnan(p->m.cosine) ? 3.0 : 1.0 - p->m.cosine;
	else if (p->mode == DUMP_STATS) {
		v = 0;
		for (int k = 0; k < 4; k++)
			if (!isnan(p->stat_rel[k]) && p->stat_rel[k] > v)
				v = p->stat_rel[k];
	} else
		v = 0;
	return v;
}

/* Worst first: failing pairs before passing ones, then the badness within each. */
static int cmp_worst(const void *x, const void *y, void *payload)
{
	const dump_pair *pairs = payload;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	if (pairs[a].pass != pairs[b].pass)
		return pairs[a].pass ? 1 : -1;
	double ba = badness(&pairs[a]), bb = badness(&pairs[b]);
	if (ba != bb)
		return ba > bb ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Indices of the pairs of a mode, worst first (caller frees). */
static size_t *worst(size_t *n, const dump_result *r, int mode)
{
	size_t *idx = xmalloc((r->n ? r->n : 1) * sizeof *idx);
	*n = 0;
	for (size_t i = 0; i < r->n; i++)
		if (r->pairs[i].mode == mode)
			idx[(*n)++] = i;
	qsort_r(idx, *n, sizeof *idx, cmp_worst, r->pairs);
	return idx;
}

static void fmt_num(char *out, size_t size, const char *fmt, double v)
{
	if (isnan(v))
		snprintf(out, size, "n/a");
	else
		snprintf(out, size, fmt, v);
}

#define SHOW_WORST 10

void dump_render_text(sbuf *out, const dump_result *r, const char *name_a, const char *name_b)
{
	sbuf_adds(out, _("dump comparison (A: baseline, B: compared run)\n"));
	sbuf_addf(out, _("  A  %s  (%s, sha256 %.16s)\n"), name_a, r->form_a ? r->form_a : "", r->sha_a);
	sbuf_addf(out, _("  B  %s  (%s, sha256 %.16s)\n"), name_b, r->form_b ? r->form_b : "", r->sha_b);
	sbuf_addf(out, P_("  %zu tensor pair: %zu compared from tensor data, %zu from dump.json statistics, %zu with different shapes", "  %zu tensor pairs: %zu compared from tensor data, %zu from dump.json statistics, %zu with different shapes", r->n),
	          r->n, r->nreal, r->nstats, r->nunmatched);
	if (r->only_a || r->only_b)
		sbuf_addf(out, _("; %zu only in A, %zu only in B"), r->only_a, r->only_b);
	sbuf_adds(out, "\n");
	if (r->nstats)
		sbuf_addf(out, P_("  tensors were not read for %zu pair: %s; compared Max, Min, Mean and Norm from dump.json\n", "  tensors were not read for %zu pairs: %s; compared Max, Min, Mean and Norm from dump.json\n", r->nstats),
		          r->nstats, r->stats_reason ? r->stats_reason : "");
	sbuf_adds(out, "\n");
	if (r->first_fail >= 0) {
		const dump_pair *p = &r->pairs[r->first_fail];
		sbuf_addf(out, _("first diverging layer: %s\n  %s"), p->layer, p->name);
		char c[32], a[32];
		if (p->mode == DUMP_REAL) {
			fmt_num(c, sizeof c, "%.6f", p->m.cosine);
			fmt_num(a, sizeof a, "%.3e", p->m.max_abs);
			sbuf_addf(out, _(": cosine %s, max abs err %s"), c, a);
		}
		sbuf_addf(out, "%s%s\n\n", p->note ? " — " : "", p->note ? _(p->note) : "");
	} else if (r->n) {
		sbuf_adds(out, _("no diverging layer: every pair is within msprobe's accuracy rules\n\n"));
	}
	size_t n;
	size_t *idx = worst(&n, r, DUMP_REAL);
	if (n) {
		sbuf_addf(out, _("%s tensor pairs, worst first:\n"), n > SHOW_WORST ? _("the 10 worst") : _("all"));
		sbuf_addf(out, "  %10s %12s %12s %8s %8s %-6s %s\n", _("cosine"), _("max abs err"), _("max rel err"), "<0.1%", "<0.5%",
		          _("result"), _("name"));
		for (size_t k = 0; k < n && k < SHOW_WORST; k++) {
			const dump_pair *p = &r->pairs[idx[k]];
			char c[32], a[32], rl[32], r1[32], r5[32];
			fmt_num(c, sizeof c, "%.6f", p->m.cosine);
			fmt_num(a, sizeof a, "%.3e", p->m.max_abs);
			fmt_num(rl, sizeof rl, "%.3e", p->m.max_rel);
			fmt_num(r1, sizeof r1, "%.2f%%", p->m.ratio_1e3 * 100.0);
			fmt_num(r5, sizeof r5, "%.2f%%", p->m.ratio_5e3 * 100.0);
			sbuf_addf(out, "  %10s %12s %12s %8s %8s %-6s %s\n", c, a, rl, r1, r5, p->pass ? _("pass") : _("FAIL"),
			          p->name);
		}
		sbuf_adds(out, "\n");
	}
	free(idx);
	idx = worst(&n, r, DUMP_STATS);
	if (n) {
		sbuf_addf(out, _("%s pairs compared by statistics, worst first (relative differences):\n"),
		          n > SHOW_WORST ? _("the 10 worst") : _("all"));
		sbuf_addf(out, "  %10s %10s %10s %10s %-6s %s\n", "Max", "Min", "Mean", "Norm", _("result"), _("name"));
		for (size_t k = 0; k < n && k < SHOW_WORST; k++) {
			const dump_pair *p = &r->pairs[idx[k]];
			char v[4][32];
			for (int s = 0; s < 4; s++)
				fmt_num(v[s], sizeof v[s], "%.2f%%", p->stat_rel[s] * 100.0);
			sbuf_addf(out, "  %10s %10s %10s %10s %-6s %s\n", v[0], v[1], v[2], v[3],
			          !p->pass ? _("FAIL") : p->warn ? _("warn") : _("pass"), p->name);
		}
		sbuf_adds(out, "\n");
	}
	free(idx);
	if (r->nunmatched) {
		sbuf_addf(out, _("pairs not compared (%zu):\n"), r->nunmatched);
		size_t shown = 0;
		for (size_t i = 0; i < r->n && shown < SHOW_WORST; i++)
			if (r->pairs[i].mode == DUMP_UNMATCHED) {
				sbuf_addf(out, "  %s: A %s, B %s — %s\n", r->pairs[i].name, r->pairs[i].shape_a, r->pairs[i].shape_b,
				          r->pairs[i].note ? _(r->pairs[i].note) : "");
				shown++;
			}
		sbuf_adds(out, "\n");
	}
	if (!r->n)
		sbuf_adds(out, _("the two dumps share no tensor name: nothing to compare\n"));
	if (r->nwarn)
		sbuf_addf(out, P_("%zu pair to double-check: a statistic differs by more than 50%% of the larger value (msprobe's Warning; compare the tensors to decide)\n", "%zu pairs to double-check: a statistic differs by more than 50%% of the larger value (msprobe's Warning; compare the tensors to decide)\n", r->nwarn),
		          r->nwarn);
	sbuf_addf(out, _("verdict: %s (%zu of %zu pairs fail; rules: cosine ≥ 0.99 or max abs err ≤ 0.001, cosine ≥ 0.9, "
	               "max abs err ≤ 1; statistics more than 50%% apart are warnings)\n"),
	          r->pass ? "PASS" : "FAIL", r->nfailed, r->n);
}

static void csv_num(sbuf *out, double v, int valid)
{
	sbuf_addc(out, ',');
	if (valid && !isnan(v))
		sbuf_addf(out, "%.9g", v);
}

void dump_render_csv(sbuf *out, const dump_result *r)
{
	sbuf_adds(out, "order,layer,name,mode,dtype_a,dtype_b,shape_a,shape_b,cosine,euc_dist,max_abs_err,max_rel_err,"
	               "one_thousandth_err_ratio,five_thousandths_err_ratio,nonfinite_a,nonfinite_b,max_rel_diff,"
	               "min_rel_diff,mean_rel_diff,norm_rel_diff,result,note\n");
	for (size_t i = 0; i < r->n; i++) {
		const dump_pair *p = &r->pairs[i];
		int real = p->mode == DUMP_REAL, st = p->mode == DUMP_STATS;
		sbuf_addf(out, "%zu,", p->order);
		sbuf_add_csv(out, p->layer);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->name);
		sbuf_addf(out, ",%s,", mode_names[p->mode]);
		sbuf_add_csv(out, p->dtype_a);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->dtype_b);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->shape_a);
		sbuf_addc(out, ',');
		sbuf_add_csv(out, p->shape_b);
		csv_num(out, p->m.cosine, real);
		csv_num(out, p->m.euc_dist, real);
		csv_num(out, p->m.max_abs, real);
		csv_num(out, p->m.max_rel, real);
		csv_num(out, p->m.ratio_1e3, real);
		csv_num(out, p->m.ratio_5e3, real);
		csv_num(out, (double)p->m.nonfinite_a, real);
		csv_num(out, (double)p->m.nonfinite_b, real);
		for (int k = 0; k < 4; k++)
			csv_num(out, p->stat_rel[k], st);
		sbuf_addf(out, ",%s,", p->pass ? "pass" : "fail");
		sbuf_add_csv(out, p->note ? p->note : "");
		sbuf_addc(out, '\n');
	}
}

static void json_num(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static cJSON *pair_json(const dump_pair *p)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "name", p->name);
	cJSON_AddStringToObject(o, "layer", p->layer);
	cJSON_AddNumberToObject(o, "order", (double)p->order);
	cJSON_AddStringToObject(o, "mode", mode_names[p->mode]);
	cJSON_AddStringToObject(o, "dtype_a", p->dtype_a);
	cJSON_AddStringToObject(o, "dtype_b", p->dtype_b);
	cJSON_AddStringToObject(o, "shape_a", p->shape_a);
	cJSON_AddStringToObject(o, "shape_b", p->shape_b);
	if (p->mode == DUMP_REAL) {
		json_num(o, "cosine", p->m.cosine);
		json_num(o, "euc_dist", p->m.euc_dist);
		json_num(o, "max_abs_err", p->m.max_abs);
		json_num(o, "max_rel_err", p->m.max_rel);
		json_num(o, "one_thousandth_err_ratio", p->m.ratio_1e3);
		json_num(o, "five_thousandths_err_ratio", p->m.ratio_5e3);
		cJSON_AddNumberToObject(o, "elements", (double)p->m.count);
		cJSON_AddNumberToObject(o, "nonfinite_a", (double)p->m.nonfinite_a);
		cJSON_AddNumberToObject(o, "nonfinite_b", (double)p->m.nonfinite_b);
		cJSON_AddNumberToObject(o, "nonfinite_mismatch", (double)p->m.nonfinite_mismatch);
	} else if (p->mode == DUMP_STATS) {
		cJSON *sa = cJSON_AddObjectToObject(o, "stats_a"), *sb = cJSON_AddObjectToObject(o, "stats_b");
		cJSON *sr = cJSON_AddObjectToObject(o, "stats_rel_err");
		for (int k = 0; k < 4; k++) {
			json_num(sa, stat_names[k], p->stat_a[k]);
			json_num(sb, stat_names[k], p->stat_b[k]);
			json_num(sr, stat_names[k], p->stat_rel[k]);
		}
	}
	cJSON_AddStringToObject(o, "result", !p->pass ? "fail" : p->warn ? "warning" : "pass");
	if (p->note)
		cJSON_AddStringToObject(o, "note", p->note);
	else
		cJSON_AddNullToObject(o, "note");
	return o;
}

cJSON *dump_result_json(const dump_result *r, const cJSON *ina, const cJSON *inb)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "kind", "dump");
	cJSON *ja = ina ? cJSON_Duplicate(ina, 1) : cJSON_CreateObject();
	cJSON *jb = inb ? cJSON_Duplicate(inb, 1) : cJSON_CreateObject();
	cJSON_DeleteItemFromObject(ja, "sha256");
	cJSON_DeleteItemFromObject(jb, "sha256");
	cJSON_AddStringToObject(ja, "form", r->form_a ? r->form_a : "");
	cJSON_AddStringToObject(jb, "form", r->form_b ? r->form_b : "");
	cJSON_AddStringToObject(ja, "sha256", r->sha_a);
	cJSON_AddStringToObject(jb, "sha256", r->sha_b);
	cJSON_AddItemToObject(doc, "a", ja);
	cJSON_AddItemToObject(doc, "b", jb);
	cJSON *s = cJSON_AddObjectToObject(doc, "summary");
	cJSON_AddNumberToObject(s, "pairs", (double)r->n);
	cJSON_AddNumberToObject(s, "tensor", (double)r->nreal);
	cJSON_AddNumberToObject(s, "statistics", (double)r->nstats);
	cJSON_AddNumberToObject(s, "unmatched", (double)r->nunmatched);
	cJSON_AddNumberToObject(s, "failed", (double)r->nfailed);
	cJSON_AddNumberToObject(s, "warnings", (double)r->nwarn);
	cJSON_AddNumberToObject(s, "only_a", (double)r->only_a);
	cJSON_AddNumberToObject(s, "only_b", (double)r->only_b);
	cJSON_AddBoolToObject(s, "tensors_read", r->nstats == 0);
	if (r->stats_reason)
		cJSON_AddStringToObject(s, "tensors_not_read_because", r->stats_reason);
	if (r->first_fail >= 0) {
		const dump_pair *p = &r->pairs[r->first_fail];
		cJSON *f = cJSON_AddObjectToObject(doc, "first_diverging");
		cJSON_AddStringToObject(f, "layer", p->layer);
		cJSON_AddStringToObject(f, "name", p->name);
		cJSON_AddNumberToObject(f, "order", (double)p->order);
	} else {
		cJSON_AddNullToObject(doc, "first_diverging");
	}
	cJSON_AddStringToObject(doc, "verdict", r->pass ? "pass" : "fail");
	cJSON *arr = cJSON_AddArrayToObject(doc, "pairs");
	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(arr, pair_json(&r->pairs[i]));
	return doc;
}
