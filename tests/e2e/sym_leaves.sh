# Two leaf functions with work in a 2:1 ratio: named, in that ratio, with the
# full caller chain under -g, and the same two leaves top perf report.
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/leaves.lua" -F 2000 -- "$PROGS/leafs" 200
cat "$TMP/out"
expect_status 0 "$LUAPROF" run "$CHECKS/leaves.lua" -F 2000 -g -- "$PROGS/leafs" 200
expect_grep 'stacks [1-9][0-9]+ bad [0-9]+' "$TMP/out"
cat "$TMP/out"
expect_status 0 "$LUAPROF" run "$ROOT/scripts/top.lua" -A 2 -F 2000 -- "$PROGS/leafs" 200
ours=$(awk '$1 ~ /%$/ {print $4}' "$TMP/out" | tr '\n' ' ')
[ "$ours" = "leaf_a leaf_b " ] || fail "top.lua's top two are '$ours', expected 'leaf_a leaf_b'"
command -v perf >/dev/null || skip "perf is not installed: the comparison with perf report was not made"
perf record -q -F 2000 -o "$TMP/perf.data" -- "$PROGS/leafs" 200 >/dev/null 2>&1 || fail "perf record failed"
theirs=$(perf report -i "$TMP/perf.data" --no-children --sort sym --stdio -q 2>/dev/null |
	awk '$1 ~ /%$/ {print $3}' | head -2 | tr '\n' ' ')
[ "$theirs" = "$ours" ] || fail "perf report's top two are '$theirs', luaprof's '$ours'"
