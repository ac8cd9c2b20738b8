# execsnoop beside bpftrace's execsnoop.bt on toolwork exec 3 (three
# children exec'ing "toolwork hold 0 arg-I" and a 100-character argument,
# and one exec'ing a file that does not exist, which fails).  The
# workload exits at once: luaprof keeps each exec's arguments at the event
# (args.argv at the call's return: copied by the kernel at libc's
# execve), so every row is demanded whole: the command's own exec (its
# entry came before luaprof's events started), the three children's and
# the failed one's.  Each of bpftrace's rows of those processes is
# luaprof's.  What luaprof does better: bpftrace reads the arguments in
# its probe, where it cannot fault a page in, and a child that has not
# touched the page of a string since the fork (here the failed exec's, in
# toolwork's .rodata) gets no row at all from it, or an empty one: such
# rows are counted.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool execsnoop)"
expect_status 0 "$LUAPROF" run execsnoop -- "$PROGS/toolwork" exec 3
cp "$TMP/out" lp.out
long=long-$(printf '%095d' 0 | tr 0 x)
printf '%s\n' "$PROGS/toolwork exec 3" "toolwork hold 0 arg-1 $long" "toolwork hold 0 arg-2 $long" \
	"toolwork hold 0 arg-3 $long" "toolwork-missing x" > want
# "%-10d %-5d %s": the arguments after the pid, padded to 5, and a space
rows() { awk -v OFS='\t' 'NR == FNR {p[$1] = 1; next} ($2 in p) {w = length($2) < 5 ? 5 : length($2); print $2, substr($0, index($0, " " $2 " ") + w + 2)}' "$@"; }
awk 'NR > 1 {print $2}' lp.out > pids
rows pids lp.out > lp.rows
cut -f2 lp.rows | diff want - > /dev/null || { cat lp.out; fail "luaprof's rows are not toolwork's 5 execs, each with its arguments"; }
# bpftrace's rows until the failed exec's, if it has one: wait a while
last=$(tail -1 pids)
for i in $(seq 40); do grep -qE "^[0-9]+ +$last( |$)" "$BT_OUT" && break; sleep 0.05; done
bt_stop
rows pids "$BT_OUT" > bt.rows
python3 - bt.rows lp.rows > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "execsnoop's rows differ from execsnoop.bt's: $(tail -1 cmp.txt)"; }
import sys
def rows(p):
    return [l.split("\t", 1) for l in open(p).read().splitlines()]
bt, lp = rows(sys.argv[1]), dict(rows(sys.argv[2]))
missed = len(lp) - len(set(p for p, _ in bt))
unread = 0
for p, args in bt:
    assert p in lp, "bpftrace's exec of pid %s is none of luaprof's" % p
    if args == "" and lp[p] != "":
        unread += 1
    else:
        assert args == lp[p], "pid %s: bpftrace %r, luaprof %r" % (p, args, lp[p])
print("%d execs, all their arguments; bpftrace missed %d and could not read the arguments of %d" % (
    len(lp), missed, unread))
PY
echo "execsnoop: $(cat cmp.txt); the rest as execsnoop.bt prints them"
exit 0
