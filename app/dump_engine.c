/* dump_engine — see dump_engine.h. */
#include "dump_engine.h"
#include "err.h"
#include "intl.h"
#include "util.h"

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
#define REL_EPS 1e-12
/* msprobe's real-data rule (CompareConst: COS_THRESHOLD, MAX_ABS_ERR_THRESHOLD,
 * COS_MAX_THRESHOLD, MAX_ABS_ERR_MAX_THRESHOLD) and its statistics-mode MAGNITUDE and
 * EPSILON (debug/accuracy_tools/msprobe/core/common/const.py of Ascend/mstt, read in
 * its GitHub mirror xiaobingling93-pixel/Ascend-mstt at commit
 * 99c2e0f990a17d328f487062acc9c490f7f6ff26: CompareConst lines 471 and 487). */
#define COS_THRESHOLD 0.99
#define MAX_ABS_ERR_THRESHOLD 0.001
#define COS_MAX_THRESHOLD 0.9
#define MAX_ABS_ERR_MAX_THRESHOLD 1.0
#define STAT_MAGNITUDE 0.5
#define STAT_EPSILON 1e-10

/* Sums over one chunk; combined in job order so results do not depend on threads. */
typedef struct partial {
	double dot, na, nb, sq, max_abs, max_rel;
	unsigned long long lt1, lt5, finite, nfa, nfb, nana, nanb, mismatch, over;
} partial;

typedef struct job {
	size_t pair;                   /* index into engine.io, or the file index for a hash job */
	unsigned long long from, to;   /* element range */
	int hash;                      /* 1: hash a whole file */
} job;

/* The SHA-256 of a .npy fed from the chunks read to compare it: chunk k is added once
 * chunks 0..k-1 are, whichever worker read them (the header goes in with chunk 0). */
typedef struct hash_stream {
	util_sha256 *h;
	size_t file;              /* index into engine.files */
	unsigned long long done;  /* chunks added so far (under engine.mu) */
} hash_stream;

