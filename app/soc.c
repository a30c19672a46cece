/* soc — see soc.h. */
#include "soc.h"
#include "embedded.h"
#include "err.h"
#include "intl.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

struct soc_form {
	char *name; /* the family, "Ascend310P" */
	regex_t re; /* the whole name's form */
};

static struct soc_form *forms;
static size_t nforms;
static char *form_list; /* "Ascend310*, Ascend310P*, …" for the refusal */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Parses the embedded table; an entry whose pattern does not compile (a build error,
 * caught by the tests) is left out. */
static void load(void)
{
	const struct embedded_file *f = embedded_find("plugins/data/soc_names.json");
	cJSON *doc = f ? cJSON_ParseWithLength(f->data, f->len) : NULL;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "entries"), *e;
	forms = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *forms);
	sbuf names;
	sbuf_init(&names);
	cJSON_ArrayForEach(e, list) {
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "name"));
		const char *pattern = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "pattern"));
		struct soc_form *s = &forms[nforms];
		if (!name || !pattern || regcomp(&s->re, pattern, REG_EXTENDED | REG_NOSUB) != 0)
			continue;
		s->name = xstrdup(name);
		char *exact = xasprintf("^%s$", name);
		sbuf_addf(&names, "%s%s%s", nforms++ ? ", " : "", name, strcmp(pattern, exact) == 0 ? "" : "*");
		free(exact);
	}
	form_list = sbuf_detach(&names);
	cJSON_Delete(doc);
}

static int known_form(const char *name)
{
	for (size_t i = 0; i < nforms; i++)
		if (regexec(&forms[i].re, name, 0, NULL, 0) == 0)
			return 1;
	return 0;
}

int soc_name_check(const char *what, const char *name)
{
	pthread_once(&once, load);
	if (known_form(name))
		return 0;
	char *prefixed = xasprintf("Ascend%s", name);
	int missing_prefix = known_form(prefixed);
	int rc = missing_prefix
	             ? err_set(FERRY_EUSAGE, _("%s %s: an Ascend SoC name starts with Ascend, as ATC's --soc_version takes it: %s"),
	                       what, name, prefixed)
	             : err_set(FERRY_EUSAGE, _("%s %s: not an Ascend SoC name; the forms known are %s (npu-smi info's Name, prefixed with Ascend)"),
	                       what, name, form_list);
	free(prefixed);
	return rc;
}
