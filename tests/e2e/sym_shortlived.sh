# Forty 20 ms children run one after another: their samples are named (95%
# at least) although every child has exited before luaprof reads them.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/named.lua" -F 4000 -- "$PROGS/manykids" "$PROGS/spin" 40 20
read -r total named < <(awk '$1=="comm" && $2=="spin" {print $3, $5}' "$TMP/out")
[ -n "$total" ] && [ "$total" -gt 1000 ] || { cat "$TMP/out"; fail "only ${total:-0} samples of the children"; }
[ $((named * 100)) -ge $((total * 95)) ] || fail "only $named of $total child samples are named (< 95%)"
echo "children: $named of $total samples named"
