/*
 * json — accessors over cJSON rows (the store's results and the documents built from
 * them) that tolerate a missing or mistyped field. Returned strings are borrowed from
 * the cJSON value and live as long as it does.
 */
#ifndef FERRY_JSON_H
#define FERRY_JSON_H

#include <cjson/cJSON.h>

/* o[key] as a string, or "" when absent or not a string. */
const char *json_str(const cJSON *o, const char *key);
/* o[key] as an integer, or 0. */
long long json_int(const cJSON *o, const char *key);
/* o[key] as a number, or 0. */
double json_num(const cJSON *o, const char *key);

#endif
