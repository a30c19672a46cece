/* profile — see profile.h. */
#include "intl.h"
#include "profile.h"
#include "err.h"
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK ((size_t)1 << 20)        /* bytes read from the source at a time */
#define MAX_NAMES ((size_t)1 << 18)    /* distinct names kept; later ones are summed as OTHER */
#define MAX_RANKS ((size_t)4096)       /* ranks or trace streams kept */
#define MAX_STEPS ((size_t)1 << 18)    /* steps kept */
#define MAX_FIELDS 256                 /* CSV columns looked at */
#define MAX_DEPTH 64                   /* JSON nesting skipped over */
#define OTHER "(other operators)"

/* ---- reading the source in chunks -------------------------------------------------- */

typedef struct reader {
	const artifact_source *src;
	unsigned char *buf;
	size_t len, pos;
	unsigned long long off;        /* source offset of buf[0] */
	int eof, error;
} reader;

static void rd_init(reader *r, const artifact_source *src)
{
	memset(r, 0, sizeof *r);
	r->src = src;
	r->buf = xmalloc(CHUNK);
}

static void rd_rewind(reader *r)
{
	r->len = r->pos = 0;
	r->off = 0;
	r->eof = r->error = 0;
}

/* The next byte, or -1 at the end or on a read error (r->error set). */
static int rd_fill(reader *r)
{
	if (r->eof)
		return -1;
	r->off += r->len;
	r->pos = r->len = 0;
	if (r->off >= r->src->size) {
		r->eof = 1;
		return -1;
	}
	unsigned long long left = r->src->size - r->off;
	size_t want = left < CHUNK ? (size_t)left : CHUNK;
	long long got = r->src->read_at(r->src->ctx, r->off, r->buf, want);
	if (got <= 0) {
		r->error = got < 0;
		r->eof = 1;
		return -1;
	}
	r->len = (size_t)got;
	return r->buf[0];
}

static inline int rd_peek(reader *r)
{
	if (r->pos < r->len)
		return r->buf[r->pos];
	return rd_fill(r);
}

static inline int rd_get(reader *r)
{
	int c = rd_peek(r);
	if (c >= 0)
		r->pos++;
	return c;
}

static unsigned long long rd_tell(const reader *r)
{
	return r->off + r->pos;
}

/* ---- aggregation tables ------------------------------------------------------------- */

typedef struct table {
	profile_op *v;
	size_t n, cap;
	size_t *slot;                  /* open addressing: index + 1, 0 = empty */
	size_t nslot;
} table;

static unsigned long long hash_str(const char *s)
{
	unsigned long long h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void table_grow(table *t)
{
	size_t nslot = t->nslot ? t->nslot * 2 : 1024;
	size_t *slot = xcalloc(nslot, sizeof *slot);
	for (size_t i = 0; i < t->n; i++) {
		size_t h = (size_t)hash_str(t->v[i].name) & (nslot - 1);
		while (slot[h])
			h = (h + 1) & (nslot - 1);
		slot[h] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
}

/* The entry named name, made when missing (past MAX_NAMES: the OTHER entry). */
static profile_op *table_get(table *t, const char *name)
{
	if (t->n * 2 >= t->nslot)
		table_grow(t);
	size_t h = (size_t)hash_str(name) & (t->nslot - 1);
	while (t->slot[h]) {
		profile_op *o = &t->v[t->slot[h] - 1];
		if (strcmp(o->name, name) == 0)
			return o;
		h = (h + 1) & (t->nslot - 1);
	}
	if (t->n >= MAX_NAMES && strcmp(name, OTHER) != 0)
		return table_get(t, OTHER);
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
	}
	profile_op *o = &t->v[t->n];
	memset(o, 0, sizeof *o);
	o->name = xstrdup(name);
	o->type = xstrdup("");
	o->core = xstrdup("");
	t->slot[h] = ++t->n;
	return o;
}

static void op_add(profile_op *o, const char *type, const char *core, double us, unsigned long long count,
                   double max_us)
{
	o->total_us += us;
	o->count += count;
	if (max_us > o->max_us)
		o->max_us = max_us;
	if (type && *type && !*o->type) {
		free(o->type);
		o->type = xstrdup(type);
	}
	if (core && *core && strcmp(o->core, core) != 0) {
		free(o->core);
		o->core = xstrdup(core);
	}
}

static int by_time(const void *a, const void *b)
{
	const profile_op *x = a, *y = b;
	if (x->total_us != y->total_us)
		return x->total_us > y->total_us ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Hands the entries to the caller sorted by time and frees the index. */
static profile_op *table_take(table *t, size_t *n)
{
	free(t->slot);
	if (t->n)
		qsort(t->v, t->n, sizeof *t->v, by_time);
	*n = t->n;
	profile_op *v = t->v;
	memset(t, 0, sizeof *t);
	return v;
}

static void ops_free(profile_op *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].type);
		free(v[i].core);
	}
	free(v);
}

/* The state of one read. */
typedef struct agg {
	profile *p;
	table ops, types, host;        /* host: host operators of a trace (used when no device ops) */
	profile_rank *tracks;          /* trace streams (pid/tid) for idle time */
	size_t ntracks;
	size_t last_rank;              /* index of the rank looked up last (rows come in runs) */
	char **pid_label;              /* trace process labels: "pid\tlabel" */
	size_t nlabels;
} agg;

