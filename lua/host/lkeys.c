/*
 * lkeys.c - the keys of a terminal a script has taken (luaprof.term,
 * lterm.c), read without blocking, named as lterm.c's header lists, and
 * handed to the script's on_key.  Apart from lterm.c so that the module
 * calls no hook (the VM loads the module; the keys call the VM).
 */
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lp.h"

/* The name of the key at p (n bytes left); *len gets its length. */
static const char *key_name(const unsigned char *p, size_t n, size_t *len, char *buf)
{
	static const char *const csi_letter[] = {
		['A'] = "up", ['B'] = "down", ['C'] = "right", ['D'] = "left",
		['H'] = "home", ['F'] = "end", ['P'] = "f1", ['Q'] = "f2", ['R'] = "f3", ['S'] = "f4",
	};
	static const char *const csi_num[] = {
		[1] = "home", [2] = "insert", [3] = "delete", [4] = "end", [5] = "pgup", [6] = "pgdn",
		[7] = "home", [8] = "end", [15] = "f5", [17] = "f6", [18] = "f7", [19] = "f8",
		[20] = "f9", [21] = "f10", [23] = "f11", [24] = "f12",
	};
	*len = 1;
	if (p[0] == 0x1b && n >= 3 && (p[1] == '[' || p[1] == 'O')) {
		size_t i = 2;
		unsigned num = 0;
		while (i < n && ((p[i] >= '0' && p[i] <= '9') || p[i] == ';'))
			num = p[i] == ';' ? num : num * 10 + (unsigned)(p[i] - '0'), i++;
		if (i < n) {
			*len = i + 1;
			if (p[i] == '~' && num < sizeof csi_num / sizeof *csi_num && csi_num[num])
				return csi_num[num];
			if (p[i] < sizeof csi_letter / sizeof *csi_letter && csi_letter[p[i]])
				return csi_letter[p[i]];
			return "unknown";
		}
	}
	switch (p[0]) {
	case 0x1b: return "esc";
	case '\r': case '\n': return "enter";
	case '\t': return "tab";
	case 0x7f: case 0x08: return "backspace";
	default: break;
	}
	if (p[0] < 0x20) {
		snprintf(buf, 8, "ctrl-%c", p[0] + 'a' - 1);
		return buf;
	}
	size_t u = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 1;
	*len = u <= n ? u : n;
	memcpy(buf, p, *len);
	buf[*len] = '\0';
	return buf;
}

int lp_term_deliver(struct lp_run *run)
{
	int fd = lp_term_input_fd(run);
	unsigned char in[256];
	struct pollfd p = { .fd = fd, .events = POLLIN };
	if (fd < 0 || poll(&p, 1, 0) <= 0)
		return 0;
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
		lp_term_input_closed();        /* the terminal hung up: no more keys */
		return 0;
	}
	ssize_t n = read(fd, in, sizeof in);   /* VMIN = 0: never blocks */
	for (size_t i = 0; n > 0 && i < (size_t)n && !run->exit_requested;) {
		size_t len;
		char buf[16];
		lua_pushstring(run->vm.L, key_name(in + i, (size_t)n - i, &len, buf));
		i += len;
		if (lp_vm_call(run, LP_HOOK_KEY, 1))
			return -1;
	}
	return 0;
}

