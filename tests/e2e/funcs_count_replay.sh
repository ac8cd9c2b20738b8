# funccount -i on a recording of the three uprobes' samples counts fc_one,
# fc_two and fc_three 1000/2000/3000 times exactly.  Rules and helpers:
# lib_funcs.sh.
# test: check
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_funcs.sh"
expect_status 0 "$LUAPROF" record -e "uprobe:$P:fc_one,uprobe:$P:fc_two,uprobe:$P:fc_three" -o fc.data -- "./$C"
expect_status 0 "$LUAPROF" run funccount -A "$P:fc_*" -i fc.data
[ "$(counts "$TMP/out")" = "$want" ] || { cat "$TMP/out"; fail "funccount -i: not 1000/2000/3000"; }
exit 0
