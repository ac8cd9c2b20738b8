# PLT stubs: every sample of a program busy calling libc (pltcalls) gets
# the name perf script gives it, NAME@plt stubs included, where perf 6.1
# names a stub and where it shows the _init that overlaps the stubs, or
# nothing.  The same for the program linked with -z now, without PIE, and
# with IBT's .plt.sec (where perf finds no name for the called stubs), and
# for libc's own stubs (reached through snprintf).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
variants="default"
cp "$PROGS/pltcalls" pltcalls.default
# the workload as built by the Makefile, then relinked three ways
flags="-O1 -g -fno-omit-frame-pointer -fno-inline-functions-called-once"
for v in now:-Wl,-z,now nopie:-no-pie ibt:"-fcf-protection=full -Wl,-z,ibtplt"; do
	if cc $flags ${v#*:} -o "pltcalls.${v%%:*}" "$ROOT/tests/progs/pltcalls.c" 2>/dev/null; then
		variants="$variants ${v%%:*}"
	else
		echo "cc cannot build with ${v#*:}: that variant not checked"
	fi
done
for v in $variants; do
	perf record -q -F 4000 -o "$v.data" -- "./pltcalls.$v" 100 >/dev/null 2>&1 || fail "perf record ($v) failed"
	perf script -i "$v.data" -F ip,sym 2>/dev/null | awk '{print $1, $2}' > theirs
	"$LUAPROF" run "$CHECKS/ipsym.lua" -i "$v.data" > ours 2>err || { cat err; fail "luaprof -i $v.data failed"; }
	[ "$(wc -l < theirs)" = "$(wc -l < ours)" ] || fail "$v: perf script has $(wc -l < theirs) samples, luaprof $(wc -l < ours)"
	paste -d ' ' theirs ours | awk '$1 != $3 || $2 != $4' | sort | uniq -c | sort -rn > diff.txt
	[ ! -s diff.txt ] || { head diff.txt; fail "$v: samples named differently from perf script (count, perf's ip sym, ours)"; }
	[ "$v" = ibt ] || grep -q '@plt$' theirs || fail "$v: no sample in a NAME@plt stub"
	# with IBT the program's stubs (.plt.sec, unnamed by perf: [unknown]
	# in the program) and libc's own stubs (@plt) take only a few samples
	# each, and a run may have none in either kind: either will do
	[ "$v" != ibt ] || grep -q '@plt$' theirs ||
		perf script -i "$v.data" -F ip,sym,dso 2>/dev/null | grep -q '\[unknown\] *(.*/pltcalls\.ibt)' ||
		fail "$v: no sample in a stub, the program's (.plt.sec) or libc's"
done
grep -q '^[0-9a-f]* @plt$' theirs || echo "no sample in libc's own stubs this time"
