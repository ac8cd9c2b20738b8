# Every shipped Lua file (scripts/, lua/lib/, the test scripts) passes
# luacheck (Debian's lua-check, installed by make test-deps) with no
# warning, under .luacheckrc (Lua 5.4 and luaprof's globals).
. "$(dirname "$0")/lib.sh"
command -v luacheck >/dev/null || skip "luacheck is not installed (make test-deps installs lua-check as root)"
cd "$ROOT"
luacheck --no-color --codes scripts lua/lib > "$TMP/lc.txt" 2>&1 || { cat "$TMP/lc.txt"; fail "luacheck found problems"; }
tail -1 "$TMP/lc.txt"
grep -q '^Total: 0 warnings / 0 errors' "$TMP/lc.txt" || { cat "$TMP/lc.txt"; fail "luacheck warnings"; }
exit 0