int profile_is_aicpu(const char *core)
{
	return core && (strcasecmp(core, "AI_CPU") == 0 || strcasecmp(core, "AICPU") == 0);
}

static int is_comm(const char *name, const char *core)
{
	return (core && (strcasecmp(core, "HCCL") == 0 || strcasecmp(core, "COMMUNICATION") == 0)) ||
	       strncasecmp(name, "hcom", 4) == 0;
}

/* One operator run (or, with count > 1, a row of op_statistic) added to every total. */
static void add_op(agg *a, const char *name, const char *type, const char *core, double us, unsigned long long count,
                   double max_us)
{
	profile *p = a->p;
	op_add(table_get(&a->ops, name), type, core, us, count, max_us);
	op_add(table_get(&a->types, type && *type ? type : name), type, core, us, count, max_us);
	p->total_us += us;
	if (is_comm(name, core))
		p->comm_us += us;
	if (profile_is_aicpu(core))
		p->aicpu_us += us;
}

/* The rank (or stream) with id in v, made when missing; NULL past MAX_RANKS. */
static profile_rank *rank_in(profile_rank **v, size_t *n, size_t *last, const char *id)
{
	if (*last < *n && strcmp((*v)[*last].id, id) == 0)
		return &(*v)[*last];
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].id, id) == 0) {
			*last = i;
			return &(*v)[i];
		}
	if (*n >= MAX_RANKS)
		return NULL;
	*v = xrealloc(*v, (*n + 1) * sizeof **v);
	profile_rank *r = &(*v)[*n];
	memset(r, 0, sizeof *r);
	r->id = xstrdup(id);
	r->last_end = -INFINITY;
	*last = (*n)++;
	return r;
}

/* Idle time on one track: the gap before an operator starting after the latest end. */
static double track_gap(profile_rank *r, double start, double dur)
{
	double gap = 0;
	if (r->last_end != -INFINITY && start > r->last_end)
		gap = start - r->last_end;
	if (start + dur > r->last_end)
		r->last_end = start + dur;
	r->idle_us += gap;
	r->busy_us += dur;
	return gap;
}

static profile_step *step_new(profile *p, const char *id, double ts, double dur)
{
	if (p->nsteps >= MAX_STEPS)
		return NULL;
	if ((p->nsteps & (p->nsteps - 1)) == 0)
		p->steps = xrealloc(p->steps, (p->nsteps ? p->nsteps * 2 : 1) * sizeof *p->steps);
	profile_step *s = &p->steps[p->nsteps++];
	memset(s, 0, sizeof *s);
	s->id = xstrdup(id);
	s->ts = ts;
	s->dur_us = dur;
	return s;
}

static void set_stopped(profile *p, unsigned long long at, const char *why)
{
	if (!p->stopped)
		p->stopped = xasprintf(_("byte %llu: %s"), at, why);
}

/* A finite number in s (surrounding blanks allowed), or 0 when there is none. */
static int parse_num(double *out, const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return 0;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (end == s || *end || !isfinite(v))
		return 0;
	*out = v;
	return 1;
}

/* ---- CSV tables --------------------------------------------------------------------- */

enum col {
	C_NAME, C_TYPE, C_CORE, C_DUR, C_START, C_DEVICE, C_STATE, C_COUNT, C_TOTAL, C_MAX, C_COMPUTING,
	C_COMM_NO, C_FREE, C_STEP, NCOLS
};

/* Header names of each column; the first found wins (both header generations, §3.1). */
static const char *const col_names[NCOLS][3] = {
	[C_NAME] = { "Name", "Op Name", NULL },
	[C_TYPE] = { "Type", "OP Type", NULL },
	[C_CORE] = { "Accelerator Core", "Task Type", "Core Type" },
	[C_DUR] = { "Duration(us)", "Task Duration(us)", NULL },
	[C_START] = { "Start Time(us)", "Task Start Time(us)", NULL },
	[C_DEVICE] = { "Device_id", NULL, NULL },
	[C_STATE] = { "OP State", NULL, NULL },
	[C_COUNT] = { "Count", NULL, NULL },
	[C_TOTAL] = { "Total Time(us)", NULL, NULL },
	[C_MAX] = { "Max Time(us)", NULL, NULL },
	[C_COMPUTING] = { "Computing", NULL, NULL },
	[C_COMM_NO] = { "Communication(Not Overlapped)", NULL, NULL },
	[C_FREE] = { "Free", NULL, NULL },
	[C_STEP] = { "Step", "Step Id", NULL },
};

typedef struct csv {
	char *rec;                     /* the record's fields, each NUL-terminated */
	size_t len, cap;
	size_t field[MAX_FIELDS];      /* offset of each field in rec */
	size_t nfields;
	size_t flen;                   /* bytes of the current field kept */
	int col[NCOLS];                /* field index of each column, -1 when absent */
	size_t header_fields;          /* columns of the header */
	int header_done;
	unsigned long long record_at;  /* offset of the record's first byte */
} csv;

static void csv_put(csv *c, char ch)
{
	if (c->flen >= PROFILE_MAX_TOKEN)
		return;
	if (c->len + 2 > c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->rec = xrealloc(c->rec, c->cap);
	}
	c->rec[c->len++] = ch;
	c->flen++;
}

