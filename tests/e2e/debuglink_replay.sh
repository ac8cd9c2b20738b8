# A program whose symbols and DWARF are in a debug file beside it (its
# .gnu_debuglink; the program itself stripped of .symtab), recorded by perf
# and by luaprof with --call-graph dwarf: the replay names every frame
# where perf does (top, top --children, script with its inlined frames,
# folded stacks: lib_real.sh's real_compare; srcline rows: real_srcline),
# though perf record cached the stripped program in the build-id cache,
# where no debug file is beside it.
# The same with HOME unset (no cache: the program read where it is), and
# with the debug file in .debug/ beside the program.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/real/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
for t in objcopy readelf; do command -v $t >/dev/null || skip "$t is not installed: cannot make the test's objects"; done
cd "$TMP"
cc -O2 -g -o p.full "$ROOT/tests/progs/chain.c" || fail "cannot build chain"
objcopy --only-keep-debug p.full p.debug
objcopy --strip-debug --strip-unneeded p.full p
objcopy --add-gnu-debuglink=p.debug p
readelf -S p | grep -q '\.symtab' && fail "objcopy --strip-unneeded left p a .symtab"
perf record -q --call-graph dwarf -F 499 -o perf.data -- ./p 300 >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
real_compare perf.data
real_srcline perf.data
grep -q "chain_b" perf.script.perf || fail "perf names no chain_b frame: nothing was compared"
grep -Eq '^\s+[0-9a-f]+ 0x[0-9a-f]+ \(|\[unknown\] \(.*/p\)' perf.script.lp &&
	fail "luaprof left frames of p unnamed"
# no HOME: no build-id cache; the program is read where it is
env -u HOME "$LUAPROF" run script -i perf.data > nohome.lp 2>err || { cat err; fail "script without HOME failed"; }
diff perf.script.perf nohome.lp > nohome.diff || real_differs "script (HOME unset)" perf.data nohome.diff
# luaprof's own recording, the debug file in .debug/
mkdir .debug && mv p.debug .debug/
"$LUAPROF" record --call-graph dwarf -F 499 -o lp.data -- ./p 300 >/dev/null 2>err || { cat err; fail "luaprof record failed"; }
real_compare lp.data
env -u HOME "$LUAPROF" run script -i lp.data > nohome.lp 2>err || { cat err; fail "script without HOME failed"; }
diff lp.script.perf nohome.lp > nohome.diff || real_differs "script (HOME unset)" lp.data nohome.diff
real_verdict
