#!/usr/bin/env bash
# run.sh - the test suite: C unit tests (build/tests/test_*), the Lua
# library's unit tests (tests/lua/test_*.lua, run in luaprof's own VM), the fuzz
# targets' regression inputs (build/fuzz/fuzz_* on tests/fuzz/corpus/*), then end-to-end
# tests (tests/e2e/*.sh: exit 0 pass, 77 skip with a reason, else fail)
# against the real kernel.  Every test starts from an empty HOME (unit
# tests here, end-to-end tests in lib.sh), so what this machine ran before
# (perf's ~/.debug) changes nothing.  Ends with "N passed, N failed, N skipped".
#   tests/run.sh [--unit-only] [NAME-FILTER]
#   tests/run.sh --real [NAME-FILTER]   only the comparisons with perf on
#       real programs (tests/real/*.sh, make test-real), which the whole
#       suite runs after tests/e2e
# With SANITIZED=1 (make check-asan: $BUILD and $LUAPROF are ASan+UBSan
# builds) every sanitizer report is written under a directory of its own,
# and a test after which one was written fails, whatever its own verdict.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD ROOT=$PWD
# The perf.data corpus the conformance tests read, beside the repository
# unless given.
export LP_PERFDATA_CORPUS=${LP_PERFDATA_CORPUS:-$ROOT/../shared/perfdata}
unit_only=0 e2e_dirs="tests/e2e tests/real" real=0
[ "${1:-}" = "--unit-only" ] && { unit_only=1; shift; }
[ "${1:-}" = "--real" ] && { real=1 e2e_dirs=tests/real; shift; }
filter=${1:-}
passed=0 failed=0 skipped=0
failures=()

# fresh_home CMD...: runs CMD with HOME a fresh, empty directory (perf's
# build-id cache there starts empty), removed afterwards.
fresh_home() {
	local home rc
	home=$(mktemp -d /tmp/luaprof-home.XXXXXX)
	HOME=$home env -u PERF_BUILDID_DIR "$@"; rc=$?
	rm -rf "$home"
	return $rc
}

SAN_DIR=
if [ "${SANITIZED:-0}" = 1 ]; then
	SAN_DIR=$(mktemp -d /tmp/luaprof-san.XXXXXX)
	chmod 1777 "$SAN_DIR"   # tests run luaprof as another user too
	trap 'rm -rf "$SAN_DIR"' EXIT
	export ASAN_OPTIONS="log_path=$SAN_DIR/asan:detect_leaks=1:abort_on_error=0"
	export UBSAN_OPTIONS="log_path=$SAN_DIR/ubsan:print_stacktrace=1:halt_on_error=1"
	export LSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/lsan.supp"
fi

