# funccount -a (system-wide) counts the run's fc_one, fc_two and fc_three
# 1000/2000/3000 times exactly.  Rules and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" run funccount -A "$P:fc_*" -a -- "./$C"
[ "$(counts "$TMP/out")" = "$want" ] || { cat "$TMP/out"; fail "funccount -a: not 1000/2000/3000"; }
exit 0
