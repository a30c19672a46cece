/* blobpack — see blobpack.h.
 *
 * The pack is written to a temporary file in pack_dir: a 12-byte header whose object
 * count is filled in at the end, then each distinct blob as a type-and-size header
 * followed by its zlib stream, appended under a lock by whichever worker finished it,
 * then the SHA-1 of everything before. Its index lists the object ids in order with
 * each one's CRC-32 and offset. Both are renamed to pack-<checksum>.{pack,idx}, pack
 * first: readers look for the index and open the pack it names.
 */
#define _POSIX_C_SOURCE 200809L
#include "blobpack.h"
#include "err.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#define READ_TRIES 5     /* reads of a file that keeps changing before the last is kept */
#define MAX_THREADS 8
#define OBJ_BLOB 3       /* the pack format's object type number for a blob */

typedef struct packed {
	unsigned char id[20];
	uint32_t crc;   /* CRC-32 of the entry as it is in the pack (header and zlib stream) */
	uint64_t offset;
} packed;

typedef struct packer {
	blobpack_file *files;
	size_t n;
	atomic_size_t next;   /* the next file a worker takes */
	pthread_mutex_t lock; /* guards everything below */
	int fd;               /* the temporary pack */
	uint64_t end;         /* its length so far */
	int werr;             /* errno of the first failed write; stops the workers */
	packed *entries;      /* one per distinct blob, in pack order */
	size_t nentries;
	size_t *slots;        /* open-addressing set over entries (index + 1; 0 = free) */
	size_t nslots;        /* a power of two above twice n */
} packer;

int blobpack_same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_mode == b->st_mode &&
	       a->st_size == b->st_size && a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec && a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* One read of f: 0 with the content in *data (st in *st), -1 when it changed under
 * the read (try again), or an errno. */
