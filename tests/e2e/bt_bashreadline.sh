# bashreadline beside bpftrace's bashreadline.bt on an interactive bash
# (in a terminal of script(1)'s) reading two lines: "echo one",
# "/bin/true two three; exit", each run at once.  The same rows of that shell
# (pid, line), every line demanded: the kernel copies the line as
# readline returns it (bashreadline.lua's line_of: s:str of a uretprobe's
# value kept with strings), however soon bash frees it or exits.  The
# probe follows the command and what it starts (script forks the shell,
# the shell forks /bin/true): their forks succeed (through the uprobe
# PMU they failed with EFAULT: uprobe_fork).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
command -v script >/dev/null || skip "script (util-linux) is not installed: no terminal for an interactive bash"
[ -x /bin/bash ] || skip "no /bin/bash"
cd "$TMP"
bt_start "$(bt_tool bashreadline)"
# The shell's last line forks /bin/true and exits: no readline() comes
# after a child of the traced tree has gone.  On Linux 6.1, when such a
# child's inherited event closes, the kernel may take the uprobe out of the
# parent's memory: bash's next readline() is not seen, by perf record's
# per-task probe either (one run in twenty; luaprof's, one in five).  A
# system-wide run (-a, as bpftrace's) keeps it.
printf 'echo one\n/bin/true two three; exit\n' > input
expect_status 0 "$LUAPROF" run bashreadline -- \
	sh -c 'script -q -c "bash --norc --noprofile -i" /dev/null > /dev/null' < input
cp "$TMP/out" lp.out
pid=$(awk 'NR > 1 {print $2; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no line of the shell"; }
bt_stop "^[0-9:]+ +$pid +/bin/true two three; exit$" 1
# "%-9s %-6d %s": the line after the pid, padded to 6, and a space
rows() { awk -v p="$pid" -v OFS='\t' '$2 == p {w = length($2) < 6 ? 6 : length($2); print $2, substr($0, index($0, " " $2) + w + 2)}' "$1"; }
rows lp.out > lp.rows
rows "$BT_OUT" > bt.rows
sed 's/^/'"$pid"'	/' input > want.rows
diff want.rows lp.rows > /dev/null || { cat lp.out "$TMP/err"; fail "luaprof's lines are not the shell's"; }
python3 "$ROOT/tests/e2e/btrows.py" --unread=NONE bt.rows lp.rows > cmp.txt 2>&1 ||
	{ cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "bashreadline's rows differ from bashreadline.bt's: $(tail -1 cmp.txt)"; }
echo "bashreadline: $(cut -d, -f1-2 cmp.txt), as bashreadline.bt prints them"
exit 0
