# A script's live run with kernel call stacks (-g) reads the kernel's
# symbols (/proc/kallsyms) before the events start, so before the command
# runs: read at the first stack instead, their 50-100 ms stalled the
# draining of the rings (offcpu on pingpong lost up to half of a short
# run's samples).  A run without stacks, which may never name a kernel
# frame, reads them only when a script asks; a kernel frame is still named
# after the preload.  Order seen with strace: luaprof's openat of
# /proc/kallsyms against the command's execve.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v strace >/dev/null || skip "strace is not installed: the order of reads cannot be seen"
[ "$(id -u)" = 0 ] || skip "kernel call stacks need root at this machine's paranoid level"
cd "$TMP"
# order TRACE: "kallsyms" and "exec" in the order strace saw them (one each)
order() {
	awk '/openat\(.*"\/proc\/kallsyms"/ && !k {k = 1; print "kallsyms"}
	     /execve\("[^"]*\/syscalls"/ && !e {e = 1; print "exec"}' "$1" | tr '\n' ' '
}
# LeakSanitizer stops the world with ptrace, which strace holds: an ASan
# build (make check-asan) checks leaks everywhere but here
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
cat > count.lua <<'LUA'
local n = 0
function on_sample(s) n = n + 1 end
function on_end() print("samples " .. n) end
LUA
# -g: before the command
strace -f -qq --seccomp-bpf -e trace=openat,execve -o g.trace "$LUAPROF" run "$CHECKS/symcount.lua" -g -- "$PROGS/syscalls" 2000 \
	> g.out 2> g.err || { cat g.err; fail "the -g run failed under strace"; }
[ "$(order g.trace)" = "kallsyms exec " ] || fail "-g: kallsyms read in the order '$(order g.trace)', not before the command"
grep -q '\[k\] ' g.out || { head g.out; fail "-g: no kernel frame named after the preload"; }
# no stacks, a script that never names a frame: not read at all
strace -f -qq --seccomp-bpf -e trace=openat,execve -o n.trace "$LUAPROF" run ./count.lua -- "$PROGS/syscalls" 2000 \
	> n.out 2> n.err || { cat n.err; fail "the plain run failed under strace"; }
[ "$(order n.trace)" = "exec " ] || fail "no stacks: kallsyms read ('$(order n.trace)') though no frame was named"
echo "-g: $(order g.trace); no stacks: $(order n.trace)"
