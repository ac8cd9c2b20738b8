# Bad input, running: options and their values, events (unknown,
# malformed, unsupported), -p of no process or one that has gone, a
# command that cannot run, is killed, or ends at once; a closed output (|
# head); signals to luaprof mid-run with -o; rings larger than the mlock
# limit; the profile scripts' --every and --push-timeout out of range, and
# --every's files with nowhere to go (no directory, a read-only one, a disk
# that fills: then the files before are whole, and nothing else is left).  The table's rules are in lib_table.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_table.sh"
row 'unknown option'          255 "unknown option '--bogus'"                 norun -- "$LP" run "$S/count.lua" --bogus -- "$MARK" 50
row 'bad option value'        255 "-F needs a positive number of samples per second \(got 'fast'\)" norun -- "$LP" run "$S/count.lua" -F fast -- "$MARK" 50
row 'bad timeout value'       255 "--script-timeout needs a number of seconds from 0 \(no limit\) to 1e9 \(got '-1'\)" norun -- "$LP" run "$S/count.lua" --script-timeout -1 -- "$MARK" 50
row 'duration of no time'     255 "--duration needs a number of seconds from 1e-9 to 1e9 \(got '1e-10'\)" norun -- "$LP" run "$S/count.lua" -d 1e-10 -- "$MARK" 50
row '-m not a power of two'   255 "-m needs a power of two number of pages from 1 to 1048576, such as 64 or 1024 \(got '3'\)" norun -- "$LP" run "$S/count.lua" -m 3 -- "$MARK" 50
row 'bad memory value'        255 "--script-memory needs a number of megabytes" norun -- "$LP" run "$S/count.lua" --script-memory lots -- "$MARK" 50
row 'unknown event'           255 "unknown event 'no-such-event'"            norun -- "$LP" run "$S/count.lua" -e no-such-event -- "$MARK" 50
row 'empty event list'        255 "empty event name in ','"                   norun -- "$LP" run "$S/count.lua" -e , -- "$MARK" 50
row 'unknown tracepoint'      255 "unknown tracepoint 'sched:no_such'"        norun -- tracefs_row "$LP" run "$S/count.lua" -e sched:no_such -- "$MARK" 50
row 'glob matching nothing'   255 "no tracepoint matches 'nosys:\*'"          norun -- tracefs_row "$LP" run "$S/count.lua" -e 'nosys:*' -- "$MARK" 50
row 'filter the kernel rejects' 255 "the kernel rejects the filter 'prev_pid ==' on 'sched:sched_switch'" norun -- tracefs_row "$LP" run "$S/count.lua" -e sched:sched_switch --filter 'prev_pid ==' -- "$MARK" 50
LONG=$(printf 'x%.0s' $(seq 100000))
row 'event of 100k characters' 255 "an event string is longer than the 4352 bytes luaprof takes: 'cpu-clock/name=x{25}\.\.\.\[100016 bytes\]\.\.\.x{23}/'" norun -- "$LP" run "$S/count.lua" -e "cpu-clock/name=$LONG/" -- "$MARK" 50
row 'malformed event'         255 "bad modifier in event 'cpu-clock:zz'"     norun -- "$LP" run "$S/count.lua" -e cpu-clock:zz -- "$MARK" 50
row 'unsupported hw event'    255 "'branch-misses'.*not supported on this machine" norun -- no_pmu "$LP" run "$S/count.lua" -e branch-misses -- "$MARK" 50
row '-p of no process'        255 'no process with pid 4194303'             - -- "$LP" run "$S/count.lua" -p 4194303
row '-p of an exited process' '0|255' '|nothing to profile: every target has exited' - -- attach_gone
row 'command not found'       255 "cannot run 'no-such-command': No such file or directory" noend -- "$LP" run "$S/count.lua" -- no-such-command
row 'command not executable'  255 "cannot run '.*notexec': Permission denied" noend -- "$LP" run "$S/count.lua" -- "$TMP/notexec"
row 'command killed (SIGKILL)' 137 ''                                         ran,end -- kill_command
row 'command ends at once'    3   ''                                          ran,end -- "$LP" run "$S/count.lua" -- "$MARK" 0 3
row 'output closed (| head)'  3   ''                                          ran -- closed_output
row 'SIGTERM mid-run, -o'     143 ''                                          ran,end,perfok -- signal_record TERM
row 'SIGINT mid-run, -o'      130 ''                                          ran,end,perfok -- signal_record INT
row '-m over the mlock limit' 255 'cannot map 8192 ring pages per CPU .*kernel\.perf_event_mlock_kb' norun,noend -- mlock_big
row '--every=1e300'             255 'pprof: --every=1e300: the value must be from 0\.001 to 86400' norun,usage -- "$LP" run pprof --every=1e300 --out=p.pb.gz -- "$MARK" 50
row '--push-timeout=1e300'      255 'pprof: --push-timeout=1e300: the value must be from 0\.001 to 86400' norun,usage -- "$LP" run pprof --push=http://127.0.0.1:9 --push-timeout=1e300 -- "$MARK" 50
row '--every, --out nowhere'    255 'pprof: --out=nodir/p\.pb\.gz: cannot write a file in nodir: no such directory' norun -- "$LP" run pprof --every=1 --out=nodir/p.pb.gz -- "$MARK" 50
row '--every, --out read-only'  255 'pprof: --out=mnt/p\.pb\.gz: cannot write a file in mnt: Read-only file system' norun -- mounted ro "$LP" run pprof --every=1 --out=mnt/p.pb.gz -- "$MARK" 50
row '--every, the disk fills'   255 '^--every: cannot write mnt/p-[0-9T.]+Z\.pb\.gz: No space left on device; stopping \(the [0-9]+ files before it are whole\)$' ran -- mounted size=8k every_full
table_done
