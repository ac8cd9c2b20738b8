# lib.sh - sourced by every end-to-end test.
set -u
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
LUAPROF=${LUAPROF:-$ROOT/luaprof}      # make check-asan: a sanitized build
PROGS=$BUILD/progs
CHECKS=$ROOT/tests/e2e/lua
TMP=$(mktemp -d /tmp/luaprof-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# A fresh HOME: perf's build-id cache (~/.debug, which perf report reads
# [vdso] and rebuilt objects from), ~/.perfconfig and anything else a tool
# keeps there start out empty, whatever this machine ran before.
export HOME=$TMP/home
mkdir -p "$HOME"
unset PERF_BUILDID_DIR

# perf record, as the tests run it: with --no-bpf-event.  Without it
# perf 6.1 starts a side-band thread for BPF programs' events, polling
# with a timeout of 1 s it is not woken from at the end: a perf record
# went on for up to a second past its workload, a whole one past a short
# workload (1.1 s for `perf record -- true`, 0.2 s with it), and the
# suite runs about 200 of them.  No test's workload loads a BPF program;
# the recordings differ by the tracking event's bpf_event bit alone (which
# pmu_attrs' comparison of attributes leaves out with the rest of the side
# band).  A test that needs perf's own pid runs `command perf record ... &`
# ($! is then perf's, not a subshell's).
perf() {
	if [ "${1:-}" = record ]; then
		shift
		command perf record --no-bpf-event "$@"
	else
		command perf "$@"
	fi
}

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

# need_perf_events: skip unless this kernel lets us open a software event.
need_perf_events() {
	[ -r /proc/sys/kernel/perf_event_paranoid ] || skip "no perf_event support in this kernel"
}

# perfdata_corpus: the directory of real perf.data files the conformance
# checks read ($LP_PERFDATA_CORPUS, else ../shared/perfdata beside the
# repository), as test_perfdata finds it; nothing when absent.
perfdata_corpus() {
	local d
	for d in ${LP_PERFDATA_CORPUS:-} "$ROOT/../shared/perfdata"; do
		[ -d "$d" ] && { echo "$d"; return; }
	done
}

# wait_for_line FILE PATTERN [SECONDS]: until FILE has a line matching
# PATTERN (default: up to 20 s); fails after that.  For starting points a
# test waits on, instead of sleeping and hoping a loaded machine kept up.
wait_for_line() {
	local i
	for i in $(seq $((${3:-20} * 20))); do
		grep -qE -- "$2" "$1" 2>/dev/null && return
		sleep 0.05
	done
	fail "no line matching '$2' in $(basename "$1") after ${3:-20} s"
}

# wait_gone PATTERN [SECONDS]: until no process's command line matches
# PATTERN (pgrep -f; default: up to 10 s); returns 1 if one still does.
wait_gone() {
	local i
	for i in $(seq $((${2:-10} * 20))); do
		pgrep -f -- "$1" >/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# gated CMD...: starts CMD in the background held at a gate: sh waits on a
# FIFO, then execs CMD, so GATE_PID is CMD's pid from the start.  For -p
# tests: luaprof attaches (attach_gated) before CMD runs a single
# instruction, and what it counts is exact, however slowly luaprof started
# (a "sleep 0.05" before attaching left 150 ms for luaprof's start-up).
gated() {
	GATE=$TMP/gate.$RANDOM
	mkfifo "$GATE"
	sh -c 'read _ < "$0"; exec "$@"' "$GATE" "$@" &
	GATE_PID=$!
}

# attach_gated WANT LUAPROF ARGS...: runs LUAPROF ARGS -p GATE_PID (out and
# err into $TMP/out, $TMP/err), opens the gate once luaprof is waiting for
# records (its events are enabled before it first polls: /proc/PID/wchan
# names the poll), waits for both and fails unless luaprof exits WANT.
attach_gated() {
	local want=$1 lp i rc; shift
	"$@" -p "$GATE_PID" >"$TMP/out" 2>"$TMP/err" &
	lp=$!
	for i in $(seq 2000); do
		grep -q poll "/proc/$lp/wchan" 2>/dev/null && ls -l "/proc/$lp/fd" 2>/dev/null | grep -q perf_event && break
		kill -0 "$lp" 2>/dev/null && [ "$i" -lt 2000 ] || {
			kill "$GATE_PID" "$lp" 2>/dev/null; wait "$lp"; cat "$TMP/out" "$TMP/err"
			fail "$* -p: luaprof did not attach (within 20 s)"; }
		sleep 0.01
	done
	echo go > "$GATE"
	wait "$lp"; rc=$?
	wait "$GATE_PID"
	[ "$rc" = "$want" ] || { cat "$TMP/out" "$TMP/err"; fail "$* -p exited $rc, expected $want"; }
}

# expect_status WANT CMD...: runs CMD, fails unless it exits WANT.
expect_status() {
	local want=$1; shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/out" "$TMP/err"; fail "$* exited $rc, expected $want"; }
}

# expect_whole WANT CMD...: expect_status for a live run whose counts are
# checked exactly.  When the kernel lost samples (its rings full: a
# system-wide run shares the machine with whatever else floods it with
# events, say a benchmark's million context switches a second), the counts
# cannot be whole, so the run is made again after a pause, three tries in
# all.
expect_whole() {
	local try
	for try in 1 2 3; do
		expect_status "$@"
		grep -q '^luaprof: the kernel lost [0-9]* samples' "$TMP/err" || return 0
		echo "try $try: $(grep '^luaprof: the kernel lost' "$TMP/err")"
		[ "$try" = 3 ] || sleep "$try"
	done
	shift
	fail "$* lost samples in 3 tries: something else on the machine makes events faster than luaprof reads them"
}

# expect_grep PATTERN FILE: fails unless FILE has a line matching PATTERN.
expect_grep() {
	grep -qE -- "$1" "$2" || { echo "--- $2:"; head -40 "$2"; fail "no line matching '$1' in $(basename "$2")"; }
}

# build_ids_are_hits FILE [exact]: FILE's build-id table (perf buildid-list)
# names no object that perf script finds no sample in (by the sample's ip,
# callchains aside), bar [vdso], which perf record lists whenever it is
# mapped; with "exact", every object a sample landed in is listed too.  The
# kernel's entry is the running kernel's build-id; the replay's
# info.build_ids is the same table.  Leaves the sorted table in $TMP/bids.
build_ids_are_hits() {
	local f=$1 exact=${2:-} extra k
	perf buildid-list -i "$f" 2> "$TMP/perf.err" | sort > "$TMP/bids" ||
		fail "perf buildid-list cannot read $f: $(head -3 "$TMP/perf.err")"
	awk '{print $2}' "$TMP/bids" | sort -u > "$TMP/listed"
	perf script -i "$f" -F ip,dso -G 2>/dev/null |
		awk '{d = $NF; gsub(/^\(|\)$/, "", d); if (d != "[unknown]") print d}' | sort -u > "$TMP/sampled"
	{ cat "$TMP/sampled"; echo "[vdso]"; } | sort -u > "$TMP/allowed"
	extra=$(comm -23 "$TMP/listed" "$TMP/allowed")
	[ -z "$extra" ] || fail "$f has build-ids of objects no sample landed in: $extra"
	if [ "$exact" = exact ]; then
		extra=$(comm -13 "$TMP/listed" "$TMP/sampled")
		[ -z "$extra" ] || fail "$f has no build-id for objects samples landed in: $extra"
	fi
	if grep -q ' \[kernel\.kallsyms\]$' "$TMP/bids"; then
		k=$(perf buildid-list -k 2>/dev/null)
		grep -qx "$k \[kernel\.kallsyms\]" "$TMP/bids" ||
			fail "$f's [kernel.kallsyms] build-id is not the running kernel's ($k)"
	fi
	"$LUAPROF" run "$CHECKS/build_ids.lua" -i "$f" > "$TMP/ours" 2>&1 || fail "luaprof -i $f failed"
	diff "$TMP/bids" "$TMP/ours" > "$TMP/diff.txt" ||
		{ head "$TMP/diff.txt"; fail "the replay's info.build_ids differ from perf buildid-list on $f"; }
}

# build_id_of PATH: the build-id of the ELF file PATH, as readelf prints it.
build_id_of() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}'
}

