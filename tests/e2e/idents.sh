# idents: who a sample's process is (issue 33): s.process_comm beside
# s.comm (twothreads' workers), s.uid and s.gid of a program run as
# another user (setpriv), s.cgroup and s.cgroup_path of a program run in a
# cgroup of its own, from the samples (--all-cgroups) and from /proc, each
# as bpftrace's comm, uid, gid and cgroup give them; replaying perf record
# --all-cgroups's recording, from its CGROUP records.
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "running as another user and in a cgroup needs root"
cd "$TMP"
cat > ids.lua <<'LUA'
luaprof.setup{ events = { "cpu-clock" } }
local seen = {}
function on_sample(s)
  local k = table.concat({ s.comm, s.process_comm, tostring(s.uid), tostring(s.gid),
                           tostring(s.cgroup), tostring(s.cgroup_path) }, " ")
  if not seen[k] then seen[k] = true; print(k) end
end
LUA

# the process's name beside the threads'
process_comm() {
	expect_status 0 "$LUAPROF" run ./ids.lua -e cpu-clock -- "$PROGS/twothreads" 10
	expect_grep '^worker-1 twothreads 0 0 ' "$TMP/out"
	expect_grep '^worker-2 twothreads 0 0 ' "$TMP/out"
}

# another user's program
need_setpriv() {
	command -v setpriv >/dev/null || skip "no setpriv (util-linux) to run a program as another user"
}
another_user() {
	need_setpriv
	expect_status 0 "$LUAPROF" run ./ids.lua -e cpu-clock -- setpriv --reuid=65534 --regid=65533 --clear-groups "$PROGS/spin" 200
	expect_grep '^spin spin 65534 65533 ' "$TMP/out"
	! grep '^spin ' "$TMP/out" | grep -v '^spin spin 65534 65533 ' || fail "spin's samples with other ids"
}

# a cgroup of its own, made once for the cases below: from the samples,
# and from /proc.  (cg_name, not name: a case runs inside lib.sh's
# scenario, whose local "name" would hide a global one.)
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
cg_name=luaprof-idents-$$
no_cg=
if [ -z "$CG" ]; then
	no_cg="no cgroup2 mount"
elif ! mkdir "$CG/$cg_name"; then
	no_cg="cannot make a cgroup under $CG"
else
	trap 'rmdir "$CG/$cg_name" 2>/dev/null; rm -rf "$TMP"' EXIT
	id=$(stat -c %i "$CG/$cg_name")
fi
need_cg() { [ -z "$no_cg" ] || skip "$no_cg"; }
cgroup_samples() {
	need_cg
	expect_status 0 "$LUAPROF" run ./ids.lua --all-cgroups -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" 200' "$CG/$cg_name" "$PROGS/spin"
	expect_grep "^spin spin 0 0 $id /$cg_name\$" "$TMP/out"
}
cgroup_proc() {
	need_cg
	expect_status 0 "$LUAPROF" run ./ids.lua -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" 200' "$CG/$cg_name" "$PROGS/spin"
	expect_grep "^spin spin 0 0 $id /$cg_name\$" "$TMP/out"
}
# replaying perf record --all-cgroups: the id, and the path its CGROUP
# records give
cgroup_replay() {
	need_cg
	perf record -q --all-cgroups -e cpu-clock -o cg.data -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" 100' "$CG/$cg_name" "$PROGS/spin" >/dev/null 2>&1 ||
		fail "perf record --all-cgroups failed"
	expect_status 0 "$LUAPROF" run ./ids.lua -i cg.data
	expect_grep "^spin spin nil nil $id /$cg_name\$" "$TMP/out"
}

# bpftrace's uid, gid and cgroup of the same program, by a name no other
# process has (bpftrace's profile probe sees the whole machine), run by a
# script (bpftrace's -c splits a command at its spaces)
as_bpftrace() {
	need_setpriv
	need_cg
	command -v bpftrace >/dev/null && timeout 30 bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1 ||
		skip "bpftrace cannot run here: nothing to compare with"
	P=$TMP/ids$$
	cp "$PROGS/spin" "$P" || fail "cannot copy spin"
	pname=$(basename "$P" | cut -c1-15)
	printf 'echo $$ > %s/cgroup.procs && exec setpriv --reuid=65534 --regid=65533 --clear-groups %s 300\n' \
		"$CG/$cg_name" "$P" > run.sh
	timeout 60 bpftrace -e "profile:hz:99 /comm == \"$pname\"/ { printf(\"%d %d %llu\\n\", uid, gid, cgroup); exit(); }" \
		-c "/bin/sh $TMP/run.sh" 2>bt.err | grep -v '^Attaching' | grep . > bt
	grep ERROR bt.err | grep -v RLIMIT_MEMLOCK && fail "bpftrace failed"
	expect_grep "^65534 65533 $id\$" bt
	expect_status 0 "$LUAPROF" run ./ids.lua --all-cgroups -- /bin/sh run.sh
	expect_grep "^$pname $pname 65534 65533 $id /$cg_name\$" "$TMP/out"
}

scenario "s.process_comm" process_comm
scenario "another user's s.uid, s.gid" another_user
scenario "s.cgroup from the samples" cgroup_samples
scenario "s.cgroup from /proc" cgroup_proc
scenario "replaying perf record --all-cgroups" cgroup_replay
scenario "as bpftrace's uid, gid, cgroup" as_bpftrace
scenarios_done
