/* compare_loss — see compare_loss.h. */
#include "compare_loss.h"
#include "err.h"
#include "gbtext.h"
#include "intl.h"
#include "json.h"

#include <cjson/cJSON.h>

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* --- parsing --- */

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* A token [s, s+n) equal to word, ignoring case. */
static int token_is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && strncasecmp(s, word, n) == 0;
}

static int token_starts(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && strncasecmp(s, prefix, k) == 0;
}

static int token_ends(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);
	return n >= k && strncasecmp(s + n - k, suffix, k) == 0;
}

/* Chinese labels, as training scripts written for Chinese-speaking teams print them
 * ("第 9 步  损失: 0.52", "轮次: 1/3, 步数: 20/100, 训练损失: 0.52"), in UTF-8 (a log
 * written in GBK is converted line by line first, gbtext.h). */
#define ZH_LOSS "损失"
/* Words before 损失 that make it another loss than the training loss. */
static const char *const zh_not_training[] = { "验证", "测试", "评估", "校验", "评测", NULL };
/* Keys a step number follows ("步数: 20"), longest first where one starts another. */
static const char *const zh_step_keys[] = { "迭代次数", "迭代", "步数", "步骤", "批次", NULL };
/* Units a step number precedes, after 第 ("第 20 步", "第 20 次迭代"). */
static const char *const zh_step_units[] = { "次迭代", "步", "批", "个批次", "个step", "个iter", NULL };
static const char *const zh_epoch_keys[] = { "轮次", "轮数", NULL };
static const char *const zh_epoch_units[] = { "轮", "个epoch", "个Epoch", NULL };

static void skip_blanks(const char *line, size_t len, size_t *p)
{
	while (*p < len && (line[*p] == ' ' || line[*p] == '\t'))
		(*p)++;
}

/* 1 when s[0..len) holds word at i. */
static int word_at(const char *s, size_t len, size_t i, const char *word)
{
	size_t k = strlen(word);
	return i <= len && len - i >= k && memcmp(s + i, word, k) == 0;
}

/* The index in words of the one at s[i], or -1. */
static int words_at(const char *s, size_t len, size_t i, const char *const *words)
{
	for (int k = 0; words[k]; k++)
		if (word_at(s, len, i, words[k]))
			return k;
	return -1;
}

/* Skips blanks and the separators a label and its number have between them: ASCII
 * ':', '=' and quotes, the full-width colon, 为 ("损失为 0.52"). */
static void skip_label_seps(const char *s, size_t len, size_t *p)
{
	for (;;) {
		if (*p < len && strchr(" \t:=\"'", s[*p]) && s[*p])
			(*p)++;
		else if (word_at(s, len, *p, "：") || word_at(s, len, *p, "为"))
			*p += 3;
		else
			return;
	}
}

/* 1 when the Chinese text right before s[i] (back to an ASCII character) names a loss
 * other than the training loss: 验证损失, 测试集损失. */
static int zh_other_loss(const char *s, size_t i)
{
	size_t k = i;
	while (k > 0 && (unsigned char)s[k - 1] >= 0x80)
		k--;
	for (size_t j = k; j < i; j++)
		if (words_at(s, i, j, zh_not_training) >= 0)
			return 1;
	return 0;
}

/* Parses a decimal or scientific number, or nan/inf/infinity, at s (up to end).
 * Returns the characters consumed (0 when there is no number); *v gets the value. */
static size_t parse_number(double *v, const char *s, const char *end)
{
	const char *p = s;
	int neg = 0;
	if (p < end && (*p == '-' || *p == '+'))
		neg = *p++ == '-';
	size_t rest = (size_t)(end - p);
	if (rest >= 3 && strncasecmp(p, "nan", 3) == 0 && (rest == 3 || !is_ident(p[3]))) {
		*v = NAN;
		return (size_t)(p + 3 - s);
	}
	if (rest >= 3 && strncasecmp(p, "inf", 3) == 0) {
		size_t k = rest >= 8 && strncasecmp(p, "infinity", 8) == 0 ? 8 : 3;
		if (k < rest && is_ident(p[k]))
			return 0;
		*v = neg ? -INFINITY : INFINITY;
		return (size_t)(p + k - s);
	}
	char buf[64];
	size_t n = 0, digits = 0;
	if (neg)
		buf[n++] = '-';
	while (p < end && isdigit((unsigned char)*p) && n < 60) {
		buf[n++] = *p++;
		digits++;
	}
	if (p < end && *p == '.' && n < 60) {
		buf[n++] = *p++;
		while (p < end && isdigit((unsigned char)*p) && n < 60) {
			buf[n++] = *p++;
			digits++;
		}
	}
	if (!digits)
		return 0;
	if (p < end && (*p == 'e' || *p == 'E')) {
		const char *q = p + 1;
		char ebuf[8];
		size_t en = 0;
		if (q < end && (*q == '-' || *q == '+'))
			ebuf[en++] = *q++;
		size_t ed = 0;
		while (q < end && isdigit((unsigned char)*q) && en < 6) {
			ebuf[en++] = *q++;
			ed++;
		}
		if (ed && n + 1 + en < sizeof buf) {
			buf[n++] = 'e';
			memcpy(buf + n, ebuf, en);
			n += en;
			p = q;
		}
	}
	buf[n] = '\0';
	*v = strtod(buf, NULL);
	return (size_t)(p - s);
}

/* A stretch of a line: a table's cell, the key a loss follows. */
typedef struct cell {
	const char *s;
	size_t n;
	size_t gap; /* the blanks before it */
} cell;

/* The token preceding position i (skipping blanks), as [*ts, *ts + *tn). */
static void prev_token(const char **ts, size_t *tn, const char *line, size_t i)
{
	size_t k = i;
	while (k > 0 && (line[k - 1] == ' ' || line[k - 1] == '\t'))
		k--;
	size_t e = k;
	while (k > 0 && is_ident(line[k - 1]))
		k--;
	*ts = line + k;
	*tn = e - k;
}

/* A training-loss key: "loss", "lm loss", "train_loss", "lm_loss", "total_loss" …, but
 * not validation, evaluation or test losses. */
static int loss_key(const char *line, size_t i, size_t n)
{
	const char *t = line + i;
	if (!token_is(t, n, "loss") && !token_ends(t, n, "_loss"))
		return 0;
	static const char *const other[] = { "val", "eval", "test", "valid", NULL };
	for (size_t k = 0; other[k]; k++)
		if (token_starts(t, n, other[k]))
			return 0;
	if (n == 4) {
		const char *ps;
		size_t pn;
		prev_token(&ps, &pn, line, i);
		for (size_t k = 0; other[k]; k++)
			if (token_starts(ps, pn, other[k]))
				return 0;
	}
	return 1;
}

static int step_key(const char *t, size_t n)
{
	return token_is(t, n, "step") || token_is(t, n, "global_step") || token_is(t, n, "iteration") ||
	       token_is(t, n, "iter") || token_is(t, n, "train_step") ||
	       token_is(t, n, "current_steps"); /* LLaMA-Factory's trainer_log.jsonl */
}

/* Finds the first training loss on the line: 1 and *v (which may be NaN or infinite),
 * and in *key, when not NULL, the key it follows ("train_loss", "损失"). column, when not
 * NULL, names the key to look for instead of the training-loss keys. */
static int find_loss_key(double *v, cell *key, const char *line, size_t len, const char *column)
{
	const char *end = line + len;
	for (size_t i = 0; i < len; i++) {
		if (!column && word_at(line, len, i, ZH_LOSS)) {
			size_t p = i + strlen(ZH_LOSS);
			const char *ps;
			size_t pn;
			prev_token(&ps, &pn, line, i);
			int other = zh_other_loss(line, i) || (pn && (token_starts(ps, pn, "val") || token_starts(ps, pn, "eval") ||
			                                              token_starts(ps, pn, "test")));
			skip_label_seps(line, len, &p);
			if (!other && parse_number(v, line + p, end)) {
				if (key)
					*key = (cell){ .s = line + i, .n = strlen(ZH_LOSS), .gap = 0 };
				return 1;
			}
			i = p > i ? p - 1 : i;
			continue;
		}
		if (!is_ident(line[i]) || (i > 0 && is_ident(line[i - 1])))
			continue;
		size_t j = i;
		while (j < len && is_ident(line[j]))
			j++;
		if (column ? token_is(line + i, j - i, column) : loss_key(line, i, j - i)) {
			const char *p = line + j;
			while (p < end && (*p == ' ' || *p == '\t' || *p == ':' || *p == '=' || *p == '"' || *p == '\''))
				p++;
			if ((size_t)(end - p) >= 7 && strncmp(p, "tensor(", 7) == 0)
				p += 7;
			if (parse_number(v, p, end)) {
				if (key)
					*key = (cell){ .s = line + i, .n = j - i, .gap = 0 };
				return 1;
			}
		}
		i = j - 1;
	}
	return 0;
}

static int find_loss(double *v, const char *line, size_t len, const char *column)
{
	return find_loss_key(v, NULL, line, len, column);
}

/* Reads the integer after a key at line[p] (past the separators such keys use): 1 and *v;
 * *p ends past the digits. With whole, a decimal ("epoch": 0.25) is not one. */
static int key_integer(long long *v, const char *line, size_t len, size_t *p, int whole)
{
	while (*p < len && strchr(" \t:=\"'[#(", line[*p]))
		(*p)++;
	size_t d = 0;
	*v = 0;
	while (*p < len && isdigit((unsigned char)line[*p]) && d < 18) {
		*v = *v * 10 + (line[(*p)++] - '0');
		d++;
	}
	return d && (*p >= len || (!is_ident(line[*p]) && !(whole && line[*p] == '.')));
}

/* A counter with Chinese labels: a key then the number ("步数: 20/100", "轮次 2") or
 * 第, the number and a unit ("第 20 步", "第 2/5 轮"). 1 with *v and in *total the
 * count after a slash, or 0. */
static int find_zh_counter(long long *v, long long *total, const char *line, size_t len, const char *const *keys,
                           const char *const *units)
{
	for (size_t i = 0; i < len; i++) {
		if ((unsigned char)line[i] < 0x80)
			continue;
		int key = words_at(line, len, i, keys);
		if (key < 0 && !word_at(line, len, i, "第"))
			continue;
		size_t p = i + (key >= 0 ? strlen(keys[key]) : strlen("第"));
		skip_label_seps(line, len, &p);
		long long t = 0;
		if (!key_integer(v, line, len, &p, 1))
			continue;
		if (p < len && line[p] == '/') {
			p++;
			if (!key_integer(&t, line, len, &p, 1))
				continue;
		}
		skip_blanks(line, len, &p);
		if (key >= 0 || words_at(line, len, p, units) >= 0) {
			*total = t;
			return 1;
		}
	}
	return 0;
}

/* Finds the epoch number on the line ("Epoch [2/5]", "epoch 2", "'epoch': 2", "第 2 轮",
 * "轮次: 2/5"): 1 and *epoch. */
static int find_epoch(long long *epoch, const char *line, size_t len)
{
	for (size_t i = 0; i + 5 <= len; i++) {
		if ((i > 0 && is_ident(line[i - 1])) || strncasecmp(line + i, "epoch", 5) != 0 ||
		    (i + 5 < len && is_ident(line[i + 5])))
			continue;
		size_t p = i + 5;
		if (key_integer(epoch, line, len, &p, 1))
			return 1;
	}
	long long total;
	return find_zh_counter(epoch, &total, line, len, zh_epoch_keys, zh_epoch_units);
}

/* Finds the first step number on the line ("step 10", "Step [10/40]", "第 10 步",
 * "步数: 10/40"): 1 and *step, and in *total the count after a slash (40), or 0. */
static int find_step(long long *step, long long *total, const char *line, size_t len)
{
	*total = 0;
	for (size_t i = 0; i < len; i++) {
		if (!is_ident(line[i]) || (i > 0 && is_ident(line[i - 1])))
			continue;
		size_t j = i;
		while (j < len && is_ident(line[j]))
			j++;
		if (step_key(line + i, j - i)) {
			size_t p = j;
			long long v = 0;
			if (key_integer(&v, line, len, &p, 0)) {
				*step = v;
				if (p < len && line[p] == '/') {
					p++;
					long long t;
					if (key_integer(&t, line, len, &p, 1))
						*total = t;
				}
				return 1;
			}
		}
		i = j - 1;
	}
	return find_zh_counter(step, total, line, len, zh_step_keys, zh_step_units);
}

/* Progress counters that training frameworks print instead of a step number: the epoch
 * and the batch within it, or the iteration, each batch or iteration with its total. */
typedef struct counter_format {
	const char *marker; /* the capitalised word (or "| word") the counters follow */
	int per_epoch;      /* "[E][I/T]" (epoch, then batch of T) rather than "[I/T]" */
	int first_epoch;    /* the number this format gives the first epoch */
	char open;          /* what opens "I/T": '[', or '|' after the epoch's column */
	const char *unit;   /* the word after T ("batches"), or NULL: T ends at ']' or a blank */
} counter_format;

static const counter_format counter_formats[] = {
	{ "Epoch(train)", 1, 1, '[', NULL }, /* mmengine: "Epoch(train)  [2][ 50/100]", batches from 1 */
	{ "Iter(train)", 0, 0, '[', NULL },  /* mmengine, iteration-based: "Iter(train) [  50/80000]" */
	{ "Epoch", 1, 1, '[', NULL },        /* mmcv 1.x: "Epoch [2][50/100]" */
	{ "Iter", 0, 0, '[', NULL },         /* mmcv 1.x, iteration-based: "Iter [50/80000]" */
	{ "Epoch:", 1, 0, '[', NULL },       /* torchvision references, detr: "Epoch: [0]  [ 50/1563]" */
	{ "Train:", 1, 0, '[', NULL },       /* timm: "Train: 0 [  50/1251 ( 4%)]", batches from 0 */
	/* pytorch/examples word_language_model: "| epoch   1 |    10/   52 batches | lr 20.00 |" */
	{ "| epoch", 1, 1, '|', "batches" },
};

