# --call-graph dwarf through code that no CFI covers (tests/progs/other/
# nocfi.c: a hot assembly function shaped like crti.o's _fini, which CI
# once caught a sample in): luaprof's stacks are perf's, byte for byte in
# `script`, because luaprof steps out of such code as perf's libunwind
# does: a frame-pointer frame guessed when rbp lies within 16 KiB above
# the CFA so far, the CFA then moved on by 16 (so the caller's frames may
# repeat or end in garbage, as perf's do), and the walk ended at an
# address in no object, or in an object without .eh_frame
# (docs/perf-differences.md).  Two cases: the caller keeps a frame
# pointer (the guess skips it, and the next frame is read 16 bytes off),
# and it does not (rbp is no frame pointer: the walk ends).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
cc -O2 -g -o nocfi "$ROOT/tests/progs/other/nocfi.c" || fail "cannot build nocfi.c"
for mode in fp plain; do
	arg=; [ $mode = plain ] && arg=-0
	perf record -q --call-graph dwarf -F 999 -o $mode.data -- ./nocfi 20000000 $arg >/dev/null 2>&1 ||
		fail "perf record --call-graph dwarf ./nocfi failed"
	perf script -i $mode.data > $mode.perf 2>/dev/null || fail "perf script -i $mode.data failed"
	n=$(grep -c ' spin+0x4 ' $mode.perf)
	[ "$n" -ge 50 ] || fail "$mode: only $n samples in spin"
	"$LUAPROF" run script -i $mode.data > $mode.ours 2>err || { cat err; fail "script -i $mode.data failed"; }
	python3 "$ROOT/tests/e2e/perfstacks.py" script $mode.perf $mode.ours > $mode.diff ||
		{ head -30 $mode.diff; fail "$mode: script differs from perf script"; }
	deep=$(awk '/spin\+0x4/ { getline; getline; if ($0 ~ /^\t/) d++ } END { print d + 0 }' $mode.perf)
	echo "$mode: $n samples in spin, as perf script ($deep with more than two frames)"
done
