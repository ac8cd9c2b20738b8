# funclatency -a --per=thread: the same histogram as live
# (funcs_latency.sh), named for the run's thread.  Rules and helpers:
# lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" run funclatency -A "$P:nap" --unit=ms --per=thread -a -- "./$C" 10 2
check_naps "$TMP/out" "funclatency -a --per=thread"
grep -q "^Function = nap $C " "$TMP/out" || fail "funclatency --per=thread: no histogram named for the thread"
exit 0
