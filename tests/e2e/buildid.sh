# Replaying checks the recorded build-ids: a program recorded, then rebuilt
# in place with another build-id, has its frames left unnamed with exactly
# one warning naming it (perf report leaves them unnamed too); when perf
# record kept a copy in its build-id cache (the default; a temporary HOME
# here), the frames are named from that copy, function by function as perf
# report names them.  A recording without build-ids is read by path as
# before.  The kernel's entry is checked against the running kernel: the
# recording with its kernel build-id altered gets unnamed kernel frames and
# one warning.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to record with"
command -v python3 >/dev/null || skip "python3 is not installed: cannot alter a recording"
PROG=$TMP/prog
build() {       # build [LDFLAGS]: the workload, at the same path each time
	cc -O1 -g -fno-omit-frame-pointer -I"$ROOT/tests/progs" $1 -o "$PROG" "$ROOT/tests/progs/spin.c" ||
		fail "cannot compile the workload"
}
build_id() { readelf -n "$1" | awk '/Build ID:/ {print $3}'; }
report() {      # report HOME FILE: perf report's functions of $PROG
	HOME=$1 perf report -i "$2" --stdio --no-children --dsos prog --sort sym -F sample,sym -q -g none 2>/dev/null |
		awk 'NF >= 3 && $2 == "[.]" && $3 !~ /^0x/ {print $1, $2, $3}' | sort
}
replay() {      # replay HOME FILE OUT: luaprof's view of $PROG, stderr in OUT.err
	HOME=$1 "$LUAPROF" run "$CHECKS/dsosyms.lua" -A "$PROG" -i "$2" > "$3" 2> "$3.err" ||
		{ cat "$3.err"; fail "luaprof -i $2 failed"; }
}
count() { awk -v k="$1" '$0 ~ "^"k" [0-9]+$" {print $NF}' "$2"; }
mkdir -p "$TMP/nocache" "$TMP/cache"

build ""
OLD=$(build_id "$PROG")
HOME=$TMP/nocache perf record -q --no-buildid-cache -F 2000 -o "$TMP/nocache.data" -- "$PROG" 200 >/dev/null 2>&1 ||
	fail "perf record --no-buildid-cache failed"
HOME=$TMP/cache perf record -q -F 2000 -o "$TMP/cache.data" -- "$PROG" 200 >/dev/null 2>&1 ||
	fail "perf record failed"
HOME=$TMP/nocache perf record -q --no-buildid -F 2000 -o "$TMP/noid.data" -- "$PROG" 100 >/dev/null 2>&1 ||
	fail "perf record --no-buildid failed"
ls "$TMP/cache/.debug/.build-id/${OLD:0:2}/${OLD:2}/elf" >/dev/null 2>&1 ||
	fail "perf record did not keep $PROG in its build-id cache"
[ -z "$(ls -A "$TMP/nocache")" ] || fail "perf record --no-buildid-cache wrote a cache"

# Before the rebuild, both recordings name the program's functions.
replay "$TMP/nocache" "$TMP/nocache.data" "$TMP/before"
[ "$(count unnamed "$TMP/before")" = 0 ] || fail "unnamed samples of $PROG before the rebuild"
[ "$(count named "$TMP/before")" -gt 0 ] || fail "no samples of $PROG in the recording"
[ ! -s "$TMP/before.err" ] || fail "warnings before the rebuild: $(head -3 "$TMP/before.err")"

# The same source linked with another build-id, in place.
build "-Wl,--build-id=0x1234567890abcdef1234567890abcdef12345678"
NEW=$(build_id "$PROG")
[ "$NEW" != "$OLD" ] || fail "the rebuild kept build-id $OLD"

# No cache: the program's frames are unnamed, one warning names it.
replay "$TMP/nocache" "$TMP/nocache.data" "$TMP/after"
[ "$(count named "$TMP/after")" = 0 ] || fail "frames of the rebuilt $PROG were named: $(cat "$TMP/after")"
[ "$(count unnamed "$TMP/after")" = "$(count named "$TMP/before")" ] ||
	fail "samples of $PROG: $(count unnamed "$TMP/after") unnamed after the rebuild, $(count named "$TMP/before") before"
n=$(grep -c -- "$PROG" "$TMP/after.err")
[ "$n" = 1 ] || { cat "$TMP/after.err"; fail "$n warning lines name $PROG, expected 1"; }
expect_grep "^luaprof: $PROG: build-id $OLD in the recording, $NEW on disk; its frames are left unnamed" "$TMP/after.err"
[ -z "$(report "$TMP/nocache" "$TMP/nocache.data")" ] || fail "perf report names the rebuilt $PROG: luaprof should agree"

# perf's cache has the recorded copy: named from it, as perf report names them.
replay "$TMP/cache" "$TMP/cache.data" "$TMP/cached"
[ "$(count unnamed "$TMP/cached")" = 0 ] || fail "unnamed samples of $PROG with perf's cache: $(cat "$TMP/cached")"
! grep -q -- "$PROG" "$TMP/cached.err" || fail "a warning with perf's cache: $(cat "$TMP/cached.err")"
report "$TMP/cache" "$TMP/cache.data" > "$TMP/theirs"
grep ' \[\.\] ' "$TMP/cached" | sort > "$TMP/ours"
[ -s "$TMP/theirs" ] || fail "perf report names nothing in $PROG from its cache"
diff "$TMP/theirs" "$TMP/ours" || fail "per-function counts of $PROG differ from perf report"

# No build-ids recorded: opened by path, as before.
replay "$TMP/nocache" "$TMP/noid.data" "$TMP/noid"
[ "$(count unnamed "$TMP/noid")" = 0 ] && [ "$(count named "$TMP/noid")" -gt 0 ] ||
	fail "a recording without build-ids was not named by path: $(cat "$TMP/noid")"
[ ! -s "$TMP/noid.err" ] || fail "warnings without build-ids: $(head -3 "$TMP/noid.err")"

# The kernel: the recording's kernel build-id altered, as if made on another kernel.
KID=$(perf buildid-list -i "$TMP/nocache.data" 2>/dev/null | awk '$2 == "[kernel.kallsyms]" {print $1}')
[ "$(count "kernel named" "$TMP/before")" -gt 0 ] && [ -n "$KID" ] ||
	{ echo "no kernel samples or no kernel build-id in the recording: kernel check skipped"; exit 0; }
python3 - "$TMP/nocache.data" "$TMP/otherkernel.data" "$KID" <<'EOF' || fail "cannot alter the recording"
import sys
data = open(sys.argv[1], "rb").read()
kid = bytes.fromhex(sys.argv[3])
assert data.count(kid) == 1, "the kernel build-id is not in the file exactly once"
open(sys.argv[2], "wb").write(data.replace(kid, bytes(b ^ 0xff for b in kid)))
EOF
replay "$TMP/nocache" "$TMP/otherkernel.data" "$TMP/kernel"
[ "$(count "kernel named" "$TMP/kernel")" = 0 ] || fail "kernel frames named for another kernel's recording"
[ "$(count "kernel unnamed" "$TMP/kernel")" = "$(count "kernel named" "$TMP/before")" ] ||
	fail "kernel samples: $(count "kernel unnamed" "$TMP/kernel") unnamed, $(count "kernel named" "$TMP/before") before"
n=$(grep -c '\[kernel.kallsyms\]' "$TMP/kernel.err")
[ "$n" = 1 ] || { cat "$TMP/kernel.err"; fail "$n warning lines name the kernel, expected 1"; }
expect_grep "^luaprof: \[kernel.kallsyms\]: build-id [0-9a-f]+ in the recording, $KID running" "$TMP/kernel.err"
