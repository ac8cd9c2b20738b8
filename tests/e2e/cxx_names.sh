# C++ names in top are perf report's (issue 24 #1): a template member and
# std::sort's instantiations, recorded by perf, read by both; top's rows
# (share and name) equal perf report's with its default demangling (no
# parameter lists), --demangle=none equals perf report --no-demangle,
# --demangle=full keeps the parameters, and script's text is perf script's.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"
[ -x "$PROGS/cxxsort" ] || skip "g++ is not installed: no C++ workload built"
cd "$TMP"
perf record -q -F 999 -g -o cx.data -- "$PROGS/cxxsort" 20 >/dev/null 2>&1 || fail "perf record failed"
# rows: "SHARE [.] NAME" from perf report (stdin) or top (stdin)
perf_top() { perf report -i cx.data --stdio --no-children --sort sym -q -g none "$@" 2>/dev/null |
	awk 'NF >= 3 {sub(/^ +/, ""); sub(/%  +/, "% "); print}'; }
our_top() { "$LUAPROF" run top -i cx.data --limit=1000 "$@" 2>&1 |
	awk '$1 ~ /%$/ {sub(/^ +/, ""); sub(/%  +[0-9]+  +/, "% "); print}'; }
sort_rows() { sort -k1,1nr -k2; }
perf_top | sort_rows > perf.rows
[ "$(wc -l < perf.rows)" -ge 2 ] || fail "perf report printed no rows"
grep -q 'fxns::Worker<long>::run$' perf.rows || { cat perf.rows; fail "perf names the template member otherwise"; }
our_top | sort_rows > our.rows
diff perf.rows our.rows > d.out || { cat d.out; fail "top's rows differ from perf report's"; }
perf_top --no-demangle | sort_rows > perf.raw
our_top --demangle=none | sort_rows > our.raw
diff perf.raw our.raw > d.out || { cat d.out; fail "top --demangle=none differs from perf report --no-demangle"; }
our_top --demangle=full | grep -q 'fxns::Worker<long>::run(long)$' || fail "top --demangle=full leaves the parameters out"
perf script -i cx.data > perf.script 2>/dev/null
"$LUAPROF" run script -i cx.data > our.script 2>&1
cmp -s perf.script our.script || { diff perf.script our.script | head; fail "script differs from perf script"; }
echo "top: $(wc -l < our.rows) rows as perf report's; script as perf script's"
