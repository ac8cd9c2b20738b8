# luaprof record (and run -o) fill perf's build-id cache as perf record
# does: every object of the recording's build-id table, in perf's layout,
# with perf's modes and links (next to perf's own cache of a recording of
# the same program, on the same file system and across file systems);
# perf report then names the [vdso] samples and agrees with the replay on
# every sample.  Cached objects are skipped.  After the program is rebuilt
# with other code, perf report and the replay still name its frames, from
# the cache, alike.  (The kallsyms copy alone is 0600, not perf's 0755.)  --no-buildid-cache writes nothing; a cache that cannot
# be written gets one notice line and the recording is still complete.
# Links planted inside a cache of one's own (a directory of its layout
# made a symbolic link out of it: .build-id/NN, usr, tmp, [vdso]) are not
# followed: nothing is written through them, one line says so.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare the cache with"
cd "$TMP"
PROG=$TMP/prog
build() {       # build [CFLAGS]: the workload, at the same path each time
	cc -O1 -g -fno-omit-frame-pointer -I"$ROOT/tests/progs" "$@" -o "$PROG" "$ROOT/tests/progs/spin.c" ||
		fail "cannot compile the workload"
}
# record HOME FILE [OPTIONS]: luaprof record of the workload with that HOME.
record() {
	local home=$1 f=$2; shift 2
	mkdir -p "$home"
	HOME=$home expect_status 0 "$LUAPROF" record -F 2000 "$@" -o "$f" -- "$PROG" 300
}
# entry DEBUGDIR BID: how the cache holds an object: its .build-id link's
# target, then "FILE MODE linked|copied" for each file there (probes aside:
# perf's SDT cache, which luaprof leaves to perf).
entry() {
	local l=$1/.build-id/${2:0:2}/${2:2} f out how
	out=$(readlink "$l") || { echo "not cached"; return; }
	for f in elf debug vdso kallsyms; do
		[ -e "$l/$f" ] || continue
		how=copied
		[ "$(stat -Lc %h "$l/$f")" -gt 1 ] && how=linked
		out="$out $f $(stat -Lc %a "$l/$f") $how"
	done
	echo "$out"
}
# same_layout OURS THEIRS: the objects both recordings list are cached alike
# (but for the kallsyms copy, which luaprof writes 0600 where perf leaves it
# 0755: it holds the kernel's addresses; kallsyms_copy checks its modes).
same_layout() {
	local bid path n=0 theirs
	perf buildid-list -i lp.data 2>/dev/null | sort > ours.bids
	perf buildid-list -i perf.data 2>/dev/null | sort > perf.bids
	while read -r bid path; do
		grep -qxF "$bid $path" perf.bids || continue
		theirs=$(entry "$2" "$bid")
		[ "$path" = "[kernel.kallsyms]" ] && theirs=${theirs/ kallsyms 755 / kallsyms 600 }
		[ "$(entry "$1" "$bid")" = "$theirs" ] ||
			fail "$path is cached as '$(entry "$1" "$bid")', perf caches it as '$(entry "$2" "$bid")'"
		n=$((n + 1))
	done < ours.bids
	[ $n -ge 3 ] || { cat ours.bids perf.bids; fail "only $n objects in both recordings' tables"; }
}
# agree HOME FILE: perf report (with that HOME) and the replay give every
# function the same count, unnamed samples included.
agree() {
	HOME=$1 perf report -i "$2" --stdio --no-children --sort sym -F sample,sym -q -g none \
		2>/dev/null | perf_rows > theirs
	HOME=$1 "$LUAPROF" run "$CHECKS/symcount.lua" -i "$2" 2>/dev/null | our_rows > ours
	[ -s ours ] || fail "the replay of $2 names nothing"
	diff theirs ours > diff.txt || { head -20 diff.txt; fail "perf report and luaprof disagree on $2"; }
}

build
OLD=$(build_id_of "$PROG")
# made: fails unless the first case filled $TMP/h
made() { [ -s lp.data ] && [ -s ours.bids ] || fail "no lp.data: the first case did not record it"; }

