/*
 * category — the categories a finding may carry, as plugins/data/categories.json declares
 * them (embedded): each one's default effort weight, whether it argues against
 * automatic migration, and the service line of a quote its work belongs to (the table's
 * "services", 003 §2). Read once, on first use, and kept for the life of the process;
 * the entries are borrowed and never freed by callers.
 */
#ifndef FERRY_CATEGORY_H
#define FERRY_CATEGORY_H

#include <stddef.h>

typedef struct category_info {
	const char *name;     /* "custom_kernel" */
	const char *title;    /* "custom kernels": how a reader is shown it (English; category_title translates) */
	double weight_days;   /* person-days per open finding, by default */
	int auto_conflict;    /* 1: conflicts with automatic migration (transfer_to_npu) */
	const char *service;  /* the service line its work is quoted under ("adaptation") */
} category_info;

typedef struct service_info {
	const char *name;  /* "libraries" */
	const char *title; /* "third-party library adaptation" (English; service_title translates) */
} service_info;

/* The category named name, or NULL when categories.json does not list it. */
const category_info *category_find(const char *name);

/* Every category, in the table's order; *n is set to their number. */
const category_info *category_all(size_t *n);

/* The title of category name in the interface language (the plugins' catalog, where the
 * fact tables' prose is), or name itself when the table does not list it. */
const char *category_title(const char *name);

/* Every service line of a quote, in the table's order (the first, "survey", also takes
 * the base days); *n is set to their number. */
const service_info *service_all(size_t *n);

/* The service line named name, or NULL. */
const service_info *service_find(const char *name);

/* The service line a finding of category name is quoted under: its table entry's, else
 * the first line's (a category the table does not list weighs nothing anyway). */
const char *category_service(const char *name);

/* The title of service line name in the interface language, or name itself. */
const char *service_title(const char *name);

#endif