/* Reads up to nine digits at line[*p]: 1 and *v when there is at least one. */
static int read_count(long long *v, const char *line, size_t len, size_t *p)
{
	size_t d = 0;
	*v = 0;
	while (*p < len && isdigit((unsigned char)line[*p]) && d < 9) {
		*v = *v * 10 + (line[(*p)++] - '0');
		d++;
	}
	return d > 0 && (*p >= len || !isdigit((unsigned char)line[*p]));
}

/* The counters of format f right after its marker, from line[p]: 1 and *step. */
static int read_counters(long long *step, const counter_format *f, const char *line, size_t len, size_t p)
{
	long long epoch = 0, i = 0, total = 0;
	skip_blanks(line, len, &p);
	if (f->per_epoch) {
		int bracket = p < len && line[p] == '[';
		p += bracket;
		if (!read_count(&epoch, line, len, &p) || epoch < f->first_epoch)
			return 0;
		if (bracket && (p >= len || line[p++] != ']'))
			return 0;
		skip_blanks(line, len, &p);
	}
	if (p >= len || line[p++] != f->open)
		return 0;
	skip_blanks(line, len, &p);
	if (!read_count(&i, line, len, &p) || p >= len || line[p++] != '/')
		return 0;
	skip_blanks(line, len, &p);
	if (!read_count(&total, line, len, &p))
		return 0;
	if (f->unit) {
		size_t ul = strlen(f->unit);
		skip_blanks(line, len, &p);
		if (len - p < ul || memcmp(line + p, f->unit, ul) != 0 || (p + ul < len && is_ident(line[p + ul])))
			return 0;
	} else if (p >= len || (line[p] != ']' && line[p] != ' ')) {
		return 0;
	}
	*step = f->per_epoch ? (epoch - f->first_epoch) * total + i : i;
	return 1;
}

/* Finds a framework's progress counters on the line: 1 and *step. */
static int find_counter_step(long long *step, const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (!(isupper((unsigned char)line[i]) || line[i] == '|') || (i > 0 && is_ident(line[i - 1])))
			continue; /* every marker is a capitalised word or begins with '|' */
		for (size_t k = 0; k < sizeof counter_formats / sizeof *counter_formats; k++) {
			const counter_format *f = &counter_formats[k];
			size_t ml = strlen(f->marker);
			if (line[i] == f->marker[0] && len - i >= ml && memcmp(line + i, f->marker, ml) == 0 &&
			    read_counters(step, f, line, len, i + ml))
				return 1;
		}
	}
	return 0;
}

typedef struct raw_point {
	long long step;
	double loss;
	size_t ord;  /* order in the log */
	int has_step;
	int has_epoch;     /* the line names its epoch beside a step key */
	int epoch_alone;   /* the line names its epoch and no step (detr's log.txt) */
	long long alone;   /* that epoch */
	long long epoch;
	long long total;   /* the step's count per epoch ("Step [10/40]"), or 0 */
} raw_point;

typedef struct raw_list {
	raw_point *v;
	size_t n, cap, with_step;
} raw_list;

static void raw_add(raw_list *l, double loss, int has_step, long long step)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 256;
		l->v = xrealloc(l->v, l->cap * sizeof *l->v);
	}
	raw_point *r = &l->v[l->n];
	r->loss = loss;
	r->ord = l->n;
	r->has_step = has_step;
	r->step = has_step ? step : 0;
	r->has_epoch = r->epoch_alone = 0;
	r->epoch = r->total = r->alone = 0;
	l->with_step += has_step != 0;
	l->n++;
}

static int cmp_raw(const void *x, const void *y)
{
	const raw_point *a = x, *b = y;
	if (a->step != b->step)
		return a->step < b->step ? -1 : 1;
	return a->ord < b->ord ? -1 : a->ord > b->ord;
}

/* A line that reports evaluation, testing or a run's closing summary rather than a
 * training step: detr/torchvision "Test:" lines, Lightning's "Validation DataLoader"
 * bars, HF Trainer's final {'train_runtime': …, 'train_loss': …} summary. */
static int summary_or_eval_line(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && (line[i] == ' ' || line[i] == '\t'))
		i++;
	static const char *const starts[] = { "test:",      "test ",       "eval:",      "eval ",     "evaluation",
		                              "evaluating", "validation", "validating", "valid:",    "val:",
		                              "sanity checking", NULL };
	for (size_t k = 0; starts[k]; k++)
		if (len - i >= strlen(starts[k]) && strncasecmp(line + i, starts[k], strlen(starts[k])) == 0)
			return 1;
	/* "验证: …", "[测试] …", "【评估】…" */
	size_t z = i + (i < len && line[i] == '[') + 3 * word_at(line, len, i, "【");
	if (words_at(line, len, z, zh_not_training) >= 0)
		return 1;
	/* mmengine's validation and test loops, after its timestamp and logger name */
	static const char *const loops[] = { "Epoch(val)", "Epoch(test)", "Iter(val)", "Iter(test)", NULL };
	for (size_t k = 0; loops[k]; k++)
		if (memmem(line, len, loops[k], strlen(loops[k])))
			return 1;
	static const char *const keys[] = { "train_runtime", "eval_runtime", "test_runtime", NULL };
	for (size_t k = 0; keys[k]; k++) {
		size_t kl = strlen(keys[k]);
		for (size_t j = 0; j + kl <= len; j++)
			if (memcmp(line + j, keys[k], kl) == 0 && (j == 0 || !is_ident(line[j - 1])) &&
			    (j + kl == len || !is_ident(line[j + kl])))
				return 1;
	}
	return 0;
}

/* A tqdm progress bar ("Epoch 0:  45%|████▌     | 90/200 [00:01<00:01, loss=0.123]"):
 * 1 with the bar's counter and total (0 when it shows "?"). */
static int find_bar_counter(long long *count, long long *total, const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (line[i] != '|')
			continue;
		size_t p = i + 1;
		while (p < len && line[p] == ' ')
			p++;
		long long n = 0, t = 0;
		size_t d = 0, dt = 0;
		while (p < len && isdigit((unsigned char)line[p]) && d < 15) {
			n = n * 10 + (line[p++] - '0');
			d++;
		}
		if (!d || p >= len || line[p] != '/')
			continue;
		p++;
		if (p < len && line[p] == '?')
			p++, dt = 1;
		while (p < len && isdigit((unsigned char)line[p]) && dt < 15) {
			t = t * 10 + (line[p++] - '0');
			dt++;
		}
		while (p < len && line[p] == ' ')
			p++;
		if (dt && p < len && line[p] == '[') {
			*count = n;
			*total = t;
			return 1;
		}
	}
	return 0;
}

/* The global step of a progress-bar line: the counter plus the totals of the bars that
 * came before it (a bar restarts at 0 every epoch). */
typedef struct bar_state {
	long long prev, prev_total, offset;
	int seen;
} bar_state;

static long long bar_step(bar_state *b, long long count, long long total)
{
	if (b->seen && count < b->prev && b->offset < (long long)4e18)
		b->offset += b->prev_total > b->prev ? b->prev_total : b->prev; /* each below 1e15 */
	b->seen = 1;
	b->prev = count;
	b->prev_total = total;
	return b->offset + count;
}

/* --- CSV exports: Lightning metrics.csv, TensorBoard scalars, W&B --- */

typedef struct csv_row {
	char **f;
	size_t n;
} csv_row;

static void csv_row_done(csv_row *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->f[i]);
	free(r->f);
	memset(r, 0, sizeof *r);
}

/* Splits one CSV line [s, s+len) into fields (double quotes with "" escapes). */
static void csv_split(csv_row *out, const char *s, size_t len)
{
	memset(out, 0, sizeof *out);
	size_t i = 0, cap = 0;
	for (;;) {
		sbuf f;
		sbuf_init(&f);
		if (i < len && s[i] == '"') {
			i++;
			while (i < len) {
				if (s[i] == '"' && i + 1 < len && s[i + 1] == '"') {
					sbuf_addc(&f, '"');
					i += 2;
				} else if (s[i] == '"') {
					i++;
					break;
				} else {
					sbuf_addc(&f, s[i++]);
				}
			}
			while (i < len && s[i] != ',')
				i++;
		} else {
			/* unquoted: without the blanks that pad columns (YOLOv5 pads to 20) */
			while (i < len && (s[i] == ' ' || s[i] == '\t'))
				i++;
			size_t st = i;
			while (i < len && s[i] != ',')
				i++;
			size_t e = i;
			while (e > st && (s[e - 1] == ' ' || s[e - 1] == '\t'))
				e--;
			sbuf_add(&f, s + st, e - st);
		}
		if (out->n == cap) {
			cap = cap ? cap * 2 : 8;
			out->f = xrealloc(out->f, cap * sizeof *out->f);
		}
		out->f[out->n++] = f.buf ? sbuf_detach(&f) : xstrdup("");
		if (i >= len)
			break;
		i++; /* the comma */
	}
}

/* A number cell, with the NaN/inf spellings pandas and W&B write; 1 and *v. */
static int csv_number(double *v, const char *s)
{
	while (*s == ' ')
		s++;
	size_t len = strlen(s);
	while (len && s[len - 1] == ' ')
		len--;
	return len && parse_number(v, s, s + len) == len;
}

/* The column name as the user sees it: W&B writes "run-name - train/loss". */
static const char *column_base(const char *name)
{
	const char *s = strstr(name, " - ");
	const char *last = NULL;
	while (s) {
		last = s;
		s = strstr(s + 3, " - ");
	}
	return last ? last + 3 : name;
}

/* A training-loss column: "loss", "train_loss", "train/loss", "train_loss_step", but not
 * validation/test columns, W&B's __MIN/__MAX envelopes or per-epoch aggregates. */
static int loss_column(const char *name, int *epoch_aggregate)
{
	const char *b = column_base(name);
	size_t n = strlen(b);
	*epoch_aggregate = 0;
	if (strstr(b, "__MIN") || strstr(b, "__MAX") || strstr(b, "__min") || strstr(b, "__max"))
		return 0;
	static const char *const other[] = { "val", "eval", "test", "valid", NULL };
	const char *seg = b;
	for (const char *p = b; *p; p++)
		if (*p == '/' || *p == '.')
			seg = p + 1;
	for (size_t k = 0; other[k]; k++) {
		size_t kl = strlen(other[k]);
		if (strncasecmp(b, other[k], kl) == 0 || strncasecmp(seg, other[k], kl) == 0)
			return 0;
	}
	char low[128];
	if (n >= sizeof low)
		return 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)tolower((unsigned char)b[i]);
	if (util_ends_with(low, "_epoch")) {
		*epoch_aggregate = 1;
		low[n - 6] = '\0';
	} else if (util_ends_with(low, "_step")) {
		low[n - 5] = '\0';
	}
	size_t m = strlen(low);
	if (m < 4 || strcmp(low + m - 4, "loss") != 0)
		return 0;
	return m == 4 || strchr("_/. ", low[m - 5]) != NULL;
}

static int step_column(const char *name)
{
	static const char *const names[] = { "step", "_step", "global_step", "trainer/global_step", "iteration", "iter",
		                             NULL };
	const char *b = column_base(name);
	for (size_t k = 0; names[k]; k++)
		if (strcasecmp(b, names[k]) == 0)
			return 1;
	return 0;
}

/* 1 when the first line is a CSV header naming a loss (or TensorBoard's Value) column. */
static int csv_header(const char *data, size_t len)
{
	size_t e = 0;
	while (e < len && data[e] != '\n' && data[e] != '\r')
		e++;
	if (!memchr(data, ',', e))
		return 0;
	csv_row h;
	csv_split(&h, data, e);
	int named = 0, numeric = 0;
	for (size_t i = 0; i < h.n; i++) {
		double v;
		int agg;
		numeric |= csv_number(&v, h.f[i]);
		named |= loss_column(h.f[i], &agg) || strcmp(h.f[i], "Value") == 0;
	}
	csv_row_done(&h);
	return named && !numeric;
}

/* The names of a --column choice: "loss", or "a+b+c" for the sum of several (YOLO logs its
 * training loss as box, objectness and class parts). */
typedef struct column_parts {
	char **v;
	size_t n;
} column_parts;

static void split_column(column_parts *out, const char *column)
{
	memset(out, 0, sizeof *out);
	if (!column)
		return;
	size_t cap = 1;
	for (const char *p = column; *p; p++)
		cap += *p == '+';
	out->v = xcalloc(cap, sizeof *out->v);
	for (const char *p = column;;) {
		const char *e = strchr(p, '+');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		while (n && *p == ' ') {
			p++;
			n--;
		}
		while (n && p[n - 1] == ' ')
			n--;
		if (n)
			out->v[out->n++] = xstrndup(p, n);
		if (!e)
			break;
		p = e + 1;
	}
}

/* A --column part names a loss: "loss" (or Chinese 损失) in its name as the user reads it,
 * or TensorBoard's Value column. A step, epoch, learning-rate or memory column would be
 * compared as a curve and pass, standing for the loss comparison it replaced. */
static int names_a_loss(const char *part)
{
	const char *b = column_base(part);
	if (strcmp(b, "Value") == 0 || strstr(b, "\xe6\x8d\x9f\xe5\xa4\xb1")) /* 损失 */
		return 1;
	for (const char *p = b; *p; p++)
		if (strncasecmp(p, "loss", 4) == 0)
			return 1;
	return 0;
}

static void column_parts_done(column_parts *c)
{
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i]);
	free(c->v);
	memset(c, 0, sizeof *c);
}

