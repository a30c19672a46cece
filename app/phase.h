/*
 * phase — the phases of an engagement, in order, as plugins/data/phases.json declares
 * them (embedded). Read once, on first use, and kept for the life of the process; the
 * names are borrowed and never freed by callers.
 *
 * Everything that lists or checks phases asks here: the record's phases table is filled
 * from this list (store.c), the plugin loader accepts a plugin folder or a `phase =` only
 * when it names one, and the command help, man page, completion, the workbench's rail and
 * palette list them from it. A table that does not parse is a build error, caught by the
 * fact-table tests; at run time it leaves no phases, and every phase name is refused.
 */
#ifndef FERRY_PHASE_H
#define FERRY_PHASE_H

#include <stddef.h>

#define PHASE_MAX 16 /* phases beyond this in the table are ignored */

/* How many phases there are. */
size_t phase_count(void);
/* The name of phase i ("assess"), or NULL when i is not a phase. */
const char *phase_name(size_t i);
/* The index of the phase called name, or -1 when name is not a phase. */
int phase_index(const char *name);
/* The phase called name as one bit of a set of phases (1 << its index), 0 when it is none. */
unsigned phase_bit(const char *name);
/* Whether the phase's open findings are code a person ports (`ports_code` in the table):
 * they alone make the unsupported list. */
int phase_ports_code(const char *name);
/* A phase as a reader calls it: its name in the current language (评估 for assess), the
 * workbench's word for it; an id no phase has stays as it is. For text a person reads;
 * identifiers (JSON, CSV, SARIF, command lines) keep phase_name. */
const char *phase_title(const char *name);
/* The phases' names in order, joined by ", " ("assess, design, …"), for messages. */
const char *phase_list(void);

#endif
