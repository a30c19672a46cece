/*
 * err — the error record and the exit-code table.
 *
 * Functions that can fail return 0 or a negative FERRY_E* code and, at the place
 * where the failure happened, fill the thread's error record with one line that
 * names the file or object and what is wrong (err_set). Callers that add context
 * use err_prefix. Only main.c prints the record (err_message) and exits, with
 * err_exit_code() mapping the code to DESIGN §7's exit codes.
 *
 * The record is thread-local and owned by this module; err_message() returns a
 * pointer valid until the next err_set/err_clear on the same thread.
 */
#ifndef FERRY_ERR_H
#define FERRY_ERR_H

enum {
	FERRY_OK = 0,
	FERRY_EUSAGE = -1,   /* bad arguments: exit 2 */
	FERRY_EIO = -2,      /* file system: exit 3 */
	FERRY_EDB = -3,      /* SQLite: exit 3 */
	FERRY_EGIT = -4,     /* libgit2: exit 3 */
	FERRY_ECORRUPT = -5, /* malformed input or workspace: exit 3 */
	FERRY_ENOTFOUND = -6,/* a named thing does not exist: exit 3 (2 for usage) */
	FERRY_EEXISTS = -7,  /* refused because it already exists: exit 3 */
	FERRY_EBUSY = -8,    /* workspace locked by another process: exit 3 */
	FERRY_EPLUGIN = -9,  /* plugin failed to load or run: exit 3 */
	FERRY_EREFUSED = -10,/* the operation is not allowed now (sign-off order...): exit 1 */
	FERRY_EFAIL = -11,   /* the command ran and reports failure (verify, --fail-on): exit 1 */
	FERRY_ENOMEM = -12,
	FERRY_ECANCEL = -13, /* the user cancelled */
};

/* The bytes the record holds, with the NUL: a copy of err_message() in a buffer of this
 * size is whole. Room for two of the longest paths (PATH_MAX) and what is said of them; a
 * longer message is cut on a whole UTF-8 character and ends with "…". */
#define ERR_MAX 16384

/* Sets the record to the formatted message and returns code (for `return err_set(...)`). */
int err_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prepends "context: " to the current message; returns the current code. */
int err_prefix(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Keeps the current message under another code; returns code. */
int err_recode(int code);
/* The current message ("" when none). Borrowed. */
const char *err_message(void);
/* The code of the last err_set (FERRY_OK when none). */
int err_code(void);
void err_clear(void);
/* DESIGN §7 exit code for an error code: 0, 1, 2 or 3. */
int err_exit_code(int code);

#endif