# san_reports NAME: when a sanitizer reported something during test NAME,
# prints it and fails.  The logs are cleared either way (LeakSanitizer
# also writes one listing the suppressions used, which is no finding).
san_reports() {
	[ -n "$SAN_DIR" ] && [ -n "$(ls -A "$SAN_DIR")" ] || return 0
	local found=0
	if grep -lqE 'ERROR: |runtime error|SUMMARY: ' "$SAN_DIR"/*; then
		found=1
		echo "FAIL $1: sanitizer report:"
		grep -lE 'ERROR: |runtime error|SUMMARY: ' "$SAN_DIR"/* | xargs cat | head -40 | sed 's/^/    /'
	fi
	rm -f "$SAN_DIR"/*
	return $found
}

# run_unit NAME CMD...: a unit test program, each of its cases a test.
run_unit() {
	local name=$1 out rc
	shift
	out=$(fresh_home "$@" 2>&1); rc=$?
	san_reports "$name" || rc=1
	local p f s summary
	summary=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' | tail -1)
	read -r p f s <<<"$summary"
	if [ -z "$p" ]; then
		echo "FAIL $name (crashed or printed no summary)"
		printf '%s\n' "$out" | tail -20 | sed 's/^/    /'
		failed=$((failed + 1)); failures+=("$name")
		return
	fi
	if [ "$f" = 0 ] && [ "$rc" != 0 ]; then      # e.g. a sanitizer report at exit
		f=1
		out="$out
exited $rc after its summary"
	fi
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	if [ "$f" != 0 ]; then
		printf '%s\n' "$out" | grep -v '^ok ' | sed 's/^/    /'
		failures+=("$name")
	elif [ "$s" != 0 ]; then        # each skip with its reason, the line before it
		printf '%s\n' "$out" | grep -B1 '^skip ' | grep -v '^--$' | sed 's/^/    /'
	fi
	echo "unit $name: $p passed, $f failed, $s skipped"
}

# A fuzz target's regression inputs: one test per target, passed when every
# input ran without a crash or sanitizer report.
run_fuzz() {
	local bin=$1 name out rc
	name=$(basename "$bin")
	out=$(fresh_home env LSAN_OPTIONS=suppressions=$ROOT/tests/fuzz/lsan.supp "$bin" "tests/fuzz/corpus/$name" 2>&1); rc=$?
	san_reports "$name" || rc=1
	if [ $rc = 0 ]; then
		passed=$((passed + 1))
		echo "ok   $name: $(printf '%s\n' "$out" | sed -n 's/ passed, 0 failed$//p' | tail -1) regression inputs"
	else
		failed=$((failed + 1)); failures+=("$name")
		echo "FAIL $name (exit $rc)"
		printf '%s\n' "$out" | tail -25 | sed 's/^/    /'
	fi
}

run_e2e() {
	local t=$1 name out rc start
	name=$(basename "$t" .sh)
	start=$(date +%s.%N)
	out=$(timeout 120 bash "$t" 2>&1); rc=$?
	if ! san_reports "$name"; then
		failed=$((failed + 1)); failures+=("$name")
		return
	fi
	local secs
	secs=$(printf '%.1f' "$(echo "$(date +%s.%N) - $start" | bc 2>/dev/null || echo 0)")
	# A test made of rows (the bad-input tables) ends with its own
	# "N passed, N failed, N skipped": each row counts as a test.
	local rows
	rows=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, 0 failed, \([0-9]*\) skipped$/\1 \2/p' | tail -1)
	case $rc in
	0) if [ -n "$rows" ]; then
		passed=$((passed + ${rows% *})); skipped=$((skipped + ${rows#* }))
		echo "ok   $name: ${rows% *} rows, ${rows#* } skipped (${secs}s)"
	   else
		passed=$((passed + 1)); echo "ok   $name (${secs}s)"
	   fi ;;
	77) skipped=$((skipped + 1)); echo "skip $name: $(printf '%s\n' "$out" | tail -1)" ;;
	*) failed=$((failed + 1)); failures+=("$name")
	   echo "FAIL $name (exit $rc, ${secs}s)"
	   printf '%s\n' "$out" | tail -25 | sed 's/^/    /' ;;
	esac
}

# As root, tracefs is mounted before the first test that reads it (the
# unit tests of core/trace and core/live read tracepoint formats too).
. tests/e2e/lib_tracefs.sh
have_tracefs

for bin in "$BUILD"/tests/test_*; do
	[ $real = 0 ] && [ -x "$bin" ] || continue
	case $(basename "$bin") in *"$filter"*) run_unit "$(basename "$bin")" "$bin" ;; esac
done
# The Lua library's tests run at a script's top level, which luaprof runs
# before it opens its input: each file ends the run itself (os.exit), so
# /dev/null is never read (tests/lua/harness.lua).
LUAPROF=${LUAPROF:-$ROOT/luaprof}
for t in tests/lua/test_*.lua; do
	[ $real = 0 ] && [ -f "$t" ] || continue
	case lua/$(basename "$t" .lua) in *"$filter"*)
		run_unit "lua/$(basename "$t" .lua)" "$LUAPROF" run "$ROOT/$t" -i /dev/null ;; esac
done
for bin in "$BUILD"/fuzz/fuzz_*; do
	[ $real = 0 ] && [ -x "$bin" ] || continue
	case $(basename "$bin") in *"$filter"*) run_fuzz "$bin" ;; esac
done
if [ $unit_only = 0 ]; then
	for t in $(for d in $e2e_dirs; do echo "$d"/*.sh; done); do
		case $(basename "$t") in lib*.sh) continue ;; *"$filter"*) run_e2e "$t" ;; esac
	done
fi
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
