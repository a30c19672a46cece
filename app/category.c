/* category — see category.h. */
#include "category.h"
#include "embedded.h"
#include "intl.h"
#include "util.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static category_info *table;
static size_t ntable;
static service_info *services;
static size_t nservices;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Parses the embedded table; a table that does not parse (a build error, caught by the
 * fact-table tests) leaves no categories. */
static void load(void)
{
	const struct embedded_file *f = embedded_find("plugins/data/categories.json");
	cJSON *doc = f ? cJSON_ParseWithLength(f->data, f->len) : NULL;
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(doc, "categories"), *c;
	table = xcalloc((size_t)cJSON_GetArraySize(list) + 1, sizeof *table);
	cJSON_ArrayForEach(c, list) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(c, "weight_days");
		if (!cJSON_IsString(name) || !cJSON_IsNumber(w))
			continue;
		const cJSON *title = cJSON_GetObjectItemCaseSensitive(c, "title");
		const cJSON *svc = cJSON_GetObjectItemCaseSensitive(c, "service");
		table[ntable++] = (category_info){ xstrdup(name->valuestring),
			                               xstrdup(cJSON_IsString(title) ? title->valuestring : name->valuestring),
			                               w->valuedouble,
			                               cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "auto_conflict")),
			                               cJSON_IsString(svc) ? xstrdup(svc->valuestring) : NULL };
	}
	const cJSON *slist = cJSON_GetObjectItemCaseSensitive(doc, "services");
	services = xcalloc((size_t)cJSON_GetArraySize(slist) + 1, sizeof *services);
	cJSON_ArrayForEach(c, slist) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
		const cJSON *title = cJSON_GetObjectItemCaseSensitive(c, "title");
		if (cJSON_IsString(name))
			services[nservices++] = (service_info){ xstrdup(name->valuestring),
				                                    xstrdup(cJSON_IsString(title) ? title->valuestring : name->valuestring) };
	}
	cJSON_Delete(doc);
}

const category_info *category_all(size_t *n)
{
	pthread_once(&once, load);
	*n = ntable;
	return table;
}

const category_info *category_find(const char *name)
{
	size_t n;
	const category_info *all = category_all(&n);
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(all[i].name, name) == 0)
			return &all[i];
	return NULL;
}

const char *category_title(const char *name)
{
	const category_info *c = category_find(name);
	return c ? intl_text(NULL, c->title) : name ? name : "";
}

const service_info *service_all(size_t *n)
{
	pthread_once(&once, load);
	*n = nservices;
	return services;
}

const service_info *service_find(const char *name)
{
	size_t n;
	const service_info *all = service_all(&n);
	for (size_t i = 0; name && i < n; i++)
		if (strcmp(all[i].name, name) == 0)
			return &all[i];
	return NULL;
}

const char *category_service(const char *name)
{
	size_t n;
	const service_info *all = service_all(&n);
	const category_info *c = category_find(name);
	if (c && c->service && service_find(c->service))
		return c->service;
	return n ? all[0].name : "";
}

const char *service_title(const char *name)
{
	const service_info *s = service_find(name);
	return s ? intl_text(NULL, s->title) : name ? name : "";
}
