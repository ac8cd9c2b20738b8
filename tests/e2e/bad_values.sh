# Bad values, and the messages that quote them.  Every message quoting a
# value from outside (an option's value, a path, an event string, a
# script's name or option, a command) shows it by one rule, lp_show: whole
# when short, else its first 40 and last 24 bytes around its length, so
# that a 100 KB value leaves a line under 400 characters that still ends
# with its reason.  Then the numeric options: each accepts exactly the
# range its message states, ranges the kernel refuses are said in one
# line (-c and period= above 2^63-1), a freq= term above the kernel's
# limit is lowered to it as -F is, and --symfs must be a directory.  The
# table's rules are in lib_table.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_table.sh"

LONG=$(printf 'x%.0s' $(seq 100000))
# shown N [P]: a value of N bytes, x's after a prefix of P bytes (the
# regex leaves the prefix to the caller), as messages show it
shown() { echo "x{$((40 - ${2:-0}))}\.\.\.\[$1 bytes\]\.\.\.x{24}"; }
X=$(shown 100000)
script opts 'luaprof.options{ description = "options", { "limit", "integer", 10, "rows" } }'
script interval 'luaprof.setup{ interval = 1 << 62 }
function on_interval(i) end'
: > "$TMP/afile"

# ---- a 100k value for each option that takes one (-A takes any) -------
# OPTION|REASON: the message for OPTION with LONG as its value must match
# REASON (an extended regex, after "luaprof: ") and stay under 400
# characters.  The command never runs.
while IFS='|' read -r opt why; do
	[ -n "$opt" ] || continue
	row "$opt of 100k bytes" 255 "$why" norun,short -- "$LP" run "$S/count.lua" "$opt" "$LONG" -- "$MARK" 50