/* Appends a run of plain bytes to the current field (kept up to PROFILE_MAX_TOKEN). */
static void csv_put_run(csv *c, const unsigned char *b, size_t n)
{
	if (c->flen + n > PROFILE_MAX_TOKEN)
		n = c->flen < PROFILE_MAX_TOKEN ? PROFILE_MAX_TOKEN - c->flen : 0;
	if (!n)
		return;
	if (c->len + n + 2 > c->cap) {
		while (c->len + n + 2 > c->cap)
			c->cap = c->cap ? c->cap * 2 : 1024;
		c->rec = xrealloc(c->rec, c->cap);
	}
	memcpy(c->rec + c->len, b, n);
	c->len += n;
	c->flen += n;
}

static void csv_end_field(csv *c)
{
	if (c->len + 1 > c->cap) {
		c->cap = c->cap ? c->cap * 2 : 1024;
		c->rec = xrealloc(c->rec, c->cap);
	}
	c->rec[c->len++] = '\0';
	if (c->nfields < MAX_FIELDS)
		c->field[c->nfields++] = c->len - c->flen - 1;
	c->flen = 0;
}

static const char *cell(const csv *c, int col)
{
	int i = c->col[col];
	if (i < 0 || (size_t)i >= c->nfields)
		return NULL;
	return c->rec + c->field[i];
}

/* Trims blanks at both ends in place. */
static char *trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* A cell with its blanks trimmed (in place), or NULL when the row has no such column. */
static char *cellt(csv *c, int col)
{
	int i = c->col[col];
	if (i < 0 || (size_t)i >= c->nfields)
		return NULL;
	return trim(c->rec + c->field[i]);
}

static int csv_header(agg *a, csv *c, const char *name)
{
	for (int k = 0; k < NCOLS; k++) {
		c->col[k] = -1;
		for (int g = 0; g < 3 && col_names[k][g] && c->col[k] < 0; g++)
			for (size_t i = 0; i < c->nfields; i++) {
				char *f = trim(c->rec + c->field[i]);
				if (i == 0 && (unsigned char)f[0] == 0xEF && (unsigned char)f[1] == 0xBB &&
				    (unsigned char)f[2] == 0xBF)
					f += 3; /* a UTF-8 byte order mark */
				if (strcmp(f, col_names[k][g]) == 0) {
					c->col[k] = (int)i;
					break;
				}
			}
	}
	profile *p = a->p;
	if (c->col[C_TYPE] >= 0 && c->col[C_TOTAL] >= 0)
		p->form = PROFILE_OP_STATISTIC;
	else if (c->col[C_DUR] >= 0 && (c->col[C_TYPE] >= 0 || c->col[C_NAME] >= 0))
		p->form = PROFILE_KERNEL_DETAILS;
	else if (c->col[C_COMPUTING] >= 0 && c->col[C_FREE] >= 0)
		p->form = PROFILE_STEP_TRACE;
	else
		return err_set(FERRY_ECORRUPT,
		               _("%s: a CSV table ferry does not recognise (expected the header of kernel_details.csv, "
		               "op_statistic.csv or step_trace_time.csv)"),
		               name);
	p->device = 1;
	return 0;
}

static void csv_row(agg *a, csv *c)
{
	profile *p = a->p;
	char *devid = cellt(c, C_DEVICE);
	if (!devid || !*devid)
		devid = "0";
	p->rows++;
	if (p->form == PROFILE_KERNEL_DETAILS) {
		double us, start;
		const char *dur = cell(c, C_DUR);
		if (!dur || !parse_num(&us, dur) || us < 0) {
			p->bad_rows++;
			return;
		}
		char *n = cellt(c, C_NAME), *t = cellt(c, C_TYPE), *core = cellt(c, C_CORE);
		if (!t)
			t = "";
		if (!n || !*n)
			n = t;
		if (!*n) {
			p->bad_rows++;
			return;
		}
		add_op(a, n, t, core ? core : "", us, 1, us);
		profile_rank *r = rank_in(&p->ranks, &p->nranks, &a->last_rank, devid);
		const char *st = cell(c, C_START);
		if (r && st && parse_num(&start, st)) {
			double gap = track_gap(r, start, us);
			p->idle_us += gap;
			p->busy_us += us;
		} else if (r)
			r->busy_us += us;
		const char *state = cellt(c, C_STATE);
		if (state) {
			p->dynamic_rows += strcasecmp(state, "dynamic") == 0;
			p->static_rows += strcasecmp(state, "static") == 0;
		}
	} else if (p->form == PROFILE_OP_STATISTIC) {
		double total, count = 1, max = 0;
		char *t = cellt(c, C_TYPE);
		const char *tot = cell(c, C_TOTAL);
		if (!t || !tot || !parse_num(&total, tot) || total < 0) {
			p->bad_rows++;
			return;
		}
		const char *cn = cell(c, C_COUNT), *mx = cell(c, C_MAX), *core = cellt(c, C_CORE);
		if (cn && (!parse_num(&count, cn) || count < 0 || count > 9e15 || count != floor(count)))
			count = 1; /* not a whole number of calls */
		if (!mx || !parse_num(&max, mx) || max < 0)
			max = total; /* unknown: at most the total */
		if (!*t) {
			p->bad_rows++;
			return;
		}
		add_op(a, t, t, core ? core : "", total, (unsigned long long)count, max);
		profile_rank *r = rank_in(&p->ranks, &p->nranks, &a->last_rank, devid);
		if (r)
			r->busy_us += total;
	} else {
		double comp, comm = 0, fr = 0;
		const char *cp = cell(c, C_COMPUTING), *cm = cell(c, C_COMM_NO), *f = cell(c, C_FREE);
		if (!cp || !parse_num(&comp, cp)) {
			p->bad_rows++;
			return;
		}
		if (cm && !parse_num(&comm, cm))
			comm = 0;
		if (f && !parse_num(&fr, f))
			fr = 0;
		p->has_breakdown = 1;
		p->compute_us += comp;
		p->comm_exposed_us += comm;
		p->free_us += fr;
		profile_rank *r = rank_in(&p->ranks, &p->nranks, &a->last_rank, devid);
		if (r) {
			r->step_us += comp + comm + fr;
			r->busy_us += comp;
			r->steps++;
		}
		const char *sp = cell(c, C_STEP);
		char id[PROFILE_MAX_TOKEN + 64];
		snprintf(id, sizeof id, "device %s step %s", devid, sp && *sp ? sp : "?");
		profile_step *s = step_new(p, id, 0, comp + comm + fr);
		if (s) {
			s->busy_us = comp;
			s->free_us = fr;
		}
	}
}

