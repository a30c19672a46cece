/* npy — see npy.h. */
#include "npy.h"
#include "err.h"
#include "intl.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_HEADER ((size_t)1 << 20)

/* ------------------------------------------------------------------ header */

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

const char *npy_dtype_name(const npy_info *h)
{
	static const char *const floats[] = { [2] = "float16", [4] = "float32", [8] = "float64" };
	static const char *const ints[] = { [1] = "int8", [2] = "int16", [4] = "int32", [8] = "int64" };
	static const char *const uints[] = { [1] = "uint8", [2] = "uint16", [4] = "uint32", [8] = "uint64" };
	int size = h->itemsize >= 1 && h->itemsize <= 8 ? h->itemsize : 0;
	switch (h->kind) {
	case 'f':
		return floats[size];
	case 'i':
		return ints[size];
	case 'u':
		return uints[size];
	case 'b':
		return size == 1 ? "bool" : NULL;
	case 'B':
		return size == 2 ? "bfloat16" : NULL;
	default:
		return NULL;
	}
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

/* Four floats and four doubles (GCC and Clang vector extensions): the widening
 * conversion then takes one or two instructions per four elements. */
typedef float v4f __attribute__((vector_size(16)));
typedef double v4d __attribute__((vector_size(32)));

void npy_decode(double *out, const npy_info *h, const unsigned char *raw, size_t n)
{
	int be = h->big_endian;
	const int native_le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
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
		if (!be && native_le) { /* the common case: four at a time, no byte shuffling */
			size_t i = 0;
			for (; i + 4 <= n; i += 4) {
				v4f f;
				memcpy(&f, raw + 4 * i, sizeof f);
				v4d d = __builtin_convertvector(f, v4d);
				memcpy(out + i, &d, sizeof d);
			}
			for (; i < n; i++) {
				float f;
				memcpy(&f, raw + 4 * i, 4);
				out[i] = f;
			}
			break;
		}
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
