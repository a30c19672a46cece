/*
 * pdfprint — an HTML page printed to PDF by headless Chromium, for `ferry report --format
 * pdf`. The browser is FERRY_CHROMIUM when set, else `chromium` or `chromium-browser` on
 * PATH; it runs with a fresh profile in a private temporary directory (removed after), no
 * network use is asked of it (the page has none), its own header and footer off (the
 * page's @page rules number the pages), and is stopped after PDFPRINT_TIMEOUT seconds.
 * The PDF's bytes are appended to a caller-owned sbuf; nothing else is kept.
 */
#ifndef FERRY_PDFPRINT_H
#define FERRY_PDFPRINT_H

#include "util.h"

#define PDFPRINT_TIMEOUT 180

/* Prints html (len bytes) into pdf. FERRY_ENOTFOUND when no Chromium is installed (one
 * line saying how to get one), FERRY_EIO when it fails or writes no PDF. */
int pdfprint(sbuf *pdf, const char *html, size_t len);

#endif