static int csv_parse(raw_list *raw, loss_series *out, const char *name, const char *data, size_t len,
                     const column_parts *parts)
{
	size_t e = 0;
	while (e < len && data[e] != '\n' && data[e] != '\r')
		e++;
	csv_row h;
	csv_split(&h, data, e);
	long long lcol = -1, scol = -1, ecol = -1;
	sbuf names;
	sbuf_init(&names);
	int rc = 0;
	size_t nloss = 0, value_col = (size_t)-1;
	size_t *cols = xcalloc(parts->n ? parts->n : 1, sizeof *cols);
	for (size_t i = 0; i < h.n; i++) {
		int agg;
		if (scol < 0 && step_column(h.f[i]))
			scol = (long long)i;
		if (ecol < 0 && strcasecmp(column_base(h.f[i]), "epoch") == 0)
			ecol = (long long)i;
		if (strcmp(h.f[i], "Value") == 0)
			value_col = i;
		if (parts->n) {
			for (size_t k = 0; k < parts->n; k++)
				if (!cols[k] && (strcmp(h.f[i], parts->v[k]) == 0 || strcmp(column_base(h.f[i]), parts->v[k]) == 0))
					cols[k] = i + 1;
			continue;
		}
		if (!loss_column(h.f[i], &agg))
			continue;
		/* a per-epoch aggregate only counts when its per-step twin is absent */
		if (agg) {
			int twin = 0;
			size_t bl = strlen(h.f[i]) - 6;
			for (size_t j = 0; j < h.n; j++)
				twin |= strncmp(h.f[j], h.f[i], bl) == 0 && strcmp(h.f[j] + bl, "_step") == 0;
			if (twin)
				continue;
		}
		sbuf_addf(&names, "%s%s", nloss ? ", " : "", h.f[i]);
		if (nloss++ == 0)
			lcol = (long long)i;
	}
	if (!parts->n && !nloss && value_col != (size_t)-1)
		lcol = (long long)value_col; /* TensorBoard: Wall time,Step,Value */
	for (size_t k = 0; k < parts->n; k++)
		if (!cols[k]) {
			rc = err_set(FERRY_EUSAGE, _("%s: no column \"%s\" in the CSV header"), name, parts->v[k]);
			goto out;
		}
	if (nloss > 1) {
		rc = err_set(FERRY_EUSAGE, _("%s: several loss columns (%s); choose one with --column NAME, or their sum with --column A+B"),
		             name, names.buf);
		goto out;
	}
	size_t ncols = parts->n;
	if (!parts->n) {
		if (lcol < 0)
			lcol = 0; /* no loss column at all: csv_header saw none, so this is not reached */
		ncols = 1;
		cols[0] = (size_t)lcol + 1;
	}
	int by_epoch = scol < 0 && ecol >= 0;
	if (by_epoch)
		scol = ecol; /* a file of one row per epoch (YOLOv5's results.csv, timm's summary.csv) */
	sbuf label;
	sbuf_init(&label);
	for (size_t k = 0; k < ncols; k++)
		sbuf_addf(&label, "%s%s", k ? " + " : "", h.f[cols[k] - 1]);
	out->column = sbuf_detach(&label);
	size_t start = e;
	while (start < len) {
		while (start < len && (data[start] == '\n' || data[start] == '\r'))
			start++;
		size_t end = start;
		while (end < len && data[end] != '\n' && data[end] != '\r')
			end++;
		if (end == start)
			break;
		csv_row r;
		csv_split(&r, data + start, end - start);
		start = end;
		double v = 0, s = 0;
		int blank = 0;
		for (size_t k = 0; k < ncols && !blank; k++) {
			size_t c = cols[k] - 1;
			double one;
			if (c >= r.n || !*r.f[c]) {
				blank = 1; /* another metric's row (Lightning writes one row per log call) */
			} else if (!csv_number(&one, r.f[c])) {
				rc = err_set(FERRY_ECORRUPT, _("%s: column \"%s\": \"%.40s\" is not a number"), name, h.f[c], r.f[c]);
				csv_row_done(&r);
				goto out;
			} else {
				v += one;
			}
		}
		if (blank) {
			csv_row_done(&r);
			continue;
		}
		int has_step = scol >= 0 && (size_t)scol < r.n && csv_number(&s, r.f[scol]) && isfinite(s) &&
		               s >= 0 && s < 9e15 && (!by_epoch || s == floor(s)); /* not HF's epoch 0.25 */
		raw_add(raw, v, has_step, has_step ? (long long)s : 0);
		if (!isfinite(v))
			out->nonfinite++;
		csv_row_done(&r);
	}
out:
	csv_row_done(&h);
	sbuf_done(&names);
	free(cols);
	return rc;
}

/* find_loss for the keys of a --column (parts; none: the training-loss keys): their sum,
 * when the line holds every one of them. */
static int find_loss_sum(double *v, const char *line, size_t len, const column_parts *parts)
{
	if (parts->n <= 1)
		return find_loss(v, line, len, parts->n ? parts->v[0] : NULL);
	*v = 0;
	for (size_t k = 0; k < parts->n; k++) {
		double one;
		if (!find_loss(&one, line, len, parts->v[k]))
			return 0;
		*v += one;
	}
	return 1;
}

/* The next line of [data, data + len) from *pos, split at \n and at \r (progress bars
 * redraw themselves with \r), empty ones skipped: 1 with [*line, *line + *n), 0 at the end. */
static int next_line(const char **line, size_t *n, const char *data, size_t len, size_t *pos)
{
	while (*pos < len && (data[*pos] == '\n' || data[*pos] == '\r'))
		(*pos)++;
	if (*pos >= len)
		return 0;
	size_t start = *pos;
	while (*pos < len && data[*pos] != '\n' && data[*pos] != '\r')
		(*pos)++;
	*line = data + start;
	*n = *pos - start;
	return 1;
}

/* Text logs: every line that holds a training loss is one point. */
/* Adds the key a loss was read from to out->key ("train_loss"; "loss, lm loss" when lines
 * differ), up to four. */
static void note_key(loss_series *out, const cell *key)
{
	size_t have = 0;
	for (const char *k = out->key; k; k = strstr(k, ", ")) {
		k += *k == ',' ? 2 : 0;
		size_t kn = strcspn(k, ",");
		if (kn == key->n && memcmp(k, key->s, kn) == 0)
			return;
		have++;
	}
	if (have >= 4)
		return;
	char *with = out->key ? xasprintf("%s, %.*s", out->key, (int)key->n, key->s) : xstrndup(key->s, key->n);
	free(out->key);
	out->key = with;
}

static void text_parse(raw_list *raw, loss_series *out, const char *data, size_t len, const column_parts *parts)
{
	bar_state bar = { 0, 0, 0, 0 };
	gbtext *gb = gbtext_new();
	char *room = NULL; /* a line written in GB18030, as UTF-8 */
	size_t roomcap = 0, pos = 0, n;
	const char *line;
	while (next_line(&line, &n, data, len, &pos)) {
		if (GBTEXT_ROOM(n) > roomcap) {
			roomcap = GBTEXT_ROOM(n);
			room = xrealloc(room, roomcap);
		}
		size_t utf8 = gbtext_line(gb, room, line, n, 0);
		if (utf8)
			line = room, n = utf8;
		if (summary_or_eval_line(line, n)) {
			double v;
			out->not_training += find_loss_sum(&v, line, n, parts);
			continue;
		}
		long long count = 0, total = 0, step = 0;
		int bar_line = find_bar_counter(&count, &total, line, n);
		if (bar_line)
			step = bar_step(&bar, count, total);
		double v;
		cell key = { NULL, 0, 0 };
		if (parts->n ? !find_loss_sum(&v, line, n, parts) : !find_loss_key(&v, &key, line, n, NULL))
			continue;
		if (key.n)
			note_key(out, &key);
		long long per_epoch = 0, epoch = 0;
		int keyed = find_step(&step, &per_epoch, line, n);
		int has_step = keyed || find_counter_step(&step, line, n) || bar_line;
		raw_add(raw, v, has_step, step);
		if (!has_step && find_epoch(&epoch, line, n)) {
			raw->v[raw->n - 1].epoch_alone = 1;
			raw->v[raw->n - 1].alone = epoch;
		}
		if (keyed && find_epoch(&epoch, line, n)) {
			raw->v[raw->n - 1].has_epoch = 1;
			raw->v[raw->n - 1].epoch = epoch;
			raw->v[raw->n - 1].total = per_epoch;
		}
		if (!isfinite(v))
			out->nonfinite++;
	}
	free(room);
	gbtext_free(gb);
}

/* --- console loss tables: YOLOv5's, ultralytics YOLOv8's, fastai's, transformers' --- */

/* The YOLO trainers print a header row naming the loss columns ("Epoch GPU_mem box_loss
 * obj_loss cls_loss Instances Size") and, below it, the progress bar's description: a
 * row whose cells line up with the header ("0/29 3.42G 0.9972 0.6974 1.608 214 640: 100%|
 * …| 8/8 […]"), each loss the running mean of the epoch's batches so far. On a terminal
 * the row is redrawn with \r after every batch; in a non-interactive console it is
 * written once per epoch. The validation table ("Class Images Instances P R mAP50
 * mAP50-95", "all 128 929 …") between the epochs is another table: its header closes
 * the loss table, and its rows, whose first cell is no epoch, are never read.
 *
 * Other trainers print plain tables, a row per epoch or evaluation and no bar: fastai's
 * console ("epoch  train_loss  valid_loss  time", epochs counted from 0 as plain
 * integers), transformers' notebook table copied into a text file (cells separated by
 * tabs, "Training Loss", "No log" before the first logged loss) and the model card it
 * writes (a Markdown table of "| Training Loss | Epoch | Step | Validation Loss |"). A
 * header's names may hold single blanks; its cells are then set apart by tabs, pipes or
 * two blanks or more, and its rows are split the same way. */

#define TABLE_MAX_CELLS 32

/* How a table's cells are set apart: blanks (a name is one word), two blanks or more in
 * the header (names of several words; the rows' numbers are still split at blanks), tabs,
 * or the pipes of a Markdown table. */
typedef enum { SPLIT_BLANKS, SPLIT_WIDE, SPLIT_TABS, SPLIT_PIPES } split_mode;

/* Splits [line, line + len) into cells at blanks: the count, or max + 1 when there are more. */
static size_t split_cells(cell *c, size_t max, const char *line, size_t len)
{
	size_t n = 0, i = 0;
	while (i < len) {
		size_t gap = i;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i == len)
			break;
		if (n == max)
			return max + 1;
		c[n].s = line + i;
		c[n].gap = i - gap;
		while (i < len && line[i] != ' ' && line[i] != '\t')
			i++;
		c[n].n = (size_t)(line + i - c[n].s);
		n++;
	}
	return n;
}

/* [s, s + n) without the blanks around it: the cell. */
static cell trimmed_cell(const char *s, size_t n, size_t gap)
{
	while (n && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	return (cell){ .s = s, .n = n, .gap = gap };
}

/* Splits [line, line + len) into cells at the separator of mode (blanks for SPLIT_BLANKS,
 * a run of two blanks or more or a tab for SPLIT_WIDE, a tab, a pipe), each cell trimmed;
 * an empty cell before the first separator or after the last (a Markdown row's outer
 * pipes, a trailing tab) is none. The count, or max + 1 when there are more. */
static size_t split_cells_by(cell *c, size_t max, const char *line, size_t len, split_mode mode)
{
	if (mode == SPLIT_BLANKS)
		return split_cells(c, max, line, len);
	size_t n = 0, from = 0, i = 0;
	for (;;) {
		size_t sep = 0; /* the separator's length at i, 0 when none */
		if (i < len) {
			if (mode == SPLIT_TABS)
				sep = line[i] == '\t';
			else if (mode == SPLIT_PIPES)
				sep = line[i] == '|';
			else if (line[i] == '\t' || (line[i] == ' ' && i + 1 < len && line[i + 1] == ' '))
				while (i + sep < len && (line[i + sep] == ' ' || line[i + sep] == '\t'))
					sep++;
		}
		if (i == len || sep) {
			cell one = trimmed_cell(line + from, i - from, 2);
			int edge = from == 0 || i == len; /* before the first separator, after the last */
			if (one.n || !edge) {
				if (n == max)
					return max + 1;
				c[n++] = one;
			}
			if (i == len)
				return n;
			i += sep;
			from = i;
			continue;
		}
		i++;
	}
}

/* The mode a header line asks for: pipes for a Markdown row, tabs when it holds one, two
 * blanks or more when some names are set apart by one blank and others by more (the
 * single blanks are inside names), else blanks. */
static split_mode header_mode(const char *line, size_t len)
{
	size_t i = 0;
	while (i < len && line[i] == ' ')
		i++;
	if (i < len && line[i] == '|')
		return SPLIT_PIPES;
	if (memchr(line, '\t', len))
		return SPLIT_TABS;
	int single = 0, wide = 0;
	while (i < len) {
		size_t run = 0;
		while (i < len && line[i] == ' ')
			i++, run++;
		if (i == len)
			break;
		single |= run == 1;
		wide |= run >= 2;
		while (i < len && line[i] != ' ')
			i++;
	}
	return single && wide ? SPLIT_WIDE : SPLIT_BLANKS;
}

/* Where a progress bar follows the description: ": 45%" then tqdm's '|' or the blank of
 * ultralytics' own bar. The colon's index, or len when the line has no bar. */
static size_t bar_suffix(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (line[i] != ':')
			continue;
		size_t p = i + 1, d = 0;
		while (p < len && line[p] == ' ')
			p++;
		while (p < len && isdigit((unsigned char)line[p]) && d < 3)
			p++, d++;
		if (d && p < len && line[p] == '%' && (p + 1 == len || line[p + 1] == '|' || line[p + 1] == ' '))
			return i;
	}
	return len;
}

/* The bar's counter "n/total" after its percentage (from the colon at `from`): 1 with *n
 * and *total (0 when tqdm shows "?"), or 0 when there is none. */
