# --every: the profile scripts write one whole file per period, named by
# its start time, and every sample lands in exactly one period: the files'
# sample counts add up to the samples of the run's own recording (-o,
# counted by perf script) and to the script's total; replaying names the
# files by their start in the recording; -I against --every, --out=- and a
# period below a millisecond are refused in one line.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
CHECK=$ROOT/tests/bench/periods.py

# recorded: the samples of a recording, by perf script (luaprof's own
# count when perf is missing).
recorded() {
	if command -v perf >/dev/null; then
		perf script -i "$1" -F period 2>/dev/null | grep -c .
	else
		"$LUAPROF" run count -i "$1" 2>/dev/null | awk '/samples/ {print $1; exit}'
	fi
}

# pprof, 0.5 s periods over a 1.6 s workload: four files (0-0.5, 0.5-1,
# 1-1.5 and the rest), named 500 ms apart.  Its recording is the one the
# cases below read.
half() {
	mkdir half
	expect_status 0 "$LUAPROF" run pprof --every=0.5 --out=half/p.pb.gz -e cpu-clock -F 499 \
		-o half/run.data -- "$PROGS/spin" 1600
	cp "$TMP/err" half/err
	python3 "$CHECK" check half > check.txt || { cat check.txt "$TMP/err"; fail "the periods do not add up"; }
	n=$(ls half/p-*.pb.gz | wc -l)
	[ "$n" -ge 4 ] || fail "$n files for a 1.6 s run with --every=0.5"
	ls half/p-*.pb.gz | sed -n 's/.*T\([0-9]*\)\.\([0-9]*\)Z\.pb\.gz$/\1 \2/p' > names.txt
	[ "$(wc -l < names.txt)" = "$n" ] || { ls half; fail "files not named p-DATETHHMMSS.mmmZ.pb.gz"; }
	awk 'NR > 1 { a = (substr(p, 1, 2) * 3600 + substr(p, 3, 2) * 60 + substr(p, 5, 2)) * 1000 + q
	              b = (substr($1, 1, 2) * 3600 + substr($1, 3, 2) * 60 + substr($1, 5, 2)) * 1000 + $2
	              if (b - a != 500) exit 1 }
	     { p = $1; q = $2 }' names.txt || { cat names.txt; fail "the files' start times are not 500 ms apart"; }
}
need_half() { [ -s half/run.data ] || fail "no half/run.data: the pprof --every=0.5 case did not make it"; }

# the files' samples, by go tool pprof: the recording's
go_pprof() {
	command -v go >/dev/null ||
		skip "go is not installed (make test-deps installs golang-go): the files decoded by periods.py only"
	need_half
	total=0
	for f in half/p-*.pb.gz; do
		HOME=$TMP go tool pprof -raw "$f" > raw.txt 2>&1 || { cat raw.txt; fail "go tool pprof cannot read $f"; }
		c=$(awk '/^Samples:/ {on = 1; next} /^Locations/ {on = 0} on && $1 ~ /^[0-9]+$/ {s += $1} END {print s + 0}' raw.txt)
		total=$((total + c))
	done
	r=$(recorded half/run.data)
	[ "$total" = "$r" ] || fail "go tool pprof counts $total samples in the files, the recording $r"
}

# folded, system-wide, 1 s periods: the same sums, and the line at the end.
folded_all() {
	mkdir all
	expect_status 0 "$LUAPROF" run folded --every=1 --out=all/p.folded -a -F 99 -d 2.5 -o all/run.data
	cp "$TMP/err" all/err
	expect_grep "wrote [0-9]+ samples in [0-9]+ files, one per 1s period" all/err
	python3 "$CHECK" check all > check.txt || { cat check.txt all/err; fail "the folded periods do not add up"; }
}

# flamegraph and speedscope: one file per period too.
flamegraph() {
	need_half
	expect_status 0 "$LUAPROF" run flamegraph --every=0.5 --out=g.svg -i half/run.data
	[ "$(ls g-*.svg | wc -l)" -ge 4 ] || fail "flamegraph --every wrote $(ls g-*.svg | wc -l) files"
}
speedscope() {
	need_half
	expect_status 0 "$LUAPROF" run speedscope --every=0.5 --out=s.json -i half/run.data
	for f in s-*.json; do python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" || fail "$f is not JSON"; done
}

# Replaying: the same periods, named by their start in the recording.
replay() {
	need_half
	mkdir replay
	cp half/run.data replay/run.data
	expect_status 0 "$LUAPROF" run pprof --every=0.5 --out=replay/p.pb.gz -i replay/run.data
	cp "$TMP/err" replay/err
	[ -e replay/p-000000.000s.pb.gz ] && [ -e replay/p-000000.500s.pb.gz ] ||
		{ ls replay; fail "a replay's files are not named by their start in the recording"; }
	python3 "$CHECK" check replay > check.txt || { cat check.txt; fail "the replayed periods do not add up"; }
}

# Refused, in one line, before or at the first period.
no_out() {
	expect_status 255 "$LUAPROF" run folded --every=1 -- true
	expect_grep "every writes one file per period: give --out=FILE" "$TMP/err"
}
below_ms() {
	expect_status 255 "$LUAPROF" run folded --every=0.0005 --out=x.folded -- true
	expect_grep "from 0.001 to 86400" "$TMP/err"
}
part_ms() {
	expect_status 255 "$LUAPROF" run pprof --every=0.0015 --out=x.pb.gz -- true
	expect_grep "periods are whole milliseconds" "$TMP/err"
}
with_interval() {
	expect_status 255 "$LUAPROF" run folded --every=1 -I 200 --out=x.folded -e cpu-clock -- "$PROGS/spin" 500
	expect_grep "leave -I out" "$TMP/err"
}
no_files() {
	! ls x-* 2>/dev/null || fail "a refused --every left files"
}

scenario "pprof --every=0.5" half
scenario "go tool pprof's counts" go_pprof
scenario "folded --every=1 -a" folded_all
scenario "flamegraph --every" flamegraph
scenario "speedscope --every" speedscope
scenario "replaying: names from the recording" replay
scenario "refused: no --out" no_out
scenario "refused: below a millisecond" below_ms
scenario "refused: part of a millisecond" part_ms
scenario "refused: -I" with_interval
scenario "refused runs leave no file" no_files
scenarios_done
