/* sign — see sign.h. */
#include "intl.h"
#include "sign.h"
#include "audit.h"
#include "err.h"
#include "replay.h"
#include "util.h"

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define SIGN_NAMESPACE "ferry-audit"

static char *anchor_text(const char *head, long long seq)
{
	return xasprintf(SIGN_NAMESPACE " %s:%lld\n", head, seq);
}

static void hex(char *out, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = '\0';
}

static int unhex(unsigned char *out, size_t cap, size_t *n, const char *s)
{
	size_t len = strlen(s);
	if (len % 2 || len / 2 > cap)
		return -1;
	for (size_t i = 0; i < len / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (unsigned char)v;
	}
	*n = len / 2;
	return 0;
}

/* --- ed25519 through OpenSSL --- */

static int ed25519_sign(cJSON *d, const char *key_path, EVP_PKEY *pkey, const char *msg)
{
	unsigned char sig[64], pub[32];
	size_t siglen = sizeof sig, publen = sizeof pub;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok = ctx && EVP_DigestSignInit(ctx, NULL, NULL, NULL, pkey) == 1 &&
	         EVP_DigestSign(ctx, sig, &siglen, (const unsigned char *)msg, strlen(msg)) == 1 &&
	         EVP_PKEY_get_raw_public_key(pkey, pub, &publen) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return err_set(FERRY_EIO, _("%s: signing with this ed25519 key failed"), key_path);
	char sighex[129], pubhex[65];
	hex(sighex, sig, siglen);
	hex(pubhex, pub, publen);
	cJSON_AddStringToObject(d, "method", "ed25519");
	cJSON_AddStringToObject(d, "public_key", pubhex);
	char *signer = xasprintf("ed25519 %s", pubhex);
	cJSON_AddStringToObject(d, "signer", signer);
	free(signer);
	cJSON_AddStringToObject(d, "signature", sighex);
	return 0;
}

/* 1 when the signature is good; the signer is named in *signer (malloc'd). */
static int ed25519_check(char **signer, const cJSON *d, const char *msg)
{
	const cJSON *pk = cJSON_GetObjectItem(d, "public_key"), *sg = cJSON_GetObjectItem(d, "signature");
	unsigned char pub[32], sig[64];
	size_t publen = 0, siglen = 0;
	if (!cJSON_IsString(pk) || !cJSON_IsString(sg) || unhex(pub, sizeof pub, &publen, pk->valuestring) ||
	    unhex(sig, sizeof sig, &siglen, sg->valuestring) || publen != 32)
		return 0;
	*signer = xasprintf("ed25519 %s", pk->valuestring);
	EVP_PKEY *key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, pub, publen);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int good = key && ctx && EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, key) == 1 &&
	           EVP_DigestVerify(ctx, sig, siglen, (const unsigned char *)msg, strlen(msg)) == 1;
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(key);
	return good;
}

/* --- OpenSSH keys through ssh-keygen -Y --- */

/* Runs argv with stdin from in_path (NULL: /dev/null), collecting stdout and stderr in
 * *out. Returns the exit status, or -1 when it could not be run. */