static int bar_count(long long *n, long long *total, const char *line, size_t len, size_t from)
{
	const char *pct = memchr(line + from, '%', len - from);
	for (size_t i = pct ? (size_t)(pct - line) + 1 : len; i < len; i++) {
		if (!isdigit((unsigned char)line[i]) || (line[i - 1] != ' ' && line[i - 1] != '|'))
			continue;
		size_t p = i;
		if (!read_count(n, line, len, &p) || p >= len || line[p++] != '/')
			continue;
		*total = 0;
		if (p < len && line[p] == '?')
			p++;
		else if (!read_count(total, line, len, &p))
			continue;
		if (p == len || line[p] == ' ' || line[p] == '[')
			return 1;
	}
	return 0;
}

/* A cell that names a column: a letter first, then letters, digits and _ / . - ( ),
 * words set apart by single blanks ("Training Loss"). */
static int name_cell(const cell *c)
{
	if (!c->n || !isalpha((unsigned char)c->s[0]))
		return 0;
	for (size_t i = 1; i < c->n; i++) {
		if (c->s[i] == ' ' && c->s[i - 1] != ' ' && i + 1 < c->n)
			continue;
		if (!isalnum((unsigned char)c->s[i]) && !strchr("_/.-()", c->s[i]))
			return 0;
	}
	return 1;
}

static int cell_is(const cell *c, const char *word)
{
	return token_is(c->s, c->n, word);
}

/* A number filling the whole cell (nan and inf too): 1 and *v. */
static int number_cell(double *v, const cell *c)
{
	return parse_number(v, c->s, c->s + c->n) == c->n;
}

/* The epoch or step cell of a row: 1 and *v. A YOLO trainer's epoch is "3/29", with the
 * count (YOLOv5 counts epochs from 0, YOLOv8 from 1): a validation row's first cell, a
 * class name, may well be a digit. A step may stand alone, and so may the epoch of a
 * table whose rows give it so (plain_epochs: fastai's, transformers'). */
static int step_cell(long long *v, const cell *c, int epoch, int plain_epochs)
{
	size_t p = 0;
	if (!c->n || !read_count(v, c->s, c->n, &p))
		return 0;
	if (p == c->n)
		return !epoch || plain_epochs;
	long long total;
	return c->s[p++] == '/' && read_count(&total, c->s, c->n, &p) && p == c->n && *v <= total;
}

typedef struct loss_table {
	char *text;                      /* the header line, copied */
	cell head[TABLE_MAX_CELLS];      /* its cells, into text */
	size_t ncells;
	size_t step;                     /* the epoch (or step) column */
	int epochs;                      /* 1: the step column counts epochs */
	split_mode mode;                 /* how its cells are set apart */
	int plain_epochs;                /* epochs as plain integers: -1 until the first row says */
	int bars;                        /* a row had a progress bar */
	size_t *cols;                    /* the loss columns read (their sum), once confirmed */
	size_t ncols;
	int confirmed;                   /* a row has lined up with the header */
	int open;                        /* rows are read (no other table's header since) */
	int have;                        /* a row of the current epoch waits for its last redraw */
	long long pending_step;
	double pending;
	int pending_done;                /* its bar reached its total (or it has no bar) */
} loss_table;

/* 1 when the cells are a loss table's header: three names or more, an epoch or step
 * column, a loss column; *step and *epochs get the step column (a step column where there
 * are both: transformers' model card gives fractional epochs beside its steps). */
static int table_header(size_t *step, int *epochs, const cell *c, size_t n)
{
	if (n < 3 || n > TABLE_MAX_CELLS)
		return 0;
	int loss = 0, found = 0, epoch_at = -1;
	for (size_t i = 0; i < n; i++) {
		if (!name_cell(&c[i]))
			return 0;
		char name[64];
		int agg;
		if (c[i].n >= sizeof name)
			continue;
		memcpy(name, c[i].s, c[i].n);
		name[c[i].n] = '\0';
		loss |= loss_column(name, &agg);
		if (epoch_at < 0 && cell_is(&c[i], "epoch"))
			epoch_at = (int)i;
		if (!found && step_column(name)) {
			*step = i;
			*epochs = 0;
			found = 1;
		}
	}
	if (!found && epoch_at >= 0) {
		*step = (size_t)epoch_at;
		*epochs = 1;
		found = 1;
	}
	return loss && found;
}

/* Another table's header (val.py's "Class Images Instances P R mAP50 mAP50-95"): three
 * names or more set apart by the padding of a printed table (two blanks or more between
 * most of them). */
static int other_header(const cell *c, size_t n)
{
	if (n < 3 || n > TABLE_MAX_CELLS)
		return 0;
	size_t wide = 0;
	for (size_t i = 0; i < n; i++) {
		if (!name_cell(&c[i]))
			return 0;
		wide += i && c[i].gap >= 2;
	}
	return wide * 2 >= n - 1;
}

/* Whether the line (no progress bar on it) is a loss table's header: 1 with its cells
 * (c, *nc), the mode they are set apart by, and its step column (table_header). Names set
 * apart by wide gaps are tried first where the line has some (header_mode), then names of
 * one word each. */
static int header_cells(cell *c, size_t *nc, split_mode *mode, size_t *step, int *epochs, const char *line, size_t n)
{
	*mode = header_mode(line, n);
	*nc = split_cells_by(c, TABLE_MAX_CELLS, line, n, *mode);
	if (*nc <= TABLE_MAX_CELLS && table_header(step, epochs, c, *nc))
		return 1;
	if (*mode != SPLIT_WIDE)
		return 0;
	*mode = SPLIT_BLANKS;
	*nc = split_cells(c, TABLE_MAX_CELLS, line, n);
	return *nc <= TABLE_MAX_CELLS && table_header(step, epochs, c, *nc);
}

static int same_header(const loss_table *t, const cell *c, size_t n)
{
	if (n != t->ncells)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (c[i].n != t->head[i].n || memcmp(c[i].s, t->head[i].s, c[i].n) != 0)
			return 0;
	return 1;
}

/* A header cell named by a --column part: the same name, or results.csv's name for it
 * ("train/box_loss" for the console's box_loss). */
static int names_cell(const char *part, const cell *c)
{
	if (strlen(part) == c->n && memcmp(part, c->s, c->n) == 0)
		return 1;
	return util_starts_with(part, "train/") && strlen(part + 6) == c->n && memcmp(part + 6, c->s, c->n) == 0;
}

/* The header's cells joined by ", ", for the messages. Caller frees. */
static char *header_names(const loss_table *t, int losses_only)
{
	sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < t->ncells; i++) {
		char name[64];
		int agg;
		snprintf(name, sizeof name, "%.*s", (int)t->head[i].n, t->head[i].s);
		if (!losses_only || loss_column(name, &agg))
			sbuf_addf(&b, "%s%s", b.len ? ", " : "", name);
	}
	return b.buf ? sbuf_detach(&b) : xstrdup("");
}

/* The loss columns to read, once a row has lined up with the header: the --column parts,
 * else the one loss column (several are a usage error, as in a CSV export). */
static int table_columns(loss_table *t, loss_series *out, const char *name, const column_parts *parts)
{
	t->cols = xcalloc(t->ncells, sizeof *t->cols);
	t->ncols = 0;
	sbuf label;
	sbuf_init(&label);
	int rc = 0;
	if (parts->n) {
		for (size_t k = 0; k < parts->n && !rc; k++) {
			size_t i = 0;
			while (i < t->ncells && !names_cell(parts->v[k], &t->head[i]))
				i++;
			if (i == t->ncells) {
				char *all = header_names(t, 0);
				rc = err_set(FERRY_EUSAGE, _("%s: no column \"%s\" in the loss table's header (%s)"), name, parts->v[k], all);
				free(all);
				break;
			}
			t->cols[t->ncols++] = i;
		}
	} else {
		for (size_t i = 0; i < t->ncells; i++) {
			char cname[64];
			int agg;
			snprintf(cname, sizeof cname, "%.*s", (int)t->head[i].n, t->head[i].s);
			if (loss_column(cname, &agg))
				t->cols[t->ncols++] = i;
		}
		if (t->ncols > 1) {
			char *losses = header_names(t, 1);
			rc = err_set(FERRY_EUSAGE, _("%s: several loss columns (%s); choose one with --column NAME, or their sum with --column A+B"),
			             name, losses);
			free(losses);
		}
	}
	for (size_t k = 0; k < t->ncols && !rc; k++)
		sbuf_addf(&label, "%s%.*s", k ? " + " : "", (int)t->head[t->cols[k]].n, t->head[t->cols[k]].s);
	if (!rc)
		out->column = label.buf ? sbuf_detach(&label) : xstrdup("");
	sbuf_done(&label);
	return rc;
}

/* The epoch (or step) waiting for its last redraw becomes a point when its bar reached
 * its total; an epoch the run was killed in is left out (its mean covers some batches). */
static void table_flush(loss_table *t, raw_list *raw, loss_series *out)
{
	if (!t->have)
		return;
	t->have = 0;
	if (!t->pending_done) {
		out->partial++;
		return;
	}
	raw_add(raw, t->pending, 1, t->pending_step);
	if (!isfinite(t->pending))
		out->nonfinite++;
}

/* One line of the log (escape sequences removed) against the table. */
static int table_line(loss_table *t, raw_list *raw, loss_series *out, const char *name, const char *line, size_t n,
                      const column_parts *parts)
{
	size_t bar = bar_suffix(line, n);
	cell c[TABLE_MAX_CELLS];
	size_t nc, step = 0;
	int epochs = 0;
	split_mode mode;
	if (bar == n && header_cells(c, &nc, &mode, &step, &epochs, line, n)) {
		table_flush(t, raw, out);
		if (!same_header(t, c, nc)) {
			if (t->confirmed)
				t->open = 0; /* another loss table: not the one being read */
			else {
				free(t->text);
				t->text = xstrndup(line, n);
				t->mode = mode;
				t->ncells = split_cells_by(t->head, TABLE_MAX_CELLS, t->text, n, mode);
				t->step = step;
				t->epochs = epochs;
				t->plain_epochs = -1;
				t->open = 1;
			}
			return 0;
		}
		t->open = 1;
		return 0;
	}
	if (!t->open)
		return 0;
	/* a row: split as its header is, but numbers at blanks where the header's names hold them */
	nc = split_cells_by(c, TABLE_MAX_CELLS, line, bar, t->mode == SPLIT_WIDE ? SPLIT_BLANKS : t->mode);
	if (nc > TABLE_MAX_CELLS)
		return 0;
	long long s;
	if (nc != t->ncells || !step_cell(&s, &c[t->step], t->epochs, t->plain_epochs != 0)) {
		if (other_header(c, nc)) {
			table_flush(t, raw, out);
			t->open = 0;
		}
		return 0;
	}
	if (!t->confirmed) {
		/* a row: a number under every loss column of the header */
		for (size_t i = 0; i < nc; i++) {
			char cname[64];
			int agg;
			double one;
			snprintf(cname, sizeof cname, "%.*s", (int)t->head[i].n, t->head[i].s);
			if (loss_column(cname, &agg) && !number_cell(&one, &c[i]))
				return 0;
		}
		int rc = table_columns(t, out, name, parts);
		if (rc)
			return rc;
		t->confirmed = 1;
		/* the first row says how the epochs are written: later rows must agree */
		t->plain_epochs = memchr(c[t->step].s, '/', c[t->step].n) == NULL;
	}
	double v = 0;
	for (size_t k = 0; k < t->ncols; k++) {
		double one;
		if (!number_cell(&one, &c[t->cols[k]]))
			return 0;
		v += one;
	}
	if (t->have && t->pending_step != s)
		table_flush(t, raw, out);
	long long count = 0, total = 0;
	t->have = 1;
	t->bars |= bar < n;
	t->pending_step = s;
	t->pending = v;
	t->pending_done = bar == n || (bar_count(&count, &total, line, n, bar) && (!total || count >= total));
	return 0;
}

/* [s, s + n) without terminal escape sequences (ultralytics' bar clears the line with
 * "\033[K" before each redraw) into dst: its length. */
static size_t strip_escapes(char *dst, const char *s, size_t n)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] != '\033') {
			dst[m++] = s[i];
			continue;
		}
		if (i + 1 < n && s[i + 1] == '[') { /* CSI: parameters, then a final byte @ to ~ */
			i += 2;
			while (i < n && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
				i++;
		} else {
			i++; /* a two-byte escape */
		}
	}
	return m;
}

/* Reads the log's loss table when it has one (a header whose next rows line up with it):
 * *found 1 and one point per epoch (or step). FERRY_EUSAGE for several loss columns
 * without --column, or a --column the header does not name. */
static int table_parse(raw_list *raw, loss_series *out, const char *name, const char *data, size_t len,
                       const column_parts *parts, int *found)
{
	loss_table t;
	memset(&t, 0, sizeof t);
	char *clean = NULL;
	size_t cap = 0, pos = 0, n;
	const char *line;
	int rc = 0;
	while (!rc && next_line(&line, &n, data, len, &pos)) {
		if (memchr(line, '\033', n)) {
			if (n > cap)
				clean = xrealloc(clean, cap = n);
			n = strip_escapes(clean, line, n);
			line = clean;
		}
		rc = table_line(&t, raw, out, name, line, n, parts);
	}
	if (!rc)
		table_flush(&t, raw, out);
	*found = t.confirmed;
	if (t.confirmed)
		out->table = !t.epochs ? LOSS_TABLE_STEPS : t.bars ? LOSS_TABLE_EPOCHS : LOSS_TABLE_EPOCH_ROWS;
	free(clean);
	free(t.text);
	free(t.cols);
	return rc;
}

/* --- HF Trainer's trainer_state.json --- */

/* 1 when data is a JSON object with a "log_history" (transformers' TrainerState). */
static int trainer_state_file(const char *data, size_t len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)data[i]))
		i++;
	if (i == len || data[i] != '{')
		return 0;
	static const char key[] = "\"log_history\"";
	return memmem(data, len, key, sizeof key - 1) != NULL;
}