# perf_symtable ARGS...: perf report ARGS' per-function sample counts as
# "N [k] sym" / "N [.] sym" lines (unnamed 0x... lines left out), sorted,
# with the "@plt" lines summed (see sum_plt).
perf_symtable() {
	perf report "$@" --stdio --no-children --sort sym -F sample,sym -q -g none 2>/dev/null |
		awk 'NF >= 3 && $2 ~ /^\[[k.]\]$/ && $3 !~ /^0x/ {print $1, $2, $3}' | sum_plt | sort
}

# perf_rows: perf report --sort sym -F sample,sym -q lines (stdin) as
# "N [k] sym" / "N [.] sym", "@plt" lines summed, plus "N [?] unnamed" for
# all the unnamed (0x...) ones together; sorted.  our_rows: the same from
# symcount.lua's output.  Comparing the two leaves no sample out.
perf_rows() {
	awk 'NF >= 3 && $2 ~ /^\[[k.]\]$/ {if ($3 ~ /^0x/) u += $1; else print $1, $2, $3}
		END {if (u) print u, "[?]", "unnamed"}' | sum_plt | sort
}
our_rows() {
	awk '$2 == "[?]" {u += $1; next} {print} END {if (u) print u, "[?]", "unnamed"}' | sum_plt | sort
}

