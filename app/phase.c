/* phase — see phase.h. */
#include "phase.h"
#include "embedded.h"
#include "intl.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <string.h>

static char *names[PHASE_MAX];
static int ports[PHASE_MAX]; /* its open findings are code a person ports */
static size_t nnames;
static char *joined; /* names joined by ", " */
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	const struct embedded_file *f = embedded_find("plugins/data/phases.json");
	cJSON *doc = f ? cJSON_ParseWithLength(f->data, f->len) : NULL;
	const cJSON *e;
	cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(doc, "entries")) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(e, "name");
		if (cJSON_IsString(name) && *name->valuestring && nnames < PHASE_MAX) {
			ports[nnames] = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(e, "ports_code"));
			names[nnames++] = xstrdup(name->valuestring);
		}
	}
	cJSON_Delete(doc);
	sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < nnames; i++)
		sbuf_addf(&b, "%s%s", i ? ", " : "", names[i]);
	joined = sbuf_detach(&b);
	sbuf_done(&b);
}

size_t phase_count(void)
{
	pthread_once(&once, load);
	return nnames;
}

const char *phase_name(size_t i)
{
	return i < phase_count() ? names[i] : NULL;
}

int phase_index(const char *name)
{
	for (size_t i = 0; name && i < phase_count(); i++)
		if (strcmp(names[i], name) == 0)
			return (int)i;
	return -1;
}

unsigned phase_bit(const char *name)
{
	int i = phase_index(name);
	return i >= 0 ? 1u << i : 0;
}

int phase_ports_code(const char *name)
{
	int i = phase_index(name);
	return i >= 0 && ports[i];
}

const char *phase_title(const char *name)
{
	return name && phase_index(name) >= 0 ? _(name) : name ? name : "";
}

const char *phase_list(void)
{
	pthread_once(&once, load);
	return joined;
}
