# pprof --push: each period's profile goes to a continuous-profiling
# server, from luaprof's sender thread.  Neither Grafana Pyroscope nor
# Parca can be installed here, so the server is tests/e2e/receiver.py, a
# receiver written for this test on 127.0.0.1 only that checks each
# request against the server's published API (method, path, query,
# headers, body) and keeps the profiles, which go tool pprof then decodes.
# Cases: every period arrives once, with its labels, and the profiles'
# samples add up to the run's recording (Pyroscope's /ingest, then Parca's
# WriteRaw); a server that refuses (400, 500) gets one line and the run
# goes on; a server down at the start and back later: the backlog keeps
# exactly --push-backlog profiles of the outage, the newer are dropped and
# counted, and every later period arrives.  Secrets: a URL with a user,
# password and token (a receiver that requires them, as a proxy would)
# gets its requests at /ingest with the token kept first in the query, and
# no line shows user, password or token, not even a refusal quoting what
# came nor a malformed URL's, refused at once; ~/.netrc can hold the
# credentials instead of the command line.  A slow server that gets a
# profile twice (the attempt timed out after it arrived) can tell by the
# Idempotency-Key, the same on both and another for each profile.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
RECEIVER=$ROOT/tests/e2e/receiver.py
HOST=$(cat /proc/sys/kernel/hostname)

# receiver DIR ARGS...: starts the receiver in DIR (made), waits for its
# port, sets PORT and RPID.
receiver() {
	local d=$1; shift
	mkdir -p "$d"
	python3 "$RECEIVER" "$d" "$@" 2>"$d/stderr" &
	RPID=$!
	wait_for_line "$d/port" '^[0-9]+$'
	PORT=$(cat "$d/port")
}
stop_receiver() { kill "$RPID" 2>/dev/null; wait "$RPID" 2>/dev/null; }
trap 'stop_receiver; rm -rf "$TMP"' EXIT

# requests DIR: the receiver's log is there and every request was right.
requests_ok() {
	[ -s "$1/requests.jsonl" ] || fail "the receiver got no request"
	python3 - "$1/requests.jsonl" <<'PY' || fail "a request broke the server's API"
import json, sys
bad = [r for r in map(json.loads, open(sys.argv[1])) if not r["ok"]]
for r in bad: print(r["problems"])
sys.exit(1 if bad else 0)
PY
}

# samples_of DIR: the samples in the profiles the receiver kept, by go tool pprof -raw.
samples_of() {
	local f t=0 c
	for f in "$1"/[0-9]*.pb.gz; do
		HOME=$TMP go tool pprof -raw "$f" > raw.txt 2>&1 || { cat raw.txt; fail "go tool pprof cannot read $f"; }
		c=$(awk '/^Samples:/ {on = 1; next} /^Locations/ {on = 0} on && $1 ~ /^[0-9]+$/ {s += $1} END {print s + 0}' raw.txt)
		t=$((t + c))
	done
	echo "$t"
}

# Pyroscope: one request per period, every label, the samples all there.
receiver pyro --server=pyroscope
expect_status 0 "$LUAPROF" run pprof --every=1 --push="http://127.0.0.1:$PORT" --label=env=test \
	--label=team=perf -e cpu-clock -F 199 -o pyro.data -- "$PROGS/spin" 2500
stop_receiver
cp "$TMP/err" pyro/err
requests_ok pyro
n=$(grep -c . pyro/requests.jsonl)
expect_grep "^luaprof: push: sent $n of $n profiles to http://127.0.0.1:$PORT/ingest$" pyro/err
[ "$n" -ge 3 ] || fail "$n pushes for a run of 2.5 s of CPU with --every=1"
ls profile*.pb.gz 2>/dev/null && fail "--push without --out wrote files"
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

# Parca: the same through WriteRaw's gateway, with --out files too.
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

# Refusals: one line (status and the answer's first line), the run goes on.
# A 400 is dropped at once (exit 0: nothing waits at the end); a 500 is tried
# again, and the profiles still waiting for a try at --push-timeout are lost:
# exit 255.
for status in 400 500; do
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
done

# Down, then back: the receiver starts once the backlog of 3 is full.
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$LUAPROF" run pprof --every=1 --push="http://127.0.0.1:$PORT" --push-backlog=3 -e cpu-clock -F 99 \
	-- "$PROGS/spin" 6000 > down.out 2> down.err &
