#!/usr/bin/env bash
# run.sh - the test suite: C unit tests (build/tests/test_*), the Lua
# library's unit tests (tests/lua/test_*.lua, run in luaprof's own VM), the fuzz
# targets' regression inputs (build/fuzz/fuzz_* on tests/fuzz/corpus/*), and
# end-to-end tests (tests/e2e/*.sh, then tests/real/*.sh: exit 0 pass, 77
# skip with a reason, else fail) against the real kernel.  Every test starts
# from an empty HOME (unit tests here, end-to-end tests in lib.sh), so what
# this machine ran before (perf's ~/.debug) changes nothing.  Ends with
# "N passed, N failed, N skipped".
#
#   tests/run.sh [--check | --unit-only | --real] [-j N] [NAME-FILTER]
#
#   --check      the fast tier (make check): the unit, Lua and fuzz tests and
#                the end-to-end tests marked "check" (below)
#   --unit-only  the unit, Lua and fuzz tests
#   --real       only the comparisons with perf on real programs
#                (tests/real/*.sh, make test-real)
#   -j N         N tests at a time (default $TEST_JOBS, else the number of
#                CPUs plus one: most tests spend much of their time waiting
#                on a workload or the kernel)
#
# Tests run in a pool of N workers, the longest first (as the last run on
# this checkout timed them, in $BUILD/test-times), each result printed as
# it ends.  An end-to-end test declares itself in a line of its own near
# the top:
#   # test: alone    run after the pool, with nothing beside it: it changes
#                    a setting of the whole machine (a sysctl) or its result
#                    depends on what else runs (system-wide sampling)
#   # test: check    part of the fast tier
# (both may be given: "# test: check alone").  Every other test must give
# the same answer with other tests running beside it, as on a busy machine.
#
# With SANITIZED=1 (make check-asan: $BUILD and $LUAPROF are ASan+UBSan
# builds) every sanitizer report is written under a directory of each
# test's own, and a test after which one was written fails, whatever its own
# verdict.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export BUILD ROOT=$PWD
# The perf.data corpus the conformance tests read, beside the repository
# unless given.
export LP_PERFDATA_CORPUS=${LP_PERFDATA_CORPUS:-$ROOT/../shared/perfdata}
LUAPROF=${LUAPROF:-$ROOT/luaprof}
tier=all jobs=${TEST_JOBS:-$(($(nproc 2>/dev/null || echo 1) + 1))}
while [ $# -gt 0 ]; do
	case $1 in
	--check) tier=check ;;
	--unit-only) tier=unit ;;
	--real) tier=real ;;
	-j) jobs=$2; shift ;;
	-j*) jobs=${1#-j} ;;
	-h|--help) sed -n '2,35p' "$0"; exit 0 ;;
	-*) echo "run.sh: unknown option '$1' (see --help)"; exit 2 ;;
	*) break ;;
	esac
	shift
done
filter=${1:-}
[ "$jobs" -ge 1 ] 2>/dev/null || { echo "run.sh: -j needs a number of tests at a time (got '$jobs')"; exit 2; }

# fresh_home CMD...: runs CMD with HOME a fresh, empty directory (perf's
# build-id cache there starts empty), removed afterwards.
fresh_home() {
	local home rc
	home=$(mktemp -d /tmp/luaprof-home.XXXXXX)
	HOME=$home env -u PERF_BUILDID_DIR "$@"; rc=$?
	rm -rf "$home"
	return $rc
}

SAN_TOP=
if [ "${SANITIZED:-0}" = 1 ]; then
	SAN_TOP=$(mktemp -d /tmp/luaprof-san.XXXXXX)
	chmod 1777 "$SAN_TOP"   # tests run luaprof as another user too
	export LSAN_OPTIONS="suppressions=$ROOT/tests/fuzz/lsan.supp"
fi
RES=$(mktemp -d /tmp/luaprof-run.XXXXXX)
trap 'rm -rf "$RES" ${SAN_TOP:+"$SAN_TOP"}' EXIT

# Each test's result, counted by the functions below in its own subshell
# and written to $RES/N.cnt ("passed failed skipped") and $RES/N.fail (its
# name, when it failed).
passed=0 failed=0 skipped=0
failures=()

