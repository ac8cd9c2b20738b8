# funclatency -i on a recording of nap's uprobe and uretprobe: the same
# histogram as live (funcs_latency.sh).  Rules and helpers: lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" record -e "uprobe:$P:nap,uretprobe:$P:nap" -o lat.data -- "./$C" 10 2
expect_status 0 "$LUAPROF" run funclatency -A "$P:nap" --unit=ms -i lat.data
check_naps "$TMP/out" "funclatency -i"
exit 0
