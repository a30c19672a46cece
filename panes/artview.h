/*
 * artview — an ingested artifact as text to read in the workbench's show view: a
 * profile as its top operators and types with their share of the time, the AI CPU
 * operators, communication and idle time, the steps the host held up and the ranks;
 * a bench as its hardware, metrics and batch-size sweep; any other text artifact as
 * its first 400 lines; a binary one as its size. Profiles are read whole, streaming
 * (app/profile.h), so a multi-GB one is summarised in bounded memory.
 *
 * The text is in the interface language; the caller frees it.
 */
#ifndef FERRY_ARTVIEW_H
#define FERRY_ARTVIEW_H

#include "model.h"

struct profile;
struct sbuf;

/* The artifact a as text into *out (caller frees). Returns 0, or an err.h code naming
 * the file when it cannot be read. */
int artview_text(char **out, model *m, const tui_artifact *a);

/* A profile's summary as lines, at most top operators and types. */
void artview_profile(struct sbuf *b, const struct profile *p, size_t top);

#endif
