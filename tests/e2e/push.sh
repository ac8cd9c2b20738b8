# pprof --push: each period's profile goes to a continuous-profiling
# server, from luaprof's sender thread.  Neither Grafana Pyroscope nor
# Parca can be installed here, so the server is tests/e2e/receiver.py, a
# receiver written for this test on 127.0.0.1 only that checks each
# request against the server's published API (method, path, query,
# headers, body) and keeps the profiles, which go tool pprof then decodes.
# Cases here: every period arrives once, with its labels, and the
# profiles' samples add up to the run's recording (Pyroscope's /ingest,
# then Parca's WriteRaw); a server that refuses (400, 500) gets one line
# and the run goes on.  A server down (push_outage.sh) and secrets in the
# URL, a slow server (push_secrets.sh) have tests of their own.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_push.sh"

# Pyroscope: one request per period, every label, the samples all there.
pyroscope() {
	receiver pyro --server=pyroscope
	expect_status 0 "$LUAPROF" run pprof --every=1 --push="http://127.0.0.1:$PORT" --label=env=test \
		--label=team=perf -e cpu-clock -F 199 -o pyro.data -- "$PROGS/spin" 2500
	stop_receiver
	cp "$TMP/err" pyro/err
	requests_ok pyro
	n=$(grep -c . pyro/requests.jsonl)
	expect_grep "^luaprof: push: sent $n of $n profiles to http://127.0.0.1:$PORT/ingest$" pyro/err
	[ "$n" -ge 3 ] || fail "$n pushes for a run of 2.5 s of CPU with --every=1"
	! ls profile*.pb.gz 2>/dev/null || fail "--push without --out wrote files"
	python3 - pyro/requests.jsonl "$HOST" <<'PY' || fail "the pushes are not one per period with the labels"
import json, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
want = {"host": sys.argv[2], "command": "spin", "env": "test", "team": "perf"}
for r in rs:
    assert r["labels"] == want, r["labels"]
    assert r["app"] == "spin", r["app"]
    assert r["until"] - r["from"] == 1 or r is rs[-1], (r["from"], r["until"])
froms = [r["from"] for r in rs]
assert froms == list(range(froms[0], froms[0] + len(rs))), froms
PY
	if command -v go >/dev/null && command -v perf >/dev/null; then
		got=$(samples_of pyro)
		want=$(perf script -i pyro.data -F period 2>/dev/null | grep -c .)
		[ "$got" = "$want" ] || fail "the pushed profiles hold $got samples, the run's recording $want"
	else
		echo "go or perf is missing (make test-deps installs golang-go): the profiles' samples are not counted"
	fi
}

# Parca: the same through WriteRaw's gateway, with --out files too.
parca() {
	receiver parca --server=parca
	expect_status 0 "$LUAPROF" run pprof --every=1 --push="http://127.0.0.1:$PORT" --server=parca \
		--app=fleet_cpu --out=files.pb.gz -e cpu-clock -F 199 -- "$PROGS/spin" 1200
	stop_receiver
	cp "$TMP/err" parca/err
	requests_ok parca
	n=$(grep -c . parca/requests.jsonl)
	expect_grep "^luaprof: push: sent $n of $n profiles to http://127.0.0.1:$PORT/api/profiles/writeraw$" parca/err
	[ "$(ls files-*.pb.gz | wc -l)" = "$n" ] || fail "--out with --push wrote $(ls files-*.pb.gz | wc -l) files for $n pushes"
	grep -q '"__name__": "fleet_cpu"' parca/requests.jsonl || fail "no __name__ fleet_cpu label"
	if command -v go >/dev/null; then
		got=$(samples_of parca)
		want=$(python3 "$ROOT/tests/bench/periods.py" count files-*.pb.gz)
		[ "$got" = "$want" ] || fail "Parca got $got samples, the files hold $want"
	fi
}

# Refusals: one line (status and the answer's first line), the run goes on.
# A 400 is dropped at once (exit 0: nothing waits at the end); a 500 is tried
# again, and the profiles still waiting for a try at --push-timeout are lost:
# exit 255.
refusal() {
	local status=$1 want how
	receiver "refuse$status" --status=$status
	if [ $status = 400 ]; then want=0; else want=255; fi
	expect_status $want "$LUAPROF" run pprof --every=0.5 --push="http://127.0.0.1:$PORT" --push-timeout=2 \
		-e cpu-clock -F 99 -- "$PROGS/spin" 1200
	stop_receiver
	cp "$TMP/err" "refuse$status/err"
	if [ $status = 400 ]; then how="it is dropped"; else how="trying it again"; fi
	expect_grep "^luaprof: push: http://127.0.0.1:$PORT/ingest refused a profile: HTTP $status: test refusal: status $status \($how\)$" "refuse$status/err"
	[ "$(grep -c 'refused a profile' "refuse$status/err")" = 1 ] || fail "more than one line for the same refusal"
	expect_grep "^luaprof: push: sent 0 of [0-9]+ profiles" "refuse$status/err"
}

scenario pyroscope pyroscope
scenario parca parca
scenario "refused 400" refusal 400
scenario "refused 500" refusal 500
scenarios_done