# The first recording: cached as perf caches its own, no notice.
like_perf() {
	record "$TMP/h" lp.data
	! grep -q "build-id cache" "$TMP/err" || fail "a notice about the cache: $(cat "$TMP/err")"
	mkdir -p "$TMP/ph"
	HOME=$TMP/ph perf record -q -F 2000 -o perf.data -- "$PROG" 300 >/dev/null 2>&1 || fail "perf record failed"
	same_layout "$TMP/h/.debug" "$TMP/ph/.debug"
}
# each entry of its build-id table, as perf lays it out
entries() {
	made
	while read -r bid path; do
		case $path in
		"[kernel.kallsyms]")
			k=$TMP/h/.debug/.build-id/${bid:0:2}/${bid:2}/kallsyms
			[ "$(grep -m1 ' _text$' "$k")" = "$(grep -m1 ' _text$' /proc/kallsyms)" ] ||
				fail "the cached kallsyms is not this kernel's" ;;
		"[vdso]") ;;
		*) e=$(entry "$TMP/h/.debug" "$bid")      # a debug file too when installed
			[ "${e% debug * linked}" = "../..$path/$bid elf 755 linked" ] ||
				fail "$path: cached as '$e'" ;;
		esac
	done < ours.bids
	grep -q ' \[vdso\]$' ours.bids || fail "no [vdso] in the recording's build-ids"
	grep -q "^$OLD $PROG\$" ours.bids || fail "the workload is not in the recording's build-ids"
	[ -z "$(find "$TMP/h/.debug" -type f -regex '.*/\(elf\|debug\|vdso\|kallsyms\)\..*')" ] ||
		fail "temporary files left in the cache"
}
# perf report agrees with the replay, and names the [vdso] samples
agrees() {
	made
	agree "$TMP/h" lp.data
	HOME=$TMP/h perf report -i lp.data --stdio --no-children --sort dso,sym -q -g none 2>/dev/null |
		awk '$2 == "[vdso]" && $4 ~ /^0x/' > vdso.unnamed
	[ ! -s vdso.unnamed ] || { cat vdso.unnamed; fail "perf report leaves [vdso] samples unnamed"; }
}

# Recording again: what is cached is left as it is.
again() {
	made
	find "$TMP/h/.debug" -printf '%p %i %Y %l\n' | sort > before
	record "$TMP/h" lp2.data
	find "$TMP/h/.debug" -printf '%p %i %Y %l\n' | sort > after
	comm -23 before after > changed
	[ ! -s changed ] || { head changed; fail "a second recording changed what was cached"; }
}

# Across file systems (the cache on /dev/shm): copies, as perf makes them.
across() {
	shm=$(mktemp -d /dev/shm/luaprof-test.XXXXXX 2>/dev/null) || skip "no /dev/shm: copies not checked"
	trap 'rm -rf "$shm"' EXIT
	[ "$(stat -c %d "$shm")" != "$(stat -c %d "$TMP")" ] ||
		skip "/dev/shm is on the same file system: copies not checked"
	record "$shm/h" lp.data
	mkdir -p "$shm/ph"
	HOME=$shm/ph perf record -q -F 2000 -o perf.data -- "$PROG" 300 >/dev/null 2>&1 ||
		fail "perf record failed"
	same_layout "$shm/h/.debug" "$shm/ph/.debug"
	[ "$(entry "$shm/h/.debug" "$OLD")" = "../..$PROG/$OLD elf 755 copied" ] ||
		fail "across file systems $PROG is cached as '$(entry "$shm/h/.debug" "$OLD")'"
}

# The program rebuilt with other code: named from the cache, by both tools.
rebuilt() {
	made
	sed 's/^int main/__attribute__((used, noinline)) void pad(void) { __asm__ volatile(".skip 4096, 0x90"); }\nint main/' \
		"$ROOT/tests/progs/spin.c" > prog2.c
	cc -O1 -g -fno-omit-frame-pointer -I"$ROOT/tests/progs" -o "$PROG" prog2.c || fail "cannot rebuild the workload"
	[ "$(build_id_of "$PROG")" != "$OLD" ] || fail "the rebuild kept build-id $OLD"
	agree "$TMP/h" lp.data
	grep -q ' \[\.\] spin_iters$' ours || fail "the rebuilt program's spin_iters is not named from the cache"
	# (a sample or two may land where neither tool names anything, as
	# once with a CPU busy; without the cache the program's are most)
	awk '{n += $1} $2 == "[?]" {u += $1} END {exit !(u * 100 <= n)}' ours ||
		fail "unnamed samples after the rebuild: $(grep ' \[?\] ' ours) of $(awk '{n += $1} END {print n}' ours)"
}

# --no-buildid-cache: nothing written; run -o fills it too.
no_cache() {
	record "$TMP/none" none.data --no-buildid-cache
	[ -z "$(ls -A "$TMP/none")" ] || fail "--no-buildid-cache wrote $(ls -A "$TMP/none")"
}
run_o() {
	mkdir -p "$TMP/run"
	HOME=$TMP/run expect_status 0 "$LUAPROF" run "$CHECKS/end_count.lua" -F 2000 -o run.data -- "$PROG" 200
	[ "$(entry "$TMP/run/.debug" "$OLD")" = "../..$PROG/$OLD elf 755 linked" ] || fail "run -o did not fill the cache"
}
replay_no_cache() {
	[ -s run.data ] || fail "no run.data: the run -o case did not record it"
	expect_status 255 "$LUAPROF" run "$CHECKS/end_count.lua" -i run.data --no-buildid-cache
	expect_grep "^luaprof: --no-buildid-cache goes with a recording" "$TMP/err"
}

