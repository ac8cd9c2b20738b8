# lib_tracefs.sh - sourced by lib.sh and by tests/run.sh (before the unit
# tests, which read tracepoint formats too).

# have_tracefs: whether tracefs is there; as root, mounts it where the
# kernel expects it when it is not (the suite's own set-up, as perf needs),
# so that no test depends on a mount made by hand.
have_tracefs() {
	if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ] &&
	   [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	fi
	[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ]
}
