# A dwarf stack frame whose return address lies in a data object (.bss,
# in the program's data mapping; tests/progs/other/bssframe.c): perf keeps
# data objects in its symbol tables with the functions, and names that
# frame area+0x9 in script and report (where a function is NAME); luaprof
# printed [unknown].  And a frame on the stack (-DFAKE_FP_FRAME) is
# printed at its address, as perf prints it, not as an offset in the
# [stack] mapping (nor its top --children row).  top, top --children,
# script and folded stacks equal perf's (lib_real.sh's real_compare).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/real/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
[ "$(uname -m)" = x86_64 ] || skip "bssframe.c is x86_64 assembly"
cd "$TMP"
cc -O2 -g -mno-red-zone -o bssframe "$ROOT/tests/progs/other/bssframe.c" || fail "cannot build bssframe.c"
perf record -q --call-graph dwarf -F 499 -o bss.data -- ./bssframe 1500 >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
real_compare bss.data
grep -q ' area+0x9 (' bss.script.perf || fail "perf names no frame area+0x9: nothing was compared"
grep -q '\] area+0x9$' bss.children.lp || fail "top --children has no row area+0x9"
cc -O2 -g -mno-red-zone -fno-omit-frame-pointer -DFAKE_FP_FRAME -o stackframe \
	"$ROOT/tests/progs/other/bssframe.c" || fail "cannot build bssframe.c -DFAKE_FP_FRAME"
perf record -q --call-graph dwarf -F 499 -o stack.data -- ./stackframe 1500 >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
real_compare stack.data
grep -q ' \[unknown\] (\[stack\])$' stack.script.perf || fail "perf shows no frame on the stack: nothing was compared"
real_verdict