done <<EOF
-e|an event string is longer than the 4352 bytes luaprof takes: '$X'\$
-F|-F needs a positive number of samples per second \(got '$X'\)\$
-c|-c needs an event count from 1 to 9223372036854775807, the kernel's range \(got '$X'\)\$
--call-graph|unknown call graph mode '$X': use fp, dwarf, or dwarf,SIZE with SIZE 1 to 65528 bytes of stack \(rounded up to 8\)\$
-p|-p needs process ids from 1 to 4194304 such as 1234 or 1234,5678 \(got '$X'\)\$
-d|--duration needs a number of seconds from 1e-9 to 1e9 \(got '$X'\)\$
-m|-m needs a power of two number of pages from 1 to 1048576, such as 64 or 1024 \(got '$X'\)\$
--queue-size|--queue-size needs a size from 64K to 16T, in megabytes such as 512 or with K, M, G or T such as 256K \(got '$X'\)\$
-I|-I needs a number of milliseconds from 1 to 86400000 \(a day\), such as 1000 \(got '$X'\)\$
--script-timeout|--script-timeout needs a number of seconds from 0 \(no limit\) to 1e9 \(got '$X'\)\$
--script-memory|--script-memory needs a number of megabytes from 0 \(no limit\) to 1073741824, such as 512 \(got '$X'\)\$
--symfs|--symfs $X: File name too long \(--symfs DIR looks for /usr/lib/x\.so as DIR/usr/lib/x\.so\)\$
-o|cannot create $X: File name too long\$
EOF
row '-i of 100k bytes'        255 "$X: cannot open: File name too long\$" short -- "$LP" run "$S/count.lua" -i "$LONG"
row '-i of a 100k path'       255 "/tmp/$(shown 100005 5): cannot open: File name too long\$" short -- "$LP" run "$S/count.lua" -i "/tmp/$LONG"
row '--filter of 100k bytes'  255 "the kernel rejects the filter '$X' on 'sched:sched_switch': Invalid argument \(its fields: luaprof list --fields sched:sched_switch\)\$" norun,short -- tracefs_row "$LP" run "$S/count.lua" -e sched:sched_switch --filter "$LONG" -- "$MARK" 50
row '-x of 100k bytes'        255 "-x:1:1: '$X' needs a \{ LUA \} after it\$" short -- "$LP" -x "$LONG"
row '-x, a name of 100k bytes'  255 "-x:1:19: unknown name '$X'" short -- "$LP" -x "cpu-clock { count($LONG) }"
row '-x, a field of 100k bytes' 255 "-x:1:33: sched:sched_switch has no field '$X'" short -- tracefs_row "$LP" -x "sched:sched_switch { count(args.$LONG) }"
row 'script name of 100k'     255 "no script '$X' in \\\$LUAPROF_PATH, .*; a file in the current directory is run as \./$X\$" norun,short -- "$LP" run "$LONG" -- "$MARK" 50
row 'script path of 100k'     255 "cannot open the script \./$(shown 100002 2): File name too long\$" norun,short -- "$LP" run "./$LONG" -- "$MARK" 50
row 'script option of 100k'   255 "opts\.lua: --limit=$X: the value must be an integer such as 10, -3, 0x1f or 5K\$" norun,short,usage -- "$LP" run "$S/opts.lua" "--limit=$LONG" -- "$MARK" 50
row 'script option name of 100k' 255 "opts\.lua: '--$(shown 100002 2)' is not an option of the script \(use --name=value\)\$" norun,short,usage -- "$LP" run "$S/opts.lua" "--$LONG" -- "$MARK" 50
row 'option of a script without' 255 "count\.lua: unknown option '--$(shown 100002 2)': the script declares no options \(see luaprof run .*count\.lua --help\)\$" norun,short -- "$LP" run "$S/count.lua" "--$LONG" -- "$MARK" 50
row 'unknown option of 100k'  255 "unknown option '--$(shown 100002 2)': see 'luaprof run --help'\$" norun,short -- "$LP" run "--$LONG" "$S/count.lua" -- "$MARK" 50
row 'unknown command of 100k' 255 "unknown command '$X': the commands are .*\(see luaprof --help\)\$" short -- "$LP" "$LONG"
row 'command of 100k'         255 "cannot run '$X': File name too long\$" noend,short -- "$LP" run "$S/count.lua" -- "$LONG"
row 'funccount pattern of 100k' 255 "funccount: no function of .*/spin matches '$X' \(see luaprof run funccount --help\)\$" norun,short -- "$LP" run funccount "--pattern=$SPIN:$LONG" -- "$MARK" 50
row 'funclatency func of 100k' 255 "funclatency: no function '$X' in .*/spin \(see luaprof run funclatency --help\)\$" norun,short -- "$LP" run funclatency "--func=$SPIN:$LONG" -- "$MARK" 50
row 'list pattern of 100k'    0   "no event matches '$X'\$" short -- "$LP" list "$LONG"
# an event string under the 4352 bytes taken, quoted by the message
row 'unknown event of 4000'   255 "unknown event '$(shown 4000)': see 'luaprof list'" norun,short -- "$LP" run "$S/count.lua" -e "${LONG:0:4000}" -- "$MARK" 50
row 'uprobe path of 4000'     255 "cannot use '/$(shown 4000 1)' for 'uprobe:/x{32}\.\.\.\[4012 bytes\]\.\.\.x{19}:main': File name too long\$" norun,short -- "$LP" run "$S/count.lua" -e "uprobe:/${LONG:0:3999}:main" -- "$MARK" 50

