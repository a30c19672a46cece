/*
 * textscan — finds which of many literal strings occur in a text, in one pass.
 *
 * The prefilter of a check run asks, for every source file, which of a few hundred
 * trigger literals it contains; searching for each literal separately reads the file
 * hundreds of times. A textscan indexes the literals by their first two bytes and
 * reads the text once. Patterns are copied; a textscan is immutable after
 * textscan_new and may be shared by threads.
 */
#ifndef FERRY_TEXTSCAN_H
#define FERRY_TEXTSCAN_H

#include <stddef.h>

typedef struct textscan textscan;

/* Indexes pats[0..n); empty patterns never match. */
textscan *textscan_new(const char *const *pats, size_t n);
void textscan_free(textscan *ts);

/* Sets hits[i] to 1 for every pattern i found in text (hits has n entries, cleared by
 * the caller) and returns how many distinct patterns were found. */
size_t textscan_run(const textscan *ts, const char *text, size_t len, unsigned char *hits);

#endif
