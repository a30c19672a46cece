/*
 * text — UTF-8 measuring and cutting for the workbench and the command line's tables:
 * display widths from wcwidth, or the East Asian wide ranges when the locale is not
 * UTF-8 (so CJK text takes two columns and columns stay aligned), fitting a
 * string into a number of columns, and padding. No curses here; nothing kept.
 *
 * Invalid UTF-8 bytes and control characters count as one column each (they are
 * drawn as '?' by ui.c). Strings returned through **out belong to the caller.
 */
#ifndef FERRY_TEXT_H
#define FERRY_TEXT_H

#include <stddef.h>

/* Decodes one character at s (n bytes available): its code point in *cp (0xFFFD
 * for an invalid byte) and its display width in *width. Returns the bytes used (>= 1). */
size_t text_next(const char *s, size_t n, unsigned *cp, int *width);

/* Display width of the NUL-terminated string. */
int text_width(const char *s);

/* Bytes of s that fit into cols columns; *used receives their width (may be NULL). */
size_t text_fit(const char *s, int cols, int *used);

/* s cut to cols columns with "…" when it is longer, then padded with spaces to
 * exactly cols columns (right-aligned when right is non-zero). Caller frees. */
char *text_cell(const char *s, int cols, int right);

/* Byte offset where the next wrapped line starts when s is wrapped at cols
 * columns (breaking at a space when there is one); *len gets the bytes to draw. */
size_t text_wrap(const char *s, int cols, size_t *len);

#endif
