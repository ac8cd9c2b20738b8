# No circle between source files: no object of core/ or lua/ (found at any
# depth under $BUILD) uses, directly or through others, a file that uses it
# (tests/circles.py, from the objects' nm symbols); no folder uses one the
# layer table (tests/layers.txt) does not list for it; and core/ includes
# no Lua header.  The checker is tested first on objects made here: a pair of
# files calling each other must fail with both named, a one-way pair pass.
# test: check
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

# The layers (tests/layers.txt): a folder uses only the folders listed
# for it, and no file includes another folder's private header.  Checked
# first on a copy of the tree's objects with one use added that the table
# forbids: core/format calling a function of core/live (a printer reaching
# into the live run), and a core/dwarf file including sym_int.h.
mkdir -p "$TMP/inject/core/format" "$TMP/inject/core/live" "$TMP/inject/src/core/dwarf"
printf 'int lp_live_injected(void);\nint fmt_injected(void);\nint fmt_injected(void) { return lp_live_injected(); }\n' > "$TMP/inject/src/f.c"
printf 'int lp_live_injected(void);\nint lp_live_injected(void) { return 1; }\n' > "$TMP/inject/src/l.c"
${CC:-cc} -c -o "$TMP/inject/core/format/injected.o" "$TMP/inject/src/f.c" &&
	${CC:-cc} -c -o "$TMP/inject/core/live/injected.o" "$TMP/inject/src/l.c" ||
	fail "cannot compile the layer check's test objects"
python3 "$CHECK" --layers "$ROOT/tests/layers.txt" "$TMP/inject" > "$TMP/inject.out"; rc=$?
[ $rc = 1 ] || { cat "$TMP/inject.out"; fail "circles.py --layers: exit $rc on core/format calling core/live, not 1"; }
grep -q '^layers: core/format uses core/live, which tests/layers.txt does not allow:$' "$TMP/inject.out" &&
	grep -q 'core/format/injected.c -> core/live/injected.c (lp_live_injected)' "$TMP/inject.out" ||
	{ cat "$TMP/inject.out"; fail "circles.py --layers: the use core/format -> core/live not named"; }
mkdir -p "$TMP/inject/src/core/dwarf"
printf '#include "sym/sym_int.h"\n' > "$TMP/inject/src/core/dwarf/injected.c"
mkdir -p "$TMP/inject/src/core/sym" && : > "$TMP/inject/src/core/sym/sym_int.h"
mkdir -p "$TMP/inject/core/dwarf" && cp "$TMP/inject/core/live/injected.o" "$TMP/inject/core/dwarf/injected.o"
python3 "$CHECK" --sources "$TMP/inject/src" --layers "$ROOT/tests/layers.txt" "$TMP/inject" > "$TMP/private.out"
grep -q '^layers: core/dwarf/injected.c includes sym/sym_int.h, private to core/sym' "$TMP/private.out" ||
	{ cat "$TMP/private.out"; fail "circles.py --layers: a private header included from another folder not named"; }

python3 "$CHECK" --sources "$ROOT" --layers "$ROOT/tests/layers.txt" "$BUILD"; rc=$?
[ $rc = 0 ] || fail "circles between source files, or uses the layers forbid (above), or no objects under $BUILD"
exit 0
