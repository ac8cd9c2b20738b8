# A program another started (fork, then exec), recorded by perf with
# --call-graph dwarf: its stacks are perf's, which stop in libc (at
# __libc_start_call_main, or earlier) where a direct run goes on to
# _start.  The process keeps its parent's maps after the exec, in perf's
# model as in luaprof's, and perf's libunwind places a library's CFI table
# from the lowest map of that file: where the parent's copy lies below the
# child's (a shell's or make's libc, about every other child), it finds no
# rule there and guesses a frame-pointer step (docs/perf-differences.md).
# tests/progs/execlow maps its libc low before it forks and execs, so that
# every run is such a one; a child of sh is compared too, whichever way
# its libc lies.  top, top --children, script and folded stacks equal
# perf's (lib_real.sh's real_compare), where luaprof's stacks were two
# frames longer (__libc_start_main_impl, _start).  With --true-stacks
# every stack of the program reaches _start again.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/real/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
cc -O2 -g -o chain "$ROOT/tests/progs/chain.c" || fail "cannot build chain"
# starts FILE: how many stacks of chain in perf script text FILE reach _start
starts() {
	awk '/^chain / {c = 1; next} c && /^$/ {c = 0} c && / _start\+/ {n++} END {print n + 0}' "$1"
}
perf record -q --call-graph dwarf -F 499 -o low.data -- "$PROGS/execlow" ./chain 300 >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
real_compare low.data
n=$(starts low.script.perf) m=$(grep -c '^chain ' low.script.perf)
[ "$m" -ge 50 ] || fail "only $m samples of chain"
[ $((n * 10)) -lt "$m" ] || fail "perf reaches _start in $n of $m stacks of chain: libc's low copy did not hide its CFI"
expect_status 0 "$LUAPROF" run script --true-stacks -i low.data
k=$(starts "$TMP/out")
[ $((k * 10)) -ge $((m * 9)) ] || fail "--true-stacks: only $k of $m stacks of chain reach _start"
echo "chain under execlow: $n of $m stacks reach _start as perf's, $k with --true-stacks"
# "; true": the shell forks and execs the program (a last command alone
# it might exec in its own place)
perf record -q --call-graph dwarf -F 499 -o sh.data -- sh -c './chain 150; true' >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
real_compare sh.data
echo "chain under sh: $(starts sh.script.perf) of $(grep -c '^chain ' sh.script.perf) stacks reach _start"
real_verdict
