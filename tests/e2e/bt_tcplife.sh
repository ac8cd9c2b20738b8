# tcplife beside bpftrace's tcplife.bt rewritten to the tracepoint, on
# toolwork tcp 64 (a connection on 127.0.0.1 between two processes: the
# client sends 64 KiB and shuts its side, the server answers 32 KiB and
# closes).  The .bt needs a kprobe on tcp_set_state, which this kernel
# lacks: its logic is run on sock:inet_sock_set_state (the tracepoint in
# that function), its addresses and ports from the tracepoint's fields,
# the bytes still from the socket (bpftrace casts the tracepoint's skaddr
# to struct tcp_sock: kernel memory, which luaprof's script reads no
# more than the kernel's; it counts what the processes sent and received
# on the socket instead, sock:sock_send_length and sock_recv_length).
# The same two rows for toolwork's processes (compared sorted: bpftrace
# prints each at CLOSE, luaprof once the socket is freed): pid, command,
# addresses, ports, KiB sent and received (64 and 32 each way), and the
# lifespan within a millisecond.  TOOLWORK_BUSY keeps every CPU off its
# idle task: this kernel records no perf tracepoint hit while one CPU's
# idle task runs (a state change in a softirq interrupting it), for perf
# as for luaprof.
# test: alone
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
cat > tcplife.bt <<'BT'
BEGIN
{
	printf("%-5s %-10s %-15s %-5s %-15s %-5s ", "PID", "COMM",
	    "LADDR", "LPORT", "RADDR", "RPORT");
	printf("%5s %5s %s\n", "TX_KB", "RX_KB", "MS");
}

tracepoint:sock:inet_sock_set_state
/args->protocol == 6/
{
	$sk = (uint64)args->skaddr;
	$newstate = args->newstate;
	if ($newstate < 4 && @birth[$sk] == 0) {
		@birth[$sk] = nsecs;
	}
	if ($newstate == 2 || $newstate == 9) {
		@skpid[$sk] = pid;
		@skcomm[$sk] = comm;
	}
	if ($newstate == 7 && @birth[$sk]) {
		$delta_ms = (nsecs - @birth[$sk]) / 1e6;
		$tp = (struct tcp_sock *)args->skaddr;
		$pid = @skpid[$sk];
		$comm = @skcomm[$sk];
		if ($comm == "") {
			$pid = pid;
			$comm = comm;
		}
		if (args->family == 2) {
			$saddr = ntop(2, args->saddr);
			$daddr = ntop(2, args->daddr);
		} else {
			$saddr = ntop(10, args->saddr_v6);
			$daddr = ntop(10, args->daddr_v6);
		}
		printf("%-5d %-10.10s %-15s %-5d %-15s %-6d ", $pid,
		    $comm, $saddr, args->sport, $daddr, args->dport);
		printf("%5d %5d %d\n", $tp->bytes_acked / 1024,
		    $tp->bytes_received / 1024, $delta_ms);
		delete(@birth[$sk]);
		delete(@skpid[$sk]);
		delete(@skcomm[$sk]);
	}
}

END
{
	clear(@birth); clear(@skpid); clear(@skcomm);
}
BT
bt_start tcplife.bt
TOOLWORK_BUSY=1 expect_status 0 "$LUAPROF" run tcplife -- "$PROGS/toolwork" tcp 64
cp "$TMP/out" lp.out
pids=$(awk '$2 == "toolwork" {print $1}' lp.out | sort -n | tr '\n' ' ')
set -- $pids
[ $# = 2 ] || { cat lp.out; fail "luaprof's rows are not two connections of toolwork's: $pids"; }
bt_stop "^($1|$2) +toolwork " 2
rows() { awk -v a="$1" -v b="$2" -v OFS='\t' '($1 == a || $1 == b) && $2 == "toolwork" {print $1, $2, $3, $4, $5, $6, $7, $8, $9}' "$3" | sort; }
rows "$1" "$2" lp.out > lp.rows
rows "$1" "$2" "$BT_OUT" > bt.rows
awk -F'\t' '{print $7, $8}' lp.rows | sort | tr '\n' ' ' > kb
[ "$(cat kb)" = "32 64 64 32 " ] || { cat lp.out; fail "luaprof's KiB sent and received: $(cat kb), not toolwork's 64 and 32"; }
# the lifespan within a millisecond
paste bt.rows lp.rows | awk -F'\t' '{d = $9 - $18; if (d < -1 || d > 1) exit 1}' ||
	{ cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "tcplife's lifespans differ from the .bt's by more than 1 ms"; }
cut -f1-8 bt.rows > bt.cut
cut -f1-8 lp.rows > lp.cut
bt_same "tcplife's rows differ from tcplife.bt's" bt.cut lp.cut
echo "tcplife: toolwork's 2 connections as tcplife.bt on inet_sock_set_state prints them"
exit 0
