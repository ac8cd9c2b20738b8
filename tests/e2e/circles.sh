# No circle between source files: no object of core/ or lua/ (found at any
# depth under $BUILD) uses, directly or through others, a file that uses it
# (tests/circles.py, from the objects' nm symbols); and core/ includes no
# Lua header.  The checker is tested first on objects made here: a pair of
# files calling each other must fail with both named, a one-way pair pass.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
command -v nm >/dev/null || skip "no nm"
CHECK=$ROOT/tests/circles.py

# lua_includes DIR: the files under DIR that include a Lua header.
lua_includes() {
	grep -rlE '#[[:space:]]*include[[:space:]]*[<"]([^>"]*/)?(lua|lauxlib|lualib|luaconf)\.h[>"]' "$1"
}
mkdir -p "$TMP/inc"
printf '#include <stdio.h>\n#include "luaprof/trace.h"\n' > "$TMP/inc/plain.c"
printf '#include <stdio.h>\n# include <lua5.4/lauxlib.h>\n' > "$TMP/inc/uses_lua.c"
[ "$(lua_includes "$TMP/inc")" = "$TMP/inc/uses_lua.c" ] || fail "lua_includes does not find exactly uses_lua.c"
lua_in_core=$(lua_includes "$ROOT/core")
[ -z "$lua_in_core" ] || fail "core/ includes a Lua header: $lua_in_core"

# pair DIR CALLS_BACK: DIR/core/t/a.o calls b(), DIR/lua/x/y/b.o defines
# b() and, when CALLS_BACK is 1, calls a().
pair() {
	mkdir -p "$1/src" "$1/core/t" "$1/lua/x/y"
	printf 'int b(int);\nint a(int n);\nint a(int n) { return n ? b(n - 1) : 0; }\n' > "$1/src/a.c"
	if [ "$2" = 1 ]; then
		printf 'int a(int);\nint b(int n);\nint b(int n) { return n ? a(n - 1) : 1; }\n' > "$1/src/b.c"
	else
		printf 'int b(int n);\nint b(int n) { return n; }\n' > "$1/src/b.c"
	fi
	${CC:-cc} -c -o "$1/core/t/a.o" "$1/src/a.c" && ${CC:-cc} -c -o "$1/lua/x/y/b.o" "$1/src/b.c" ||
		fail "cannot compile the checker's test objects"
}
pair "$TMP/circle" 1
python3 "$CHECK" "$TMP/circle" > "$TMP/circle.out"; rc=$?
[ $rc = 1 ] || { cat "$TMP/circle.out"; fail "circles.py: exit $rc on a pair calling each other, not 1"; }
grep -q '^circle of 2 files: core/t/a.c lua/x/y/b.c$' "$TMP/circle.out" ||
	{ cat "$TMP/circle.out"; fail "circles.py: the circle a.c <-> b.c not named"; }
pair "$TMP/oneway" 0
python3 "$CHECK" "$TMP/oneway" > "$TMP/oneway.out"; rc=$?
[ $rc = 0 ] || { cat "$TMP/oneway.out"; fail "circles.py: exit $rc on a one-way pair, not 0"; }

python3 "$CHECK" --sources "$ROOT" "$BUILD"; rc=$?
[ $rc = 0 ] || fail "circles between source files (above), or no objects under $BUILD"
exit 0
