/*
 * version — ferry's version, as `ferry version` prints it and reports and the
 * workbench name it. No code.
 */
#ifndef FERRY_VERSION_H
#define FERRY_VERSION_H

#define FERRY_VERSION "0.1.0"

#endif
