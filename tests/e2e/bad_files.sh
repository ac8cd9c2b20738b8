# Bad input, files: -i on a missing, empty, truncated, random, directory,
# foreign-architecture file and on an empty or closed stdin; -o into a
# missing or read-only directory, and onto a disk that fills up.  The
# table's rules are in lib_table.sh.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/lib_table.sh"
row '-i missing file'         255 'nope\.data: cannot open: No such file'    noend -- "$LP" run "$S/count.lua" -i nope.data
row '-i empty file'           255 'empty\.data: .*empty file'                 noend -- empty_file
row '-i truncated file'       255 'cut\.data: offset [0-9]+: .*truncated'    end -- truncated
row '-i cut in its features'  0   'perfdata: cutf\.data: offset [0-9]+: [0-9]+ of [0-9]+ feature sections \(from feature [0-9]+ on\) lie outside the file, ignored: was the file cut short\?' end -- cut_features
row '-i perf killed (SIGKILL)' 0  'perfdata: kill\.data: the recording was not closed \(its writer was killed\?\): its records are read up to the last whole one' end -- killed perf
row '-i luaprof record killed' 0  'perfdata: kill\.data: the recording was not closed \(its writer was killed\?\): its records are read up to the last whole one' end -- killed luaprof
row '-i random bytes'         255 'rnd\.data: offset 0: not a perf\.data file' noend -- random_bytes
row '-i a directory'          255 'adir: is a directory'                      noend -- "$LP" run "$S/count.lua" -i "$S/adir"
row '-i armv7 recording'      0   ''                                          end -- foreign armv7
row '-i i686 recording'       0   ''                                          end -- foreign i686
row 'SIGINT mid-replay'       130 ''                                          end -- signal_replay
row '-i - on empty stdin'     255 'stdin: empty input, no perf\.data stream: pipe a recording in' noend -- empty_stdin
row '-i - on closed stdin'    255 'stdin: closed: pipe a recording in'        noend -- stdin_closed
row '-o in a missing dir'     255 'cannot create no/such/out\.data: No such file or directory' norun,noend -- "$LP" run "$S/count.lua" -o no/such/out.data -- "$MARK" 50
row '-o in a read-only dir'   255 'cannot create mnt/out\.data: Read-only file system' norun,noend,nofile -- read_only
row 'disk full while recording' 255 'writing mnt/out\.data failed: No space left on device' ran,perfok -- disk_full
table_done
