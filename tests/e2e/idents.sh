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
expect_status 0 "$LUAPROF" run ./ids.lua -e cpu-clock -- "$PROGS/twothreads" 10
expect_grep '^worker-1 twothreads 0 0 ' "$TMP/out"
expect_grep '^worker-2 twothreads 0 0 ' "$TMP/out"

# another user's program
command -v setpriv >/dev/null || skip "no setpriv (util-linux) to run a program as another user"
expect_status 0 "$LUAPROF" run ./ids.lua -e cpu-clock -- setpriv --reuid=65534 --regid=65533 --clear-groups "$PROGS/spin" 200
expect_grep '^spin spin 65534 65533 ' "$TMP/out"
grep '^spin ' "$TMP/out" | grep -v '^spin spin 65534 65533 ' && fail "spin's samples with other ids"

# a cgroup of its own: from the samples, and from /proc
CG=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
[ -n "$CG" ] || skip "no cgroup2 mount"
name=luaprof-idents-$$
mkdir "$CG/$name" || skip "cannot make a cgroup under $CG"
trap 'rmdir "$CG/$name" 2>/dev/null; rm -rf "$TMP"' EXIT
id=$(stat -c %i "$CG/$name")
expect_status 0 "$LUAPROF" run ./ids.lua --all-cgroups -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" 200' "$CG/$name" "$PROGS/spin"
expect_grep "^spin spin 0 0 $id /$name\$" "$TMP/out"
expect_status 0 "$LUAPROF" run ./ids.lua -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" 200' "$CG/$name" "$PROGS/spin"
expect_grep "^spin spin 0 0 $id /$name\$" "$TMP/out"
# replaying perf record --all-cgroups: the id, and the path its CGROUP
# records give
perf record -q --all-cgroups -e cpu-clock -o cg.data -- sh -c 'echo $$ > "$0/cgroup.procs" && exec "$1" 100' "$CG/$name" "$PROGS/spin" >/dev/null 2>&1 ||
	fail "perf record --all-cgroups failed"
expect_status 0 "$LUAPROF" run ./ids.lua -i cg.data
expect_grep "^spin spin nil nil $id /$name\$" "$TMP/out"

# bpftrace's uid, gid and cgroup of the same program, by a name no other
# process has (bpftrace's profile probe sees the whole machine), run by a
# script (bpftrace's -c splits a command at its spaces)
if command -v bpftrace >/dev/null && timeout 30 bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
	P=$TMP/ids$$
	cp "$PROGS/spin" "$P" || fail "cannot copy spin"
	pname=$(basename "$P" | cut -c1-15)
	printf 'echo $$ > %s/cgroup.procs && exec setpriv --reuid=65534 --regid=65533 --clear-groups %s 300\n' \
		"$CG/$name" "$P" > run.sh
	timeout 60 bpftrace -e "profile:hz:99 /comm == \"$pname\"/ { printf(\"%d %d %llu\\n\", uid, gid, cgroup); exit(); }" \
		-c "/bin/sh $TMP/run.sh" 2>bt.err | grep -v '^Attaching' | grep . > bt
	grep ERROR bt.err | grep -v RLIMIT_MEMLOCK && fail "bpftrace failed"
	expect_grep "^65534 65533 $id\$" bt
	expect_status 0 "$LUAPROF" run ./ids.lua --all-cgroups -- /bin/sh run.sh
	expect_grep "^$pname $pname 65534 65533 $id /$name\$" "$TMP/out"
fi
exit 0
