# setuids beside bpftrace's setuids.bt on toolwork setuid (as root:
# setuid(0), setfsuid(0), setresuid(-1,-1,-1), setresuid(0,0,0); then a
# child: setresuid to nobody (65534), and setuid(0), refused with EPERM):
# the same rows, the time column aside (each tool's wall clock when it
# prints), the caller's uid (UID) included, and the values toolwork
# passes.  The workload exits at once.  The uid is not in the tracepoints:
# bpftrace reads it in the kernel at the call's entry; setuids.lua keeps
# each process's as its calls in the run change it (the child's is its
# parent's at the fork, then nobody's after its setresuid), so the
# child's setuid(0) is shown by nobody, as bpftrace shows it.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool setuids)"
expect_status 0 "$LUAPROF" run setuids -- "$PROGS/toolwork" setuid
cp "$TMP/out" lp.out
pids=$(awk '$3 == "toolwork" {print $2}' lp.out | uniq | tr '\n' ' ')
set -- $pids
[ $# = 2 ] || { cat lp.out; fail "luaprof's rows are not of two processes: $pids"; }
parent=$1 child=$2
bt_stop "^[0-9:]+ +($parent|$child) " 6
# without the time
rows() { awk -v p="$parent" -v c="$child" '$2 == p || $2 == c {$1 = ""; print substr($0, 2)}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
sed "s/P /$parent /; s/C /$child /" > want.rows <<'ROWS'
P toolwork 0 setuid uid=0 (0)
P toolwork 0 setfsuid uid=0 (prevuid=0)
P toolwork 0 setresuid ruid=-1 euid=-1 suid=-1 (0)
P toolwork 0 setresuid ruid=0 euid=0 suid=0 (0)
C toolwork 0 setresuid ruid=65534 euid=65534 suid=65534 (0)
C toolwork 65534 setuid uid=0 (-1)
ROWS
diff want.rows lp.rows || fail "luaprof's rows are not the calls toolwork made"
bt_same "setuids' rows differ from setuids.bt's" bt.rows lp.rows
echo "setuids: the 6 calls as setuids.bt prints them, the callers' uids too"
exit 0
