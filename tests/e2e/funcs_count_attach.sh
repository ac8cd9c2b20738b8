# funccount attached with -p to a run of ten 50 ms naps held at a gate
# until luaprof has attached (lib.sh's gated) counts all 10 naps.  Rules
# and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
gated "./$C" 0 50
attach_gated 0 "$LUAPROF" run funccount -A "$P:nap"
n=$(count_of nap "$TMP/out")
[ "${n:-0}" = 10 ] || { cat "$TMP/out"; fail "funccount -p: $n naps, expected 10"; }
exit 0
