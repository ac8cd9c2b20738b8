# docs/fleet.md's systemd unit: systemd-analyze verify accepts it (with
# the checkout's luaprof as its ExecStart), and its command line runs:
# for two seconds, against tests/e2e/receiver.py instead of the Pyroscope
# server, it pushes one profile with its labels and exits 0.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (Debian's systemd package)"
# the unit: the ```ini fence of docs/fleet.md
awk '/^```ini$/ {on = 1; next} on && /^```$/ {exit} on' "$ROOT/docs/fleet.md" > doc.service
grep -q '^ExecStart=/usr/local/bin/luaprof run pprof ' doc.service || fail "no unit with ExecStart=/usr/local/bin/luaprof in docs/fleet.md"
grep -q '^Restart=on-failure$' doc.service || fail "the unit does not restart on failure"
sed "s|/usr/local/bin/luaprof|$LUAPROF|" doc.service > luaprof-fleet.service
systemd-analyze verify ./luaprof-fleet.service > verify.txt 2>&1 || { cat verify.txt; fail "systemd-analyze verify refused the unit"; }
grep -v 'Cannot add dependency job' verify.txt | grep . && { cat verify.txt; fail "systemd-analyze verify has something to say"; }
# its command, two seconds, pushing to the test's receiver
mkdir recv
python3 "$ROOT/tests/e2e/receiver.py" recv &
RPID=$!
trap 'kill $RPID 2>/dev/null; rm -rf "$TMP"' EXIT
wait_for_line recv/port '^[0-9]+$'
cmd=$(sed -n 's/^ExecStart=//p' luaprof-fleet.service | sed "s|http://pyroscope.example:4040|http://127.0.0.1:$(cat recv/port)|")
case $cmd in *127.0.0.1*) ;; *) fail "the unit's --push is not http://pyroscope.example:4040: $cmd" ;; esac
expect_status 0 $cmd -d 2
kill $RPID
grep -q '"ok": true' recv/requests.jsonl || { cat "$TMP/err" recv/requests.jsonl; fail "the unit's command pushed nothing the receiver took"; }
grep -q '"env": "prod"' recv/requests.jsonl || fail "the unit's --label=env=prod is not on the profile"
expect_grep "^luaprof: push: sent 1 of 1 profiles" "$TMP/err"
exit 0