# A cache that cannot be written (HOME a file; a read-only file system):
# one notice line, the recording complete.
unwritable() {  # unwritable FILE REASON: the checks on the recording made
	[ "$(grep -c "build-id cache" "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "not one notice ($2)"; }
	expect_grep "^luaprof: cannot fill the build-id cache .*: $2 \(the recording is complete" "$TMP/err"
	perf script -i "$1" > /dev/null 2> perf.err || fail "perf script cannot read $1 ($2)"
	[ ! -s perf.err ] || fail "perf script warns on $1 ($2): $(head -3 perf.err)"
	agree "$TMP/h" "$1"
}
home_file() {
	made
	touch "$TMP/file"
	HOME=$TMP/file expect_status 0 "$LUAPROF" record -F 2000 -o file.data -- "$PROG" 200
	unwritable file.data "Not a directory"
}
read_only() {
	[ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null ||
		skip "read-only file system not checked: needs root and unshare -m"
	made
	mkdir -p "$TMP/ro"
	# a private mount namespace: the read-only mount goes away with it
	unshare -m bash -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" &&
		HOME=$1 "$2" record -F 2000 -o "$3" -- "$4" 200' _ "$TMP/ro" "$LUAPROF" ro.data "$PROG" \
		> "$TMP/out" 2> "$TMP/err" || { cat "$TMP/err"; fail "luaprof record with a read-only HOME failed"; }
	unwritable ro.data "Read-only file system"
}
# Symbolic links planted inside one's own cache, in place of the layout's
# directories, lead out of it: nothing written through them, one line.
planted() {
	mkdir -p "$TMP/h3/.debug/.build-id" "$TMP/away"
	for d in tmp usr '[vdso]' '[kernel.kallsyms]'; do
		mkdir -p "$TMP/away/$d" && ln -s "$TMP/away/$d" "$TMP/h3/.debug/$d"
	done
	for i in $(seq 0 255); do
		nn=$(printf %02x "$i")
		mkdir -p "$TMP/away/bid/$nn" && ln -s "$TMP/away/bid/$nn" "$TMP/h3/.debug/.build-id/$nn"
	done
	HOME=$TMP/h3 expect_status 0 "$LUAPROF" record -F 2000 -o planted.data -- "$PROG" 100
	[ -z "$(find "$TMP/away" -mindepth 1 ! -type d -print -quit)" ] ||
		{ find "$TMP/away" ! -type d | head -5; fail "luaprof wrote through a link planted in its cache"; }
	[ "$(grep -c "build-id cache" "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "not one line about the planted links"; }
	expect_grep "^luaprof: the build-id cache $TMP/h3/\.debug holds a symbolic link or another user's directory where a directory of its own should be: not written through it" "$TMP/err"
	perf script -i planted.data > /dev/null 2>&1 || fail "perf cannot read the recording made beside planted links"
	echo "links planted in the cache: not followed, $(cut -c1-60 "$TMP/err")..."
}
# Root with another user's HOME (or a .debug that is a link) writes nothing
# there: one line, no .debug made or followed, and the recording complete.
need_nobody() {
	[ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1 ||
		skip "another user's HOME not checked: needs root and a user 'nobody'"
}
nobodys_home() {
	need_nobody
	mkdir -p "$TMP/nobodys" && chown nobody "$TMP/nobodys"
	HOME=$TMP/nobodys expect_status 0 "$LUAPROF" record -F 2000 -o nobodys.data -- "$PROG" 100
	expect_grep "^luaprof: the build-id cache $TMP/nobodys/\.debug is another user's \(or a symbolic link\): not written" "$TMP/err"
	! [ -e "$TMP/nobodys/.debug" ] || fail "root wrote a .debug into another user's home"
	perf script -i nobodys.data > /dev/null 2>&1 || fail "perf cannot read the recording made without a cache"
}
debug_link() {
	need_nobody
	mkdir -p "$TMP/mine"
	mkdir -p "$TMP/home2" && ln -s "$TMP/mine" "$TMP/home2/.debug"
	HOME=$TMP/home2 expect_status 0 "$LUAPROF" record -F 2000 -o link.data -- "$PROG" 100
	expect_grep "^luaprof: the build-id cache $TMP/home2/\.debug is another user's \(or a symbolic link\)" "$TMP/err"
	[ -z "$(ls -A "$TMP/mine")" ] || fail "a .debug link was followed"
}

scenario "cached as perf caches" like_perf
scenario "each entry as perf's" entries
scenario "perf report agrees, [vdso] named" agrees
scenario "recording again changes nothing" again
scenario "across file systems: copies" across
scenario "rebuilt: named from the cache" rebuilt
# the workload as it was, for the cases below (its build-id $OLD again)
build
scenario "--no-buildid-cache" no_cache
scenario "run -o fills the cache" run_o
scenario "-i with --no-buildid-cache" replay_no_cache
scenario "HOME a file" home_file
scenario "a read-only file system" read_only
scenario "links planted in the cache" planted
scenario "another user's HOME" nobodys_home
scenario "a .debug that is a link" debug_link
scenarios_done
