# threadsnoop beside bpftrace's threadsnoop.bt on toolwork threads 6
# (six threads, started alternately in thread_alpha and thread_beta): the
# same rows (pid, command, start function; the first column is each
# tool's milliseconds since its own start).  The .bt probes
# libpthread:pthread_create, which glibc 2.34 and later no longer has (it
# moved to libc): it attaches nothing there, so it is run with libc in its
# place.  What luaprof does better: it names the start function as the
# process mapped it at the call, where bpftrace names it when it prints,
# and prints an address (0x...) once the process has exited; such a
# bpftrace row matches luaprof's name, and is counted.
# test: check
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
sed 's/uprobe:libpthread:pthread_create/uprobe:libc:pthread_create/' "$(bt_tool threadsnoop)" > threadsnoop.bt
bt_start threadsnoop.bt
expect_status 0 "$LUAPROF" run threadsnoop -- "$PROGS/toolwork" threads 6
cp "$TMP/out" lp.out
pid=$(awk '$3 == "toolwork" {print $2; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no row of toolwork"; }
bt_stop "^[0-9]+ +$pid " 6
rows() { awk -v p="$pid" -v OFS='\t' '$2 == p {print $2, $3, $4}' "$1"; }
rows lp.out > lp.rows
for i in 1 2 3; do printf '%s\ttoolwork\tthread_alpha\n%s\ttoolwork\tthread_beta\n' "$pid" "$pid"; done > want.rows
diff want.rows lp.rows || fail "luaprof's rows are not the threads toolwork made"
# bpftrace's unnamed addresses stand for luaprof's names
rows "$BT_OUT" > bt.rows
paste bt.rows lp.rows | awk -F'\t' -v OFS='\t' '$3 ~ /^0x/ {$3 = $6; n++} {print $1, $2, $3} END {print n + 0 > "unnamed"}' > bt.named
bt_same "threadsnoop's rows differ from threadsnoop.bt's" bt.named lp.rows
echo "threadsnoop: the 6 threads as threadsnoop.bt (on libc) sees them; $(cat unnamed) start functions it left unnamed, luaprof none"
exit 0