/* Ends one record: the header, or a data row. */
static int csv_record(agg *a, csv *c, const char *name)
{
	int rc = 0;
	int blank = c->nfields == 1 && c->rec[c->field[0]] == '\0';
	if (!blank) {
		if (!c->header_done) {
			rc = csv_header(a, c, name);
			c->header_fields = c->nfields;
			c->header_done = 1;
		} else
			csv_row(a, c);
	}
	c->len = c->nfields = c->flen = 0;
	return rc;
}

static int read_csv(agg *a, reader *r, const char *name)
{
	csv c;
	memset(&c, 0, sizeof c);
	int rc = 0, quoted = 0, after_quote = 0, any = 0;
	unsigned char special[256] = { 0 };
	special[','] = special['\n'] = special['\r'] = special['"'] = special[0] = 1;
	for (;;) {
		if (!quoted && c.flen && r->pos < r->len) {
			/* inside an unquoted field: copy the run of plain bytes at once */
			size_t j = r->pos;
			while (j < r->len && !special[r->buf[j]])
				j++;
			csv_put_run(&c, r->buf + r->pos, j - r->pos);
			r->pos = j;
			if (j == r->len)
				continue;
		}
		int ch = rd_get(r);
		if (ch < 0)
			break;
		if (ch == 0) {
			if (!c.header_done) {
				rc = err_set(FERRY_ECORRUPT, _("%s: binary data where a CSV table was expected"), name);
				goto out;
			}
			set_stopped(a->p, rd_tell(r) - 1, _("a NUL byte: binary data inside the CSV table"));
			goto out;
		}
		if (!any || (c.len == 0 && c.nfields == 0 && !quoted))
			c.record_at = rd_tell(r) - 1;
		any = 1;
		if (quoted) {
			if (ch == '"') {
				if (rd_peek(r) == '"') {
					rd_get(r);
					csv_put(&c, '"');
				} else {
					quoted = 0;
					after_quote = 1;
				}
			} else
				csv_put(&c, (char)ch);
			continue;
		}
		if (ch == '"' && c.flen == 0 && !after_quote) {
			quoted = 1;
			continue;
		}
		if (ch == ',') {
			csv_end_field(&c);
			after_quote = 0;
		} else if (ch == '\n' || ch == '\r') {
			if (ch == '\r' && rd_peek(r) == '\n')
				rd_get(r);
			csv_end_field(&c);
			after_quote = 0;
			if ((rc = csv_record(a, &c, name)))
				goto out;
		} else
			csv_put(&c, (char)ch);
	}
	if (r->error) {
		set_stopped(a->p, rd_tell(r), _("read error"));
		a->p->read_failed = 1;
	} else if (quoted)
		set_stopped(a->p, rd_tell(r), _("the file ends inside a quoted field (truncated)"));
	if (!quoted && (c.len || c.nfields)) {
		csv_end_field(&c);
		if (c.header_done && c.nfields < c.header_fields) {
			/* the file was cut inside its last row: that row is not used */
			a->p->bad_rows++;
			set_stopped(a->p, c.record_at, _("the last row is incomplete (truncated)"));
			c.len = c.nfields = 0;
		} else
			rc = csv_record(a, &c, name);
	}
	if (!rc && !c.header_done)
		rc = any ? csv_record(a, &c, name) : err_set(FERRY_ECORRUPT, _("%s: empty"), name);
out:
	free(c.rec);
	return rc;
}

/* ---- Chrome trace JSON -------------------------------------------------------------- */

typedef struct event {
	char name[PROFILE_MAX_TOKEN + 1];
	char cat[256], ph[8], pid[64], tid[64];
	char task[64];                 /* args "Task Type": a device kernel */
	char optype[256];              /* args "Op Type" (any case, space or underscore) */
	char label[256];               /* args "name" (process_name metadata) */
	double ts, dur;
	int has_ts, has_dur;
} event;