static int run(sbuf *out, char *const argv[], const char *in_path)
{
	int pfd[2];
	if (pipe(pfd) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (pid == 0) {
		int in = open(in_path ? in_path : "/dev/null", O_RDONLY);
		if (in < 0)
			_exit(127);
		dup2(in, 0);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	char buf[4096];
	ssize_t n;
	while ((n = read(pfd[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			sbuf_add(out, buf, (size_t)n);
	close(pfd[0]);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* A private temporary directory with the message in it; caller removes it. */
static char *temp_with_message(const char *msg)
{
	const char *tmp = getenv("TMPDIR");
	char *dir = xasprintf("%s/ferry-sign-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		err_set(FERRY_EIO, "%s: %s", dir, strerror(errno));
		free(dir);
		return NULL;
	}
	char *m = util_path_join(dir, "anchor");
	int rc = util_write_atomic(m, msg, strlen(msg), 0600);
	free(m);
	if (rc) {
		util_remove_tree(dir);
		free(dir);
		return NULL;
	}
	return dir;
}

/* 1 when sig_text is a good ferry-audit signature of msg; *signer names its key. */
static int ssh_check(char **signer, const char *sig_text, const char *msg)
{
	char *dir = temp_with_message(msg);
	if (!dir)
		return 0;
	char *m = util_path_join(dir, "anchor"), *sp = util_path_join(dir, "anchor.sig");
	int good = 0;
	if (util_write_atomic(sp, sig_text, strlen(sig_text), 0600) == 0) {
		sbuf out;
		sbuf_init(&out);
		char *argv[] = { "ssh-keygen", "-Y", "check-novalidate", "-n", SIGN_NAMESPACE, "-s", sp, NULL };
		good = run(&out, argv, m) == 0;
		const char *key = out.buf ? strstr(out.buf, " key ") : NULL;
		if (good && key) {
			key += 5;
			*signer = xstrndup(key, strcspn(key, " \r\n"));
		} else if (good) {
			*signer = xstrdup("ssh key");
		}
		sbuf_done(&out);
	}
	err_clear();
	util_remove_tree(dir);
	free(dir);
	free(m);
	free(sp);
	return good;
}

static int ssh_sign(cJSON *d, const char *key_path, const char *msg)
{
	char *dir = temp_with_message(msg);
	if (!dir)
		return err_code();
	char *m = util_path_join(dir, "anchor"), *sp = util_path_join(dir, "anchor.sig"), *sig = NULL, *signer = NULL;
	sbuf out;
	sbuf_init(&out);
	char *argv[] = { "ssh-keygen", "-q", "-Y", "sign", "-f", (char *)key_path, "-n", SIGN_NAMESPACE, m, NULL };
	int st = run(&out, argv, NULL), rc = 0;
	if (st != 0 || util_read_file(&sig, NULL, sp) != 0)
		rc = out.len ? err_set(FERRY_EIO, _("%s: ssh-keygen -Y sign failed: %.*s"), key_path,
		                       (int)strcspn(out.buf, "\n"), out.buf)
		             : err_set(FERRY_EIO, _("%s: ssh-keygen -Y sign failed"), key_path);
	else if (!ssh_check(&signer, sig, msg))
		rc = err_set(FERRY_EIO, _("%s: ssh-keygen made a signature it cannot check"), key_path);
	if (!rc) {
		cJSON_AddStringToObject(d, "method", "ssh");
		cJSON_AddStringToObject(d, "signer", signer);
		cJSON_AddStringToObject(d, "signature", sig);
	}
	sbuf_done(&out);
	util_remove_tree(dir);
	free(dir);
	free(m);
	free(sp);
	free(sig);
	free(signer);
	return rc;
}

int sign_head_if_configured(store *s, const char *actor)
{
	char *key_path = store_config_get(s, "audit.sign_key");
	if (!key_path)
		return 0;
	char *text = NULL, *msg = NULL;
	size_t len = 0;
	long long seq = 0;
	char head[65];
	cJSON *d = NULL;
	int rc = util_read_file(&text, &len, key_path);
	if (rc || (rc = store_audit_last(&seq, head, s)))
		goto out;
	msg = anchor_text(head, seq);
	d = cJSON_CreateObject();
	cJSON_AddNumberToObject(d, "signed_seq", (double)seq);
	cJSON_AddStringToObject(d, "head", head);
	if (strstr(text, "BEGIN OPENSSH PRIVATE KEY")) {
		rc = ssh_sign(d, key_path, msg);
	} else {
		BIO *bio = BIO_new_mem_buf(text, (int)len);
		EVP_PKEY *pkey = bio ? PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL) : NULL;
		BIO_free(bio);
		if (!pkey || EVP_PKEY_id(pkey) != EVP_PKEY_ED25519)
			rc = err_set(FERRY_ECORRUPT, _("%s: audit.sign_key is neither an ed25519 PEM private key nor an OpenSSH key"),
			             key_path);
		else
			rc = ed25519_sign(d, key_path, pkey, msg);
		EVP_PKEY_free(pkey);
	}
	if (!rc) {
		rc = audit_append(NULL, s, "signature", actor, d);
		d = NULL;
	}
out:
	cJSON_Delete(d);
	free(msg);
	free(text);
	free(key_path);
	return rc;
}

int sign_event(store *s, const char *kind, const char *actor, cJSON *data)
{
	int rc = store_begin(s);
	if (rc) {
		cJSON_Delete(data);
		return rc;
	}
	rc = audit_append(NULL, s, kind, actor, data);
	if (!rc)
		rc = sign_head_if_configured(s, actor);
	if (!rc)
		rc = store_commit(s);
	if (rc)
		store_rollback(s);
	return rc;
}

int sign_verify_events(cJSON *problems, cJSON **out, const cJSON *events, const char *const *hashes,
                       long long nhashes)
{
	*out = cJSON_CreateArray();
	const cJSON *ev;
	cJSON_ArrayForEach(ev, events) {
		const cJSON *d = cJSON_GetObjectItem(ev, "data");
		long long seq = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(ev, "seq"));
		long long signed_seq = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(d, "signed_seq"));
		const char *head = cJSON_GetStringValue(cJSON_GetObjectItem(d, "head"));
		const char *method = cJSON_GetStringValue(cJSON_GetObjectItem(d, "method"));
		const char *sig_text = cJSON_GetStringValue(cJSON_GetObjectItem(d, "signature"));
		char *signer = NULL, id[32];
		snprintf(id, sizeof id, "%lld", seq);
		int good = 0;
		const char *why = _("the signature does not match the head it claims");
		if (!head || !method || signed_seq <= 0 || signed_seq >= seq) {
			why = _("the event is malformed");
		} else if (signed_seq >= nhashes || !hashes[signed_seq] || strcmp(hashes[signed_seq], head) != 0) {
			why = _("the head it signs is not the chain's head at that event");
		} else {
			char *msg = anchor_text(head, signed_seq);
			if (strcmp(method, "ed25519") == 0)
				good = ed25519_check(&signer, d, msg);
			else if (strcmp(method, "ssh") == 0 && sig_text)
				good = ssh_check(&signer, sig_text, msg);
			else
				why = _("the signing method is unknown");
			free(msg);
		}
		if (!good)
			replay_problem(problems, "signature", "audit", id, "signature", "audit event %lld: signature: %s", seq,
			               why);
		cJSON *o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "seq", (double)seq);
		cJSON_AddNumberToObject(o, "signed_seq", (double)signed_seq);
		cJSON_AddStringToObject(o, "head", head ? head : "");
		cJSON_AddStringToObject(o, "method", method ? method : "");
		if (signer)
			cJSON_AddStringToObject(o, "signer", signer);
		else
			cJSON_AddNullToObject(o, "signer");
		cJSON_AddBoolToObject(o, "valid", good);
		cJSON_AddItemToArray(*out, o);
		free(signer);
	}
	return 0;
}
