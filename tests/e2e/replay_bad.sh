# Replaying a damaged recording: a perf.data cut short inside its data
# section runs on_end for exactly the samples whose records lie wholly
# before the cut (perf report -D gives their offsets), then prints one line
# naming the file and the offset and exits 255.  A file cut inside its
# header or attrs, a file that is not perf.data and an empty file get the
# one line and 255, and on_end never runs.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to record with"
cd "$TMP"
perf record -q -g -F 2000 -o full.data -- "$PROGS/leafs" 100 >/dev/null 2>&1 || fail "perf record failed"
u64_at() { od -An -t u8 -j "$2" -N 8 "$1" | tr -d ' '; }
doff=$(u64_at full.data 40) dsize=$(u64_at full.data 48)
[ "$doff" -gt 0 ] && [ "$dsize" -gt 0 ] || fail "no data section in full.data"
expect_status 0 "$LUAPROF" run "$CHECKS/end_count.lua" -i full.data
full=$(awk '$1 == "on_end" {print $3}' "$TMP/out")
# "TIME 0xOFFSET [0xSIZE]: PERF_RECORD_SAMPLE...": each sample's end offset
perf report -D -i full.data 2>/dev/null |
	awk '$4 ~ /^PERF_RECORD_SAMPLE/ {gsub(/[\[\]:]/, "", $3); print $2, $3}' |
	while read -r off size; do echo $((off + size)); done > sample_ends
# the whole recording: luaprof reads every sample perf report -D lists
whole() {
	[ "$(wc -l < sample_ends)" = "$full" ] || fail "perf report -D lists $(wc -l < sample_ends) samples, luaprof read $full"
}

# one_error_line CUTFILE: stderr is one line naming the file and an offset
one_error_line() {
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "$1: expected one line on stderr"; }
	expect_grep "^luaprof: $1: offset [0-9]+: " "$TMP/err"
}

# cut_in_data CUT: full.data cut at byte CUT, inside its data section
cut_in_data() {
	local cut=$1
	head -c "$cut" full.data > cut.data
	expect_status 255 "$LUAPROF" run "$CHECKS/end_count.lua" -i cut.data
	one_error_line cut.data
	expect_grep "truncated" "$TMP/err"
	at=$(sed -n 's/^luaprof: cut.data: offset \([0-9]*\): .*/\1/p' "$TMP/err")
	[ "$at" -ge "$doff" ] && [ "$at" -le "$cut" ] || fail "cut at $cut: error names offset $at"
	got=$(awk '$1 == "on_end" {print $3}' "$TMP/out")
	want=$(awk -v c="$cut" '$1 <= c {n++} END {print n + 0}' sample_ends)
	[ -n "$got" ] || fail "cut at $cut: on_end did not run"
	[ "$got" = "$want" ] || fail "cut at $cut: on_end saw $got samples, $want lie before the cut"
	[ "$got" -gt 0 ] || fail "cut at $cut: no samples before it"
	[ "$cut" -gt $((doff + dsize * 3 / 4)) ] || [ "$got" -lt "$full" ] || fail "cut at $cut: all $full samples"
	expect_grep "on_end sees the $got samples" "$TMP/err"
}

# the same stream cut short, through stdin in pipe mode
pipe_mode() {
	perf record -q -g -F 2000 -o - -- "$PROGS/leafs" 60 2>/dev/null > pipe.data || fail "perf record -o - failed"
	# Cut 4 bytes into the first record that starts past the middle, found
	# by walking the stream's record headers (u32 type, u16 misc, u16 size)
	# from offset 16: a cut between two records would read as a clean end
	# of the stream, which pipe mode has no marker for.  (Cutting at an
	# offset 4 mod 8 was not enough: not every record perf writes in pipe
	# mode is a multiple of 8 bytes.)
	cut=$(python3 - pipe.data <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
off = 16
while off + 8 <= len(data):
    size = struct.unpack_from("<IHH", data, off)[2]
    if size < 8:
        break
    if off >= len(data) // 2 and off + size <= len(data):
        print(off + 4)
        sys.exit(0)
    off += size
sys.exit(1)
PY
) || fail "no record past the middle of perf's stream"
	head -c "$cut" pipe.data > pcut.data
	expect_status 255 "$LUAPROF" run "$CHECKS/end_count.lua" -i - < pcut.data
	one_error_line stdin
	expect_grep "^on_end samples [1-9]" "$TMP/out"
}

# before the data: header, attrs; not perf.data; empty
early_cut() {
	local cut=$1
	head -c "$cut" full.data > early.data
	expect_status 255 "$LUAPROF" run "$CHECKS/end_count.lua" -i early.data
	one_error_line early.data
	[ ! -s "$TMP/out" ] || fail "cut at $cut (before the data): on_end ran: $(cat "$TMP/out")"
}

not_perf_data() {
	printf 'this is not a recording\n%.0s' 1 2 3 4 5 6 > text.data
	expect_status 255 "$LUAPROF" run "$CHECKS/end_count.lua" -i text.data
	one_error_line text.data
	expect_grep "not a perf.data file" "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "on_end ran on a text file"
}

empty() {
	: > empty.data
	expect_status 255 "$LUAPROF" run "$CHECKS/end_count.lua" -i empty.data
	one_error_line empty.data
	expect_grep "empty" "$TMP/err"
	[ ! -s "$TMP/out" ] || fail "on_end ran on an empty file"
}

scenario "the whole recording" whole
scenario "cut at 1/4 of the data" cut_in_data $((doff + dsize / 4))
scenario "cut at 1/2 of the data" cut_in_data $((doff + dsize / 2))
scenario "cut at 3/4 of the data" cut_in_data $((doff + dsize * 3 / 4))
scenario "cut 3 bytes before the end" cut_in_data $((doff + dsize - 3))
scenario "a stream cut short, through stdin" pipe_mode
scenario "cut in the header" early_cut 50
scenario "cut in the attrs" early_cut $((doff > 130 ? 130 : doff - 8))
scenario "not perf.data" not_perf_data
scenario "an empty file" empty
scenarios_done