typedef struct jparse {
	reader *r;
	const char *why;               /* the first syntax error */
	unsigned long long at;
} jparse;

static int jfail(jparse *j, const char *why)
{
	if (!j->why) {
		j->why = why;
		j->at = rd_tell(j->r);
	}
	return -1;
}

static void skip_ws(reader *r)
{
	int c;
	while ((c = rd_peek(r)) == ' ' || c == '\n' || c == '\r' || c == '\t')
		r->pos++;
}

static void put_utf8(char *out, size_t cap, size_t *n, unsigned cp)
{
	unsigned char b[4];
	size_t k;
	if (cp < 0x80) {
		b[0] = (unsigned char)cp;
		k = 1;
	} else if (cp < 0x800) {
		b[0] = (unsigned char)(0xC0 | cp >> 6);
		b[1] = (unsigned char)(0x80 | (cp & 0x3F));
		k = 2;
	} else if (cp < 0x10000) {
		b[0] = (unsigned char)(0xE0 | cp >> 12);
		b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		b[2] = (unsigned char)(0x80 | (cp & 0x3F));
		k = 3;
	} else {
		b[0] = (unsigned char)(0xF0 | cp >> 18);
		b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3F));
		b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3F));
		b[3] = (unsigned char)(0x80 | (cp & 0x3F));
		k = 4;
	}
	if (*n + k < cap) {
		memcpy(out + *n, b, k);
		*n += k;
	}
}

static int hex4(reader *r, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		int c = rd_get(r);
		if (c < 0 || !isxdigit(c))
			return -1;
		v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : (tolower(c) - 'a' + 10));
	}
	*out = v;
	return 0;
}

/* Reads a string (the opening quote is next) into out (cap bytes, cut there, NUL-ended;
 * out may be NULL to skip it). */
static int jstring(jparse *j, char *out, size_t cap)
{
	reader *r = j->r;
	size_t n = 0;
	if (rd_get(r) != '"')
		return jfail(j, _("a string was expected"));
	for (;;) {
		int c = rd_get(r);
		if (c < 0)
			return jfail(j, _("the file ends inside a string (truncated)"));
		if (c == '"')
			break;
		if (c < 0x20)
			return jfail(j, _("a control character inside a string"));
		if (c == '\\') {
			int e = rd_get(r);
			unsigned cp = 0;
			switch (e) {
			case '"': case '\\': case '/': cp = (unsigned)e; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u':
				if (hex4(r, &cp))
					return jfail(j, _("a bad \\u escape"));
				if (cp >= 0xD800 && cp < 0xDC00 && rd_peek(r) == '\\') {
					unsigned lo;
					rd_get(r);
					if (rd_get(r) != 'u' || hex4(r, &lo) || lo < 0xDC00 || lo > 0xDFFF)
						return jfail(j, _("a bad surrogate pair"));
					cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
				} else if (cp >= 0xD800 && cp < 0xE000)
					cp = 0xFFFD;
				break;
			default:
				return jfail(j, e < 0 ? _("the file ends inside a string (truncated)") : _("a bad escape in a string"));
			}
			if (out)
				put_utf8(out, cap, &n, cp);
			continue;
		}
		if (out && n + 1 < cap)
			out[n++] = (char)c;
	}
	if (out)
		out[n] = '\0';
	return 0;
}

