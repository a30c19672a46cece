/* export — see export.h. */
#include "export.h"
#include "audit.h"
#include "err.h"
#include "intl.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int record(workspace *ws, const char *anchor, const char *what, const char *key, const char *arg,
                  const char *repo, const char *base, const char *signed_by)
{
	cJSON *d = cJSON_CreateObject();
	cJSON_AddStringToObject(d, "anchor", anchor);
	cJSON_AddStringToObject(d, "what", what);
	cJSON_AddStringToObject(d, key, arg);
	if (repo)
		cJSON_AddStringToObject(d, "repo", repo);
	if (base)
		cJSON_AddStringToObject(d, "base", base);
	if (signed_by)
		cJSON_AddStringToObject(d, "signed_off_by", signed_by);
	return ws_event(ws, "export", d);
}

/* Patches written into the project would be taken for a change of it (a "manual edit"
 * checkpoint that ships in the next export), and into a git folder they would write into
 * the client's repository: both are refused before anything is written. */
static int check_patch_dest(workspace *ws, const char *dir)
{
	char *dest = util_resolve_dest(dir);
	int rc = 0;
	if (dest && util_path_under(dest, ws->root))
		rc = err_set(FERRY_EUSAGE, _("export patches %s: inside the project (%s); write them outside it, where they "
		                             "are not taken for a change of the project"),
		             dir, ws->root);
	else if (dest && (strstr(dest, "/.git/") || util_ends_with(dest, "/.git")))
		rc = err_set(FERRY_EUSAGE, _("export patches %s: inside a git repository's own folder; write them elsewhere"),
		             dir);
	free(dest);
	return rc;
}

int export_patches(char anchor[96], workspace *ws, const char *dir)
{
	anchor[0] = '\0';
	int guard = check_patch_dest(ws, dir);
	if (guard)
		return guard;
	char *signoff = store_config_get(ws->db, "export.signoff");
	int signed_off = signoff && strcmp(signoff, "true") == 0;
	free(signoff);
	int rc = history_export_patches(ws->hist, dir, signed_off ? ws->actor : NULL);
	if (!rc)
		rc = audit_anchor(anchor, ws->db);
	if (!rc) {
		/* the delivery carries the record's head: verify --head checks against it later */
		char *path = util_path_join(dir, "AUDIT-ANCHOR");
		char *text = xasprintf("Audit-Anchor: %s\nCheck the engagement record with: ferry verify --head %s\n", anchor,
		                       anchor);
		rc = util_write_atomic(path, text, strlen(text), 0644);
		free(path);
		free(text);
	}
	if (!rc)
		rc = record(ws, anchor, "patches", "dir", dir, NULL, NULL, signed_off ? ws->actor : NULL);
	return rc;
}

int export_branch(char anchor[96], workspace *ws, const char *name, const char *repo, const char *base)
{
	anchor[0] = '\0';
	int rc = history_export_branch(ws->hist, name, repo, base);
	if (!rc)
		rc = audit_anchor(anchor, ws->db);
	if (!rc)
		rc = record(ws, anchor, "branch", "branch", name, repo, base, NULL);
	return rc;
}
