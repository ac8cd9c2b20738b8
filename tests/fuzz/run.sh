#!/usr/bin/env bash
# run.sh [TARGET...] - make fuzz: runs each libFuzzer target (default: all)
# for $FUZZ_TIME seconds, or for $FUZZ_RUNS executions when that is set,
# from its seeds with the dictionary, and prints the executions, coverage
# and any crash.  Crashing inputs are written to build-fuzz/crashes/TARGET/;
# copy each into tests/fuzz/corpus/TARGET/ so make test replays it from
# then on.  The corpus grown in build-fuzz/corpus/TARGET/ is kept for the
# next run.  Per-target libFuzzer options (input size caps) are below.  An
# input running longer than 60 s is a hang (the inputs take milliseconds;
# the margin is for a machine shared with other work).
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-fuzz}
time=${FUZZ_TIME:-60}
runs=${FUZZ_RUNS:-}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done

# Inputs larger than this are cut: the seeds are whole recordings and
# objects, the mutations that matter are in their first records.  The
# recordings at 16 KiB: 6x the executions a second of 64 KiB (4474/s
# against 731/s for fuzz_perfdata) and more coverage in 25 s (1614 edges
# against 1563); at 8 KiB coverage drops (1322).  kallsyms at 4 KiB, a
# hundred lines: the same 246 edges as 64 KiB, at 6x the speed.
max_len() {
	case $1 in
	fuzz_perfdata*|fuzz_pdpipe|fuzz_minidebug|fuzz_tdata) echo 16384 ;;
	fuzz_srcline|fuzz_elfsyms) echo 32768 ;;
	fuzz_folded|fuzz_kallsyms) echo 4096 ;;
	fuzz_evparse) echo 256 ;;     # -e strings: 256 bytes hold a dozen globs
	fuzz_url) echo 512 ;;         # a --push URL
	*) echo 0 ;;     # libFuzzer's default: the largest seed
	esac
}

status=0
for t in "${targets[@]}"; do
	bin=$BUILD/fuzzer/$t
	[ -x "$bin" ] || { echo "fuzz $t: not built ($bin)"; status=1; continue; }
	corpus=$BUILD/corpus/$t crashes=$BUILD/crashes/$t
	mkdir -p "$corpus" "$crashes"
	tests/fuzz/seeds.sh "$t" "$corpus"
	log=$BUILD/$t.log
	limit=(-max_total_time="$time")
	[ -n "$runs" ] && limit=(-runs="$runs")
	ml=$(max_len "$t")
	[ "$ml" != 0 ] && limit+=(-max_len="$ml")
	start=$(date +%s)
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp \
	"$bin" "$corpus" -dict=tests/fuzz/perf.dict "${limit[@]}" \
		-rss_limit_mb=2048 -timeout=60 -artifact_prefix="$crashes/" -print_final_stats=1 \
		>"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
	if [ $rc = 0 ]; then
		echo "fuzz $t: ${execs:-?} executions in ${secs}s (${rate:-?}/s), $cov, no finding"
	else
		status=1
		echo "fuzz $t: FINDING after ${execs:-?} executions ($log):"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -5 | sed 's/^/    /'
	fi
done
exit $status