LP=$!
wait_for_line down.err "backlog of 3 profiles \(--push-backlog\) is full" 60
mkdir -p back
python3 "$RECEIVER" back --port="$PORT" 2>back/stderr &
RPID=$!
wait "$LP" || { cat down.err; fail "luaprof exited $? while the server was down"; }
stop_receiver
requests_ok back
expect_grep "^luaprof: push: cannot reach http://127.0.0.1:$PORT/ingest: .*; keeping up to 3 profiles until it answers$" down.err
[ "$(grep -c 'cannot reach' down.err)" = 1 ] || fail "more than one line for one outage"
expect_grep "takes profiles again" down.err
line=$(grep '^luaprof: push: sent' down.err)
read -r sent posted dropped <<< "$(echo "$line" | sed -n 's/.*sent \([0-9]*\) of \([0-9]*\) profiles.*; \([0-9]*\) dropped (the backlog of 3 was full).*/\1 \2 \3/p')"
[ -n "$dropped" ] || fail "no count of the dropped profiles: $line"
[ $((sent + dropped)) = "$posted" ] || fail "$sent sent and $dropped dropped of $posted"
got=$(grep -c . back/requests.jsonl)
[ "$got" = "$sent" ] || fail "the receiver got $got profiles, luaprof says it sent $sent"
# The periods received: the first 3 (kept through the outage), then a gap
# of exactly the dropped ones, then every period to the end.
python3 - back/requests.jsonl "$dropped" "$posted" <<'PY' || fail "the periods kept and dropped do not match the backlog's bound"
import json, sys
froms = sorted(json.loads(l)["from"] for l in open(sys.argv[1]))
dropped, posted = int(sys.argv[2]), int(sys.argv[3])
f0 = froms[0]
kept = [f for f in froms if f < f0 + 3]
assert kept == [f0, f0 + 1, f0 + 2], ("kept through the outage", kept)
rest = froms[3:]
assert rest == list(range(f0 + 3 + dropped, f0 + posted)), ("after the outage", rest, dropped, posted)
print("kept %d of the outage, dropped %d, then %d" % (len(kept), dropped, len(rest)))
PY

# Ctrl-C twice while the server is down: the first ends the run (or, when
# the command has ended already, the end's wait), the second the wait for
# the backlog, at once rather than after --push-timeout's minute; the
# counts line says so, and the exit status (255: profiles were lost).
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$LUAPROF" run pprof --every=1 --push="http://127.0.0.1:$PORT" --push-timeout=60 -e cpu-clock -F 99 \
	-- "$PROGS/spin" 1500 > int.out 2> int.err &
LP=$!
wait_for_line int.err "cannot reach" 60
t0=$(date +%s)
kill -INT "$LP"
sleep 2
kill -INT "$LP" 2>/dev/null
st=0
wait "$LP" || st=$?
waited=$(( $(date +%s) - t0 ))
[ "$waited" -lt 30 ] || fail "the end waited ${waited}s after a signal (--push-timeout=60)"
expect_grep "^luaprof: push: sent 0 of [0-9]+ profiles to .*; [0-9]+ unsent \(the wait was interrupted\)$" int.err
[ "$st" = 255 ] || fail "profiles left unsent, yet luaprof exited $st"

# The server down to the end: the wait ends at --push-timeout, the file
# (--out) is written first, and profiles left unsent are exit status 255.
expect_status 255 "$LUAPROF" run pprof --push="http://127.0.0.1:$PORT" --push-timeout=1 --out=last.pb.gz \
	-e cpu-clock -F 99 -- "$PROGS/spin" 300
expect_grep "^luaprof: push: sent 0 of 1 profiles to .*; 1 unsent after waiting 1s$" "$TMP/err"
expect_grep "^luaprof: wrote [0-9]+ samples to last.pb.gz$" "$TMP/err"
[ -s last.pb.gz ] || fail "the file was not written"

# Secrets: user, password and a token in the query, which the receiver
# requires (basic authentication, token=... first in the query).
receiver secret --auth=luser:s3cretPW --token=t0kenXYZ
expect_status 0 "$LUAPROF" run pprof --every=0.5 --push="http://luser:s3cretPW@127.0.0.1:$PORT/?token=t0kenXYZ" \
	-e cpu-clock -F 99 -- "$PROGS/spin" 1200
stop_receiver
cp "$TMP/err" secret/err
requests_ok secret
python3 - secret/requests.jsonl <<'PY' || fail "the requests are not /ingest?token=...&name=..."
import json, sys
for r in map(json.loads, open(sys.argv[1])):
    assert r["target"].startswith("/ingest?token=t0kenXYZ&name="), r["target"]
