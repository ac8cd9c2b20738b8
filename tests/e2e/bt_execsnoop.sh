# execsnoop beside bpftrace's execsnoop.bt on toolwork exec 3 (three
# children exec'ing "toolwork hold 0 arg-I" and a 100-character argument,
# and one exec'ing a file that does not exist, which fails): each of
# bpftrace's rows of those children (pid, arguments) is luaprof's, and
# luaprof has all four.  The arguments are in the caller's memory, which
# a successful exec replaces: luaprof reads them when it handles the call,
# a moment later (execsnoop.lua's argv_of: the array if still there, else
# the new program's /proc/PID/cmdline), so toolwork's processes stay a
# while (TOOLWORK_LINGER); arguments luaprof could not read (an empty
# list) match any, and are counted; capture of the arguments at the exec
# will make every row comparable without the wait (the failed exec's
# array, on the stack of a function that has returned, is often gone
# even so).  What luaprof does
# better: bpftrace reads them in its probe, where it cannot fault a page
# in, and a child that has not touched the page of a string since the
# fork (here the failed exec's, in toolwork's .rodata) gets no row at all
# from it, or an empty one: such rows are counted.  (luaprof's events
# start at the command's exec: the first row is bpftrace's alone.)
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool execsnoop)"
TOOLWORK_LINGER=300 expect_status 0 "$LUAPROF" run execsnoop -- "$PROGS/toolwork" exec 3
cp "$TMP/out" lp.out
awk 'NR > 1 && NF >= 2 {print $2}' lp.out > pids
[ "$(wc -l < pids)" = 4 ] || { cat lp.out; fail "luaprof's rows are not toolwork's 4 execs"; }
last=$(tail -1 pids)
# bpftrace's rows until the last exec's, if it has one: wait a while
for i in $(seq 40); do grep -qE "^[0-9]+ +$last( |$)" "$BT_OUT" && break; sleep 0.05; done
bt_stop
rows() { awk -v OFS='\t' 'NR == FNR {p[$1] = 1; next} ($2 in p) {a = $0; sub(/^[0-9]+ +[0-9]+ */, "", a); print $2, a}' pids "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
long=long-$(printf '%095d' 0 | tr 0 x)
i=0
while IFS=$'\t' read -r p args; do
	i=$((i + 1))
	case $i in
	4) want="toolwork-missing x" ;;
	*) want="toolwork hold 0 arg-$i $long" ;;
	esac
	[ "$args" = "$want" ] || [ -z "$args" ] || { cat lp.out; fail "luaprof's exec $i: '$args', not '$want'"; }
done < lp.rows
python3 - bt.rows lp.rows > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "execsnoop's rows differ from execsnoop.bt's: $(tail -1 cmp.txt)"; }
import sys
def rows(p):
    return [l.split("\t", 1) for l in open(p).read().splitlines()]
bt, lp = rows(sys.argv[1]), dict(rows(sys.argv[2]))
missed = len(lp) - len(set(p for p, _ in bt))
unread_lp = unread_bt = 0
for p, args in bt:
    assert p in lp, "bpftrace's exec of pid %s is none of luaprof's" % p
    if lp[p] == "":
        unread_lp += 1
    elif args == "":
        unread_bt += 1
    else:
        assert args == lp[p], "pid %s: bpftrace %r, luaprof %r" % (p, args, lp[p])
print("%d execs, %d arguments luaprof could not read, %d bpftrace could not read, %d execs bpftrace missed" % (
    len(lp), unread_lp, unread_bt, missed))
PY
echo "execsnoop: $(cat cmp.txt); the rest as execsnoop.bt prints them"
exit 0
