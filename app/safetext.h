/*
 * safetext — makes untrusted text safe to keep and to show: strings a plugin hands over
 * (invalid UTF-8 repaired, control characters made visible) and text printed to a
 * terminal (control characters escaped so a message or a client's file name cannot
 * drive the terminal).
 *
 * Every function returns or appends new text; the caller owns what is returned and
 * frees it with free(). Inputs are never modified.
 */
#ifndef FERRY_SAFETEXT_H
#define FERRY_SAFETEXT_H

#include "util.h"

#include <stddef.h>

/* s[0..len) as valid UTF-8: each invalid sequence (and NUL) becomes U+FFFD, and control
 * characters other than tab and newline (C0, DEL, C1) are written as visible escapes
 * (\x1b, \x7f, \u0085). Returns malloc'd text. */
char *safetext_clean(const char *s, size_t len);

/* Appends s to b for a terminal: control characters other than tab and newline (C0,
 * ESC, DEL, C1) and bytes of invalid UTF-8 are written as visible escapes. */
void safetext_add_terminal(sbuf *b, const char *s);

/* s escaped as safetext_add_terminal does, malloc'd. */
char *safetext_terminal(const char *s);

/* Longest a quote spanning lines is kept inside a one-line message, in bytes. */
#define SAFETEXT_QUOTE_MAX 60

/* s as a quote inside a one-line message (code or a log excerpt a finding names). Text on
 * one line is returned as it is. Text spanning lines gets each line break, with the blanks
 * around it, as one space (none after an opening bracket, or before a closing one, a dot or a comma); longer than
 * SAFETEXT_QUOTE_MAX bytes after that, a call (`Model(...)`) becomes its callee with
 * "(…)", and anything else is cut at a character boundary with "…". Returns malloc'd text. */
char *safetext_quote_line(const char *s);

#endif
