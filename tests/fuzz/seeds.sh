#!/usr/bin/env bash
# seeds.sh TARGET DIR - fills DIR with seed inputs for fuzz target TARGET:
# its regression inputs (tests/fuzz/corpus/TARGET) plus, per target, real
# data: the perf.data files of $LP_PERFDATA_CORPUS (else ../shared/perfdata
# beside the repository) and recordings the tests leave in build/seeds (when
# present).  A target with nothing more starts from its regression inputs
# alone.
set -u
cd "$(dirname "$0")/../.."
target=$1 dir=$2
mkdir -p "$dir"
cp -n tests/fuzz/corpus/"$target"/* "$dir"/ 2>/dev/null
shared=${LP_PERFDATA_CORPUS:-../shared/perfdata}
# Recordings with tracepoints, made here when perf and tracefs allow: their
# TRACING_DATA, and each event format in it (every tracepoint of a few
# systems, so the formats are varied).
tracing_seeds() {
	local rec=build-fuzz/seeds/tp.data tmp=build-fuzz/seeds/tdata
	mkdir -p build-fuzz/seeds
	[ -s "$rec" ] || perf record -q -o "$rec" -e 'sched:*' -e 'syscalls:sys_enter_open*' \
		-e 'raw_syscalls:*' -e 'irq:*' -e 'timer:*' -e 'block:*' -- true >/dev/null 2>&1
	python3 tests/fuzz/seed_tdata.py "$tmp" "$rec" build/seeds/*.data 2>/dev/null
	cp -n "$tmp/$1"/* "$dir"/ 2>/dev/null
}
case $target in
fuzz_record)
	# Records of the perf.data files, after a 40-byte layout prefix, and
	# of two recordings made here with context switches (per task and
	# CPU-wide).
	[ -d "$shared" ] && python3 tests/fuzz/seed_records.py "$shared" "$dir"
	tmp=$(mktemp -d)
	if command -v perf >/dev/null; then
		perf record -q --switch-events -e page-faults -o "$tmp/task.data" -- sleep 0.01 >/dev/null 2>&1
		perf record -q --switch-events -a -e page-faults -o "$tmp/all.data" -- sleep 0.01 >/dev/null 2>&1
		python3 tests/fuzz/seed_records.py "$tmp" "$dir"
	fi
	rm -rf "$tmp" ;;
fuzz_kallsyms)
	# The start of this machine's kallsyms (kernel and reference symbols),
	# and its end (modules).
	head -c 65536 /proc/kallsyms > "$dir/proc-head" 2>/dev/null
	tail -c 65536 /proc/kallsyms > "$dir/proc-tail" 2>/dev/null ;;
fuzz_kmodules)
	# this machine's modules, if it has any
	head -c 65536 /proc/modules > "$dir/proc-modules" 2>/dev/null ;;
fuzz_perfmap)
	# perf maps of the shapes runtimes write
	printf '7f3a4c001000 40 LazyCompile:*fib /app/x.js:3\n7f3a4c001040 0x80 Function:foo\n' > "$dir/seed-node"
	printf '0x7f00c0000000 0x120 jit_trace_42\n' > "$dir/seed-luajit" ;;
fuzz_debuglink)
	# the debuglink sections of small objects made here
	if command -v objcopy >/dev/null && command -v cc >/dev/null; then
		tmp=$(mktemp -d)
		echo 'int main(void) { return 0; }' > "$tmp/m.c"
		cc -g -o "$tmp/m" "$tmp/m.c" && objcopy --only-keep-debug "$tmp/m" "$tmp/m.debug" &&
			objcopy --add-gnu-debuglink="$tmp/m.debug" "$tmp/m" &&
			objcopy -O binary --only-section=.gnu_debuglink "$tmp/m" "$dir/seed-debuglink"
		rm -rf "$tmp"
	fi ;;
fuzz_minidebug|fuzz_srcline|fuzz_elfsyms)
	# a MiniDebugInfo image (xz, with a 64 KiB dictionary: the 8 MiB of
	# xz's default is allocated and cleared by every decode) and small
	# objects with DWARF, made here
	if command -v objcopy >/dev/null && command -v cc >/dev/null && command -v xz >/dev/null; then
		tmp=$(mktemp -d)
		cc -O2 -g -o "$tmp/inl" tests/progs/inlined.c && cp "$tmp/inl" "$dir/seed-inlined" &&
			cc -O1 -g -o "$tmp/small" -x c - <<< 'static int f(int x) { return x * 3; } int main(int c, char **v) { (void)v; return f(c); }' &&
			cp "$tmp/small" "$dir/seed-small" &&
			objcopy --only-keep-debug "$tmp/small" "$tmp/mini" &&
			objcopy -S --remove-section .comment "$tmp/mini" && xz -f --lzma2=preset=6,dict=64KiB "$tmp/mini" &&
			cp "$tmp/mini.xz" "$dir/seed-mini.xz"
		[ "$target" = fuzz_minidebug ] && rm -f "$dir/seed-inlined" &&
			cp "$tmp/small" "$dir/seed-small"      # an ELF image
		[ "$target" != fuzz_minidebug ] && rm -f "$dir/seed-mini.xz"
		rm -rf "$tmp"
	fi ;;
fuzz_perfdata|fuzz_pdpipe)
	# Recordings cut to ~32 KiB of records (trim_perfdata.py): perf's of
	# many versions and layouts, and two made here of a short command with
	# real objects (libc, ld.so) and its context switches: luaprof's and
	# perf's pipe mode.
	tmp=$(mktemp -d)
	if [ -x ./luaprof ] && ./luaprof record --switch-events -e page-faults -c 1 -g \
		-o "$tmp/luaprof.data" -- sleep 0.01 >/dev/null 2>&1; then :; fi
	if command -v perf >/dev/null; then
		perf record -q --switch-events -e page-faults -c 1 -g -o - -- sleep 0.01 2>/dev/null \
			> "$tmp/perf-pipe.data"
	fi
	if [ "$target" = fuzz_pdpipe ]; then     # the pipe-mode ones
		python3 tests/fuzz/trim_perfdata.py 32768 "$shared"/perf.data.piped.* "$tmp"/perf-pipe.data "$dir"
	else
		python3 tests/fuzz/trim_perfdata.py 32768 "$shared"/perf.data.* "$tmp"/*.data "$dir"
	fi
	rm -rf "$tmp" ;;
fuzz_pdfeat)
	# The feature sections of perf's recordings and of one made here.
	tmp=$(mktemp -d)
	[ -x ./luaprof ] && ./luaprof record -e page-faults -c 1 -o "$tmp/luaprof.data" -- /bin/true >/dev/null 2>&1
	python3 tests/fuzz/seed_features.py "$shared"/perf.data.* "$tmp"/*.data "$dir"
	rm -rf "$tmp" ;;
fuzz_tdata) tracing_seeds tdata ;;
fuzz_evparse)
	# Event strings: every named event and a sample of tracepoints; the
	# other forms (probes on the test workloads, PMU terms, groups).
	i=0
	for e in $(./luaprof list 2>/dev/null | awk 'NR % 40 == 1 || /Software|Hardware|PMU/ {print $1}'); do
		printf '%s' "$e" > "$dir/list-$((i += 1))"
	done
	for e in "uprobe:build/progs/probed:twice+4" "uretprobe:libc:malloc" \
		"usdt:build/progs/probed:luaprof_test:tick" "mem:0x1000/8:rw,mem:watched:w" \
		"kprobe:vfs_read+8" "r1a8:u,L1-dcache-load-misses,dTLB-store-misses" \
		"msr/tsc/,msr/event=0x2,period=1000/u" "{cpu-clock,page-faults}:S" \
		"cpu-clock/call-graph=dwarf,stack-size=4096,name=c/k" "sched:sched_switch/period=3/"; do
		printf '%s' "$e" > "$dir/form-$((i += 1))"
	done ;;
fuzz_usdt)
	# the workloads' USDT probes (whole ELF files) and their argument specs
	for f in build/progs/probed build/progs/probesema; do
		[ -f "$f" ] && cp "$f" "$dir/$(basename "$f")" &&
			readelf -n "$f" 2>/dev/null | sed -n 's/^ *Arguments: //p' |
			while read -r a; do printf '%s' "$a" > "$dir/args-$(printf '%s' "$a" | md5sum | cut -c1-8)"; done
	done
	printf '%s' '-4@%edi 8@$5 -8@-16(%rbp) 4@(%rax) 8@sym(%rip) 8@8(%rax,%rbx,8) 1@%al 2@%r9w' > "$dir/args-mixed" ;;
fuzz_ldcache)
	# this machine's cache, and the same cut short
	if [ -r /etc/ld.so.cache ]; then
		cp /etc/ld.so.cache "$dir/ld.so.cache"
		head -c 4096 /etc/ld.so.cache > "$dir/ld.so.cache-cut"
	fi ;;
fuzz_pmufmt)
	# every format file of this machine's PMUs, and Intel's shapes
	for f in /sys/bus/event_source/devices/*/format/*; do
		[ -r "$f" ] && cp "$f" "$dir/$(echo "$f" | tr / _)"
	done
	for s in config:0-7 config:8-15 config:24-31 config:0-7,21 config1:0-63 config2:0-15,32-47; do
		printf '%s\n' "$s" > "$dir/fmt-$(printf '%s' "$s" | md5sum | cut -c1-8)"
	done ;;
fuzz_tpformat) tracing_seeds tpformat ;;
fuzz_folded)
	# folded stacks of real recordings, written by the folded script
	[ -x ./luaprof ] && [ -d "$shared" ] && for f in "$shared"/perf.data.*; do
		./luaprof run folded --out="$dir/$(basename "$f").folded" -i "$f" >/dev/null 2>&1
	done ;;
fuzz_optval)
	# the option strings of the shipped scripts' tests
	for s in --limit=20 --no-flag --flag=yes --sort=sym,dso --ratio=1e-3 --out=a.svg --x=-5K; do
		printf '%s' "$s" > "$dir/seed-$(printf '%s' "$s" | md5sum | cut -c1-8)"
	done ;;
fuzz_url)
	# the URLs of docs/fleet.md and the push tests
	for s in http://pyroscope:4040 http://parca:7070/api https://USER:TOKEN@profiles.example.net/ \
		'http://127.0.0.1:4040/?token=X&a=b' 'http://[::1]:4040/ingest' 'https://h/p%20q;x?y#z'; do
		printf '%s' "$s" > "$dir/seed-$(printf '%s' "$s" | md5sum | cut -c1-8)"
	done ;;
esac
exit 0
