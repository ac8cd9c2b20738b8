# lib_bt.sh - sourced (after lib.sh) by the side-by-side tests of the
# scripts that port bpftrace's tools (tests/e2e/bt_*.sh): each runs the
# bpftrace tool and the luaprof script on the same workload
# (tests/progs/toolwork) at the same time and compares their rows.
#
#   need_bpftrace             skip unless root, tracefs and bpftrace
#   bt_tool NAME              the path of bpftrace's NAME.bt (Debian's in
#                             /usr/sbin), or skip
#   bt_start ARGS...          bpftrace ARGS in the background (pid $BT_PID),
#                             its output in $BT_OUT (stderr $BT_OUT.err), to
#                             be stopped at the test's exit if it is not
#                             stopped before; returns once the
#                             BEGIN probe has printed (every probe attached:
#                             BEGIN runs after the others are placed), or
#                             skips when bpftrace cannot attach here
#   bt_stop [PATTERN COUNT]   waits (up to 20 s) until $BT_OUT has COUNT
#                             lines matching PATTERN (the workload's rows,
#                             which bpftrace prints as it reads them from
#                             its ring), then ends bpftrace with SIGINT, as
#                             Ctrl-C does (END runs, maps are printed)
#   bt_same NAME WANT GOT     fails, showing both, unless the files hold the
#                             same lines
BT_OUT=$TMP/bt.out
BT_PID=
BT_ALL=

need_bpftrace() {
	need_perf_events
	need_tracefs
	[ "$(id -u)" = 0 ] || skip "bpftrace and system call tracepoints need root"
	command -v bpftrace >/dev/null || skip "bpftrace is not installed (make test-deps installs it as root)"
}

bt_tool() {
	local d
	for d in /usr/sbin /usr/share/bpftrace/tools /usr/local/share/bpftrace/tools; do
		[ -f "$d/$1.bt" ] && { echo "$d/$1.bt"; return; }
	done
	skip "bpftrace's $1.bt is not installed (Debian's bpftrace package has it in /usr/sbin)"
}

# bpftrace prints "Attaching N probes..." before it attaches, then runs
# BEGIN: the first line after that one is BEGIN's.
bt_start() {
	bpftrace "$@" > "$BT_OUT" 2> "$BT_OUT.err" &
	BT_PID=$!
	BT_ALL="$BT_ALL $BT_PID"
	local i
	for i in $(seq 600); do
		[ "$(grep -cv '^Attaching ' "$BT_OUT" 2>/dev/null)" -gt 0 ] && return
		if ! kill -0 "$BT_PID" 2>/dev/null; then
			wait "$BT_PID"
			grep -qiE 'attach|permission|not permitted|BTF|kernel|not supported' "$BT_OUT.err" &&
				skip "bpftrace cannot attach here: $(grep -v RLIMIT_MEMLOCK "$BT_OUT.err" | tail -2 | tr '\n' ' ')"
			cat "$BT_OUT" "$BT_OUT.err"
			fail "bpftrace $* failed before its BEGIN probe"
		fi
		sleep 0.05
	done
	kill -INT "$BT_PID" 2>/dev/null
	fail "bpftrace $* did not start within 30 s"
}

bt_stop() {
	local i
	if [ -n "${1:-}" ]; then
		for i in $(seq 400); do
			[ "$(grep -cE -- "$1" "$BT_OUT")" -ge "$2" ] && break
			sleep 0.05
		done
	fi
	# again every 2 s: one run of the tests saw a bpftrace miss the first
	for i in $(seq 400); do
		[ $((i % 40)) = 1 ] && kill -INT "$BT_PID" 2>/dev/null
		kill -0 "$BT_PID" 2>/dev/null || break
		sleep 0.05
	done
	kill -0 "$BT_PID" 2>/dev/null && { kill -KILL "$BT_PID"; fail "bpftrace did not end within 20 s of SIGINT"; }
	wait "$BT_PID"
	BT_PID=
}

# Whatever happens, no bpftrace of the test's is left running (the test's
# EXIT trap removes $TMP: stop them first).
trap 'for p in $BT_ALL; do kill -INT "$p" 2>/dev/null; done; rm -rf "$TMP"' EXIT

bt_same() {
	diff "$2" "$3" > "$TMP/bt.diff" && return
	echo "--- bpftrace ($2) +++ luaprof ($3):"
	cat "$TMP/bt.diff"
	echo "--- bpftrace's whole output:"; head -60 "$BT_OUT"
	fail "$1"
}