typedef struct engine {
	const dump_tensor_io *io;
	dump_hash_file *files;
	job *jobs;
	size_t njobs;
	partial *parts;    /* one per job */
	size_t chunk;
	hash_stream *streams;       /* one per side of each pair: [2 r] for A, [2 r + 1] for B */
	double atol, rtol; /* the agreed thresholds (atol +inf: none) */
	atomic_size_t next;
	atomic_int stop;
	pthread_mutex_t mu;
	pthread_cond_t hashed;      /* a stream took a chunk, or a worker failed */
	int code;          /* the first failure */
	char msg[ERR_MAX]; /* its message, for the caller's thread */
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

/* The scalar sums of n elements, non-finite values included (counted, left out). */
static void accumulate(partial *p, const double *da, const double *db, size_t n, double atol, double rtol)
{
	double dot = 0, na = 0, nb = 0, sq = 0, max_abs = p->max_abs, max_rel = p->max_rel;
	unsigned long long lt1 = 0, lt5 = 0, finite = 0, over = 0;
	for (size_t i = 0; i < n; i++) {
		double x = da[i], y = db[i];
		if (!isfinite(x) || !isfinite(y)) {
			p->nfa += !isfinite(x);
			p->nfb += !isfinite(y);
			p->nana += isnan(x);
			p->nanb += isnan(y);
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
		over += ad > atol + rtol * den;
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
	p->over += over;
	p->finite += finite;
}

/* Four running sums side by side, which plain loops over a running scalar sum never get
 * without reassociating it (-ffast-math): lane l sums the elements i with i % 4 == l. The
 * lanes are added up in a fixed order at the end of a chunk, so results stay independent
 * of the threads and of the instruction set. */
typedef struct lanes {
	double dot[4], na[4], nb[4], sq[4], max_abs[4], max_rel[4];
	long long lt1[4], lt5[4], over[4]; /* minus the counts: a true comparison is -1 */
	unsigned long long finite;
	double atol, rtol; /* the agreed thresholds (atol +inf: none) */
} lanes;

/* Elements per decoded block: two blocks of doubles stay in the L1 cache. */
#define BLOCK 1024

/* LANES_BLOCK defines a function NAME(s, x, y, n) that adds n elements of x and y (n a
 * multiple of 4) into the lanes and returns 1, or returns 0 without adding anything when
 * one of them is a NaN or an infinity (the caller then takes the scalar loop, which
 * counts them). The arithmetic is that of accumulate, without branches except the rare
 * division for a new relative maximum. It is written once for NV vectors of 4 / NV
 * doubles (GCC and Clang vector extensions VD, with VL their comparison results):
 * two SSE2 registers or one AVX one per four lanes. */
#define LANES_BLOCK(NAME, ATTR, VD, VL, NV)                                                                            \
	ATTR static int NAME(lanes *s, const double *x, const double *y, size_t n)                                     \
	{                                                                                                              \
		enum { W = 4 / (NV) };                                                                                 \
		VD t[NV], dot[NV], na[NV], nb[NV], sq[NV], max_abs[NV], max_rel[NV];                                   \
		VL lt1[NV], lt5[NV], over[NV];                                                                         \
		const VD atol = (VD){ 0 } + s->atol, rtol = (VD){ 0 } + s->rtol;                                       \
		const VL abs_mask = (VL){ 0 } + INT64_MAX;                                                             \
		/* finite unless a sum of x·0 is not zero (NaN·0 and inf·0 are NaN) */                                 \
		_Pragma("GCC unroll 4") for (int h = 0; h < (NV); h++) t[h] = (VD){ 0 };                               \
		for (size_t i = 0; i < n; i += 4)                                                                      \
			_Pragma("GCC unroll 4") for (int h = 0; h < (NV); h++)                                         \
			{                                                                                              \
				VD a, c;                                                                               \
				memcpy(&a, x + i + h * W, sizeof a);                                                   \
				memcpy(&c, y + i + h * W, sizeof c);                                                   \
				t[h] += a * 0.0 + c * 0.0;                                                             \
			}                                                                                              \
		double z = 0;                                                                                          \
		for (int h = 0; h < (NV); h++)                                                                         \
			for (int l = 0; l < W; l++)                                                                    \
				z += t[h][l];                                                                          \
		if (z != 0)                                                                                            \
			return 0;                                                                                      \
		_Pragma("GCC unroll 4") for (int h = 0; h < (NV); h++)                                                 \
		{                                                                                                      \
			memcpy(&dot[h], s->dot + h * W, sizeof dot[h]);                                                \
			memcpy(&na[h], s->na + h * W, sizeof na[h]);                                                   \
			memcpy(&nb[h], s->nb + h * W, sizeof nb[h]);                                                   \
			memcpy(&sq[h], s->sq + h * W, sizeof sq[h]);                                                   \
			memcpy(&max_abs[h], s->max_abs + h * W, sizeof max_abs[h]);                                    \
			memcpy(&max_rel[h], s->max_rel + h * W, sizeof max_rel[h]);                                    \
			memcpy(&lt1[h], s->lt1 + h * W, sizeof lt1[h]);                                                \
			memcpy(&lt5[h], s->lt5 + h * W, sizeof lt5[h]);                                                \
			memcpy(&over[h], s->over + h * W, sizeof over[h]);                                             \
		}                                                                                                      \
		for (size_t i = 0; i < n; i += 4) {                                                                    \
			VD ad[NV], den[NV];                                                                            \
			VL up[NV];                                                                                     \
			long long any = 0;                                                                             \
			_Pragma("GCC unroll 4") for (int h = 0; h < (NV); h++)                                         \
			{                                                                                              \
				VD a, c;                                                                               \
				memcpy(&a, x + i + h * W, sizeof a);                                                   \
				memcpy(&c, y + i + h * W, sizeof c);                                                   \
				VD d = c - a;                                                                          \
				ad[h] = (VD)((VL)d & abs_mask);                                                        \
				den[h] = (VD)((VL)a & abs_mask) + REL_EPS;                                             \
				dot[h] += a * c;                                                                       \
				na[h] += a * a;                                                                        \
				nb[h] += c * c;                                                                        \
				sq[h] += d * d;                                                                        \
				VL big = ad[h] > max_abs[h];                                                           \
				max_abs[h] = (VD)(((VL)ad[h] & big) | ((VL)max_abs[h] & ~big));                        \
				up[h] = ad[h] > max_rel[h] * den[h];                                                   \
				_Pragma("GCC unroll 4") for (int l = 0; l < W; l++) any |= up[h][l];                   \
				lt1[h] += ad[h] < 0.001 * den[h];                                                      \
				lt5[h] += ad[h] < 0.005 * den[h];                                                      \
				over[h] += ad[h] > atol + rtol * den[h];                                               \
			}                                                                                              \
			if (any) /* rare once the maximum is found: divide only then */                                \
				_Pragma("GCC unroll 4") for (int h = 0; h < (NV); h++)                                 \
					max_rel[h] = (VD)(((VL)(ad[h] / den[h]) & up[h]) | ((VL)max_rel[h] & ~up[h])); \
		}                                                                                                      \
		_Pragma("GCC unroll 4") for (int h = 0; h < (NV); h++)                                                 \
		{                                                                                                      \
			memcpy(s->dot + h * W, &dot[h], sizeof dot[h]);                                                \
			memcpy(s->na + h * W, &na[h], sizeof na[h]);                                                   \
			memcpy(s->nb + h * W, &nb[h], sizeof nb[h]);                                                   \
			memcpy(s->sq + h * W, &sq[h], sizeof sq[h]);                                                   \
			memcpy(s->max_abs + h * W, &max_abs[h], sizeof max_abs[h]);                                    \
			memcpy(s->max_rel + h * W, &max_rel[h], sizeof max_rel[h]);                                    \
			memcpy(s->lt1 + h * W, &lt1[h], sizeof lt1[h]);                                                \
			memcpy(s->lt5 + h * W, &lt5[h], sizeof lt5[h]);                                                \
			memcpy(s->over + h * W, &over[h], sizeof over[h]);                                             \
		}                                                                                                      \
		s->finite += n;                                                                                        \
		return 1;                                                                                              \
	}

typedef double v2d __attribute__((vector_size(16)));
typedef long long v2l __attribute__((vector_size(16)));
LANES_BLOCK(lanes_block, , v2d, v2l, 2)

/* On x86-64, an AVX2 copy too, chosen at run time where the processor has AVX2 (not under
 * the sanitizers, whose builds test the portable copy). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) && !defined(FERRY_NO_AVX2)
#define LANES_AVX2 1
typedef double v4d __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));
LANES_BLOCK(lanes_block_avx2, __attribute__((target("avx2"))), v4d, v4l, 1)
#endif

typedef int (*lanes_block_fn)(lanes *s, const double *x, const double *y, size_t n);

static lanes_block_fn pick_lanes_block(void)
{
#ifdef LANES_AVX2
	if (__builtin_cpu_supports("avx2"))
		return lanes_block_avx2;
#endif
	return lanes_block;
}

/* Adds the lanes into p, in a fixed order. */
static void lanes_done(partial *p, const lanes *s)
{
	p->dot += (s->dot[0] + s->dot[1]) + (s->dot[2] + s->dot[3]);
	p->na += (s->na[0] + s->na[1]) + (s->na[2] + s->na[3]);
	p->nb += (s->nb[0] + s->nb[1]) + (s->nb[2] + s->nb[3]);
	p->sq += (s->sq[0] + s->sq[1]) + (s->sq[2] + s->sq[3]);
	for (int l = 0; l < 4; l++) {
		p->max_abs = s->max_abs[l] > p->max_abs ? s->max_abs[l] : p->max_abs;
		p->max_rel = s->max_rel[l] > p->max_rel ? s->max_rel[l] : p->max_rel;
		p->lt1 += (unsigned long long)-s->lt1[l];
		p->lt5 += (unsigned long long)-s->lt5[l];
		p->over += (unsigned long long)-s->over[l];
	}
	p->finite += s->finite;
}

/* Decodes and compares n elements of raw chunks a and b block by block: finite blocks
 * go through the lanes, blocks holding a NaN or an infinity (and the last few elements)
 * through the scalar loop that counts them. */
static void compare_chunk(partial *p, const dump_tensor_io *t, const unsigned char *ra, const unsigned char *rb,
                          size_t n, double atol, double rtol)
{
	double da[BLOCK], db[BLOCK];
	lanes s;
	memset(&s, 0, sizeof s);
	s.atol = atol, s.rtol = rtol;
	lanes_block_fn block = pick_lanes_block();
	for (size_t i = 0; i < n; i += BLOCK) {
		size_t m = n - i < BLOCK ? n - i : BLOCK;
		npy_decode(da, &t->a, ra + i * (size_t)t->a.itemsize, m);
		npy_decode(db, &t->b, rb + i * (size_t)t->b.itemsize, m);
		size_t v = m & ~(size_t)3;
		if (!block(&s, da, db, v))
			v = 0;
		accumulate(p, da + v, db + v, m - v, atol, rtol);
	}
	lanes_done(p, &s);
}

typedef struct worker_buf {
	unsigned char *ra, *rb; /* one chunk of each side, as stored */
} worker_buf;

/* Adds chunk k (len bytes at buf; for chunk 0, the header first) of the sides of pair r
 * that are hashed from their chunks, each in its turn. Returns without adding when
 * another worker failed: the run is over. */
static int hash_chunks(engine *e, size_t r, unsigned long long k, const unsigned char *buf[2], const size_t len[2])
{
	int pending[2];
	for (int s = 0; s < 2; s++)
		pending[s] = e->streams[2 * r + s].h != NULL;
	while (pending[0] || pending[1]) {
		int s = -1;
		pthread_mutex_lock(&e->mu);
		while (!atomic_load(&e->stop)) {
			for (int c = 0; c < 2 && s < 0; c++)
				if (pending[c] && e->streams[2 * r + c].done == k)
					s = c;
			if (s >= 0)
				break;
			pthread_cond_wait(&e->hashed, &e->mu);
		}
		pthread_mutex_unlock(&e->mu);
		if (s < 0)
			return 0;
		hash_stream *st = &e->streams[2 * r + s];
		if (k == 0) {
			const npy_info *h = s ? &e->io[r].b : &e->io[r].a;
			unsigned char *head = xmalloc((size_t)h->data_offset);
			int rc = read_range(head, e->files[st->file].path, 0, (size_t)h->data_offset);
			if (!rc)
				util_sha256_update(st->h, head, (size_t)h->data_offset);
			free(head);
			if (rc)
				return rc;
		}
		util_sha256_update(st->h, buf[s], len[s]);
		pthread_mutex_lock(&e->mu);
		st->done++;
		pthread_cond_broadcast(&e->hashed);
		pthread_mutex_unlock(&e->mu);
		pending[s] = 0;
	}
	return 0;
}

static int run_job(engine *e, const job *j, worker_buf *w)
{
	if (j->hash)
		return util_sha256_file(e->files[j->pair].sha, e->files[j->pair].path);
	const dump_tensor_io *t = &e->io[j->pair];
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
	compare_chunk(p, t, w->ra, w->rb, (size_t)n, e->atol, e->rtol);
	const unsigned char *buf[2] = { w->ra, w->rb };
	const size_t len[2] = { (size_t)n * (size_t)t->a.itemsize, (size_t)n * (size_t)t->b.itemsize };
	return hash_chunks(e, j->pair, j->from / e->chunk, buf, len);
}

static void *worker(void *arg)
{
	engine *e = arg;
	worker_buf w = { xmalloc(e->chunk * 8), xmalloc(e->chunk * 8) };
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
			atomic_store(&e->stop, 1);
			pthread_cond_broadcast(&e->hashed); /* wake the workers waiting for a turn */
			pthread_mutex_unlock(&e->mu);
		}
	}
	free(w.ra);
	free(w.rb);
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
		s.nana += p->nana;
		s.nanb += p->nanb;
		s.mismatch += p->mismatch;
		s.over += p->over;
	}
	m->count = count;
	m->nonfinite_a = s.nfa;
	m->nonfinite_b = s.nfb;
	m->nan_a = s.nana;
	m->nan_b = s.nanb;
	m->nonfinite_mismatch = s.mismatch;
	m->over_tol = s.over;
	if (s.finite || !count) {
		m->max_abs = s.max_abs;
		m->max_rel = s.max_rel;
		m->euc_dist = sqrt(s.sq);
	} else { /* no finite element on both sides (B all NaN): no error to measure, not 0 */
		m->max_abs = m->max_rel = m->euc_dist = NAN;
	}
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

int dump_engine_run(dump_metrics *out, const dump_tensor_io *io, size_t n, dump_hash_file *files, size_t nfiles,
                    size_t chunk, int threads, const dump_threshold *th)
{
	engine e;
	memset(&e, 0, sizeof e);
	e.atol = th && th->agreed ? th->atol : INFINITY;
	e.rtol = th && th->agreed ? th->rtol : 0;
	if (!chunk)
		chunk = DEFAULT_CHUNK;
	/* a .npy still to hash whose data is compared is hashed from the chunks read for that;
	 * the jobs: hash every other file whose hash is not known already, then every chunk of
	 * every tensor pair */
	e.streams = xcalloc(2 * n + 1, sizeof *e.streams);
	char *streamed = xcalloc(nfiles + 1, 1);
	for (size_t r = 0; r < n; r++)
		for (int s = 0; s < 2; s++) {
			size_t f = s ? io[r].file_b : io[r].file_a;
			if (f < nfiles && !files[f].sha[0] && !streamed[f] && io[r].a.count > 0) {
				streamed[f] = 1;
				e.streams[2 * r + s] = (hash_stream){ util_sha256_new(), f, 0 };
			}
		}
	size_t njobs = 0;
	for (size_t f = 0; f < nfiles; f++)
		njobs += !files[f].sha[0] && !streamed[f];
	for (size_t r = 0; r < n; r++)
		njobs += (size_t)((io[r].a.count + chunk - 1) / chunk);
	e.io = io;
	e.files = files;
	e.chunk = chunk;
	e.jobs = xcalloc(njobs ? njobs : 1, sizeof *e.jobs);
	e.parts = xcalloc(njobs ? njobs : 1, sizeof *e.parts);
	size_t *first_job = xmalloc((n ? n : 1) * sizeof *first_job);
	for (size_t f = 0; f < nfiles; f++)
		if (!files[f].sha[0] && !streamed[f])
			e.jobs[e.njobs++] = (job){ f, 0, 0, 1 };
	for (size_t r = 0; r < n; r++) {
		first_job[r] = e.njobs;
		for (unsigned long long from = 0; from < io[r].a.count; from += chunk) {
			unsigned long long to = from + chunk < io[r].a.count ? from + chunk : io[r].a.count;
			e.jobs[e.njobs++] = (job){ r, from, to, 0 };
		}
	}
	pthread_mutex_init(&e.mu, NULL);
	pthread_cond_init(&e.hashed, NULL);
	int rc = engine_run(&e, threads > 0 ? threads : online_cores());
	pthread_cond_destroy(&e.hashed);
	pthread_mutex_destroy(&e.mu);
	for (size_t s = 0; s < 2 * n; s++) {
		if (!rc && e.streams[s].h)
			util_sha256_final(files[e.streams[s].file].sha, e.streams[s].h);
		else
			util_sha256_free(e.streams[s].h);
	}
	free(e.streams);
	free(streamed);
	for (size_t r = 0; !rc && r < n; r++) {
		size_t end = r + 1 < n ? first_job[r + 1] : e.njobs;
		finish_metrics(&out[r], e.parts + first_job[r], end - first_job[r], io[r].a.count);
	}
	free(first_job);
	free(e.jobs);
	free(e.parts);
	return rc;
}

void dump_judge_real(dump_pair *p, const dump_threshold *th)
{
	const dump_metrics *m = &p->m;
	p->pass = 1;
	p->warn = 0;
	if (m->nonfinite_mismatch) {
		p->pass = 0;
		p->note = N_("NaN/inf where the other side is finite");
	} else if (m->nan_a) {
		p->pass = 0;
		p->note = N_("NaN on both sides at the same places: the baseline's NaN cannot vouch for B (msprobe reads the "
		             "pair as N/A)");
	} else if (!dump_pair_compares(p)) {
		p->warn = 1;
		p->note = m->count ? N_("±inf on both sides everywhere: no finite element to compare (msprobe: None)")
		                   : N_("no elements on either side: nothing compared (msprobe: None)");
	} else if (th && th->agreed) {
		if (m->over_tol) {
			p->pass = 0;
			p->note = N_("outside the thresholds agreed for the engagement (atol, rtol)");
		}
	} else if (m->count == 1) {
		/* one element: its cosine is +-1 whatever the values (msprobe reads it as
		 * unsupported), so the element's own error judges it */
		if (m->max_abs > MAX_ABS_ERR_THRESHOLD && m->max_rel > MAX_ABS_ERR_THRESHOLD) {
			p->pass = 0;
			p->note = N_("one element (a scalar): its cosine says nothing, and it differs by more than 0.001, "
			             "absolute and relative");
		}
	} else if (isnan(m->cosine)) {
		p->pass = 0;
		p->note = N_("cosine undefined (one side is all zero or non-finite)");
	} else if (m->cosine < COS_MAX_THRESHOLD || m->max_abs > MAX_ABS_ERR_MAX_THRESHOLD ||
	           (m->cosine < COS_THRESHOLD && m->max_abs > MAX_ABS_ERR_THRESHOLD)) {
		p->pass = 0;
		p->note = N_("outside msprobe's accuracy rule");
	}
	if (p->pass && !p->warn && m->nonfinite_a) {
		p->warn = 1;
		p->note = N_("±inf on both sides at the same places (as an attention mask holds): the finite elements were "
		             "judged; msprobe's rule reads such a pair as N/A");
	}
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

/* Under thresholds agreed for the engagement, statistics cannot show that every element
 * is within them. They can show that one is not: some element differs by at least
 * |Max(B) - Max(A)| (and |Min(B) - Min(A)|), and no element's tolerance exceeds
 * atol + rtol x max(|Max(A)|, |Min(A)|). Such a pair fails; any other is not judged, and
 * does not pass either. */
static void judge_stats_agreed(dump_pair *p, const dump_threshold *th)
{
	double amax = p->stat_a[0], amin = p->stat_a[1], bmax = p->stat_b[0], bmin = p->stat_b[1];
	if (p->note && !p->pass)
		return; /* already failed on a NaN/inf statistic */
	p->pass = 0;
	p->warn = 0;
	if (isfinite(amax) && isfinite(amin) && isfinite(bmax) && isfinite(bmin)) {
		double tol = th->atol + th->rtol * fmax(fabs(amax), fabs(amin));
		if (fabs(bmax - amax) > tol || fabs(bmin - amin) > tol) {
			p->note = N_("its Max or Min alone differs by more than the agreed thresholds allow any element");
			return;
		}
	}
	p->note = N_("only dump.json statistics: the thresholds agreed for the engagement judge elements, so it cannot pass "
	             "them (dump the tensors, task \"tensor\")");
}

/* msprobe's statistics-mode measure of one statistic, a of the bench (GPU) and b of the
 * NPU, exactly as its compare command computes it for the "Warning" of a summary
 * comparison: |b - a| / (|max(a, b)| + EPSILON), the greater of the two by sign (for
 * two negative values the one nearer zero), neither the larger magnitude nor the bench
 * alone (CalcStatsDiff.calc_summary_diff, msprobe/core/compare/acc_compare.py at the
 * commit above, lines 723-725: np.maximum(npu, bench) then .abs(); lines 737-747 make
 * any of Max, Min, Mean and L2norm over MAGNITUDE the row's Result "Warning", never a
 * failure). The "...RelativeErr" columns of its table, |b - a| / |a| (N/A where a is 0,
 * lines 713-721), decide no Result: only the optional -hl colouring reads them
 * (highlight.py, CheckMaxRelativeDiff). Its visualization's copy of the rule
 * (get_rela_diff_summary_mode, compare/utils.py lines 421-445) divides by
 * max(|a|, |b|) instead; `msprobe compare` does not use it. */
static double stat_magnitude(double a, double b)
{
	return fabs(b - a) / (fabs(fmax(a, b)) + STAT_EPSILON);
}

void dump_judge_stats(dump_pair *p, const cJSON *ra, const cJSON *rb, const dump_threshold *th)
{
	p->pass = 1;
	int any = 0;
	for (int k = 0; k < 4; k++) {
		double a, b;
		int ha = stat_value(&a, ra, dump_stat_names[k]), hb = stat_value(&b, rb, dump_stat_names[k]);
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
		p->stat_rel[k] = stat_magnitude(a, b);
		if (p->stat_rel[k] > STAT_MAGNITUDE)
			p->warn = 1;
	}
	if (p->warn && p->pass)
		/* xgettext:no-c-format */
		p->note = N_("a statistic differs by more than 50% of the greater of its two values (msprobe's Warning: "
		             "double-check)");
	if (!any && p->pass)
		p->note = N_("no statistics recorded");
	if (th && th->agreed)
		judge_stats_agreed(p, th);
}

size_t dump_known_hashes(dump_hash_file *files, size_t n, const char *root)
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

void dump_manifest_hash(char out[65], const dump_hash_file *files, const size_t *idx, size_t n, const char *root)
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
