/* luacopy: plain Lua values as bytes and back (see luacopy.h).
 *
 * Format: one tag byte per value, then its payload:
 *   'n' nil   'f' false   't' true
 *   'i' lua_Integer (native bytes)   'd' lua_Number (native bytes)
 *   's' uint32 length, then the bytes
 *   '{' a new table (numbered 1, 2, ... in order of appearance), then key-value pairs,
 *       then '}'
 *   'r' uint32 number of a table seen before */
#include "luacopy.h"
#include "util.h"

#include <lauxlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LUACOPY_DEPTH 200 /* nested tables; deeper is refused */

typedef struct dumper {
	lua_State *L;
	char *buf;
	size_t len, cap;
	const void **seen; /* tables in order of appearance (open addressing on the pointer) */
	uint32_t *seen_no;
	size_t seen_cap, nseen;
	char *why;
	luacopy_string_fn on_string;
	void *payload;
} dumper;

static void put(dumper *d, const void *p, size_t n)
{
	if (d->len + n > d->cap) {
		d->cap = d->cap ? d->cap * 2 : 256;
		while (d->cap < d->len + n)
			d->cap *= 2;
		d->buf = xrealloc(d->buf, d->cap);
	}
	memcpy(d->buf + d->len, p, n);
	d->len += n;
}

static void put_tag(dumper *d, char tag)
{
	put(d, &tag, 1);
}

static size_t slot_of(const dumper *d, const void *t)
{
	uintptr_t h = (uintptr_t)t;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ULL;
	return (size_t)(h >> 7) & (d->seen_cap - 1);
}

/* The number of table t when seen before, else 0 after numbering it. */
static uint32_t seen_before(dumper *d, const void *t)
{
	if (2 * (d->nseen + 1) > d->seen_cap) {
		size_t old = d->seen_cap;
		const void **ov = d->seen;
		uint32_t *on = d->seen_no;
		d->seen_cap = old ? old * 2 : 64;
		d->seen = xcalloc(d->seen_cap, sizeof *d->seen);
		d->seen_no = xcalloc(d->seen_cap, sizeof *d->seen_no);
		for (size_t i = 0; i < old; i++)
			if (ov[i]) {
				size_t s = slot_of(d, ov[i]);
				while (d->seen[s])
					s = (s + 1) & (d->seen_cap - 1);
				d->seen[s] = ov[i];
				d->seen_no[s] = on[i];
			}
		free(ov);
		free(on);
	}
	size_t s = slot_of(d, t);
	while (d->seen[s]) {
		if (d->seen[s] == t)
			return d->seen_no[s];
		s = (s + 1) & (d->seen_cap - 1);
	}
	d->seen[s] = t;
	d->seen_no[s] = (uint32_t)++d->nseen;
	return 0;
}

static int refuse(dumper *d, const char *what)
{
	if (!d->why)
		d->why = xstrdup(what);
	return -1;
}

static int dump_value(dumper *d, int idx, int depth, int is_key);

static int dump_table(dumper *d, int idx, int depth)
{
	lua_State *L = d->L;
	if (depth > LUACOPY_DEPTH)
		return refuse(d, "tables nested too deeply");
	if (lua_getmetatable(L, idx)) {
		lua_pop(L, 1);
		return refuse(d, "a table with a metatable");
	}
	uint32_t no = seen_before(d, lua_topointer(L, idx));
	if (no) {
		put_tag(d, 'r');
		put(d, &no, sizeof no);
		return 0;
	}
	if (!lua_checkstack(L, 3))
		return refuse(d, "tables nested too deeply");
	put_tag(d, '{');
	lua_pushnil(L);
	while (lua_next(L, idx)) {
		int top = lua_gettop(L);
		if (dump_value(d, top - 1, depth + 1, 1) || dump_value(d, top, depth + 1, 0)) {
			lua_pop(L, 2);
			return -1;
		}
		lua_pop(L, 1);
	}
	put_tag(d, '}');
	return 0;
}