/* The text with Python's bare NaN, Infinity and -Infinity (json.dumps writes them; JSON
 * has no words for them) turned into strings csv_number reads, outside strings only. */
static char *quote_python_floats(const char *data, size_t len)
{
	sbuf b;
	sbuf_init(&b);
	int in_str = 0;
	for (size_t i = 0; i < len; i++) {
		char c = data[i];
		if (in_str) {
			sbuf_addc(&b, c);
			if (c == '\\' && i + 1 < len)
				sbuf_addc(&b, data[++i]);
			else if (c == '"')
				in_str = 0;
			continue;
		}
		static const char *const words[] = { "-Infinity", "Infinity", "NaN" };
		size_t w = 0;
		for (; w < 3; w++) {
			size_t wl = strlen(words[w]);
			if (len - i >= wl && memcmp(data + i, words[w], wl) == 0 && (i == 0 || !is_ident(data[i - 1])) &&
			    (i + wl == len || !is_ident(data[i + wl])))
				break;
		}
		if (w < 3) {
			sbuf_addf(&b, "\"%s\"", words[w]);
			i += strlen(words[w]) - 1;
			continue;
		}
		in_str = c == '"';
		sbuf_addc(&b, c);
	}
	return b.buf ? sbuf_detach(&b) : xstrdup("");
}

/* A number of a log entry: a JSON number, or a string holding one (NaN quoted above). */
static int entry_number(double *v, const cJSON *item)
{
	if (cJSON_IsNumber(item)) {
		*v = item->valuedouble;
		return 1;
	}
	return cJSON_IsString(item) && csv_number(v, item->valuestring);
}

/* The training losses of log_history: an entry with "loss" (or the --column keys, summed)
 * is one point at its "step"; evaluation entries and the closing summary (eval_loss,
 * train_loss) are counted as not training. */
static int trainer_state_parse(raw_list *raw, loss_series *out, const char *name, const char *data, size_t len,
                               const column_parts *parts)
{
	char *text = quote_python_floats(data, len);
	cJSON *doc = cJSON_Parse(text);
	free(text);
	const cJSON *hist = cJSON_GetObjectItem(doc, "log_history");
	if (!cJSON_IsArray(hist)) {
		cJSON_Delete(doc);
		return err_set(FERRY_ECORRUPT, _("%s: not a trainer_state.json: no log_history list"), name);
	}
	static char *const default_key[] = { "loss" };
	const column_parts keys = parts->n ? *parts : (column_parts){ (char **)default_key, 1 };
	const cJSON *e;
	cJSON_ArrayForEach(e, hist)
	{
		double v = 0, step = 0;
		int all = 1;
		for (size_t k = 0; k < keys.n && all; k++) {
			double one;
			all = entry_number(&one, cJSON_GetObjectItem(e, keys.v[k]));
			v += all ? one : 0;
		}
		if (!all) {
			out->not_training += cJSON_GetObjectItem(e, "eval_loss") || cJSON_GetObjectItem(e, "train_loss");
			continue;
		}
		int has_step = entry_number(&step, cJSON_GetObjectItem(e, "step")) && isfinite(step) && step >= 0 &&
		               step < 9e15;
		raw_add(raw, v, has_step, has_step ? (long long)step : 0);
		if (!isfinite(v))
			out->nonfinite++;
	}
	cJSON_Delete(doc);
	return 0;
}

typedef struct epoch_span {
	long long epoch;
	long long span; /* the steps the epoch holds: its total, else its largest step */
	long long base; /* the global step its step 0 is */
} epoch_span;

static int cmp_epoch(const void *x, const void *y)
{
	const epoch_span *a = x, *b = y;
	return a->epoch < b->epoch ? -1 : a->epoch > b->epoch;
}

/* Logs whose step counter restarts every epoch ("Epoch [2/5], Step [10/40], Loss: …",
 * the PyTorch tutorials' format): when an epoch's steps go back, each step becomes the
 * epochs before it plus the step, so every epoch keeps its points instead of the last
 * epoch's overwriting the others as repeats. Logs whose steps run on across epochs are
 * left as they are. Returns 1 when the steps were made global. */
static int globalize_epoch_steps(raw_list *raw)
{
	const raw_point *prev = NULL;
	int restarts = 0;
	for (size_t k = 0; k < raw->n; k++) {
		const raw_point *r = &raw->v[k];
		if (!r->has_step || !r->has_epoch)
			continue;
		if (prev && r->epoch > prev->epoch && r->step <= prev->step)
			restarts = 1;
		prev = r;
	}
	if (!restarts)
		return 0;
	epoch_span *e = xmalloc(raw->n * sizeof *e);
	size_t ne = 0;
	for (size_t k = 0; k < raw->n; k++) {
		const raw_point *r = &raw->v[k];
		if (!r->has_step || !r->has_epoch)
			continue;
		size_t i = 0;
		while (i < ne && e[i].epoch != r->epoch)
			i++;
		if (i == ne)
			e[ne++] = (epoch_span){ r->epoch, 0, 0 };
		long long most = r->total > r->step ? r->total : r->step;
		if (most > e[i].span)
			e[i].span = most;
	}
	qsort(e, ne, sizeof *e, cmp_epoch);
	for (size_t i = 1; i < ne; i++)
		e[i].base = e[i - 1].base + e[i - 1].span;
	for (size_t k = 0; k < raw->n; k++) {
		raw_point *r = &raw->v[k];
		if (!r->has_step || !r->has_epoch)
			continue;
		epoch_span key = { r->epoch, 0, 0 };
		const epoch_span *at = bsearch(&key, e, ne, sizeof *e, cmp_epoch);
		r->step += at->base;
	}
	free(e);
	return 1;
}

/* 1 when the loss read from the text line [line, line + n) reaches its end: one more
 * digit after it would change what is read ("loss 1.3050" may have lost digits, "loss
 * 1.3 lr 0.1" has not). */
static int loss_reaches_end(const char *line, size_t n, const column_parts *parts)
{
	char *more = xmalloc(n + 1);
	memcpy(more, line, n);
	more[n] = '7';
	raw_list as_is = { NULL, 0, 0, 0 }, longer = { NULL, 0, 0, 0 };
	loss_series scratch;
	memset(&scratch, 0, sizeof scratch);
	text_parse(&as_is, &scratch, line, n, parts);
	loss_series_done(&scratch);
	text_parse(&longer, &scratch, more, n + 1, parts);
	loss_series_done(&scratch);
	int reaches = as_is.n != longer.n ||
	              (as_is.n && memcmp(&as_is.v[as_is.n - 1].loss, &longer.v[longer.n - 1].loss, sizeof(double)) != 0);
	free(as_is.v);
	free(longer.v);
	free(more);
	return reaches;
}

/* A log copied or read while cut short ends inside its last line. That line is left out
 * when it has no line end and looks cut: in a CSV export a row short of the header's
 * columns, in a text log one whose loss runs to the end, which may have lost digits
 * (1.3050 of 1.305061). A log of one line is kept whole. Returns the length without that
 * line, or len. */
static size_t without_cut_line(const char *data, size_t len, int csv, const column_parts *parts)
{
	if (!len || data[len - 1] == '\n' || data[len - 1] == '\r')
		return len;
	size_t start = len;
	while (start > 0 && data[start - 1] != '\n' && data[start - 1] != '\r')
		start--;
	if (!start)
		return len;
	if (!csv)
		return loss_reaches_end(data + start, len - start, parts) ? start : len;
	size_t hl = 0;
	while (hl < len && data[hl] != '\n' && data[hl] != '\r')
		hl++;
	csv_row head, last;
	csv_split(&head, data, hl);
	csv_split(&last, data + start, len - start);
	int cut = last.n < head.n;
	csv_row_done(&head);
	csv_row_done(&last);
	return cut ? start : len;
}

/* A log whose lines give an epoch and no step, mostly one line per epoch (detr's log.txt,
 * a script printing each epoch's mean): the epochs are the steps, so a resumed run that
 * logs some epochs again pairs by epoch, not by line. Lines of one epoch that follow each
 * other (a loss per batch) keep their ordinals. 1 when the epochs became the steps. */
static int epochs_as_steps(raw_list *raw)
{
	if (raw->with_step || !raw->n)
		return 0;
	size_t changes = 0;
	for (size_t k = 0; k < raw->n; k++) {
		if (!raw->v[k].epoch_alone)
			return 0;
		changes += k == 0 || raw->v[k].alone != raw->v[k - 1].alone;
	}
	if (changes * 2 <= raw->n)
		return 0;
	for (size_t k = 0; k < raw->n; k++) {
		raw->v[k].has_step = 1;
		raw->v[k].step = raw->v[k].alone;
	}
	raw->with_step = raw->n;
	return 1;
}

int loss_parse(loss_series *out, const char *name, const char *data, size_t len, const char *column)
{
	memset(out, 0, sizeof *out);
	if (!len)
		return err_set(FERRY_ECORRUPT, _("%s: the log is empty"), name);
	if (memchr(data, '\0', len))
		return err_set(FERRY_ECORRUPT, _("%s: binary data where a training log was expected"), name);
	if (len >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0) {
		data += 3; /* a spreadsheet's byte-order mark */
		len -= 3;
	}
	column_parts parts; /* the --column keys, split once; none: the training-loss keys */
	split_column(&parts, column);
	if (column && !parts.n) {
		column_parts_done(&parts);
		return err_set(FERRY_EUSAGE, _("--column \"%s\" names no column"), column);
	}
	for (size_t k = 0; k < parts.n; k++)
		if (!names_a_loss(parts.v[k])) {
			int rc = err_set(FERRY_EUSAGE,
			                 _("--column \"%s\": not a loss column (its name must say loss, as train_loss or lm "
			                   "loss do; TensorBoard's Value); a step, epoch or learning-rate curve says nothing "
			                   "about the loss"),
			                 parts.v[k]);
			column_parts_done(&parts);
			return rc;
		}
	raw_list raw = { NULL, 0, 0, 0 };
	int rc = 0;
	if (trainer_state_file(data, len)) {
		if ((rc = trainer_state_parse(&raw, out, name, data, len, &parts)))
			goto out;
	} else {
		/* a last line the run was killed in the middle of is left out, CSV row or text */
		int csv = csv_header(data, len);
		size_t whole = len;
		len = without_cut_line(data, len, csv, &parts);
		out->cut_last = len < whole;
		int table = 0;
		if (!csv && (rc = table_parse(&raw, out, name, data, len, &parts, &table)))
			goto out;
		if (!csv && !table) {
			text_parse(&raw, out, data, len, &parts);
			if (raw.n && parts.n) { /* the keys read, to say so */
				sbuf label;
				sbuf_init(&label);
				for (size_t k = 0; k < parts.n; k++)
					sbuf_addf(&label, "%s%s", k ? " + " : "", parts.v[k]);
				out->column = sbuf_detach(&label);
				out->column_is_key = 1;
			}
		}
		else if (csv && (rc = csv_parse(&raw, out, name, data, len, &parts)))
			goto out;
	}
	if (!raw.n && out->table) {
		rc = err_set(FERRY_ECORRUPT,
		             P_("%s: the loss table holds no finished epoch (%zu stopped before its last batch)",
		                "%s: the loss table holds no finished epoch (%zu stopped before their last batch)", out->partial),
		             name, out->partial);
		goto out;
	}
	if (!raw.n) {
		rc = out->column ? err_set(FERRY_ECORRUPT, _("%s: column \"%s\" holds no values"), name, out->column)
		     : column    ? err_set(FERRY_ECORRUPT, _("%s: no \"%s\" values found"), name, column)
		                 : err_set(FERRY_ECORRUPT,
		                           _("%s: no loss values found (expected lines such as \"step 10 loss 2.31\")"), name);
		goto out;
	}
	out->per_epoch = globalize_epoch_steps(&raw);
	out->epoch_steps = epochs_as_steps(&raw);
	/* Most lines without a step: every point's step is its ordinal among the loss lines,
	 * NaN and inf included, so a bad value keeps its slot. */
	out->ordinal = raw.with_step * 2 < raw.n;
	size_t m = 0;
	for (size_t k = 0; k < raw.n; k++) {
		if (out->ordinal) {
			raw.v[k].step = (long long)k + 1;
		} else if (!raw.v[k].has_step) {
			out->no_step++;
			continue;
		}
		raw.v[m++] = raw.v[k];
	}
	qsort(raw.v, m, sizeof *raw.v, cmp_raw);
	out->pts = xmalloc((m ? m : 1) * sizeof *out->pts);
	/* A step logged more than once (several ranks, a resumed run): the later line wins,
	 * unless one of them is NaN or inf: a rank whose loss blew up fails the step, whichever
	 * rank happened to print last. */
	for (size_t k = 0; k < m;) {
		size_t end = k + 1;
		while (end < m && raw.v[end].step == raw.v[k].step)
			end++;
		double v = raw.v[end - 1].loss;
		for (size_t j = k; j < end && isfinite(v); j++)
			if (!isfinite(raw.v[j].loss)) {
				v = raw.v[j].loss;
				out->repeated_nonfinite++;
			}
		out->duplicates += end - k - 1;
		loss_point *pt = &out->pts[out->n++];
		pt->step = raw.v[k].step;
		pt->loss = pt->lo = pt->hi = v;
		for (size_t j = k; j < end && isfinite(v); j++) {
			pt->lo = fmin(pt->lo, raw.v[j].loss);
			pt->hi = fmax(pt->hi, raw.v[j].loss);
		}
		out->repeated_differ += pt->hi - pt->lo > 1e-3 * fmax(fabs(pt->lo), fabs(pt->hi));
		k = end;
	}
out:
	column_parts_done(&parts);
	free(raw.v);
	if (rc)
		loss_series_done(out);
	return rc;
}

