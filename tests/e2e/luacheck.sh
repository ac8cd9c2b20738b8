# Every Lua file of luaprof (scripts/, lua/lib/, lua/helpers/, the tests'
# Lua files under tests/) passes luacheck (Debian's lua-check, installed by
# make test-deps) with no warning, under .luacheckrc (Lua 5.4 and
# luaprof's globals; it leaves out only tests/e2e/lua/syntax_error.lua,
# which must not compile), and no Lua file is left out of the check.
# test: check
. "$(dirname "$0")/lib.sh"
command -v luacheck >/dev/null || skip "luacheck is not installed (make test-deps installs lua-check as root)"
cd "$ROOT"
luacheck --no-color --codes scripts lua tests > "$TMP/lc.txt" 2>&1 || { cat "$TMP/lc.txt"; fail "luacheck found problems"; }
tail -1 "$TMP/lc.txt"
grep -q '^Total: 0 warnings / 0 errors' "$TMP/lc.txt" || { cat "$TMP/lc.txt"; fail "luacheck warnings"; }
want=$(find . -name '*.lua' -not -path './tests/e2e/lua/syntax_error.lua' -not -path './.git/*' \
	-not -path './build*' | wc -l)
checked=$(sed -n 's/^Total: .* in \([0-9]*\) files$/\1/p' "$TMP/lc.txt")
[ "$checked" = "$want" ] || fail "luacheck checked $checked Lua files of the $want in the tree: add the directory"
exit 0
