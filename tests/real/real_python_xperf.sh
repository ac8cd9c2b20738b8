# python3 -X perf (perf trampolines, python >= 3.12: each Python function
# is called through a small trampoline named in /tmp/perf-PID.map as
# "py::FUNC:FILE") running the workload of real_python.sh, recorded by
# perf with -g and with --call-graph dwarf: luaprof's top, top --children,
# script and folded stacks of each file equal perf's of the same file,
# exactly (lib_real.sh).  Debian 12's python3 is 3.11, which accepts
# -X perf and ignores it: then $LP_TEST_PYTHON, or else the first of
# python3.13 and python3.12 on PATH that runs, is used; without one the
# test skips.  The map is owned by the recording user and is not a
# symlink, so luaprof trusts it as perf does; the test removes it at the
# end.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
PY=
for p in ${LP_TEST_PYTHON:-} /usr/bin/python3 python3.13 python3.12; do
	command -v "$p" >/dev/null || continue
	# the interpreter itself, not a wrapper (pyenv's shims are scripts)
	out=$("$p" -X perf -c 'import os, sys; print(os.getpid(), sys.executable, sys.is_stack_trampoline_active())' 2>/dev/null) ||
		continue
	read -r pid exe on <<<"$out"
	rm -f "/tmp/perf-$pid.map"      # the check's own
	[ "$on" = True ] && PY=$exe && break
done
[ -n "$PY" ] || skip "no python3 with perf trampolines (-X perf needs python >= 3.12; Debian 12's is 3.11; LP_TEST_PYTHON=PATH names one)"
cd "$TMP"
map=
trap 'rm -rf "$TMP" $map' EXIT
sed -n '/^cat > work.py/,/^EOF$/p' "$ROOT/tests/e2e/real_python.sh" | sed '1d;$d' > work.py
printf 'import os\nopen("pid", "w").write(str(os.getpid()))\n' >> work.py
[ -s work.py ] && "$PY" work.py 1 >/dev/null || fail "$PY cannot run real_python.sh's workload"
# record NAME ARGS...: perf record ARGS of the workload under -X perf
record() {
	local name=$1 m; shift
	perf record -q "$@" -o "$name.data" -- "$PY" -X perf work.py "$ROUNDS" >/dev/null 2>perr ||
		fail "perf record $* $PY -X perf failed: $(head -2 perr)"
	m=/tmp/perf-$(cat pid).map
	map="$map $m"
	[ -f "$m" ] || fail "$PY -X perf wrote no $m"
}
echo "$("$PY" --version) ($PY)"
# frame pointers: the interpreter has none, so few chains reach a trampoline
ROUNDS=40 record fp -g -F 999
real_compare fp.data
# DWARF: the trampolines have no CFI, their frames are unwound by their
# frame pointer
ROUNDS=20 record dwarf --call-graph dwarf -F 499
real_compare dwarf.data
grep -q 'py::fib:' dwarf.children.perf || fail "dwarf.data: no py::fib trampoline row in perf report --children (from the perf map)"
real_verdict