# ---- ranges: what the message says is what is taken --------------------
row '--queue-size=1T'         0   ''                                          ran,end -- "$LP" run "$S/count.lua" --queue-size=1T -- "$MARK" 0
row '--queue-size=16T'        0   ''                                          ran,end -- "$LP" run "$S/count.lua" --queue-size=16T -- "$MARK" 0
row '--queue-size=17T'        255 "--queue-size needs a size from 64K to 16T, .* \(got '17T'\)" norun -- "$LP" run "$S/count.lua" --queue-size=17T -- "$MARK" 50
row '--queue-size=16385G'     255 "--queue-size needs a size from 64K to 16T, .* \(got '16385G'\)" norun -- "$LP" run "$S/count.lua" --queue-size=16385G -- "$MARK" 50
row '--queue-size=17000000 (MB)' 255 "--queue-size needs a size from 64K to 16T, .* \(got '17000000'\)" norun -- "$LP" run "$S/count.lua" --queue-size=17000000 -- "$MARK" 50
row '-c 2^64-1'               255 "-c needs an event count from 1 to 9223372036854775807, the kernel's range \(got '18446744073709551615'\)\$" norun -- "$LP" run "$S/count.lua" -c 18446744073709551615 -- "$MARK" 50
row '-c 2^63'                 255 "-c needs an event count from 1 to 9223372036854775807, the kernel's range \(got '9223372036854775808'\)\$" norun -- "$LP" run "$S/count.lua" -c 9223372036854775808 -- "$MARK" 50
row '-c 2^63-1'               0   ''                                          ran,end -- "$LP" run "$S/count.lua" -e cpu-clock -c 9223372036854775807 -- "$MARK" 0
row 'period=2^63'             255 "a bad value for term 'period' in 'cpu-clock/period=9223372036854775808/': period= takes an event count from 1 to 9223372036854775807, the kernel's range \(got '9223372036854775808'\)\$" norun -- "$LP" run "$S/count.lua" -e cpu-clock/period=9223372036854775808/ -- "$MARK" 50
row 'period=0'                255 "a bad value for term 'period' in 'cpu-clock/period=0/': period= takes an event count from 1 to 9223372036854775807" norun -- "$LP" run "$S/count.lua" -e cpu-clock/period=0/ -- "$MARK" 50
row 'stack-size=0'            255 "a bad value for term 'stack-size' in 'cpu-clock/stack-size=0/': stack-size= takes a number of bytes of stack from 1 to 65528" norun -- "$LP" run "$S/count.lua" -e cpu-clock/stack-size=0/ -- "$MARK" 50
row '--call-graph dwarf,0'    255 "unknown call graph mode 'dwarf,0': .* with SIZE 1 to 65528 bytes of stack" norun -- "$LP" run "$S/count.lua" --call-graph dwarf,0 -- "$MARK" 50
row '--call-graph dwarf,1'    0   ''                                          ran,end -- "$LP" run "$S/count.lua" --call-graph dwarf,1 -- "$MARK" 0
row '-I over a day'           255 "-I needs a number of milliseconds from 1 to 86400000 \(a day\), such as 1000 \(got '86400001'\)\$" norun -- "$LP" run "$S/count.lua" -I 86400001 -- "$MARK" 50
row 'setup interval over a day' 255 "interval\.lua:1: bad argument #1 to 'setup' \(interval must be a number of milliseconds from 1 to 86400000 \(a day\), as -I takes\)\$" norun -- "$LP" run "$S/interval.lua" -- "$MARK" 50
row '--script-timeout 1e-10'  255 "--script-timeout needs a number of seconds from 0 \(no limit\) to 1e9 \(got '1e-10'\)\$" norun -- "$LP" run "$S/count.lua" --script-timeout 1e-10 -- "$MARK" 50
row '-d 6e-10'                255 "--duration needs a number of seconds from 1e-9 to 1e9 \(got '6e-10'\)\$" norun -- "$LP" run "$S/count.lua" -d 6e-10 -- "$MARK" 50
row '--script-memory over 1 PiB' 255 "--script-memory needs a number of megabytes from 0 \(no limit\) to 1073741824, such as 512 \(got '1073741825'\)\$" norun -- "$LP" run "$S/count.lua" --script-memory 1073741825 -- "$MARK" 50
row '-p 0'                    255 "-p needs process ids from 1 to 4194304 such as 1234 or 1234,5678 \(got '0'\)\$" - -- "$LP" run "$S/count.lua" -p 0

# ---- freq= above kernel.perf_event_max_sample_rate: lowered as -F is ---
MAXRATE=$(cat /proc/sys/kernel/perf_event_max_sample_rate 2>/dev/null || echo 100000)
HIGH=$((MAXRATE * 2))
# (page-faults, which a short run makes few of: at the limit, cpu-clock
# may leave the script behind or be throttled, each a line of its own)
row 'freq= above the limit'   0   "page-faults/freq=$HIGH/: freq=$HIGH is above kernel\.perf_event_max_sample_rate: sampling at [0-9]+ Hz \(raise the limit with sysctl kernel\.perf_event_max_sample_rate=N\)\$" ran,end -- "$LP" run "$S/count.lua" -e "page-faults/freq=$HIGH/" -- "$MARK" 0

# ---- --symfs: a directory, or refused --------------------------------
row '--symfs of no directory' 255 "--symfs /nonexistent: No such file or directory \(--symfs DIR looks for /usr/lib/x\.so as DIR/usr/lib/x\.so\)\$" norun -- "$LP" run "$S/count.lua" --symfs /nonexistent -- "$MARK" 50
row '--symfs of a file'       255 "--symfs .*/afile is not a directory \(--symfs DIR looks for /usr/lib/x\.so as DIR/usr/lib/x\.so\)\$" norun -- "$LP" run "$S/count.lua" --symfs "$TMP/afile" -- "$MARK" 50
row '--symfs replaying'       255 "--symfs /nonexistent: No such file or directory" - -- "$LP" run "$S/count.lua" --symfs /nonexistent -i /nonexistent.data
table_done
