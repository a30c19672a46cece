/*
 * fuzz_acache — arbitrary bytes as a kept reading in .ferry/cache: acache_load hands back
 * bytes only for a whole entry whose header matches the copy and whose hash matches its
 * bytes; luacopy_load either refuses bytes or pushes exactly one value (never raising a
 * Lua error, e.g. for a NaN key), and what it pushed dumps and loads back (to as many
 * bytes: the order of a table's keys may change).
 * fuzz-modules: acache luacopy util err intl
 */
#include "acache.h"
#include "luacopy.h"
#include "util.h"

#include <lauxlib.h>
#include <lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int load_protected(lua_State *L)
{
	const char *bytes = lua_touserdata(L, 1);
	size_t len = (size_t)lua_tointeger(L, 2);
	lua_pushboolean(L, luacopy_load(L, bytes, len) == 0);
	return lua_toboolean(L, -1) ? 2 : 1;
}

static void check_luacopy(const uint8_t *data, size_t size)
{
	lua_State *L = luaL_newstate();
	lua_pushcfunction(L, load_protected);
	lua_pushlightuserdata(L, (void *)data);
	lua_pushinteger(L, (lua_Integer)size);
	if (lua_pcall(L, 2, LUA_MULTRET, 0) != LUA_OK)
		abort(); /* a Lua error escaped the loader */
	if (lua_toboolean(L, -1)) {
		/* stack: value, true */
		char *out = NULL, *why = NULL;
		size_t len = 0;
		if (luacopy_dump(L, 1, &out, &len, &why, NULL, NULL) != 0)
			abort();
		lua_settop(L, 0);
		if (luacopy_load(L, out, len) != 0)
			abort();
		char *again = NULL;
		size_t len2 = 0;
		if (luacopy_dump(L, 1, &again, &len2, &why, NULL, NULL) != 0 || len2 != len)
			abort();
		free(out);
		free(again);
	}
	lua_close(L);
}

static void check_entry(const uint8_t *data, size_t size)
{
	char path[] = "/tmp/fuzz_acache.XXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return;
	}
	close(fd);
	acache_key k = { .size = 0, .ino = 0, .mtime_ns = 0, .ctime_ns = 0 };
	snprintf(k.path, sizeof k.path, "%s", path);
	size_t len = 0;
	char *bytes = acache_load(&k, &len);
	if (bytes) {
		/* only a header naming size, inode and times 0 and the hash of what follows gets here */
		char sha[65];
		util_sha256_hex(sha, bytes, len);
		if (len > size || memcmp(data + size - len, bytes, len) != 0 || !memmem(data, size - len, sha, 64))
			abort();
		free(bytes);
	}
	unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_luacopy(data, size);
	check_entry(data, size);
	return 0;
}
