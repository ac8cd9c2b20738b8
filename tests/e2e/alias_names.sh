# One function with two names at one address (tests/progs/cxxalias: C++
# ns::f and its alias ab): luaprof names it as perf does.  perf keeps one
# of the symbols of one start (symbols__fixup_duplicate,
# choose_best_symbol) comparing the names as it stores them, demangled
# without parameters: ns::f, not ab.  script and top equal perf's.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
[ -x "$PROGS/cxxalias" ] || skip "no $PROGS/cxxalias (no C++ compiler when the suite was built)"
cd "$TMP"
perf record -q -F 999 -o alias.data -- "$PROGS/cxxalias" 300000000 >/dev/null 2>&1 || fail "perf record failed"
perf script -i alias.data > script.perf 2>/dev/null
grep -q ' ns::f+0x' script.perf || fail "perf does not name the function ns::f"
expect_status 0 "$LUAPROF" run script -i alias.data
diff script.perf "$TMP/out" > script.diff || { head script.diff; fail "script differs from perf script"; }
rows() { awk '$1 ~ /%$/ {$1 = $1; print}'; }
perf report -i alias.data --stdio --no-children --sort sym -n 2>/dev/null | rows > top.perf
expect_status 0 "$LUAPROF" run top --limit=1000 -i alias.data
rows < "$TMP/out" > top.ours
diff top.perf top.ours || fail "top differs from perf report"
echo "ns::f: $(grep -c ' ns::f+0x' script.perf) samples, named as perf"