static int jnumber(jparse *j, double *out)
{
	reader *r = j->r;
	char buf[64];
	size_t n = 0;
	int c;
	while ((c = rd_peek(r)) >= 0 && (isdigit(c) || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E')) {
		if (n + 1 < sizeof buf)
			buf[n++] = (char)c;
		r->pos++;
	}
	buf[n] = '\0';
	if (c < 0 && r->eof)
		return jfail(j, _("the file ends inside a number (truncated)"));
	if (!n || !parse_num(out, buf))
		return jfail(j, _("a malformed number"));
	return 0;
}

static int jliteral(jparse *j, const char *word)
{
	for (const char *w = word; *w; w++) {
		int c = rd_get(j->r);
		if (c < 0)
			return jfail(j, _("the file ends inside a value (truncated)"));
		if (c != *w)
			return jfail(j, _("an unexpected character"));
	}
	return 0;
}

/* Skips one value of any kind. */
static int jskip(jparse *j, int depth)
{
	reader *r = j->r;
	skip_ws(r);
	int c = rd_peek(r);
	if (c < 0)
		return jfail(j, _("the file ends where a value was expected (truncated)"));
	if (c == '"')
		return jstring(j, NULL, 0);
	if (c == 't')
		return jliteral(j, "true");
	if (c == 'f')
		return jliteral(j, "false");
	if (c == 'n')
		return jliteral(j, "null");
	if (c == '{' || c == '[') {
		if (depth >= MAX_DEPTH)
			return jfail(j, _("values nested too deeply"));
		int close = c == '{' ? '}' : ']';
		r->pos++;
		skip_ws(r);
		if (rd_peek(r) == close) {
			r->pos++;
			return 0;
		}
		for (;;) {
			if (close == '}') {
				skip_ws(r);
				if (jstring(j, NULL, 0))
					return -1;
				skip_ws(r);
				if (rd_get(r) != ':')
					return jfail(j, _("':' was expected after a key"));
			}
			if (jskip(j, depth + 1))
				return -1;
			skip_ws(r);
			int d = rd_get(r);
			if (d == close)
				return 0;
			if (d != ',')
				return jfail(j, d < 0 ? _("the file ends inside a list or object (truncated)")
				                      : _("',' or a closing bracket was expected"));
		}
	}
	double v;
	return jnumber(j, &v);
}

/* A string or a number into out as text (pid and tid are either). */
static int jscalar_text(jparse *j, char *out, size_t cap)
{
	skip_ws(j->r);
	int c = rd_peek(j->r);
	if (c == '"')
		return jstring(j, out, cap);
	if (c == '-' || (c >= '0' && c <= '9')) {
		double v;
		if (jnumber(j, &v))
			return -1;
		snprintf(out, cap, "%.17g", v);
		return 0;
	}
	out[0] = '\0';
	return jskip(j, 1);
}

/* A number, or a string holding one (torch_npu writes "ts" as a string). */
static int jnum_or_text(jparse *j, double *out, int *has)
{
	char buf[64];
	skip_ws(j->r);
	int c = rd_peek(j->r);
	if (c == '"') {
		if (jstring(j, buf, sizeof buf))
			return -1;
		*has = parse_num(out, buf);
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9')) {
		if (jnumber(j, out))
			return -1;
		*has = 1;
		return 0;
	}
	*has = 0;
	return jskip(j, 1);
}

/* "Op Type", "OP Type", "op_type", "OpType": an argument naming the operator type. */
static int is_optype_key(const char *k)
{
	char n[32];
	size_t m = 0;
	for (; *k && m + 1 < sizeof n; k++)
		if (*k != ' ' && *k != '_')
			n[m++] = (char)tolower((unsigned char)*k);
	n[m] = '\0';
	return *k == '\0' && strcmp(n, "optype") == 0;
}

/* Walks an object (the '{' is next), calling member(j, key, e) with the reader on each
 * member's value; member must consume the value. */
static int jobject(jparse *j, event *e, size_t keycap, int (*member)(jparse *, const char *, event *))
{
	reader *r = j->r;
	char key[64];
	r->pos++;
	skip_ws(r);
	if (rd_peek(r) == '}') {
		r->pos++;
		return 0;
	}
	for (;;) {
		skip_ws(r);
		if (jstring(j, key, keycap < sizeof key ? keycap : sizeof key))
			return -1;
		skip_ws(r);
		if (rd_get(r) != ':')
			return jfail(j, _("':' was expected after a key"));
		skip_ws(r);
		if (member(j, key, e))
			return -1;
		skip_ws(r);
		int d = rd_get(r);
		if (d == '}')
			return 0;
		if (d != ',')
			return jfail(j, d < 0 ? _("the file ends inside an event (truncated)") : _("',' or '}' was expected"));
	}
}

static int args_member(jparse *j, const char *key, event *e)
{
	if (rd_peek(j->r) == '"') {
		if (strcmp(key, "Task Type") == 0)
			return jstring(j, e->task, sizeof e->task);
		if (is_optype_key(key))
			return jstring(j, e->optype, sizeof e->optype);
		if (strcmp(key, "name") == 0)
			return jstring(j, e->label, sizeof e->label);
	}
	return jskip(j, 2);
}

static int event_member(jparse *j, const char *key, event *e)
{
	int str = rd_peek(j->r) == '"';
	if (str && strcmp(key, "name") == 0)
		return jstring(j, e->name, sizeof e->name);
	if (str && strcmp(key, "cat") == 0)
		return jstring(j, e->cat, sizeof e->cat);
	if (str && strcmp(key, "ph") == 0)
		return jstring(j, e->ph, sizeof e->ph);
	if (strcmp(key, "pid") == 0)
		return jscalar_text(j, e->pid, sizeof e->pid);
	if (strcmp(key, "tid") == 0)
		return jscalar_text(j, e->tid, sizeof e->tid);
	if (strcmp(key, "ts") == 0)
		return jnum_or_text(j, &e->ts, &e->has_ts);
	if (strcmp(key, "dur") == 0)
		return jnum_or_text(j, &e->dur, &e->has_dur);
	if (strcmp(key, "args") == 0)
		return rd_peek(j->r) == '{' ? jobject(j, e, 64, args_member) : jskip(j, 1);
	return jskip(j, 1);
}

/* Parses one event object (the '{' is next). */
static int jevent(jparse *j, event *e)
{
	memset(e, 0, offsetof(event, ts));
	e->has_ts = e->has_dur = 0;
	return jobject(j, e, 32, event_member);
}

static const char *const overlap_names[] = { "Computing", "Communication(Not Overlapped)", "Free" };

static int is_step_marker(const char *name)
{
	return strncmp(name, "ProfilerStep#", 13) == 0;
}

static int is_device_event(const event *e)
{
	return e->task[0] || strcmp(e->cat, "kernel") == 0;
}

/* Pass 1: every aggregate but the steps' device time. */
static void event_pass1(agg *a, event *e)
{
	profile *p = a->p;
	p->rows++;
	if (strcmp(e->ph, "M") == 0) {
		if (strcmp(e->name, "process_name") == 0 && e->label[0] && e->pid[0] && a->nlabels < MAX_RANKS) {
			a->pid_label = xrealloc(a->pid_label, (a->nlabels + 1) * sizeof *a->pid_label);
			a->pid_label[a->nlabels++] = xasprintf("%s\t%s", e->pid, e->label);
		}
		return;
	}
	if (strcmp(e->ph, "X") != 0)
		return;
	if (!e->has_dur || e->dur < 0 || !e->name[0]) {
		p->bad_rows++;
		return;
	}
	for (size_t i = 0; i < sizeof overlap_names / sizeof *overlap_names; i++)
		if (strcmp(e->name, overlap_names[i]) == 0) {
			p->has_breakdown = 1;
			*(i == 0 ? &p->compute_us : i == 1 ? &p->comm_exposed_us : &p->free_us) += e->dur;
			return;
		}
	if (is_step_marker(e->name)) {
		if (e->has_ts)
			step_new(p, e->name, e->ts, e->dur);
		return;
	}
	if (is_device_event(e)) {
		add_op(a, e->name, e->optype, e->task, e->dur, 1, e->dur);
		p->device = 1;
		profile_rank *r = rank_in(&p->ranks, &p->nranks, &a->last_rank, e->pid[0] ? e->pid : "?");
		if (r)
			r->busy_us += e->dur;
		if (e->has_ts) {
			char track[160];
			size_t last = 0;
			snprintf(track, sizeof track, "%s/%s", e->pid, e->tid);
			profile_rank *t = rank_in(&a->tracks, &a->ntracks, &last, track);
			if (t) {
				double gap = track_gap(t, e->ts, e->dur);
				p->idle_us += gap;
				p->busy_us += e->dur;
				if (r)
					r->idle_us += gap;
			}
		}
	} else /* a host event: operators, Python functions, annotations */
		op_add(table_get(&a->host, e->name), e->optype, "", e->dur, 1, e->dur);
}

static int by_ts(const void *x, const void *y)
{
	const profile_step *a = x, *b = y;
	return a->ts < b->ts ? -1 : a->ts > b->ts;
}

/* Pass 2 (only when steps were marked): device time inside each step. */
static void event_pass2(agg *a, event *e)
{
	profile *p = a->p;
	if (strcmp(e->ph, "X") != 0 || !e->has_dur || !e->has_ts || e->dur < 0 || !is_device_event(e))
		return;
	/* the last step starting at or before the operator's end */
	size_t lo = 0, hi = p->nsteps;
	double end = e->ts + e->dur;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->steps[mid].ts <= end)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0;) {
		profile_step *s = &p->steps[i];
		double from = e->ts > s->ts ? e->ts : s->ts;
		double to = end < s->ts + s->dur_us ? end : s->ts + s->dur_us;
		if (to > from)
			s->busy_us += to - from;
		if (s->ts + s->dur_us < e->ts || lo - i > 4)
			break;
	}
}

