# pprof --push to a server that is down (the receiver of push.sh, see
# lib_push.sh): down at the start and back later, the backlog keeps
# exactly --push-backlog profiles of the outage, the newer are dropped and
# counted, and every later period arrives; Ctrl-C twice while it is down
# ends the wait at once; down to the end, the wait ends at --push-timeout
# with the file written and exit 255.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_push.sh"

# Down, then back: the receiver starts once the backlog of 3 is full.
down_then_back() {
	PORT=$(free_port)
	"$LUAPROF" run pprof --every=1 --push="http://127.0.0.1:$PORT" --push-backlog=3 -e cpu-clock -F 99 \
		-- "$PROGS/spin" 6000 > down.out 2> down.err &
	LP=$!
	trap 'kill $LP 2>/dev/null; stop_receiver' EXIT
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
}

# Ctrl-C twice while the server is down: the first ends the run (or, when
# the command has ended already, the end's wait), the second the wait for
# the backlog, at once rather than after --push-timeout's minute; the
# counts line says so, and the exit status (255: profiles were lost).
ctrl_c_twice() {
	PORT=$(free_port)
	"$LUAPROF" run pprof --every=1 --push="http://127.0.0.1:$PORT" --push-timeout=60 -e cpu-clock -F 99 \
		-- "$PROGS/spin" 1500 > int.out 2> int.err &
	LP=$!
	trap 'kill $LP 2>/dev/null' EXIT
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
}

# The server down to the end: the wait ends at --push-timeout, the file
# (--out) is written first, and profiles left unsent are exit status 255.
down_to_the_end() {
	PORT=$(free_port)
	expect_status 255 "$LUAPROF" run pprof --push="http://127.0.0.1:$PORT" --push-timeout=1 --out=last.pb.gz \
		-e cpu-clock -F 99 -- "$PROGS/spin" 300
	expect_grep "^luaprof: push: sent 0 of 1 profiles to .*; 1 unsent after waiting 1s$" "$TMP/err"
	expect_grep "^luaprof: wrote [0-9]+ samples to last.pb.gz$" "$TMP/err"
	[ -s last.pb.gz ] || fail "the file was not written"
}

scenario "down, then back" down_then_back
scenario "Ctrl-C twice, server down" ctrl_c_twice
scenario "down to the end" down_to_the_end
scenarios_done
