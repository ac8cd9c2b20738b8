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
fuzz_folded)
	# folded text from the test suite's recordings, when any was left
	for f in build/seeds/*.folded; do [ -f "$f" ] && cp "$f" "$dir"/; done ;;
fuzz_optval)
	# the option strings of the shipped scripts' tests
	for s in --limit=20 --no-flag --flag=yes --sort=sym,dso --ratio=1e-3 --out=a.svg --x=-5K; do
		printf '%s' "$s" > "$dir/seed-$(printf '%s' "$s" | md5sum | cut -c1-8)"
	done ;;
esac
exit 0