/* Walks the trace's events, calling fn on each. Returns 0 when the trace could be read
 * at all (a syntax error later sets p->stopped), or an error for a non-trace. */
static int trace_walk(agg *a, reader *r, const char *name, void (*fn)(agg *, event *))
{
	jparse j = { r, NULL, 0 };
	event *e = xmalloc(sizeof *e);
	int rc = 0, in_events = 0;
	skip_ws(r);
	int c = rd_peek(r);
	if (c == '{') {
		r->pos++;
		for (;;) {
			char key[32];
			skip_ws(r);
			if (rd_peek(r) == '}')
				break;
			if (jstring(&j, key, sizeof key))
				goto syntax;
			skip_ws(r);
			if (rd_get(r) != ':') {
				jfail(&j, _("':' was expected after a key"));
				goto syntax;
			}
			skip_ws(r);
			if (strcmp(key, "traceEvents") == 0 && rd_peek(r) == '[') {
				in_events = 1;
				break;
			}
			if (jskip(&j, 1))
				goto syntax;
			skip_ws(r);
			int d = rd_get(r);
			if (d == '}')
				break;
			if (d != ',') {
				jfail(&j, _("',' or '}' was expected"));
				goto syntax;
			}
		}
		if (!in_events) {
			rc = err_set(FERRY_ECORRUPT, _("%s: a JSON object without \"traceEvents\": not a trace"), name);
			goto out;
		}
	} else if (c != '[') {
		rc = err_set(FERRY_ECORRUPT, _("%s: not a trace (expected a JSON list of events or {\"traceEvents\": [...]})"),
		             name);
		goto out;
	}
	in_events = 1;
	r->pos++; /* '[' */
	skip_ws(r);
	if (rd_peek(r) == ']')
		goto out;
	for (;;) {
		skip_ws(r);
		if (rd_peek(r) == '{') {
			if (jevent(&j, e))
				goto syntax;
			fn(a, e);
		} else {
			if (jskip(&j, 1))
				goto syntax;
			if (fn == event_pass1) {
				a->p->rows++; /* an entry that is not an event object */
				a->p->bad_rows++;
			}
		}
		skip_ws(r);
		int d = rd_get(r);
		if (d == ']')
			break;
		if (d != ',') {
			jfail(&j, d < 0 ? _("the file ends inside the list of events (truncated)")
			                : _("',' or ']' was expected between events"));
			goto syntax;
		}
	}
	goto out;
syntax:
	if (r->error) {
		set_stopped(a->p, rd_tell(r), _("read error"));
		a->p->read_failed = 1;
	} else if (!in_events && !a->p->rows)
		rc = err_set(FERRY_ECORRUPT, _("%s: not a trace: %s at byte %llu"), name, j.why ? j.why : "malformed JSON",
		             j.at);
	else
		set_stopped(a->p, j.at, j.why ? j.why : _("malformed JSON"));
out:
	free(e);
	return rc;
}