# san_reports NAME: when a sanitizer reported something during test NAME,
# prints it and fails.
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
	out=$(fresh_home "$bin" "tests/fuzz/corpus/$name" 2>&1); rc=$?
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
	local t=$1 name out rc p f s
	name=$(basename "$t" .sh)
	out=$(timeout 120 bash "$t" 2>&1); rc=$?
	if ! san_reports "$name"; then
		failed=$((failed + 1)); failures+=("$name")
		return
	fi
	# A test made of rows (the bad-input tables) ends with its own
	# "N passed, N failed, N skipped": each row counts as a test.
	local rows
	rows=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, 0 failed, \([0-9]*\) skipped$/\1 \2/p' | tail -1)
	case $rc in
	0) if [ -n "$rows" ]; then
		passed=$((passed + ${rows% *})); skipped=$((skipped + ${rows#* }))
		echo "ok   $name: ${rows% *} rows, ${rows#* } skipped"
	   else
		passed=$((passed + 1)); echo "ok   $name"
	   fi ;;
	77) skipped=$((skipped + 1)); echo "skip $name: $(printf '%s\n' "$out" | tail -1)" ;;
	*) local sum
	   sum=$(printf '%s\n' "$out" | sed -n 's/^\([0-9]*\) passed, \([1-9][0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' | tail -1)
	   if [ -n "$sum" ]; then       # rows or scenarios: each counted
		read -r p f s <<<"$sum"
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	   else
		failed=$((failed + 1))
	   fi
	   failures+=("$name")
	   echo "FAIL $name (exit $rc)"
	   # from its first failed row or scenario on ("FAIL NAME", each with
	   # its own lines), else its last lines (a plain test's "FAIL: why"
	   # comes last, after what it printed to show why)
	   if printf '%s\n' "$out" | grep -q '^FAIL '; then
		printf '%s\n' "$out" | awk '/^FAIL/ { p = 1 } /^(ok|skip) / { p = 0 } p' | head -60
	   else
		printf '%s\n' "$out" | tail -25
	   fi | sed 's/^/    /' ;;
	esac
}

# The tests: for each, its kind (unit, lua, fuzz, e2e), its name, what it
# runs, and whether it runs alone.
kinds=() names=() args=() alone=() intier=()
add_test() {      # KIND NAME ARG ALONE IN-CHECK-TIER
	case $2 in *"$filter"*) ;; *) return ;; esac
	kinds+=("$1") names+=("$2") args+=("$3") alone+=("$4") intier+=("$5")
}
if [ $tier != real ]; then
	for bin in "$BUILD"/tests/test_*; do
		[ -x "$bin" ] && add_test unit "$(basename "$bin")" "$bin" 0 1
	done
	# The Lua library's tests run at a script's top level, which luaprof
	# runs before it opens its input: each file ends the run itself
	# (os.exit), so /dev/null is never read (tests/lua/harness.lua).
	for t in tests/lua/test_*.lua; do
		[ -f "$t" ] && add_test lua "lua/$(basename "$t" .lua)" "$ROOT/$t" 0 1
	done
	for bin in "$BUILD"/fuzz/fuzz_*; do
		[ -x "$bin" ] && add_test fuzz "$(basename "$bin")" "$bin" 0 1
	done
