#!/usr/bin/env bash
# variation.sh - runs the suite as if on another machine of the same kind:
#   a fresh clone of the committed HEAD at a path over 100 characters long,
#   with ../shared beside it (a link to this checkout's), HOME an empty
#   directory, one CPU kept busy by a spinning process, and hardware
#   watchpoints hidden (LP_TEST_NO_WATCHPOINTS=1: the tests that need them
#   must skip, saying why).
#
#   tests/variation.sh [--keep] [--no-busy] [--watchpoints] [--asan] [MAKE-TARGET...]
#
# MAKE-TARGET defaults to "test"; --asan adds check-asan.  --no-busy leaves
# the CPUs idle, --watchpoints leaves watchpoints visible.  The clone is
# removed afterwards unless --keep.  Exits with make's status; the last line
# is the suite's own "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
src=$PWD
keep=0 busy=1 hide=1 targets=()
for a in "$@"; do
	case $a in
	--keep) keep=1 ;;
	--no-busy) busy=0 ;;
	--watchpoints) hide=0 ;;
	--asan) targets+=(check-asan) ;;
	-h|--help) sed -n '2,15p' "$0"; exit 0 ;;
	-*) echo "variation.sh: unknown option $a (see --help)"; exit 2 ;;
	*) targets+=("$a") ;;
	esac
done
[ ${#targets[@]} -gt 0 ] || targets=(test)
[ "${targets[0]}" = check-asan ] && targets=(test check-asan)

top=$(mktemp -d /tmp/luaprof-variation.XXXXXX)
long=$top/a-checkout-at-a-path-longer-than-a-hundred-characters/0123456789abcdef0123456789abcdef01234567
home=$top/home
mkdir -p "$long" "$home"
spinner=
cleanup() {
	[ -n "$spinner" ] && kill "$spinner" 2>/dev/null
	if [ $keep = 0 ]; then rm -rf "$top"; else echo "variation.sh: kept $long/repo"; fi
}
trap cleanup EXIT

git clone -q "$src" "$long/repo" || { echo "variation.sh: git clone of $src failed"; exit 1; }
[ -d "$src/../shared" ] && ln -s "$(cd "$src/../shared" && pwd)" "$long/shared"
echo "variation.sh: $long/repo (${#long} + 5 characters), HOME=$home," \
	"$([ $busy = 1 ] && echo "one CPU busy" || echo "CPUs idle"), watchpoints" \
	"$([ $hide = 1 ] && echo hidden || echo visible): make ${targets[*]}"
if [ $busy = 1 ]; then
	( trap 'exit 0' TERM; while :; do :; done ) &
	spinner=$!
fi
cd "$long/repo"
env HOME="$home" $([ $hide = 1 ] && echo LP_TEST_NO_WATCHPOINTS=1) \
	make --no-print-directory WERROR=1 "${targets[@]}"
