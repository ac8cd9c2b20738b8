# funclatency attached with -p to ten 50 ms naps held at a gate until
# luaprof has attached (lib.sh's gated): all 10 calls, each at least 32 ms
# (the [32, 64) bucket or above).  Rules and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
gated "./$C" 0 50
attach_gated 0 "$LUAPROF" run funclatency -A "$P:nap" --unit=ms
n=$(sed -n 's/.*count: \([0-9]*\)$/\1/p' "$TMP/out")
[ "${n:-0}" = 10 ] || { cat "$TMP/out"; fail "funclatency -p: $n calls, expected 10"; }
none_under 32 "$TMP/out" || { cat "$TMP/out"; fail "funclatency -p: a 50 ms nap under 32 ms"; }
exit 0
