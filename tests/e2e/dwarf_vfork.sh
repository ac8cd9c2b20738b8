# A stack unwound from inside vfork (--call-graph dwarf): glibc's
# __libc_vfork pops its return address into rdi across the system call,
# and its CFI says so ("return address in a register"), which perf's
# libunwind follows from the sampled registers; luaprof ended the stack
# there (a make -j2 recording's cc stacks).  Each sys_exit_vfork sample of
# tests/progs/vforks, parent's and child's, has perf script's frames
# (the header lines differ: a tracepoint's payload is printed otherwise,
# docs/perf-differences.md), down to main and _start.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
[ -d /sys/kernel/tracing/events/syscalls/sys_exit_vfork ] ||
	[ -d /sys/kernel/debug/tracing/events/syscalls/sys_exit_vfork ] ||
	skip "no syscalls:sys_exit_vfork tracepoint here (CONFIG_FTRACE_SYSCALLS)"
cd "$TMP"
perf record -q -e syscalls:sys_exit_vfork --call-graph dwarf -o vf.data -- "$PROGS/vforks" 40 >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
perf script -i vf.data 2>/dev/null | grep -v '^[^[:space:]]' > theirs
expect_status 0 "$LUAPROF" run script -i vf.data
grep -v '^[^[:space:]]' "$TMP/out" > ours
n=$(grep -c ' spawn+0x' theirs)
[ "$n" -ge 40 ] || fail "perf shows spawn() in only $n stacks"
diff theirs ours > diff.txt || { head diff.txt; fail "the frames differ from perf script's"; }
echo "vforks: $(grep -c '^$' ours) stacks through __libc_vfork as perf's ($n reach spawn)"
