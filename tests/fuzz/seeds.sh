#!/usr/bin/env bash
# seeds.sh TARGET DIR - fills DIR with seed inputs for fuzz target TARGET:
# its regression inputs (tests/fuzz/corpus/TARGET) plus, per target, real
# data: the perf.data files of ../shared/perfdata and recordings the tests
# leave in build/seeds (when present).  A target with nothing more starts
# from its regression inputs alone.
set -u
cd "$(dirname "$0")/../.."
target=$1 dir=$2
mkdir -p "$dir"
cp -n tests/fuzz/corpus/"$target"/* "$dir"/ 2>/dev/null
shared=../shared/perfdata
case $target in
fuzz_record)
	# Each record of the perf.data files, after a 40-byte layout prefix.
	[ -d "$shared" ] && python3 tests/fuzz/seed_records.py "$shared" "$dir" ;;
fuzz_kallsyms)
	# The start of this machine's kallsyms (kernel and reference symbols),
	# and its end (modules).
	head -c 65536 /proc/kallsyms > "$dir/proc-head" 2>/dev/null
	tail -c 65536 /proc/kallsyms > "$dir/proc-tail" 2>/dev/null ;;
fuzz_perfdata)
	# Whole recordings: perf's of many versions and layouts, the tests' own.
	[ -d "$shared" ] && for f in "$shared"/perf.data.*; do
		[ "$(stat -c %s "$f")" -le 400000 ] && cp -n "$f" "$dir/"
	done
	cp -n build/seeds/*.data "$dir/" 2>/dev/null ;;
esac
exit 0
