# Debian's xz (xz-utils: xz and liblzma, built without frame pointers)
# compressing 1.3 MB of text (seq's) at -6 for about a second, recorded
# by perf with -g and with --call-graph dwarf: luaprof's top,
# top --children, script and folded stacks of each file equal perf's of
# the same file, exactly (lib_real.sh).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
command -v xz >/dev/null || skip "xz is not installed (Debian's xz-utils)"
cd "$TMP"
seq 1 200000 > in.txt
perf record -q -g -F 999 -o fp.data -- xz -6 -T1 -c in.txt > fp.xz 2>perr || fail "perf record -g xz failed: $(head -2 perr)"
xz -dc fp.xz | cmp -s - in.txt || fail "xz under perf record did not compress in.txt"
real_compare fp.data
grep -q 'liblzma' fp.script.perf || fail "fp.data: no frame in liblzma in perf script"
perf record -q --call-graph dwarf -F 499 -o dwarf.data -- xz -6 -T1 -c in.txt > dwarf.xz 2>perr ||
	fail "perf record --call-graph dwarf xz failed: $(head -2 perr)"
real_compare dwarf.data
real_verdict