/* The decimals x was printed with: the fewest, 0 to 15, that give back the value read (a
 * log's "%.4f" makes 1.3051 four; a value printed in full reaches the limit, where a double
 * holds no more digits). 1.3000 printed at four decimals reads as one: its point then
 * counts at that precision. */
static int printed_decimals(double x)
{
	double scale = 1;
	for (int d = 0; d < 15; d++, scale *= 10) {
		double s = fabs(x) * scale;
		if (s >= 1e15 || fabs(s - nearbyint(s)) <= 1e-6)
			return d;
	}
	return 15;
}

int loss_series_same(const loss_series *a, const loss_series *b, int *decimals)
{
	if (decimals)
		*decimals = -1;
	if (!a->n || a->n != b->n)
		return 0;
	size_t rounded = 0, coarse = 0; /* points that agree only as printed; of those, coarsely */
	int most = 0; /* decimals of the less precise log: the most any of its points shows */
	for (size_t i = 0; i < a->n; i++) {
		double x = a->pts[i].loss, y = b->pts[i].loss;
		if (a->pts[i].step != b->pts[i].step)
			return 0;
		if (isnan(x) || isnan(y) || isinf(x) || isinf(y)) {
			if (!(isnan(x) && isnan(y)) && x != y)
				return 0;
			continue;
		}
		double big = fmax(fabs(x), fabs(y));
		if (fabs(x - y) <= 1e-7 * big)
			continue; /* the same value, to float32's precision */
		/* the same value as the less precise log prints it: within half its last digit */
		int dx = printed_decimals(x), dy = printed_decimals(y);
		int d = dx < dy ? dx : dy;
		double half = 0.5 * pow(10, -d);
		if (fabs(x - y) > half * (1 + 1e-9))
			return 0;
		rounded++;
		coarse += half > 1e-4 * big;
		most = d > most ? d : most;
	}
	/* agreeing as printed says something only when the logs print enough digits, 1e-4 of
	 * the loss or finer at nine points of ten, and over a run rather than a few steps */
	if (rounded && (a->n < LOSS_SAME_MIN_STEPS || coarse * 10 > a->n))
		return 0;
	if (decimals && rounded)
		*decimals = most;
	return 1;
}

void loss_series_done(loss_series *s)
{
	if (!s)
		return;
	free(s->pts);
	free(s->column);
	free(s->key);
	memset(s, 0, sizeof *s);
}

/* --- comparison --- */

int loss_pair_by_position(loss_series *a, loss_series *b)
{
	if (a->ordinal == b->ordinal)
		return 0;
	loss_series *stepped = a->ordinal ? b : a;
	for (size_t k = 0; k < stepped->n; k++)
		stepped->pts[k].step = (long long)k + 1;
	stepped->by_position = 1;
	return 1;
}

/* The point of s at step (binary search), or NULL. */
static const loss_point *point_at(const loss_series *s, long long step)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->pts[mid].step < step)
			lo = mid + 1;
		else if (s->pts[mid].step > step)
			hi = mid;
		else
			return &s->pts[mid];
	}
	return NULL;
}

/* A NaN or inf in B is the run's fault unless the baseline has one at the same step
 * (an overflow step both runs' loss scalers skipped). */
static int own_nonfinite(const loss_series *a, const loss_point *p)
{
	if (isfinite(p->loss))
		return 0;
	const loss_point *q = point_at(a, p->step);
	return !q || isfinite(q->loss);
}

/* 1 when s ends in NaN/inf values, with the step that final run of them begins at. */
static int ends_nonfinite(const loss_series *s, long long *from)
{
	if (!s->n || isfinite(s->pts[s->n - 1].loss))
		return 0;
	size_t k = s->n - 1;
	while (k > 0 && !isfinite(s->pts[k - 1].loss))
		k--;
	*from = s->pts[k].step;
	return 1;
}

/* B's failures that no mean error shows: NaN/inf values of its own, a blow-up (the loss
 * turns NaN/inf and stays there to the end of the log: a failure even when A's does the
 * same, for a baseline that blew up cannot vouch for anything), a baseline that blows
 * up, and a run that stops early. */
static void judge_b(loss_result *out, const loss_series *a, const loss_series *b)
{
	for (size_t k = 0; k < b->n; k++)
		if (own_nonfinite(a, &b->pts[k])) {
			if (!out->nonfinite_b++)
				out->first_nonfinite_step = b->pts[k].step;
		}
	out->blowup = ends_nonfinite(b, &out->blowup_step);
	out->blowup_a = ends_nonfinite(a, &out->blowup_step_a);
	if (a->n && b->n) {
		long long a0 = a->pts[0].step, a1 = a->pts[a->n - 1].step, b1 = b->pts[b->n - 1].step;
		double span = (double)(a1 - a0);
		out->coverage = b1 >= a1 ? 1.0 : span > 0 ? (double)(b1 - a0) / span : 0.0;
		if (out->coverage < 0)
			out->coverage = 0;
		out->truncated = b1 < a1 && out->coverage < LOSS_MIN_COVERAGE;
	}
}

static int cmp_ll(const void *x, const void *y)
{
	long long a = *(const long long *)x, b = *(const long long *)y;
	return a < b ? -1 : a > b;
}

/* How much of A's run the aligned steps stand for. Each aligned step vouches for A's
 * points within the aligned steps' usual interval of it (the median gap between them), so
 * a run logged every 4th step over the whole run covers A's every step, while one shared
 * step, or a run resumed halfway, covers a sliver. */
static void judge_coverage(loss_result *out, const loss_series *a)
{
	out->a_points = a->n;
	if (!out->n || !a->n)
		return;
	long long reach = 0;
	if (out->n > 1) {
		long long *gaps = xmalloc((out->n - 1) * sizeof *gaps);
		for (size_t i = 1; i < out->n; i++)
			gaps[i - 1] = out->rows[i].step - out->rows[i - 1].step;
		qsort(gaps, out->n - 1, sizeof *gaps, cmp_ll);
		reach = gaps[(out->n - 1) / 2];
		free(gaps);
	}
	size_t j = 0;
	for (size_t i = 0; i < a->n; i++) {
		long long s = a->pts[i].step;
		while (j < out->n && out->rows[j].step < s)
			j++;
		int near = (j < out->n && out->rows[j].step - s <= reach) || (j > 0 && s - out->rows[j - 1].step <= reach);
		out->a_covered += (size_t)near;
	}
	out->aligned_coverage = (double)out->a_covered / (double)a->n;
	out->incomplete = out->aligned_coverage < LOSS_MIN_COVERAGE;
}

/* The end of training on its own: the mean relative error over the last LOSS_END_SHARE
 * of the finite aligned steps. */
static void judge_end(loss_result *out)
{
	size_t want = (size_t)ceil((double)out->finite * LOSS_END_SHARE);
	size_t floor_n = out->finite < LOSS_END_MIN_STEPS ? out->finite : LOSS_END_MIN_STEPS;
	if (want < floor_n)
		want = floor_n;
	double sum = 0;
	for (size_t i = out->n; i > 0 && out->end_n < want; i--) {
		const loss_row *r = &out->rows[i - 1];
		if (isnan(r->rel_err))
			continue;
		sum += r->rel_err;
		out->end_n++;
		out->end_from_step = r->step;
	}
	if (out->end_n) {
		out->end_mean_rel = sum / (double)out->end_n;
		out->end_exceeded = out->end_mean_rel > out->tolerance;
	}
}

/* How far B's loss is from A's, relative to A's (absolute where A's is 0). */
static double loss_rel_err(double a, double b)
{
	return a != 0 ? fabs(b - a) / fabs(a) : fabs(b - a);
}

/* The mean relative error of B against A with B's step N paired with A's step N - shift,
 * over the finite pairs; *pairs gets how many there were. */
static double shifted_mean_rel(const loss_series *a, const loss_series *b, int shift, size_t *pairs)
{
	double sum = 0;
	*pairs = 0;
	for (size_t i = 0; i < a->n; i++) {
		const loss_point *q = point_at(b, a->pts[i].step + shift);
		double x = a->pts[i].loss, y = q ? q->loss : NAN;
		if (!isfinite(x) || !isfinite(y))
			continue;
		sum += loss_rel_err(x, y);
		(*pairs)++;
	}
	return *pairs ? sum / (double)*pairs : INFINITY;
}

/* Two logs of one run, one counting steps from 0 and the other from 1, pair every step
 * with its neighbour and fail by far. When the errors failed the comparison and the
 * losses agree one step apart (within the tolerance, ten times better than as aligned,
 * over nine tenths of the shorter log and at least LOSS_SAME_MIN_STEPS steps), the shift
 * is kept for the output to say so. The verdict stands: which steps are the same is for
 * the user to say. */
static void judge_shift(loss_result *out, const loss_series *a, const loss_series *b)
{
	if (out->pass || out->mean_rel <= out->tolerance)
		return;
	size_t shorter = a->n < b->n ? a->n : b->n;
	for (int shift = -1; shift <= 1; shift += 2) {
		size_t pairs;
		double m = shifted_mean_rel(a, b, shift, &pairs);
		if (pairs >= LOSS_SAME_MIN_STEPS && pairs * 10 >= shorter * 9 && m <= out->tolerance && m * 10 <= out->mean_rel) {
			out->shift = shift;
			out->shift_mean_rel = m;
			return;
		}
	}
}

void loss_compare(loss_result *out, const loss_series *a, const loss_series *b, double tolerance)
{
	memset(out, 0, sizeof *out);
	out->tolerance = tolerance;
	size_t cap = a->n < b->n ? a->n : b->n;
	out->rows = xmalloc((cap ? cap : 1) * sizeof *out->rows);
	size_t i = 0, k = 0;
	double sum = 0;
	while (i < a->n && k < b->n) {
		if (a->pts[i].step < b->pts[k].step) {
			out->only_a++;
			i++;
			continue;
		}
		if (a->pts[i].step > b->pts[k].step) {
			out->only_b++;
			k++;
			continue;
		}
		loss_row *r = &out->rows[out->n++];
		r->step = a->pts[i].step;
		r->a = a->pts[i].loss;
		r->b = b->pts[k].loss;
		/* a step logged with several values (ranks): the extremes of the two sides are
		 * paired, and the pair farther apart judges the step, so the order the ranks
		 * printed in does not decide the verdict (with one value on A's side: B's value
		 * farthest from it; a log against itself: no difference) */
		const loss_point *pa = &a->pts[i], *pb = &b->pts[k];
		if (isfinite(r->a) && isfinite(r->b) && (pa->lo != pa->hi || pb->lo != pb->hi)) {
			int high = fabs(pb->hi - pa->hi) > fabs(pb->lo - pa->lo);
			r->a = high ? pa->hi : pa->lo;
			r->b = high ? pb->hi : pb->lo;
		}
		i++;
		k++;
		if (!isfinite(r->a) || !isfinite(r->b)) {
			r->abs_err = r->rel_err = NAN; /* judged by judge_b, not averaged */
			continue;
		}
		r->abs_err = fabs(r->b - r->a);
		r->rel_err = loss_rel_err(r->a, r->b);
		sum += r->rel_err;
		if (!out->finite++ || r->rel_err > out->max_rel) {
			out->max_rel = r->rel_err;
			out->max_rel_step = r->step;
		}
		if (!out->exceeded && r->rel_err > tolerance) {
			out->exceeded = 1;
			out->first_exceed_step = r->step;
		}
	}
	out->only_a += a->n - i;
	out->only_b += b->n - k;
	if (out->finite)
		out->mean_rel = sum / (double)out->finite;
	if (a->n) {
		out->final_a = a->pts[a->n - 1].loss;
		out->final_step_a = a->pts[a->n - 1].step;
	}
	if (b->n) {
		out->final_b = b->pts[b->n - 1].loss;
		out->final_step_b = b->pts[b->n - 1].step;
	}
	judge_b(out, a, b);
	judge_coverage(out, a);
	judge_end(out);
	out->pass = out->finite > 0 && out->mean_rel <= tolerance && !out->end_exceeded && !out->nonfinite_b &&
	            !out->blowup && !out->blowup_a && !out->truncated && !out->incomplete;
	judge_shift(out, a, b);
}

/* fmt in the reader's language when shown, else as written (the record's English). */
static const char *as_shown(int shown, const char *fmt)
{
	return shown ? _(fmt) : fmt;
}

static const char *fail_reason(char *buf, size_t size, const loss_result *r, int shown)
{
	if (r->pass)
		snprintf(buf, size, "%s", as_shown(shown, N_("within the tolerance")));
	else if (r->blowup && r->blowup_a)
		snprintf(buf, size,
		         as_shown(shown, N_("B's loss turns NaN/inf at step %lld and stays there (blow-up); so does A's, "
		                            "from step %lld: a baseline that blew up cannot vouch for B")),
		         r->blowup_step, r->blowup_step_a);
	else if (r->blowup)
		snprintf(buf, size, as_shown(shown, N_("B's loss turns NaN/inf at step %lld and stays there (blow-up)")),
		         r->blowup_step);
	else if (r->blowup_a)
		snprintf(buf, size,
		         as_shown(shown, N_("A's loss turns NaN/inf at step %lld and stays there: a baseline that blew up "
		                            "cannot vouch for B")),
		         r->blowup_step_a);
	else if (r->nonfinite_b)
		snprintf(buf, size,
		         shown ? P_("B's loss is NaN/inf at %zu step, first at step %lld",
		                    "B's loss is NaN/inf at %zu steps, first at step %lld", r->nonfinite_b)
		         : r->nonfinite_b == 1 ? "B's loss is NaN/inf at %zu step, first at step %lld"
		                               : "B's loss is NaN/inf at %zu steps, first at step %lld",
		         r->nonfinite_b, r->first_nonfinite_step);
	else if (r->truncated)
		/* cut, not rounded, to a tenth: 89.96 % is not shown as the 90 % needed */
		snprintf(buf, size,
		         as_shown(shown, N_("B stops at step %lld, A runs to step %lld (%.1f%% of A's run covered, at least %.0f%% "
		                            "needed)")),
		         r->final_step_b, r->final_step_a, floor(r->coverage * 1000.0) / 10.0, LOSS_MIN_COVERAGE * 100.0);
	else if (!r->finite)
		snprintf(buf, size, "%s", as_shown(shown, N_("the two logs share no step with finite losses")));
	else if (r->mean_rel > r->tolerance)
		snprintf(buf, size, as_shown(shown, N_("mean relative error %.3f%% exceeds the tolerance %.3f%%")),
		         r->mean_rel * 100.0, r->tolerance * 100.0);
	else if (r->end_exceeded)
		snprintf(buf, size,
		         as_shown(shown, N_("mean relative error %.3f%% over the last %zu aligned steps (from step %lld) "
		                            "exceeds the tolerance %.3f%%: the runs part at the end of training")),
		         r->end_mean_rel * 100.0, r->end_n, r->end_from_step, r->tolerance * 100.0);
	else
		snprintf(buf, size,
		         as_shown(shown, N_("aligned %zu of A's %zu steps, %.1f%% of A's run: the rest was never "
		                            "compared (at least %.0f%% needed)")),
		         r->n, r->a_points, r->aligned_coverage * 100.0, LOSS_MIN_COVERAGE * 100.0);
	return buf;
}

