# gethostlatency beside bpftrace's gethostlatency.bt on toolwork gethost
# (getaddrinfo, gethostbyname and gethostbyname2 of "localhost", answered
# from /etc/hosts): the same rows in the same order (pid, command,
# latency in whole milliseconds, within one: each tool reads its clock a
# moment apart, name).  The workload exits at once: the kernel copies the
# name at the call's entry (gethostlatency.lua's host_of: s:str of a
# uprobe's argument kept with strings), and every name is demanded.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
bt_start "$(bt_tool gethostlatency)"
expect_status 0 "$LUAPROF" run gethostlatency -- "$PROGS/toolwork" gethost
cp "$TMP/out" lp.out
pid=$(awk '$3 == "toolwork" {print $2; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no lookup of toolwork"; }
bt_stop "^[0-9:]+ +$pid " 3
rows() { awk -v p="$pid" -v OFS='\t' '$2 == p {print $2, $3, $4, $5}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
[ "$(wc -l < lp.rows)" = 3 ] && ! awk -F'\t' '$4 != "localhost"' lp.rows | grep -q . ||
	{ cat lp.out; fail "luaprof's rows are not toolwork's 3 lookups of localhost"; }
# the latencies within a millisecond, then the rest
paste bt.rows lp.rows | awk -F'\t' '{d = $3 - $7; if (d < -1 || d > 1) exit 1}' ||
	{ cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "the latencies differ by more than 1 ms"; }
cut -f1,2,4 bt.rows > bt.cut
cut -f1,2,4 lp.rows > lp.cut
python3 "$ROOT/tests/e2e/btrows.py" --unread=NONE bt.cut lp.cut > cmp.txt 2>&1 ||
	{ cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "gethostlatency's rows differ from gethostlatency.bt's: $(tail -1 cmp.txt)"; }
echo "gethostlatency: $(cut -d, -f1-2 cmp.txt), as gethostlatency.bt prints them"
exit 0
