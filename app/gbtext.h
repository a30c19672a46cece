/*
 * gbtext — log lines written in GB18030 (GBK's superset, the text encoding of hosts set
 * to a Chinese locale such as zh_CN.GBK), read as UTF-8. A run log or an ATC log from
 * such a host holds Chinese paths and messages in GBK between lines of ASCII and, where
 * some tool wrote UTF-8, lines of UTF-8: each line is decoded on its own. A line that is
 * valid UTF-8 stays as it is; one that is not, but is valid GB18030, is converted; one
 * that is neither stays as it is (shown later with U+FFFD in place of its bad bytes).
 *
 * A decoder holds an iconv descriptor, opened on the first line that needs it; it is
 * not shared between threads. Callers own what the functions return.
 */
#ifndef FERRY_GBTEXT_H
#define FERRY_GBTEXT_H

#include <stddef.h>

typedef struct gbtext gbtext;

gbtext *gbtext_new(void);
void gbtext_free(gbtext *g);

/* Room in bytes the UTF-8 form of a line of len bytes can need. */
#define GBTEXT_ROOM(len) ((len) * 2 + 4)

/* When s[0..len) is not valid UTF-8 but is valid GB18030, writes its UTF-8 form to out
 * (at least GBTEXT_ROOM(len) bytes, not NUL-terminated) and returns its length; returns 0
 * otherwise. cut says the line was cut short by its reader: a last character left
 * incomplete by the cut is dropped rather than taken as a sign of another encoding. */
size_t gbtext_line(gbtext *g, char *out, const char *s, size_t len, int cut);

/* text[0..len) with every line (ended by '\n') that gbtext_line converts converted:
 * a malloc'd, NUL-terminated copy of *outlen bytes, and the number of converted lines in
 * *lines; NULL when no line needed it. */
char *gbtext_lines(const char *text, size_t len, size_t *outlen, size_t *lines);

#endif
