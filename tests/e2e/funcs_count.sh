# funccount OBJECT:fc_* counts fc_one, fc_two and fc_three 1000/2000/3000
# times exactly (counted in the kernel: nothing is lost), and not nap,
# which fc_* does not match.  Rules and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" run funccount --pattern="./$C:fc_*" -- "./$C"
[ "$(counts "$TMP/out")" = "$want" ] || { cat "$TMP/out"; fail "funccount: not 1000/2000/3000"; }
grep -q '^nap ' "$TMP/out" && fail "funccount counted nap, which fc_* does not match"
exit 0
