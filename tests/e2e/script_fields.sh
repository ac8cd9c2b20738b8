# luaprof run script --fields=LIST is perf script -F LIST for the fields
# luaprof has (comm, pid, tid, cpu, time, period, event, trace, ip, sym,
# symoff, dso, srcline): a list in any order, or +F,-G changes to the
# default; byte for byte perf script's text on the same recordings (a
# --call-graph dwarf one, with inlined frames and their source lines, and
# a -g one; a -g one of callers whose return address begins a new line,
# which perf looks up at that address).  What perf refuses, luaprof refuses in one line (exit 255): a
# field it does not know, symoff without sym, srcline without ip, a list
# mixing fields and changes; cpu where the samples have none.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
cc -O2 -g -o chain "$ROOT/tests/progs/chain.c" || fail "cannot build chain"
perf record -q --call-graph dwarf -F 499 -o dwarf.data -- ./chain qsort 1 >/dev/null 2>&1 || fail "perf record --call-graph dwarf failed"
perf record -q -g -F 499 -o fp.data -- ./chain qsort 1 >/dev/null 2>&1 || fail "perf record -g failed"
for f in dwarf.data fp.data; do
	for fields in comm,tid,time,event,ip,sym,dso ip,sym,symoff,dso,srcline event,time,tid,comm \
		comm,pid,tid,time,period ip comm,sym +pid,+srcline -ip,-dso -sym,-symoff,+pid; do
		perf script -i $f -F $fields > theirs 2>/dev/null || fail "perf script -F $fields failed"
		"$LUAPROF" run script --fields=$fields -i $f > ours 2>err || { cat err; fail "--fields=$fields failed"; }
		cmp -s theirs ours || { diff theirs ours | head; fail "$f: --fields=$fields differs from perf script -F $fields"; }
		cat theirs >> "$f.all"
	done
	echo "$f: 9 field lists as perf script -F ($(grep -c '^$' ours) samples)"
done
grep -q '(inlined)$' dwarf.data.all || fail "no inlined frame in perf's text: nothing was compared of them"
# frame pointers, callers whose return address begins the next line: perf
# looks a callchain's addresses up as they are (the line after the call)
cc -O0 -g -fno-omit-frame-pointer -o retline "$ROOT/tests/progs/retline.c" || fail "cannot build retline"
perf record -q -g -F 999 -o ret.data -- ./retline 200000 >/dev/null 2>&1 || fail "perf record -g of retline failed"
perf script -i ret.data -F ip,sym,symoff,dso,srcline > theirs 2>/dev/null || fail "perf script of ret.data failed"
"$LUAPROF" run script --fields=ip,sym,symoff,dso,srcline -i ret.data > ours 2>err || { cat err; fail "ret.data failed"; }
cmp -s theirs ours || { diff theirs ours | head; fail "ret.data: a frame-pointer caller's srcline differs from perf script's"; }
after=$(grep -n 'retline_sink++;' "$ROOT/tests/progs/retline.c" | cut -d: -f1)
grep -A1 ' retline_work+' theirs | grep -q "retline.c:$after\$" ||
	fail "no caller frame at the line after its call (retline.c:$after): nothing was compared of them"
echo "ret.data: callers at their return address as perf script gives them ($(grep -c ' retline_work+' theirs) frames)"
# refusals: one line, exit 255
refused() {
	expect_status 255 "$LUAPROF" run script "--fields=$1" -i dwarf.data
	[ "$(wc -l < "$TMP/err")" = 1 ] && grep -q -- "$2" "$TMP/err" ||
		{ cat "$TMP/err"; fail "--fields=$1: not refused in one line saying '$2'"; }
}
refused comm,bogus "bogus is no field"
refused ip,symoff "symoff is sym's offset"
refused comm,srcline "srcline is the line of ip"
refused comm,+pid "either a list of fields or changes"
refused comm,cpu "have no cpu"