/* ---- the whole read ----------------------------------------------------------------- */

static const char *label_of(const agg *a, const char *pid)
{
	size_t n = strlen(pid);
	for (size_t i = 0; i < a->nlabels; i++)
		if (strncmp(a->pid_label[i], pid, n) == 0 && a->pid_label[i][n] == '\t')
			return a->pid_label[i] + n + 1;
	return NULL;
}

static void table_free(table *t)
{
	size_t n;
	profile_op *v = table_take(t, &n);
	ops_free(v, n);
}

static void agg_done(agg *a)
{
	table_free(&a->ops);
	table_free(&a->types);
	table_free(&a->host);
	for (size_t i = 0; i < a->ntracks; i++)
		free(a->tracks[i].id);
	free(a->tracks);
	for (size_t i = 0; i < a->nlabels; i++)
		free(a->pid_label[i]);
	free(a->pid_label);
}

int profile_read(profile **out, const char *name, const artifact_source *src)
{
	*out = NULL;
	profile *p = xcalloc(1, sizeof *p);
	agg a;
	memset(&a, 0, sizeof a);
	a.p = p;
	reader r;
	rd_init(&r, src);
	int rc = 0;
	skip_ws(&r);
	int c = rd_peek(&r);
	if (c < 0) {
		rc = r.error ? err_set(FERRY_EIO, _("%s: read error"), name) : err_set(FERRY_ECORRUPT, _("%s: empty"), name);
		goto out;
	}
	if (c == '[' || c == '{') {
		p->form = PROFILE_TRACE;
		if ((rc = trace_walk(&a, &r, name, event_pass1)))
			goto out;
		p->bytes = rd_tell(&r);
		if (p->nsteps && p->device) {
			qsort(p->steps, p->nsteps, sizeof *p->steps, by_ts);
			rd_rewind(&r);
			char *stopped = p->stopped;
			p->stopped = NULL;
			trace_walk(&a, &r, name, event_pass2);
			free(p->stopped);
			p->stopped = stopped;
			for (size_t i = 0; i < p->nsteps; i++) {
				profile_step *s = &p->steps[i];
				if (s->busy_us > s->dur_us)
					s->busy_us = s->dur_us;
				s->free_us = s->dur_us - s->busy_us;
			}
		}
		for (size_t i = 0; i < p->nranks; i++) {
			const char *l = label_of(&a, p->ranks[i].id);
			if (l) {
				char *id = xstrdup(l);
				free(p->ranks[i].id);
				p->ranks[i].id = id;
			}
		}
		if (!p->device && a.host.n) {
			/* a CPU-only trace: its host operators are what there is */
			table_free(&a.ops);
			table_free(&a.types);
			for (size_t i = 0; i < a.host.n; i++) {
				profile_op *h = &a.host.v[i];
				op_add(table_get(&a.ops, h->name), h->type, "", h->total_us, h->count, h->max_us);
				op_add(table_get(&a.types, *h->type ? h->type : h->name), h->type, "", h->total_us, h->count,
				       h->max_us);
				p->total_us += h->total_us;
			}
		}
	} else {
		rc = read_csv(&a, &r, name);
		p->bytes = rd_tell(&r);
		if (rc)
			goto out;
	}
	p->ops = table_take(&a.ops, &p->nops);
	p->types = table_take(&a.types, &p->ntypes);
out:
	agg_done(&a);
	free(r.buf);
	if (rc) {
		profile_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

static long long fd_read_at(void *ctx, unsigned long long off, void *buf, size_t n)
{
	for (;;) {
		ssize_t got = pread(*(int *)ctx, buf, n, (off_t)off);
		if (got >= 0 || errno != EINTR)
			return got;
	}
}

int profile_read_file(profile **out, const char *path)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return err_set(FERRY_EIO, _("%s: not a regular file"), path);
	}
	artifact_source src = { fd_read_at, &fd, (unsigned long long)st.st_size };
	int rc = profile_read(out, path, &src);
	close(fd);
	return rc;
}

const char *profile_form_name(int form)
{
	switch (form) {
	case PROFILE_KERNEL_DETAILS: return "kernel_details";
	case PROFILE_OP_STATISTIC: return "op_statistic";
	case PROFILE_STEP_TRACE: return "step_trace_time";
	case PROFILE_TRACE: return "trace";
	default: return "unknown";
	}
}

void profile_free(profile *p)
{
	if (!p)
		return;
	ops_free(p->ops, p->nops);
	ops_free(p->types, p->ntypes);
	for (size_t i = 0; i < p->nsteps; i++)
		free(p->steps[i].id);
	free(p->steps);
	for (size_t i = 0; i < p->nranks; i++)
		free(p->ranks[i].id);
	free(p->ranks);
	free(p->stopped);
	free(p);
}