fi
if [ $tier != unit ]; then
	dirs="tests/e2e tests/real"
	[ $tier = real ] && dirs=tests/real
	for t in $(for d in $dirs; do echo "$d"/*.sh; done); do
		case $(basename "$t") in lib*.sh) continue ;; esac
		decl=$(sed -n 's/^# test: //p' "$t" | head -1)
		a=0 c=0
		case " $decl " in *" alone "*) a=1 ;; esac
		case " $decl " in *" check "*) c=1 ;; esac
		add_test e2e "$(basename "$t" .sh)" "$t" $a $c
	done
fi

# run_test I: test I, in a subshell of its own; its output to $RES/I.out.
run_test() {
	local i=$1 start
	passed=0 failed=0 skipped=0 failures=()
	SAN_DIR=
	if [ -n "$SAN_TOP" ]; then
		SAN_DIR=$SAN_TOP/$i
		mkdir -p "$SAN_DIR" && chmod 1777 "$SAN_DIR"
		export ASAN_OPTIONS="log_path=$SAN_DIR/asan:detect_leaks=1:abort_on_error=0"
		export UBSAN_OPTIONS="log_path=$SAN_DIR/ubsan:print_stacktrace=1:halt_on_error=1"
	fi
	start=$(date +%s%N)
	case ${kinds[$i]} in
	unit) run_unit "${names[$i]}" "${args[$i]}" ;;
	lua) run_unit "${names[$i]}" "$LUAPROF" run "${args[$i]}" -i /dev/null ;;
	fuzz) run_fuzz "${args[$i]}" ;;
	e2e) run_e2e "${args[$i]}" ;;
	esac > "$RES/$i.out"
	echo "$passed $failed $skipped $((($(date +%s%N) - start) / 1000000))" > "$RES/$i.cnt"
	[ ${#failures[@]} -eq 0 ] || echo "${failures[*]}" > "$RES/$i.fail"
}

# report I: test I's result, printed with its time, and counted.
declare -A times=()
report() {
	local i=$1 p f s ms
	read -r p f s ms < "$RES/$i.cnt" || { p=0 f=1 s=0 ms=0; echo "FAIL ${names[$i]} (no result)"; }
	times[${names[$i]}]=$ms
	# the test's own line gets its time: "ok   name (2.1s)"
	awk -v t="$(printf '%d.%01d' $((ms / 1000)) $((ms % 1000 / 100)))" \
		'!done && /^(ok  |FAIL|skip|unit)/ { print $0 " (" t "s)"; done = 1; next } { print }' "$RES/$i.out"
	passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	[ -f "$RES/$i.fail" ] && failures+=($(cat "$RES/$i.fail"))
}

# The order: the longest first, as last timed; untimed ones first of all.
# A fresh clone has no times of its own: it takes those of a whole run
# committed beside this file (tests/test-times), so that its long tests
# start first too rather than in name order, last in a long tail.
TIMES=$BUILD/test-times
declare -A last=()
for f in tests/test-times "$TIMES"; do
	[ -r "$f" ] || continue
	while read -r n ms; do last[$n]=$ms; done < "$f"
done
pool=() serial=()
for i in "${!names[@]}"; do
	[ $tier = check ] && [ "${intier[$i]}" = 0 ] && continue
	if [ "${alone[$i]}" = 1 ]; then serial+=("$i"); else pool+=("$i"); fi
done
order() {
	local i
	for i in "$@"; do echo "${last[${names[$i]}]:-999999999} $i"; done | sort -k1,1nr -k2,2n | cut -d' ' -f2
}

# As root, tracefs is mounted before the first test that reads it (the
# unit tests of core/trace and core/live read tracepoint formats too).
. tests/e2e/lib_tracefs.sh
have_tracefs

wall=$(date +%s)
declare -A running=()
for i in $(order "${pool[@]}"); do
	while [ ${#running[@]} -ge "$jobs" ]; do
		wait -n -p done_pid "${!running[@]}"
		report "${running[$done_pid]}"; unset "running[$done_pid]"
	done
	run_test "$i" &
	running[$!]=$i
done
while [ ${#running[@]} -gt 0 ]; do
	wait -n -p done_pid "${!running[@]}"
	report "${running[$done_pid]}"; unset "running[$done_pid]"
done
for i in $(order "${serial[@]}"); do
	( run_test "$i" )
	report "$i"
done
wall=$(($(date +%s) - wall))

# The times of this run, for the next one's order (merged with the old).
if [ -z "$filter" ] || [ -r "$TIMES" ]; then
	for n in "${!times[@]}"; do last[$n]=${times[$n]}; done
	mkdir -p "$BUILD" && for n in "${!last[@]}"; do echo "$n ${last[$n]}"; done | sort > "$TIMES.tmp" &&
		mv "$TIMES.tmp" "$TIMES"
fi
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "wall time: $wall s, $jobs tests at a time (${#serial[@]} alone)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