static int read_once(const blobpack_file *f, struct stat *st, char **data, size_t *len)
{
	struct stat after;
	*data = NULL;
	if (lstat(f->path, st) != 0)
		return errno;
	if (S_ISLNK(st->st_mode)) {
		size_t cap = (size_t)st->st_size + 1;
		char *buf = xmalloc(cap);
		ssize_t r = readlink(f->path, buf, cap);
		if (r < 0 || (size_t)r == cap || lstat(f->path, &after) != 0 || !blobpack_same_stat(st, &after)) {
			int e = r < 0 && errno != EINVAL ? errno : -1;
			free(buf);
			return e;
		}
		*data = buf;
		*len = (size_t)r;
		return 0;
	}
	if (!S_ISREG(st->st_mode))
		return ENOENT; /* no longer something the scan records */
	if (st->st_size > BLOBPACK_MAX_INLINE)
		return 0;
	/* O_NONBLOCK: a FIFO put in the file's place since the lstat must not hang the read */
	int fd = open(f->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP ? -1 : errno;
	size_t cap = (size_t)st->st_size + 1, got = 0;
	char *buf = xmalloc(cap);
	int e = 0;
	while (got < cap) {
		ssize_t r = read(fd, buf + got, cap - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			break;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (!e && (got != cap - 1 || fstat(fd, &after) != 0 || after.st_ino != st->st_ino ||
	           after.st_size != st->st_size || after.st_mtim.tv_sec != st->st_mtim.tv_sec ||
	           after.st_mtim.tv_nsec != st->st_mtim.tv_nsec))
		e = -1;
	close(fd);
	*data = buf;
	*len = got;
	return e;
}

/* Reads f, again while it changes under the read; the last content is kept. */
static int read_settled(blobpack_file *f, char **data, size_t *len)
{
	int e = -1;
	for (int i = 0; i < READ_TRIES && e == -1; i++) {
		free(*data);
		e = read_once(f, &f->st, data, len);
	}
	if (e == -1 && !*data)
		e = EAGAIN; /* a symlink that kept changing */
	else if (e == -1)
		e = 0;
	if (!e && S_ISREG(f->st.st_mode) && f->st.st_size > BLOBPACK_MAX_INLINE)
		f->big = 1;
	return e;
}

/* The pack entry header for a blob of len bytes; returns its length (at most 10). */
static size_t entry_header(unsigned char *out, size_t len)
{
	size_t n = 0;
	unsigned char c = (unsigned char)((OBJ_BLOB << 4) | (len & 0x0f));
	len >>= 4;
	while (len) {
		out[n++] = c | 0x80;
		c = len & 0x7f;
		len >>= 7;
	}
	out[n++] = c;
	return n;
}

static size_t slot_of(const packer *p, const unsigned char id[20])
{
	size_t h;
	memcpy(&h, id, sizeof h);
	return h & (p->nslots - 1);
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *b = buf;
	while (len) {
		ssize_t w = write(fd, b, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return errno;
		b += w;
		len -= (size_t)w;
	}
	return 0;
}

/* Appends one finished entry unless the pack already holds that blob. */
static void append_entry(packer *p, const unsigned char id[20], const unsigned char *entry, size_t len)
{
	uint32_t crc = (uint32_t)crc32(0L, entry, (uInt)len);
	pthread_mutex_lock(&p->lock);
	size_t s = slot_of(p, id);
	while (p->slots[s] && memcmp(p->entries[p->slots[s] - 1].id, id, 20) != 0)
		s = (s + 1) & (p->nslots - 1);
	if (!p->slots[s] && !p->werr) {
		int e = write_all(p->fd, entry, len);
		if (e) {
			p->werr = e;
		} else {
			packed *pe = &p->entries[p->nentries++];
			memcpy(pe->id, id, 20);
			pe->crc = crc;
			pe->offset = p->end;
			p->end += len;
			p->slots[s] = p->nentries;
		}
	}
	pthread_mutex_unlock(&p->lock);
}

static void *worker(void *arg)
{
	packer *p = arg;
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	if (!md) {
		pthread_mutex_lock(&p->lock);
		p->werr = ENOMEM; /* the others stop too: no file may be left without its id */
		pthread_mutex_unlock(&p->lock);
	}
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n || !md)
			break;
		pthread_mutex_lock(&p->lock);
		int stop = p->werr;
		pthread_mutex_unlock(&p->lock);
		if (stop)
			break;
		blobpack_file *f = &p->files[i];
		char *data = NULL;
		size_t len = 0;
		f->err = read_settled(f, &data, &len);
		if (!f->err && !f->big) {
			char head[32];
			int hl = snprintf(head, sizeof head, "blob %zu", len) + 1;
			EVP_DigestInit_ex(md, EVP_sha1(), NULL);
			EVP_DigestUpdate(md, head, (size_t)hl);
			EVP_DigestUpdate(md, data, len);
			EVP_DigestFinal_ex(md, f->id, NULL);
			uLongf zlen = compressBound((uLong)len);
			unsigned char *entry = xmalloc(10 + zlen);
			size_t hlen = entry_header(entry, len);
			/* speed over size: the baseline is written once, in one go */
			if (compress2(entry + hlen, &zlen, (const Bytef *)data, (uLong)len, Z_BEST_SPEED) == Z_OK)
				append_entry(p, f->id, entry, hlen + zlen);
			else
				f->err = ENOMEM;
			free(entry);
		}
		free(data);
	}
	EVP_MD_CTX_free(md);
	return NULL;
}

static void put32(unsigned char *out, uint32_t v)
{
	out[0] = (unsigned char)(v >> 24);
	out[1] = (unsigned char)(v >> 16);
	out[2] = (unsigned char)(v >> 8);
	out[3] = (unsigned char)v;
}

static int cmp_packed(const void *a, const void *b) { return memcmp(((const packed *)a)->id, ((const packed *)b)->id, 20); }

/* SHA-1 of the first len bytes of fd into out; 0 or an errno. */
static int sum_file(unsigned char out[20], int fd, uint64_t len)
{
	EVP_MD_CTX *md = EVP_MD_CTX_new();
	size_t cap = 1 << 20;
	char *buf = xmalloc(cap);
	int e = md ? 0 : ENOMEM;
	uint64_t at = 0;
	if (md)
		EVP_DigestInit_ex(md, EVP_sha1(), NULL);
	while (!e && at < len) {
		size_t want = len - at < cap ? (size_t)(len - at) : cap;
		ssize_t r = pread(fd, buf, want, (off_t)at);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			e = r < 0 ? errno : EIO;
		else {
			EVP_DigestUpdate(md, buf, (size_t)r);
			at += (size_t)r;
		}
	}
	if (!e)
		EVP_DigestFinal_ex(md, out, NULL);
	EVP_MD_CTX_free(md);
	free(buf);
	return e;
}

static void add_raw(sbuf *b, const unsigned char *p, size_t n) { sbuf_add(b, (const char *)p, n); }

static void add32(sbuf *b, uint32_t v)
{
	unsigned char w[4];
	put32(w, v);
	add_raw(b, w, 4);
}

/* The version-2 index of the pack whose checksum is sum: fan-out table, sorted ids,
 * CRC-32s, offsets (those past 2 GiB in a table of 8-byte offsets), both checksums. */
static void build_index(sbuf *b, packed *entries, size_t n, const unsigned char sum[20])
{
	qsort(entries, n, sizeof *entries, cmp_packed);
	sbuf_add(b, "\377tOc", 4);
	add32(b, 2);
	size_t at = 0;
	for (int byte = 0; byte < 256; byte++) {
		while (at < n && entries[at].id[0] <= byte)
			at++;
		add32(b, (uint32_t)at);
	}
	for (size_t i = 0; i < n; i++)
		add_raw(b, entries[i].id, 20);
	for (size_t i = 0; i < n; i++)
		add32(b, entries[i].crc);
	uint32_t large = 0;
	for (size_t i = 0; i < n; i++)
		add32(b, entries[i].offset < 0x80000000u ? (uint32_t)entries[i].offset : 0x80000000u | large++);
	for (size_t i = 0; i < n; i++) {
		if (entries[i].offset < 0x80000000u)
			continue;
		add32(b, (uint32_t)(entries[i].offset >> 32));
		add32(b, (uint32_t)entries[i].offset);
	}
	add_raw(b, sum, 20);
	unsigned char isum[20];
	EVP_Digest(b->buf, b->len, isum, NULL, EVP_sha1(), NULL);
	add_raw(b, isum, 20);
}

/* Writes the index next to the finished pack and renames both into place. */
static int publish(packer *p, const char *pack_dir, const char *tmp_pack)
{
	unsigned char head[12], sum[20];
	char hex[41];
	memcpy(head, "PACK", 4);
	put32(head + 4, 2);
	put32(head + 8, (uint32_t)p->nentries);
	ssize_t w = pwrite(p->fd, head, sizeof head, 0);
	int e = w < 0 ? errno : w != (ssize_t)sizeof head ? EIO : 0;
	if (!e)
		e = sum_file(sum, p->fd, p->end);
	if (!e)
		e = write_all(p->fd, sum, sizeof sum);
	/* on disk before its name appears, like every other atomic write of the project */
	if (!e && (fdatasync(p->fd) != 0 || fchmod(p->fd, 0444) != 0))
		e = errno;
	if (e)
		return err_set(FERRY_EIO, "%s: %s", tmp_pack, strerror(e));
	for (int i = 0; i < 20; i++)
		snprintf(hex + 2 * i, 3, "%02x", sum[i]);
	char *pack = xasprintf("%s/pack-%s.pack", pack_dir, hex);
	char *idx = xasprintf("%s/pack-%s.idx", pack_dir, hex);
	sbuf b;
	sbuf_init(&b);
	build_index(&b, p->entries, p->nentries, sum);
	int rc = 0;
	if (rename(tmp_pack, pack) != 0) {
		rc = err_set(FERRY_EIO, "%s: %s", pack, strerror(errno));
	} else if ((rc = util_write_atomic(idx, b.buf, b.len, 0444)) < 0) {
		unlink(pack);
	}
	sbuf_done(&b);
	free(pack);
	free(idx);
	return rc;
}

int blobpack_write(blobpack_file *files, size_t n, const char *pack_dir, int threads)
{
	packer p;
	memset(&p, 0, sizeof p);
	p.files = files;
	p.n = n;
	p.fd = -1;
	atomic_init(&p.next, 0);
	pthread_mutex_init(&p.lock, NULL);
	for (p.nslots = 16; p.nslots < 2 * n + 2; p.nslots *= 2)
		;
	p.slots = xcalloc(p.nslots, sizeof *p.slots);
	p.entries = xcalloc(n ? n : 1, sizeof *p.entries);
	char *tmp = xasprintf("%s/tmp_pack_XXXXXX", pack_dir);
	int rc = 0;
	if ((rc = util_mkdirs(pack_dir, 0755)) < 0)
		goto out;
	if ((p.fd = mkstemp(tmp)) < 0) {
		rc = err_set(FERRY_EIO, "%s: %s", tmp, strerror(errno));
		goto out;
	}
	/* room for the header, written once the count is known */
	static const unsigned char room[12];
	if ((p.werr = write_all(p.fd, room, sizeof room)) == 0)
		p.end = sizeof room;
	if (threads <= 0) {
		long online = sysconf(_SC_NPROCESSORS_ONLN);
		threads = online > 0 ? (int)online : 1;
	}
	if (threads > MAX_THREADS)
		threads = MAX_THREADS;
	if ((size_t)threads > n)
		threads = n ? (int)n : 1;
	pthread_t tid[MAX_THREADS];
	int started = 1; /* this thread is one of the workers */
	while (started < threads && pthread_create(&tid[started], NULL, worker, &p) == 0)
		started++;
	worker(&p);
	for (int i = 1; i < started; i++)
		pthread_join(tid[i], NULL);
	if (p.werr)
		rc = err_set(FERRY_EIO, "%s: %s", tmp, strerror(p.werr));
	else if (p.nentries)
		rc = publish(&p, pack_dir, tmp);
out:
	if (p.fd >= 0) {
		close(p.fd);
		unlink(tmp); /* gone already when published */
	}
	pthread_mutex_destroy(&p.lock);
	free(p.slots);
	free(p.entries);
	free(tmp);
	return rc;
}