PY
n=$(grep -c . secret/requests.jsonl)
expect_grep "^luaprof: push: sent $n of $n profiles to http://127.0.0.1:$PORT/ingest$" secret/err
# refused (a wrong password, a wrong token): the answer quotes what came
receiver denied --auth=luser:s3cretPW --token=t0kenXYZ
expect_status 0 "$LUAPROF" run pprof --push="http://luser:wr0ngPW@127.0.0.1:$PORT/?token=badT0ken" \
	-e cpu-clock -F 99 -- "$PROGS/spin" 200
stop_receiver
cp "$TMP/err" denied/err
expect_grep "^luaprof: push: http://127.0.0.1:$PORT/ingest refused a profile: HTTP 401: unauthorized: .* \(it is dropped\)$" denied/err
grep -q 'badT0ken' denied/requests.jsonl || fail "the receiver's answer does not quote the token it got: no refusal to hide it from"
# unreachable, and a malformed URL: one line at once, nothing started
expect_status 255 "$LUAPROF" run pprof --push="http://luser:s3cretPW@127.0.0.1:1/?token=t0kenXYZ" --push-timeout=0.5 \
	-e cpu-clock -F 99 -- "$PROGS/spin" 100
cp "$TMP/err" unreach.err
expect_grep "^luaprof: push: cannot reach http://127.0.0.1:1/ingest: " unreach.err
t0=$(date +%s%N)
expect_status 255 "$LUAPROF" run pprof --push="http://luser:s3cretPW@[::1" -- "$PROGS/spin" 100
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
cp "$TMP/err" malformed.err
expect_grep "^luaprof: pprof: --push=http://\[::1: Bad IPv6 address; give the server's URL" malformed.err
[ "$(grep -c . malformed.err)" = 1 ] || { cat malformed.err; fail "not one line for a malformed URL"; }
[ "$ms" -lt 5000 ] || fail "a malformed URL took ${ms} ms to refuse"
for f in secret/err denied/err unreach.err malformed.err; do
	grep -nE 'luser|s3cretPW|wr0ngPW|t0kenXYZ|badT0ken' "$f" && fail "$f shows a credential or token"
done

# The credentials from ~/.netrc instead, off the command line (which ps
# shows every user).
receiver netrc --auth=luser:s3cretPW
printf 'machine 127.0.0.1 login luser password s3cretPW\n' > "$HOME/.netrc"
chmod 600 "$HOME/.netrc"
expect_status 0 "$LUAPROF" run pprof --push="http://127.0.0.1:$PORT" -e cpu-clock -F 99 -- "$PROGS/spin" 200
stop_receiver
rm "$HOME/.netrc"
requests_ok netrc
expect_grep "^luaprof: push: sent 1 of 1 profiles to http://127.0.0.1:$PORT/ingest$" "$TMP/err"

# A slow server: the first request is answered after 3 s, so its attempt
# times out (--push-timeout=1) after the profile arrived, and is sent again.
receiver slow --delay-first=3
st=0
"$LUAPROF" run pprof --every=0.5 --push="http://127.0.0.1:$PORT" --push-timeout=1 -e cpu-clock -F 99 \
	-- "$PROGS/spin" 4000 > slow/out 2> slow/err || st=$?
stop_receiver
[ "$st" = 0 ] || [ "$st" = 255 ] || { cat slow/err; fail "luaprof exited $st with a slow server"; }
python3 - slow/requests.jsonl <<'PY' || fail "the copies of a profile do not share an Idempotency-Key, or profiles share one"
import json, re, sys
rs = [json.loads(l) for l in open(sys.argv[1])]
uuid = re.compile(r'^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$')
for r in rs:
    assert r["key"] and uuid.match(r["key"]), ("no Idempotency-Key", r.get("key"))
by_key = {}
for r in rs:
    by_key.setdefault(r["key"], set()).add((r["from"], r["until"], open(r["body"], "rb").read()))
assert len(rs) > len(by_key), "no profile arrived twice: the slow server did not make luaprof send again"
for k, v in by_key.items():
    assert len(v) == 1, ("one key, different profiles", k)
# (periods of 0.5 s share their whole seconds: a profile is told by its bytes)
profiles = {open(r["body"], "rb").read() for r in rs}
assert len(profiles) == len(by_key), ("profiles sharing a key", len(profiles), len(by_key))
print("%d requests, %d profiles: the copies share their key" % (len(rs), len(by_key)))
PY

exit 0
