# funclatency OBJECT:nap --unit=ms: exactly 10 calls, none under 2 ms (a
# sleep never ends early) and in the [2, 4) bucket at least those the
# program timed under 4 ms (a wake-up may be late on a loaded machine);
# a run cut short says the call it left out.
# Rules and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" run funclatency --func="./$C:nap" --unit=ms -- "./$C" 10 2
check_naps "$TMP/out" funclatency
# cut short in the middle of a 200 ms nap (the naps follow each other,
# microseconds apart; the command ends by SIGTERM, 143): the call still
# running is said, on stderr
expect_status 143 "$LUAPROF" run funclatency --func="./$C:nap" --unit=ms --duration 0.6 -- "./$C" 10 200
expect_grep "^funclatency: not counted: 0 returns without an entry .*, 1 call still running at the end$" "$TMP/err"
exit 0
