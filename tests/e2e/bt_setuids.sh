# setuids beside bpftrace's setuids.bt on toolwork setuid (as root:
# setuid(0), setfsuid(0), setresuid(-1,-1,-1), setresuid(0,0,0); then a
# child: setresuid to nobody (65534), and setuid(0), refused with EPERM):
# the same rows, the time column aside (each tool's wall clock when it
# prints), and the values toolwork passes.  The caller's uid (UID) is
# compared on the parent's rows, whose uid never changes: luaprof reads it
# from /proc when it handles the call (setuids.lua's uid_of), by when the
# child has changed its uid or exited (-1); the parent stays a while
# after its last call (TOOLWORK_LINGER).  The capture of the uid at
# the event (s.uid) will make the child's rows comparable too.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool setuids)"
TOOLWORK_LINGER=300 expect_status 0 "$LUAPROF" run setuids -- "$PROGS/toolwork" setuid
cp "$TMP/out" lp.out
pids=$(awk '$3 == "toolwork" {print $2}' lp.out | uniq | tr '\n' ' ')
set -- $pids
[ $# = 2 ] || { cat lp.out; fail "luaprof's rows are not of two processes: $pids"; }
parent=$1 child=$2
bt_stop "^[0-9:]+ +($parent|$child) " 6
# without the time and the uid
rows() { awk -v p="$parent" -v c="$child" '$2 == p || $2 == c {$1 = ""; $4 = ""; print substr($0, 2)}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
sed "s/P /$parent /; s/C /$child /" > want.rows <<'ROWS'
P toolwork  setuid uid=0 (0)
P toolwork  setfsuid uid=0 (prevuid=0)
P toolwork  setresuid ruid=-1 euid=-1 suid=-1 (0)
P toolwork  setresuid ruid=0 euid=0 suid=0 (0)
C toolwork  setresuid ruid=65534 euid=65534 suid=65534 (0)
C toolwork  setuid uid=0 (-1)
ROWS
diff want.rows lp.rows || fail "luaprof's rows are not the calls toolwork made"
bt_same "setuids' rows differ from setuids.bt's" bt.rows lp.rows
uids() { awk -v p="$2" '$2 == p {print $4}' "$1" | tr '\n' ' '; }
[ "$(uids lp.out "$parent")" = "0 0 0 0 " ] && [ "$(uids "$BT_OUT" "$parent")" = "0 0 0 0 " ] ||
	fail "the parent's uid: luaprof $(uids lp.out "$parent"), bpftrace $(uids "$BT_OUT" "$parent"), expected 0"
echo "setuids: the 6 calls as setuids.bt prints them; the child's uids: bpftrace $(uids "$BT_OUT" "$child")," \
	"luaprof $(uids lp.out "$child")(read late: the capture at the event will give bpftrace's)"
exit 0
