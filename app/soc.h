/*
 * soc — the Ascend SoC names a plan may target (target.soc), as plugins/data/soc_names.json
 * declares their forms (embedded, with their sources): the names ATC's --soc_version
 * takes. The table is read once, on first use, and kept for the life of the process.
 */
#ifndef FERRY_SOC_H
#define FERRY_SOC_H

/* 0 when name is an Ascend SoC name of a known form; else FERRY_EUSAGE with one line
 * naming what (key and name, e.g. "config target.soc Ascend999") and the forms taken, or,
 * for a name missing only the Ascend prefix (910B2), the name it should be. */
int soc_name_check(const char *what, const char *name);

#endif
