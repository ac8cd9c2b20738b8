# The output formats from one recording: go tool pprof reads the pprof
# profile and shows the same top functions (flat samples) as top.lua; the
# speedscope file validates against speedscope's published JSON schema
# (tests/e2e/data, from the speedscope 1.25.0 npm package, MIT) and holds
# every sample, one profile per thread; the folded output sums to the
# samples and feeds a differential flame graph.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
expect_status 0 "$LUAPROF" run folded -F 999 -g -o deep.data --out=deep.folded -- "$PROGS/deep16" 400
total=$(awk '{s += $NF} END {print s}' deep.folded)
expect_status 0 "$LUAPROF" run top --limit=8 -i deep.data
cp "$TMP/out" top.txt
n=$(awk '/^# / {print $2}' top.txt)
# folded: its counts sum to the samples top.lua saw.
folded_sum() {
	[ "$total" = "$n" ] || fail "folded counts sum to $total, top.lua saw $n samples"
}

# pprof: the same flat counts per function as top.lua's Samples column.
pprof() {
	expect_status 0 "$LUAPROF" run pprof --out=deep.pb.gz --labels=tid,comm -i deep.data
	[ "$(head -c2 deep.pb.gz | od -An -tx1 | tr -d ' ')" = 1f8b ] || fail "the pprof file is not gzip"
	if command -v go >/dev/null; then
		HOME=$TMP go tool pprof -top -nodecount=8 deep.pb.gz > pprof.txt 2>&1 || { cat pprof.txt; fail "go tool pprof cannot read the profile"; }
		# every function with at least 1% of the samples, in order (ties below
		# that are ordered differently: pprof by cumulative count)
		awk -v n="$n" '$1 ~ /^[0-9]+$/ && $1 * 100 >= n {print $NF, $1}' pprof.txt > pprof.top
		awk -v n="$n" 'NR > 2 && $2 ~ /^[0-9]+$/ && $2 * 100 >= n {print $4, $2}' top.txt > lua.top
		[ -s lua.top ] || fail "top.lua printed no function"
		diff lua.top pprof.top > diff.txt || { cat pprof.txt top.txt; fail "go tool pprof's top functions differ from top.lua's"; }
		grep -q "Total samples = $n" pprof.txt || fail "pprof's total is not $n: $(grep Total pprof.txt)"
		HOME=$TMP go tool pprof -raw deep.pb.gz > raw.txt 2>&1 || fail "go tool pprof -raw failed"
		grep -qE 'deep16 .*[0-9a-f]{40}' raw.txt || { head -30 raw.txt; fail "no mapping of deep16 with its build-id"; }
		grep -q 'samples/count\[dflt\] cpu/nanoseconds' raw.txt || fail "the sample types are not samples/count and cpu/nanoseconds"
		# the program is the main binary, and the period the samples' mean (perf's)
		grep -q '^File: deep16$' pprof.txt || fail "pprof's main binary is not deep16: $(grep '^File:' pprof.txt)"
		if command -v perf >/dev/null; then
			period=$(perf script -i deep.data -F period 2>/dev/null | awk '{s += $1; n++} END {if (n) printf "%d", s / n + 0.5}')
			grep -q "^Period: $period$" raw.txt || fail "pprof's period is not the samples' mean $period: $(grep '^Period:' raw.txt)"
		fi
	else
		echo "go is not installed (make test-deps installs golang-go as root): pprof checked as gzip only"
	fi
}

# speedscope: the schema, and every sample in a per-thread profile.
speedscope() {
	expect_status 0 "$LUAPROF" run speedscope --out=deep.speedscope.json -i deep.data
	if /usr/bin/python3 -c 'import jsonschema' 2>/dev/null; then
		/usr/bin/python3 - "$ROOT/tests/e2e/data/speedscope-schema.json" deep.speedscope.json "$n" <<'PY' || fail "the speedscope file is not valid"
import json, sys, jsonschema
schema, doc = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
jsonschema.validate(doc, schema)
ws = sum(sum(p["weights"]) for p in doc["profiles"])
assert len(doc["profiles"]) >= 2, "one profile per thread: %d" % len(doc["profiles"])
assert all(len(p["samples"]) == len(p["weights"]) for p in doc["profiles"])
nframes = len(doc["shared"]["frames"])
assert all(0 <= i < nframes for p in doc["profiles"] for s in p["samples"] for i in s)
print("speedscope: valid, %d profiles, %d frames, weight %d ns" % (len(doc["profiles"]), nframes, ws))
PY
		expect_status 0 "$LUAPROF" run speedscope --weight=samples --out=count.json -i deep.data
		/usr/bin/python3 -c "import json,sys; d=json.load(open('count.json')); s=sum(sum(p['weights']) for p in d['profiles']); sys.exit(0 if s == $n else 1)" ||
			fail "the speedscope sample weights do not add up to $n samples"
	else
		skip "python3-jsonschema is not installed (make test-deps installs it as root): no schema check"
	fi
}

# A differential flame graph against the folded file of the same run: no change.
differential() {
	expect_status 0 "$LUAPROF" run flamegraph --base=deep.folded --out=diff.svg -i deep.data
	grep -q '+0.00 pp' diff.svg || fail "a graph against its own profile shows a change"
	! grep -qE '[+-]0*[1-9][0-9]*\.[0-9]+ pp' diff.svg || fail "a graph against its own profile shows a non-zero change"
}

scenario "folded sums to the samples" folded_sum
scenario "pprof" pprof
scenario "speedscope" speedscope
scenario "a differential flame graph" differential
scenarios_done
