/*
 * pyenc — Python source in the encoding it declares (PEP 263). A file that is not UTF-8
 * but names its encoding in a coding comment on its first or second line
 * (`# -*- coding: latin-1 -*-`) is read through iconv into UTF-8, so the checks see it as
 * Python does: pysrc's parser decodes any text that is not UTF-8 this way, and the plugin
 * host's prefilter does the same. Lines stay where they were; byte columns are those of
 * the UTF-8 text.
 *
 * Nothing here writes files: ferry does not edit such a file automatically (fix.c refuses
 * it), since an edit planned on the UTF-8 text does not apply to the file's own bytes.
 */
#ifndef FERRY_PYENC_H
#define FERRY_PYENC_H

#include <stddef.h>

/* When text (len bytes) is not valid UTF-8 and declares an encoding, sets *out to a
 * malloc'd, NUL-terminated UTF-8 copy of *outlen bytes and encoding to the declared name
 * and returns 1. Returns 0 (nothing set) when there is nothing to decode: the text is
 * UTF-8 or declares no encoding. Returns FERRY_ECORRUPT naming path when the declared
 * encoding is unknown or the bytes are not in it. */
int pyenc_decode(char **out, size_t *outlen, char encoding[32], const char *path, const char *text, size_t len);

#endif