const char *loss_fail_reason(char *buf, size_t size, const loss_result *r)
{
	return fail_reason(buf, size, r, 0);
}

const char *loss_fail_reason_shown(char *buf, size_t size, const loss_result *r)
{
	return fail_reason(buf, size, r, 1);
}

void loss_result_done(loss_result *r)
{
	if (!r)
		return;
	free(r->rows);
	memset(r, 0, sizeof *r);
}

/* --- rendering --- */

static void describe_series(sbuf *out, const char *tag, const char *name, const loss_series *s, double final,
                            long long final_step)
{
	sbuf_addf(out, P_("  %s  %s\n      %zu point", "  %s  %s\n      %zu points", s->n), tag, name, s->n);
	if (s->column)
		sbuf_addf(out, s->table ? _(" from column \"%s\" of the console's loss table")
		               : s->column_is_key ? _(" from key \"%s\"")
		                                  : _(" from column \"%s\""),
		          s->column);
	else if (s->key)
		sbuf_addf(out, _(" from key \"%s\""), s->key);
	if (s->n && (s->table == LOSS_TABLE_EPOCHS || s->table == LOSS_TABLE_EPOCH_ROWS || s->epoch_steps))
		sbuf_addf(out, _(", epochs %lld–%lld (the steps below are epochs), final loss %.6g at epoch %lld"),
		          s->pts[0].step, s->pts[s->n - 1].step, final, final_step);
	else if (s->n)
		sbuf_addf(out, _(", steps %lld–%lld%s, final loss %.6g at step %lld"), s->pts[0].step, s->pts[s->n - 1].step,
		          s->ordinal      ? _(" (line ordinals: the log gives no steps)")
		          : s->by_position ? _(" (positions: the other log gives no steps, so the points pair in order)")
		                           : "",
		          final, final_step);
	if (s->table == LOSS_TABLE_EPOCHS)
		sbuf_adds(out, _("; one point per epoch, the epoch's mean loss: the running mean the progress bar shows at "
		                 "the epoch's last batch, not a per-step loss"));
	else if (s->table == LOSS_TABLE_EPOCH_ROWS)
		sbuf_adds(out, _("; one point per epoch, the loss the table's row gives for it, not a per-step loss"));
	else if (s->epoch_steps)
		sbuf_adds(out, _("; one point per epoch, the loss its line gives (the log names epochs, not steps)"));
	if (s->partial)
		sbuf_addf(out, P_("; %zu epoch the run stopped in before its last batch left out",
		                  "; %zu epochs the run stopped in before their last batch left out", s->partial),
		          s->partial);
	if (s->per_epoch)
		sbuf_adds(out, _("; steps counted from the first epoch (the log restarts them every epoch)"));
	if (s->nonfinite)
		sbuf_addf(out, P_("; %zu NaN/inf value", "; %zu NaN/inf values", s->nonfinite), s->nonfinite);
	if (s->no_step)
		sbuf_addf(out, P_("; %zu loss line without a step dropped", "; %zu loss lines without a step dropped", s->no_step), s->no_step);
	if (s->duplicates)
		sbuf_addf(out, P_("; %zu repeated step (last value kept)", "; %zu repeated steps (last value kept)", s->duplicates), s->duplicates);
	if (s->repeated_differ)
		sbuf_addf(out,
		          P_("; %zu step logged more than once with different losses (several ranks?): the one farthest from A "
		             "is compared",
		             "; %zu steps logged more than once with different losses (several ranks?): the one farthest from A "
		             "is compared",
		             s->repeated_differ),
		          s->repeated_differ);
	if (s->repeated_nonfinite)
		sbuf_addf(out, P_("; %zu repeated step kept as NaN/inf (one of its values was)",
		                  "; %zu repeated steps kept as NaN/inf (one of their values was)", s->repeated_nonfinite),
		          s->repeated_nonfinite);
	if (s->not_training)
		sbuf_addf(out, P_("; %zu evaluation or summary loss left out", "; %zu evaluation or summary losses left out", s->not_training), s->not_training);
	if (s->cut_last)
		sbuf_adds(out, _("; its last line has no line end and looks cut short: left out"));
	sbuf_adds(out, "\n");
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return a < b ? -1 : a > b;
}

/* One sparkline of the column averages of column `which` (0: a, 1: b). */
static void sparkline(sbuf *out, const loss_result *r, int which, size_t width, double lo, double hi)
{
	static const char *const bars[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
	for (size_t c = 0; c < width; c++) {
		size_t from = c * r->n / width, to = (c + 1) * r->n / width;
		if (to <= from)
			to = from + 1;
		double sum = 0;
		size_t nf = 0;
		for (size_t i = from; i < to; i++) {
			double x = which ? r->rows[i].b : r->rows[i].a;
			if (isfinite(x))
				sum += x;
			else
				nf++;
		}
		if (nf) {
			sbuf_adds(out, "×"); /* a NaN or inf in this column */
			continue;
		}
		double v = sum / (double)(to - from);
		int level = hi > lo ? (int)lround((v - lo) / (hi - lo) * 7.0) : 3;
		if (level < 0)
			level = 0;
		if (level > 7)
			level = 7;
		sbuf_adds(out, bars[level]);
	}
}

void loss_render_text(sbuf *out, const loss_result *r, const loss_series *a, const loss_series *b,
                      const char *name_a, const char *name_b, const char *same)
{
	sbuf_adds(out, _("loss comparison (A: baseline, B: compared run)\n"));
	describe_series(out, "A", name_a, a, r->final_a, r->final_step_a);
	describe_series(out, "B", name_b, b, r->final_b, r->final_step_b);
	sbuf_addf(out, P_("  aligned %zu step", "  aligned %zu steps", r->n), r->n);
	if (r->only_a || r->only_b)
		sbuf_addf(out, _(" (%zu only in A, %zu only in B)"), r->only_a, r->only_b);
	if (r->n)
		sbuf_addf(out, P_(", covering %.1f%% of A's %zu step", ", covering %.1f%% of A's %zu steps", r->a_points),
		          r->aligned_coverage * 100.0, r->a_points);
	sbuf_adds(out, "\n\n");
	if (r->n) {
		/* a sample of rows: evenly spaced, plus the worst step and the first one over */
		size_t pick[16], np = 0;
		if (r->n <= 12) {
			for (size_t i = 0; i < r->n; i++)
				pick[np++] = i;
		} else {
			for (size_t k = 0; k < 10; k++)
				pick[np++] = k * (r->n - 1) / 9;
			for (size_t i = 0; i < r->n && np < 15; i++)
				if (r->rows[i].step == r->max_rel_step || (r->exceeded && r->rows[i].step == r->first_exceed_step) ||
				    (r->nonfinite_b && r->rows[i].step == r->first_nonfinite_step) ||
				    (r->blowup && r->rows[i].step == r->blowup_step) ||
				    (r->blowup_a && r->rows[i].step == r->blowup_step_a))
					pick[np++] = i;
			qsort(pick, np, sizeof *pick, cmp_size);
		}
		sbuf_adds(out, _("        step              A              B      abs err   rel err\n"));
		for (size_t k = 0; k < np; k++) {
			if (k && pick[k] == pick[k - 1])
				continue;
			const loss_row *row = &r->rows[pick[k]];
			if (isnan(row->rel_err))
				sbuf_addf(out, "  %10lld %14.6g %14.6g %12s %9s%s\n", row->step, row->a, row->b, "-", "-",
				          isfinite(row->b) ? "" : "  NaN/inf");
			else
				sbuf_addf(out, "  %10lld %14.6g %14.6g %12.3e %8.4g%%%s\n", row->step, row->a, row->b,
				          row->abs_err, row->rel_err * 100.0, row->rel_err > r->tolerance ? "  over" : "");
		}
		double lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < r->n; i++) {
			double v[2] = { r->rows[i].a, r->rows[i].b };
			for (int j = 0; j < 2; j++)
				if (isfinite(v[j])) {
					lo = v[j] < lo ? v[j] : lo;
					hi = v[j] > hi ? v[j] : hi;
				}
		}
		if (lo > hi)
			lo = hi = 0;
		size_t width = r->n < 64 ? r->n : 64;
		sbuf_adds(out, "\n  A ");
		sparkline(out, r, 0, width, lo, hi);
		sbuf_adds(out, "\n  B ");
		sparkline(out, r, 1, width, lo, hi);
		sbuf_addf(out, _("\n    loss %.6g … %.6g on one scale, steps %lld–%lld\n\n"), lo, hi, r->rows[0].step,
		          r->rows[r->n - 1].step);
		if (r->finite)
			sbuf_addf(out, _("mean relative error %.4g%%, max %.4g%% at step %lld; tolerance %.4g%% (mean)\n"),
			          r->mean_rel * 100.0, r->max_rel * 100.0, r->max_rel_step, r->tolerance * 100.0);
		if (r->end_n)
			sbuf_addf(out, P_("end of training: mean relative error %.4g%% over the last %zu aligned step (from step %lld)\n",
			                  "end of training: mean relative error %.4g%% over the last %zu aligned steps (from step %lld)\n",
			                  r->end_n),
			          r->end_mean_rel * 100.0, r->end_n, r->end_from_step);
		if (r->exceeded)
			sbuf_addf(out, _("first step above the tolerance: %lld\n"), r->first_exceed_step);
		else
			sbuf_adds(out, _("no step above the tolerance\n"));
		sbuf_addf(out, _("final loss: A %.6g, B %.6g\n"), r->final_a, r->final_b);
	} else {
		sbuf_adds(out, _("the two logs share no step: nothing to compare\n"));
	}
	if (r->nonfinite_b)
		sbuf_addf(out, P_("NaN/inf in B: %zu step, first at step %lld%s\n", "NaN/inf in B: %zu steps, first at step %lld%s\n", r->nonfinite_b), r->nonfinite_b, r->first_nonfinite_step,
		          r->blowup ? _("; it stays NaN/inf to the end of the log") : "");
	else if (r->blowup)
		sbuf_addf(out, _("NaN/inf in B from step %lld to the end of the log\n"), r->blowup_step);
	if (r->blowup_a)
		sbuf_addf(out, _("NaN/inf in A from step %lld to the end of the log: the baseline blew up\n"), r->blowup_step_a);
	if (r->truncated)
		sbuf_addf(out, _("B stops early: last step %lld, A's last step %lld\n"), r->final_step_b, r->final_step_a);
	if (r->incomplete && !r->truncated)
		sbuf_addf(out, _("incomplete: aligned %zu of A's %zu steps, %.1f%% of A's run (at least %.0f%% needed)\n"), r->n,
		          r->a_points, r->aligned_coverage * 100.0, LOSS_MIN_COVERAGE * 100.0);
	if (r->shift < 0)
		sbuf_addf(out, _("B's losses agree with A's one step earlier (B's step N holds A's step N+1; mean relative error "
		                 "%.4g%%): the logs may count steps from 0 and from 1, and then these are the same steps\n"),
		          r->shift_mean_rel * 100.0);
	else if (r->shift > 0)
		sbuf_addf(out, _("B's losses agree with A's one step later (B's step N holds A's step N-1; mean relative error "
		                 "%.4g%%): the logs may count steps from 0 and from 1, and then these are the same steps\n"),
		          r->shift_mean_rel * 100.0);
	char why[256];
	if (r->pass && same) /* the same data twice passes and proves nothing: no PASS for it */
		sbuf_addf(out, _("verdict: %s%s%s\n"), _("PROVES NOTHING"), " — ", same);
	else
		sbuf_addf(out, _("verdict: %s%s%s\n"), r->pass ? _("PASS") : _("FAIL"), r->pass ? "" : " — ",
		          r->pass ? "" : loss_fail_reason_shown(why, sizeof why, r));
}