static int dump_value(dumper *d, int idx, int depth, int is_key)
{
	lua_State *L = d->L;
	switch (lua_type(L, idx)) {
	case LUA_TNIL:
		put_tag(d, 'n');
		return 0;
	case LUA_TBOOLEAN:
		put_tag(d, lua_toboolean(L, idx) ? 't' : 'f');
		return 0;
	case LUA_TNUMBER:
		if (lua_isinteger(L, idx)) {
			lua_Integer v = lua_tointeger(L, idx);
			put_tag(d, 'i');
			put(d, &v, sizeof v);
		} else {
			lua_Number v = lua_tonumber(L, idx);
			put_tag(d, 'd');
			put(d, &v, sizeof v);
		}
		return 0;
	case LUA_TSTRING: {
		size_t n;
		const char *s = lua_tolstring(L, idx, &n);
		if (n > UINT32_MAX)
			return refuse(d, "a string over 4 GiB");
		uint32_t n32 = (uint32_t)n;
		put_tag(d, 's');
		put(d, &n32, sizeof n32);
		put(d, s, n);
		if (d->on_string)
			d->on_string(s, n, d->payload);
		return 0;
	}
	case LUA_TTABLE:
		if (is_key)
			return refuse(d, "a table used as a key");
		return dump_table(d, idx, depth);
	default: {
		char what[64];
		snprintf(what, sizeof what, "a %s", lua_typename(L, lua_type(L, idx)));
		return refuse(d, what);
	}
	}
}

int luacopy_dump(lua_State *L, int idx, char **out, size_t *len, char **why, luacopy_string_fn on_string,
                 void *payload)
{
	dumper d = {.L = L, .on_string = on_string, .payload = payload};
	idx = lua_absindex(L, idx);
	*out = NULL;
	*len = 0;
	*why = NULL;
	int rc = dump_value(&d, idx, 0, 0);
	free(d.seen);
	free(d.seen_no);
	if (rc) {
		free(d.buf);
		*why = d.why;
		return -1;
	}
	*out = d.buf ? d.buf : xstrdup("");
	*len = d.len;
	return 0;
}

/* ---- load ---------------------------------------------------------------------------- */

typedef struct loader {
	lua_State *L;
	const char *p, *end;
	int tables;          /* stack index of the table of the tables made so far */
	lua_Integer ntables;
} loader;

static int take(loader *l, void *to, size_t n)
{
	if ((size_t)(l->end - l->p) < n)
		return -1;
	memcpy(to, l->p, n);
	l->p += n;
	return 0;
}

/* Pushes the next value; -1 (nothing pushed) on bad bytes. */
static int load_value(loader *l, int depth)
{
	lua_State *L = l->L;
	char tag;
	if (depth > LUACOPY_DEPTH + 1 || take(l, &tag, 1) || !lua_checkstack(L, 4))
		return -1;
	switch (tag) {
	case 'n':
		lua_pushnil(L);
		return 0;
	case 'f':
	case 't':
		lua_pushboolean(L, tag == 't');
		return 0;
	case 'i': {
		lua_Integer v;
		if (take(l, &v, sizeof v))
			return -1;
		lua_pushinteger(L, v);
		return 0;
	}
	case 'd': {
		lua_Number v;
		if (take(l, &v, sizeof v))
			return -1;
		lua_pushnumber(L, v);
		return 0;
	}
	case 's': {
		uint32_t n;
		if (take(l, &n, sizeof n) || (size_t)(l->end - l->p) < n)
			return -1;
		lua_pushlstring(L, l->p, n);
		l->p += n;
		return 0;
	}
	case 'r': {
		uint32_t no;
		if (take(l, &no, sizeof no) || no == 0 || no > l->ntables)
			return -1;
		lua_rawgeti(L, l->tables, no);
		return 0;
	}
	case '{':
		lua_newtable(L);
		lua_pushvalue(L, -1);
		lua_rawseti(L, l->tables, ++l->ntables);
		for (;;) {
			if (l->p < l->end && *l->p == '}') {
				l->p++;
				return 0;
			}
			if (load_value(l, depth + 1))
				break;
			/* nil and NaN are no keys (lua_rawset would raise an error), nor are tables
			 * (luacopy_dump never writes one) */
			int t = lua_type(L, -1);
			if (t == LUA_TNIL || t == LUA_TTABLE || (t == LUA_TNUMBER && lua_tonumber(L, -1) != lua_tonumber(L, -1)) ||
			    load_value(l, depth + 1)) {
				lua_pop(L, 1);
				break;
			}
			lua_rawset(L, -3);
		}
		lua_pop(L, 1);
		return -1;
	default:
		return -1;
	}
}

int luacopy_load(lua_State *L, const char *bytes, size_t len)
{
	lua_newtable(L);
	loader l = {.L = L, .p = bytes, .end = bytes + len, .tables = lua_gettop(L)};
	if (load_value(&l, 0) || l.p != l.end) {
		lua_settop(L, l.tables - 1);
		return -1;
	}
	lua_remove(L, l.tables);
	return 0;
}
