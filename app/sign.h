/*
 * sign — optional signatures over the audit head (ferry config audit.sign_key PATH).
 *
 * A signature covers the anchor text "ferry-audit HASH:N\n" (the chain head after event N)
 * and is itself recorded in the chain as a "signature" event {method, signed_seq, head,
 * signer, signature, public_key?}. Two kinds of key: an ed25519 private key in PEM
 * (signed in-process with OpenSSL; the event carries the raw public key) and an OpenSSH
 * private key (signed by ssh-keygen -Y sign with namespace ferry-audit; the signature
 * carries its public key). The signer is named by the key's SHA256 fingerprint.
 * Everything returned through **out belongs to the caller (cJSON_Delete).
 */
#ifndef FERRY_SIGN_H
#define FERRY_SIGN_H

#include "store.h"

#include <cjson/cJSON.h>

/* When the engagement has audit.sign_key, signs the current head with it and appends the
 * signature event (inside the caller's transaction). No key configured: does nothing.
 * A key that cannot be read or used fails naming the key file. */
int sign_head_if_configured(store *s, const char *actor);

/* Appends event kind (data consumed) and, with a key configured, the signature of the
 * head it makes, in one transaction of its own. */
int sign_event(store *s, const char *kind, const char *actor, cJSON *data);

/* Checks each signature event (parsed events, chain order) against the chain's hashes
 * (hashes[seq], nhashes entries, NULL where absent). Appends a "signature" problem per
 * bad signature and sets *out to [{seq, signed_seq, head, method, signer, valid}]. */
int sign_verify_events(cJSON *problems, cJSON **out, const cJSON *events, const char *const *hashes,
                       long long nhashes);

#endif
