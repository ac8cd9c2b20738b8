# funclatency OBJECT:nap --unit=ms: exactly 10 calls, none under 2 ms (a
# sleep never ends early) and in the [2, 4) bucket at least those the
# program timed under 4 ms (a wake-up may be late on a loaded machine).
# Rules and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" run funclatency --func="./$C:nap" --unit=ms -- "./$C" 10 2
check_naps "$TMP/out" funclatency
exit 0
