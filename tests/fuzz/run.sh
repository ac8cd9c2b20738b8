#!/usr/bin/env bash
# run.sh [TARGET...] - make fuzz: runs each libFuzzer target (default: all)
# for $FUZZ_TIME seconds from its seeds with the dictionary, and prints the
# executions, coverage and any crash.  Crashing inputs are written to
# build-fuzz/crashes/TARGET/; copy each into tests/fuzz/corpus/TARGET/ so
# make test replays it from then on.
set -u
cd "$(dirname "$0")/../.."
BUILD=${BUILD:-build-fuzz}
time=${FUZZ_TIME:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
status=0
for t in "${targets[@]}"; do
	bin=$BUILD/fuzzer/$t
	[ -x "$bin" ] || { echo "fuzz $t: not built ($bin)"; status=1; continue; }
	corpus=$BUILD/corpus/$t crashes=$BUILD/crashes/$t
	mkdir -p "$corpus" "$crashes"
	tests/fuzz/seeds.sh "$t" "$corpus"
	log=$BUILD/$t.log
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 LSAN_OPTIONS=suppressions=$PWD/tests/fuzz/lsan.supp \
	"$bin" "$corpus" -dict=tests/fuzz/perf.dict -max_total_time="$time" \
		-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$crashes/" -print_final_stats=1 \
		>"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
	if [ $rc = 0 ]; then
		echo "fuzz $t: ${execs:-?} executions, $cov, no finding"
	else
		status=1
		echo "fuzz $t: FINDING after ${execs:-?} executions ($log):"
		grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -5 | sed 's/^/    /'
	fi
done
exit $status