# sum_plt [COUNT-FIELD]: sums the lines naming the symbol "@plt" that are
# otherwise equal.  perf names each stub of an IRELATIVE relocation (libc's
# calls to its own IFUNCs) "@plt" and keeps each as a line of its own, as it
# does any two symbols; luaprof's per-name tables cannot tell them apart.
sum_plt() {
	awk -v c="${1:-1}" '$NF == "@plt" {n = $c; $c = "#"; s[$0] += n; next} {print}
		END {for (k in s) {line = k; sub(/#/, s[k], line); print line}}'
}

. "$ROOT/tests/e2e/lib_tracefs.sh"

# need_tracefs: skip unless tracefs is there (have_tracefs).
need_tracefs() {
	have_tracefs || skip "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing, as root)"
}

# need_watchpoints: skip unless hardware watchpoints fire here: on some VMs
# the breakpoint PMU exists and a watchpoint opens, yet it never counts.
# tests/progs/wpcheck places one on its own variable and writes it 100
# times (LP_TEST_NO_WATCHPOINTS=1 hides them, to try the skip).
need_watchpoints() {
	local why
	why=$("$PROGS/wpcheck" 2>&1) || skip "hardware watchpoints do not fire here (tests/progs/wpcheck: $why)"
}

# One scenario per case.  A test of several cases runs each one as
#   scenario NAME FUNCTION [ARGS...]
# in a subshell of its own: a case that fails (fail, or any non-zero
# status) is reported as "FAIL NAME" with the end of its output, and the
# next case still runs; one that skips (exit 77) is reported and counted
# apart.  Cases share $TMP, so a later one may use what an earlier one
# made (and says so when it is missing).  scenarios_done ends the test:
# "N passed, N failed, N skipped" (tests/run.sh counts each case as a
# test) and a status of 1 when any failed.
SC_PASSED=0 SC_FAILED=0 SC_SKIPPED=0
scenario() {
	local name=$1 out rc
	shift
	out=$( ("$@") 2>&1 ); rc=$?
	case $rc in
	0) SC_PASSED=$((SC_PASSED + 1)); echo "ok   $name" ;;
	77) SC_SKIPPED=$((SC_SKIPPED + 1)); echo "skip $name: $(printf '%s\n' "$out" | tail -1)" ;;
	*) SC_FAILED=$((SC_FAILED + 1)); echo "FAIL $name (exit $rc)"
	   [ -n "$out" ] || out="(nothing printed: the case's last command returned $rc)"
	   printf '%s\n' "$out" | tail -15 | sed 's/^/    /' ;;
	esac
	return 0
}
scenarios_done() {
	echo "$SC_PASSED passed, $SC_FAILED failed, $SC_SKIPPED skipped"
	[ "$SC_FAILED" = 0 ]
}
