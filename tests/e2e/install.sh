# make install PREFIX=...: the installed luaprof, run from another
# directory with no environment variable pointing at it, finds a shipped
# script by its bare name, luaprof's Lua library (require), lists its
# scripts, runs a one-liner (-x: its front end is an installed helper),
# and has its man page; make uninstall removes every file it put there.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
prefix=$TMP/prefix
# the plain build whatever $BUILD the suite runs with (make check-asan's
# sanitized objects are not for installing)
env -u BUILD make -s -C "$ROOT" install PREFIX="$prefix" > "$TMP/make.txt" 2>&1 || { cat "$TMP/make.txt"; fail "make install failed"; }
for f in bin/luaprof share/luaprof/scripts/top.lua share/luaprof/scripts/flamegraph.lua \
	 share/luaprof/lua/luaprof/map.lua share/luaprof/lua/luaprof/fmt.lua share/luaprof/helpers/profile.lua share/luaprof/helpers/oneliner.lua \
	 share/man/man1/luaprof.1; do
	[ -f "$prefix/$f" ] || fail "make install left out $f"
done
cmp -s "$ROOT/docs/luaprof.1" "$prefix/share/man/man1/luaprof.1" || fail "the installed man page is not docs/luaprof.1"
mkdir -p "$TMP/elsewhere"
cd "$TMP/elsewhere"
unset LUAPROF_PATH
export HOME=$TMP/home
top_by_name() {
	expect_status 0 "$prefix/bin/luaprof" run top --limit=3 -- "$PROGS/spin" 200
	expect_grep '^ +[0-9.]+% +[0-9]+  \[\.\] spin_' "$TMP/out"
}
# flamegraph needs luaprof.map, a module of the installed library, and the
# profile helper, which only the shipped scripts find.
flamegraph() {
	expect_status 0 "$prefix/bin/luaprof" run flamegraph --out=f.svg -- "$PROGS/spin" 100
	grep -q '<svg' f.svg || fail "the installed flamegraph script wrote no SVG"
}
list_scripts() {
	expect_status 0 "$prefix/bin/luaprof" list scripts
	expect_grep "^$prefix/share/luaprof/scripts:$" "$TMP/out"
	! grep -q "$ROOT/scripts" "$TMP/out" || fail "the installed luaprof lists the checkout's scripts"
}
require_path() {
	printf 'print(package.path)\n' > p.lua
	expect_status 0 "$prefix/bin/luaprof" run ./p.lua -- true
	expect_grep "$prefix/share/luaprof/lua/\?\.lua" "$TMP/out"
	! grep -q "$ROOT" "$TMP/out" || fail "the installed luaprof's require path names the checkout"
	! grep -q "helpers" "$TMP/out" || fail "a script of the user's has the shipped scripts' helpers on its require path"
}
oneliner() {
	expect_status 0 "$prefix/bin/luaprof" -x 'cpu-clock { count(comm) }' -- "$PROGS/spin" 100
	expect_grep '^@\[spin\]: [0-9]+$' "$TMP/out"
}
man_page() {
	command -v man >/dev/null || skip "man is not installed: the page not shown"
	MANPATH=$prefix/share/man man -P cat luaprof > man.txt 2>/dev/null
	grep -q 'luaprof list scripts' man.txt || fail "man luaprof does not show the page"
}
# make uninstall takes back every file make install put there (the last
# case: the others run the installed copy)
uninstall() {
	cd "$TMP"
	env -u BUILD make -s -C "$ROOT" uninstall PREFIX="$prefix" > "$TMP/make.txt" 2>&1 || { cat "$TMP/make.txt"; fail "make uninstall failed"; }
	left=$(find "$prefix" -type f | head -3)
	[ -z "$left" ] || fail "make uninstall left $left"
}

scenario "a shipped script by its bare name" top_by_name
scenario "flamegraph: the library and helpers" flamegraph
scenario "list scripts" list_scripts
scenario "the require path" require_path
scenario "a one-liner" oneliner
scenario "the man page" man_page
scenario "make uninstall" uninstall
scenarios_done
