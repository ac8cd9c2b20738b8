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
# The loop's instructions, as spin+0xN: the dec and the jne, after the sub
# (where the unwinder finds rsp moved by 8 and no CFI).  Which of them the
# samples land on is the CPU's skid's (+0x4 on one CPU, +0x7 on another).
loop= base= in_loop=0
while read -r addr insn _; do
	addr=$((16#${addr%:}))
	[ -z "$base" ] && base=$addr
	case $insn in
	sub) in_loop=1 ;;
	add) break ;;
	*) [ $in_loop = 1 ] && loop+=$(printf 'spin+0x%x ' $((addr - base))) ;;
	esac
done < <(objdump -d --no-show-raw-insn nocfi | sed -n '/<spin>:/,/^$/p' | sed '1d;/^$/d')
[ -n "$loop" ] || fail "cannot find spin's loop in objdump -d nocfi"
for mode in fp plain; do
	arg=; [ $mode = plain ] && arg=-0
	perf record -q --call-graph dwarf -F 999 -o $mode.data -- ./nocfi 20000000 $arg >/dev/null 2>&1 ||
		fail "perf record --call-graph dwarf ./nocfi failed"
	# script's text, perf's and luaprof's (compared below).  A garbage frame
	# in anonymous memory is named from /tmp/perf-PID.map when there is
	# one, by each as it was when it ran: a JIT test running beside this
	# one may make one for a pid the kernel gave nocfi before (as in a
	# run that failed so); then both are read again.
	pid=$(perf script -i $mode.data -F pid 2>/dev/null | awk 'NR == 1 {print $1}')
	for try in 1 2 3; do
		perf script -i $mode.data > $mode.perf 2>/dev/null || fail "perf script -i $mode.data failed"
		"$LUAPROF" run script -i $mode.data > $mode.ours 2>err || { cat err; fail "script -i $mode.data failed"; }
		cmp -s $mode.perf $mode.ours || ! grep -qs "/tmp/perf-$pid\.map" $mode.perf $mode.ours && break
		echo "try $try: a perf map of pid $pid came or went between the two"
		sleep 1
	done
	# the hottest place in spin, which must be one of the loop's
	hot=$(grep -o ' spin+0x[0-9a-f]* ' $mode.perf | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	n=$(grep -c " $hot " $mode.perf)
	case " $loop" in *" $hot "*) ;; *) fail "$mode: the hottest place in spin is '$hot' ($n samples), not in its loop ($loop)" ;; esac
	[ "$n" -ge 50 ] || fail "$mode: only $n samples at $hot"
	python3 "$ROOT/tests/e2e/perfstacks.py" script $mode.perf $mode.ours > $mode.diff ||
		{ head -30 $mode.diff; fail "$mode: script differs from perf script"; }
	deep=$(awk -v hot="$hot" 'index($0, " " hot " ") { getline; getline; if ($0 ~ /^\t/) d++ } END { print d + 0 }' $mode.perf)
	echo "$mode: $n samples at $hot, as perf script ($deep with more than two frames)"
done
