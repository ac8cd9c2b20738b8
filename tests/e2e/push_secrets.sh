# pprof --push and secrets (the receiver of push.sh, see lib_push.sh): a
# URL with a user, password and token (a receiver that requires them, as a
# proxy would) gets its requests at /ingest with the token kept first in
# the query, and no line shows user, password or token, not even a
# refusal quoting what came nor a malformed URL's, refused at once;
# ~/.netrc can hold the credentials instead of the command line.  A slow
# server that gets a profile twice (the attempt timed out after it
# arrived) can tell by the Idempotency-Key, the same on both and another
# for each profile.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_push.sh"

# Secrets: user, password and a token in the query, which the receiver
# requires (basic authentication, token=... first in the query).
secrets() {
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
}

# refused (a wrong password, a wrong token): the answer quotes what came
denied() {
	receiver denied --auth=luser:s3cretPW --token=t0kenXYZ
	expect_status 0 "$LUAPROF" run pprof --push="http://luser:wr0ngPW@127.0.0.1:$PORT/?token=badT0ken" \
		-e cpu-clock -F 99 -- "$PROGS/spin" 200
	stop_receiver
	cp "$TMP/err" denied/err
	expect_grep "^luaprof: push: http://127.0.0.1:$PORT/ingest refused a profile: HTTP 401: unauthorized: .* \(it is dropped\)$" denied/err
	grep -q 'badT0ken' denied/requests.jsonl || fail "the receiver's answer does not quote the token it got: no refusal to hide it from"
}

# unreachable, and a malformed URL: one line at once, nothing started
unreachable() {
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
		! grep -nE 'luser|s3cretPW|wr0ngPW|t0kenXYZ|badT0ken' "$f" || fail "$f shows a credential or token"
	done
}

# The credentials from ~/.netrc instead, off the command line (which ps
# shows every user).
netrc() {
	receiver netrc --auth=luser:s3cretPW
	printf 'machine 127.0.0.1 login luser password s3cretPW\n' > "$HOME/.netrc"
	chmod 600 "$HOME/.netrc"
	expect_status 0 "$LUAPROF" run pprof --push="http://127.0.0.1:$PORT" -e cpu-clock -F 99 -- "$PROGS/spin" 200
	stop_receiver
	rm "$HOME/.netrc"
	requests_ok netrc
	expect_grep "^luaprof: push: sent 1 of 1 profiles to http://127.0.0.1:$PORT/ingest$" "$TMP/err"
}

# A slow server: the first request is answered after 3 s, so its attempt
# times out (--push-timeout=1) after the profile arrived, and is sent again.
slow_server() {
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
}

scenario "credentials in the URL" secrets
scenario "credentials refused" denied
scenario "unreachable, malformed" unreachable
scenario "~/.netrc" netrc
scenario "a slow server" slow_server
scenarios_done
