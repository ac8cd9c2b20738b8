# lib_push.sh - sourced by the push tests (push.sh, push_outage.sh,
# push_secrets.sh), after lib.sh: the receiver (tests/e2e/receiver.py,
# a server written for these tests on 127.0.0.1 only, which checks each
# request against the server's published API and keeps the profiles) and
# what the tests ask of what it got.
need_perf_events
cd "$TMP"
RECEIVER=$ROOT/tests/e2e/receiver.py
HOST=$(cat /proc/sys/kernel/hostname)

# receiver DIR ARGS...: starts the receiver in DIR (made), waits for its
# port, sets PORT and RPID; it is stopped when the shell that started it
# (a scenario's) exits.
receiver() {
	local d=$1; shift
	mkdir -p "$d"
	python3 "$RECEIVER" "$d" "$@" 2>"$d/stderr" &
	RPID=$!
	trap stop_receiver EXIT
	wait_for_line "$d/port" '^[0-9]+$'
	PORT=$(cat "$d/port")
}
stop_receiver() { [ -n "${RPID:-}" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null; RPID=; }

# free_port: a port of 127.0.0.1 that nothing listens on (yet).
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

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