/* JSON has no NaN: a non-finite number is null. */
static void add_finite(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_series(cJSON *o, const loss_series *s, double final, long long final_step)
{
	cJSON_AddNumberToObject(o, "points", (double)s->n);
	cJSON_AddBoolToObject(o, "ordinal_steps", s->ordinal);
	cJSON_AddNumberToObject(o, "nonfinite", (double)s->nonfinite);
	cJSON_AddNumberToObject(o, "not_training", (double)s->not_training);
	if (s->cut_last)
		cJSON_AddBoolToObject(o, "cut_last", 1);
	if (s->column)
		cJSON_AddStringToObject(o, "column", s->column);
	if (s->key)
		cJSON_AddStringToObject(o, "key", s->key);
	cJSON_AddBoolToObject(o, "epoch_steps", s->epoch_steps);
	if (s->table) {
		cJSON_AddStringToObject(o, "loss_table", s->table == LOSS_TABLE_STEPS ? "steps" : "epochs");
		cJSON_AddNumberToObject(o, "partial_epochs", (double)s->partial);
	}
	cJSON_AddNumberToObject(o, "no_step_dropped", (double)s->no_step);
	cJSON_AddNumberToObject(o, "repeated_steps", (double)s->duplicates);
	cJSON_AddNumberToObject(o, "repeated_steps_nonfinite", (double)s->repeated_nonfinite);
	cJSON_AddNumberToObject(o, "repeated_steps_differ", (double)s->repeated_differ);
	cJSON_AddBoolToObject(o, "per_epoch_steps", s->per_epoch);
	cJSON_AddBoolToObject(o, "paired_by_position", s->by_position);
	if (s->n) {
		add_finite(o, "final_loss", final);
		cJSON_AddNumberToObject(o, "final_step", (double)final_step);
	} else {
		cJSON_AddNullToObject(o, "final_loss");
		cJSON_AddNullToObject(o, "final_step");
	}
}

cJSON *loss_result_json(const loss_result *r, const loss_series *a, const loss_series *b, const cJSON *ina,
                        const cJSON *inb)
{
	cJSON *doc = cJSON_CreateObject();
	cJSON_AddStringToObject(doc, "kind", "loss");
	cJSON *ja = ina ? cJSON_Duplicate(ina, 1) : cJSON_CreateObject();
	cJSON *jb = inb ? cJSON_Duplicate(inb, 1) : cJSON_CreateObject();
	add_series(ja, a, r->final_a, r->final_step_a);
	add_series(jb, b, r->final_b, r->final_step_b);
	cJSON_AddItemToObject(doc, "a", ja);
	cJSON_AddItemToObject(doc, "b", jb);
	cJSON_AddNumberToObject(doc, "tolerance", r->tolerance);
	cJSON_AddNumberToObject(doc, "aligned_steps", (double)r->n);
	cJSON_AddNumberToObject(doc, "only_a", (double)r->only_a);
	cJSON_AddNumberToObject(doc, "only_b", (double)r->only_b);
	cJSON_AddNumberToObject(doc, "finite_steps", (double)r->finite);
	if (r->finite) {
		cJSON_AddNumberToObject(doc, "mean_rel_err", r->mean_rel);
		cJSON_AddNumberToObject(doc, "max_rel_err", r->max_rel);
		cJSON_AddNumberToObject(doc, "max_rel_step", (double)r->max_rel_step);
	} else {
		cJSON_AddNullToObject(doc, "mean_rel_err");
		cJSON_AddNullToObject(doc, "max_rel_err");
		cJSON_AddNullToObject(doc, "max_rel_step");
	}
	if (r->exceeded)
		cJSON_AddNumberToObject(doc, "first_exceed_step", (double)r->first_exceed_step);
	else
		cJSON_AddNullToObject(doc, "first_exceed_step");
	cJSON_AddNumberToObject(doc, "nonfinite_b", (double)r->nonfinite_b);
	if (r->nonfinite_b)
		cJSON_AddNumberToObject(doc, "first_nonfinite_step", (double)r->first_nonfinite_step);
	else
		cJSON_AddNullToObject(doc, "first_nonfinite_step");
	if (r->blowup)
		cJSON_AddNumberToObject(doc, "blowup_step", (double)r->blowup_step);
	else
		cJSON_AddNullToObject(doc, "blowup_step");
	if (r->blowup_a)
		cJSON_AddNumberToObject(doc, "blowup_step_a", (double)r->blowup_step_a);
	else
		cJSON_AddNullToObject(doc, "blowup_step_a");
	cJSON_AddNumberToObject(doc, "coverage", r->coverage);
	cJSON_AddBoolToObject(doc, "truncated", r->truncated);
	cJSON_AddNumberToObject(doc, "aligned_coverage", r->aligned_coverage);
	cJSON_AddBoolToObject(doc, "incomplete", r->incomplete);
	cJSON_AddNumberToObject(doc, "end_steps", (double)r->end_n);
	if (r->end_n) {
		cJSON_AddNumberToObject(doc, "end_from_step", (double)r->end_from_step);
		cJSON_AddNumberToObject(doc, "end_mean_rel_err", r->end_mean_rel);
	} else {
		cJSON_AddNullToObject(doc, "end_from_step");
		cJSON_AddNullToObject(doc, "end_mean_rel_err");
	}
	cJSON_AddStringToObject(doc, "verdict", r->pass ? "pass" : "fail");
	char why[256];
	cJSON_AddStringToObject(doc, "reason", loss_fail_reason(why, sizeof why, r));
	if (r->shift) {
		cJSON *s = cJSON_AddObjectToObject(doc, "agrees_shifted");
		cJSON_AddNumberToObject(s, "steps", r->shift);
		cJSON_AddNumberToObject(s, "mean_rel_err", r->shift_mean_rel);
	}
	cJSON *steps = cJSON_AddArrayToObject(doc, "steps");
	for (size_t i = 0; i < r->n; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "step", (double)r->rows[i].step);
		add_finite(o, "a", r->rows[i].a);
		add_finite(o, "b", r->rows[i].b);
		add_finite(o, "abs_err", r->rows[i].abs_err);
		add_finite(o, "rel_err", r->rows[i].rel_err);
		cJSON_AddItemToArray(steps, o);
	}
	return doc;
}

/* --- inputs --- */

static char *last_component(const char *path);

static void input_from_row(compare_input *out, const cJSON *row, const char *artifacts_dir)
{
	const char *p = json_str(row, "path");
	out->path = util_starts_with(p, "ref:") ? xstrdup(p + 4) : util_path_join(artifacts_dir, p);
	out->artifact = json_int(row, "id");
	out->kind = xstrdup(json_str(row, "kind"));
	out->label = xstrdup(json_str(row, "label"));
	if (*json_str(row, "source"))
		out->file = last_component(json_str(row, "source"));
	/* a stored copy is what was hashed at ingest; a reference may have changed since */
	out->sha256 = util_starts_with(p, "ref:") || !*json_str(row, "sha256") ? NULL : xstrdup(json_str(row, "sha256"));
}

int compare_resolve(compare_input *out, const cJSON *artifacts, const char *artifacts_dir, const char *arg,
                    const char *kind)
{
	memset(out, 0, sizeof *out);
	out->arg = xstrdup(arg);
	struct stat st;
	int exists = stat(arg, &st) == 0;
	const char *digits = arg[0] == '#' ? arg + 1 : arg;
	size_t nd = strspn(digits, "0123456789");
	const cJSON *row;
	if (*digits && nd == strlen(digits) && !(exists && arg[0] != '#')) {
		long long id = strtoll(digits, NULL, 10);
		cJSON_ArrayForEach(row, artifacts)
			if (json_int(row, "id") == id) {
				input_from_row(out, row, artifacts_dir);
				return 0;
			}
		compare_input_done(out);
		return err_set(FERRY_ENOTFOUND, _("artifact %s: no such artifact (ferry status lists the engagement)"), arg);
	}
	/* the newest artifact of the kind with that label; a training run's stdout ingested as
	 * a run log holds its losses too */
	const cJSON *best = NULL, *other = NULL;
	cJSON_ArrayForEach(row, artifacts)
	{
		if (strcmp(json_str(row, "label"), arg) != 0)
			continue;
		const char *rk = json_str(row, "kind");
		if (!kind || strcmp(rk, kind) == 0 || (strcmp(kind, "loss-log") == 0 && strcmp(rk, "run-log") == 0)) {
			if (!best || json_int(row, "id") > json_int(best, "id"))
				best = row;
		} else if (!other || json_int(row, "id") > json_int(other, "id")) {
			other = row;
		}
	}
	if (best) {
		input_from_row(out, best, artifacts_dir);
		return 0;
	}
	if (other && !exists) {
		int rc = err_set(FERRY_ENOTFOUND, _("%s: no %s artifact has this label (artifact %lld labelled so is a %s)"), arg,
		                 kind, json_int(other, "id"), json_str(other, "kind"));
		compare_input_done(out);
		return rc;
	}
	if (exists) {
		out->path = xstrdup(arg);
		return 0;
	}
	compare_input_done(out);
	return err_set(FERRY_ENOTFOUND, _("%s: no such artifact id, artifact label or file"), arg);
}

void compare_input_done(compare_input *in)
{
	if (!in)
		return;
	free(in->arg);
	free(in->path);
	free(in->kind);
	free(in->label);
	free(in->sha256);
	free(in->file);
	memset(in, 0, sizeof *in);
}

cJSON *compare_input_json(const compare_input *in, const char *sha256, const char *root)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "arg", in->arg ? in->arg : "");
	cJSON_AddStringToObject(o, "path", in->path ? in->path : "");
	if (in->artifact)
		cJSON_AddNumberToObject(o, "artifact", (double)in->artifact);
	else
		cJSON_AddNullToObject(o, "artifact");
	if (in->label && *in->label)
		cJSON_AddStringToObject(o, "label", in->label);
	if (in->file && *in->file)
		cJSON_AddStringToObject(o, "file", in->file);
	const char *h = sha256 ? sha256 : in->sha256;
	if (h)
		cJSON_AddStringToObject(o, "sha256", h);
	else
		cJSON_AddNullToObject(o, "sha256");
	compare_input_shown(o, root);
	return o;
}

/* The last component of path, trailing slashes aside. Caller frees. */
static char *last_component(const char *path)
{
	char *name = xstrdup(path);
	size_t n = strlen(name);
	while (n > 1 && name[n - 1] == '/')
		name[--n] = '\0';
	const char *slash = strrchr(name, '/');
	char *last = xstrdup(slash && slash[1] ? slash + 1 : name);
	free(name);
	return last;
}

/* The part of the resolved path real below the project root, or NULL when it is not
 * inside it (or root is NULL). */
static const char *below_root(const char *real, const char *root)
{
	size_t n = root ? strlen(root) : 0;
	return n && strncmp(real, root, n) == 0 && real[n] == '/' && real[n + 1] ? real + n + 1 : NULL;
}

/* A path input's name, decided from where the file really is: relative to root when it
 * lies inside it, else its last component. NULL when the path no longer resolves. */
static char *name_from_resolved_path(const char *path, const char *root)
{
	char *real = *path ? realpath(path, NULL) : NULL;
	if (!real)
		return NULL;
	const char *inside = below_root(real, root);
	char *name = inside ? xstrdup(inside) : last_component(real);
	free(real);
	return name;
}

/* A path input's name from the path as typed, for a record whose file cannot be resolved
 * any more: kept when it stays below the folder it was typed in, else its last component. */
static char *name_from_typed_path(const char *arg)
{
	if (arg[0] == '/' || arg[0] == '~' || strstr(arg, "../") || util_ends_with(arg, ".."))
		return last_component(arg);
	return xstrdup(arg);
}

/* The last k components of path (all of it when it has fewer). */
static const char *last_components(const char *path, size_t k)
{
	const char *p = path + strlen(path);
	while (p > path) {
		p--;
		if (*p == '/' && --k == 0)
			return p + 1;
	}
	return *path == '/' ? path + 1 : path;
}

/* An artifact side shown by its file's name as "#id name". */
static void shown_with_id(cJSON *side)
{
	if (!cJSON_IsNumber(cJSON_GetObjectItem(side, "artifact")))
		return;
	char *with = xasprintf("#%lld %s", json_int(side, "artifact"), json_str(side, "shown"));
	cJSON_ReplaceItemInObject(side, "shown", cJSON_CreateString(with));
	free(with);
}

void compare_inputs_tell_apart(cJSON *a, cJSON *b, const char *root)
{
	if (!cJSON_IsObject(a) || !cJSON_IsObject(b) || *json_str(a, "label") || *json_str(b, "label") ||
	    strcmp(json_str(a, "shown"), json_str(b, "shown")) != 0)
		return;
	if (json_int(a, "artifact") != json_int(b, "artifact") &&
	    (*json_str(a, "file") || *json_str(b, "file"))) {
		shown_with_id(a);
		shown_with_id(b);
		return;
	}
	char *ra = *json_str(a, "path") ? realpath(json_str(a, "path"), NULL) : NULL;
	char *rb = *json_str(b, "path") ? realpath(json_str(b, "path"), NULL) : NULL;
	if (ra && rb && strcmp(ra, rb) != 0) {
		/* inside the project, from it; outside, the fewest folders that differ */
		const char *pa = below_root(ra, root), *pb = below_root(rb, root);
		pa = pa ? pa : ra;
		pb = pb ? pb : rb;
		for (size_t k = 2;; k++) {
			const char *sa = last_components(pa, k), *sb = last_components(pb, k);
			if (strcmp(sa, sb) != 0 || (sa == pa + (*pa == '/') && sb == pb + (*pb == '/'))) {
				cJSON_ReplaceItemInObject(a, "shown", cJSON_CreateString(sa));
				cJSON_ReplaceItemInObject(b, "shown", cJSON_CreateString(sb));
				break;
			}
		}
	}
	free(ra);
	free(rb);
}

void compare_input_shown(cJSON *side, const char *root)
{
	if (!cJSON_IsObject(side) || cJSON_IsString(cJSON_GetObjectItem(side, "shown")))
		return;
	const char *label = json_str(side, "label"), *arg = json_str(side, "arg");
	char *name = NULL;
	int artifact = cJSON_IsNumber(cJSON_GetObjectItem(side, "artifact"));
	if (*label)
		name = xstrdup(label);
	else if (artifact)
		name = *json_str(side, "file") ? xstrdup(json_str(side, "file"))
		                               : xasprintf("#%lld", json_int(side, "artifact"));
	else if (root)
		name = name_from_resolved_path(json_str(side, "path"), root);
	if (!name)
		name = name_from_typed_path(arg);
	cJSON_AddStringToObject(side, "shown", name);
	free(name);
}
