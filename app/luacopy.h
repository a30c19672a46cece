/* luacopy: a plain Lua value as bytes, and back, to hand a value worked out in one Lua
 * state to another (the plugins' shared analyses, ctx.shared).
 *
 * Plain values are nil, booleans, numbers, strings and tables whose keys are strings,
 * numbers or booleans and whose values are plain; a table reached twice is one table in
 * the copy too. Functions, userdata, threads and tables with a metatable are refused.
 * The bytes are ferry's own format, for the same process only. */
#ifndef FERRY_LUACOPY_H
#define FERRY_LUACOPY_H

#include <lua.h>
#include <stddef.h>

/* Called for every string the value holds (keys and values), while the value stays on
 * the stack: text is Lua's and stays valid until luacopy_dump returns. */
typedef void (*luacopy_string_fn)(const char *text, size_t len, void *payload);

/* The value at idx as bytes into *out (the caller frees it) and *len. Returns 0, or -1
 * with *why (the caller frees it) naming what could not be copied. Uses a few slots of
 * L's stack. on_string may be NULL. */
int luacopy_dump(lua_State *L, int idx, char **out, size_t *len, char **why, luacopy_string_fn on_string,
                 void *payload);

/* Pushes the value that bytes hold. Returns 0, or -1 (nothing pushed) when they are not
 * luacopy_dump's output. */
int luacopy_load(lua_State *L, const char *bytes, size_t len);

#endif
