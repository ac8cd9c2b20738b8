# A C++ program (tests/progs/realcxx.cc: class templates in namespaces,
# std::sort with a comparator, std::map of std::string), built by g++ -O2 -g
# with frame pointers and without, for about a second, recorded by perf:
# with -g (frame pointers) on each build, and with --call-graph dwarf on
# the build without.  luaprof's top, top --children, script and folded
# stacks of each file equal perf's of the same file, exactly
# (lib_real.sh).
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
command -v g++ >/dev/null || skip "g++ is not installed (Debian's g++, in build-essential)"
cd "$TMP"
g++ -O2 -g -fno-omit-frame-pointer -o cxx-fp "$ROOT/tests/progs/realcxx.cc" || fail "cannot build realcxx.cc with frame pointers"
g++ -O2 -g -fomit-frame-pointer -o cxx-nofp "$ROOT/tests/progs/realcxx.cc" || fail "cannot build realcxx.cc"
perf record -q -g -F 999 -o fp.data -- ./cxx-fp 10 >/dev/null 2>perr || fail "perf record -g failed: $(head -2 perr)"
real_compare fp.data
grep -q 'std::__introsort_loop<' fp.top.perf || fail "fp.data: no std::__introsort_loop row in perf report"
grep -q 'shapes::Cloud<long>::sorted_checksum$' fp.children.perf || fail "fp.data: no shapes::Cloud<long>::sorted_checksum row in perf report --children"
perf record -q -g -F 999 -o nofp.data -- ./cxx-nofp 10 >/dev/null 2>perr || fail "perf record -g failed: $(head -2 perr)"
real_compare nofp.data
perf record -q --call-graph dwarf -F 499 -o dwarf.data -- ./cxx-nofp 6 >/dev/null 2>perr ||
	fail "perf record --call-graph dwarf failed: $(head -2 perr)"
real_compare dwarf.data
grep -q 'shapes::Cloud<double>::sorted_checksum$' dwarf.children.perf || fail "dwarf.data: no shapes::Cloud<double>::sorted_checksum row in perf report --children"
real_verdict
