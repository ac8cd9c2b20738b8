# funccount -I 100 over ten 50 ms naps: the intervals' counts of nap add
# up to the total, 10.  Rules and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" run funccount -A "$P:nap" -I 100 -- "./$C" 1000 50
intervals_add_up "$TMP/out" || { cat "$TMP/out"; fail "funccount -I: the intervals' naps do not add up to the 10"; }
exit 0
