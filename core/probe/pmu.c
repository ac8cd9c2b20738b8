/*
 * pmu.c - the kernel's PMUs in sysfs: type, format/ and events/ files.
 *
 * A format file says where a term's value goes in perf_event_attr:
 * "config:0-7,21" is bits 0 to 7 and bit 21 of config; the value's bits
 * fill them lowest first (as perf's pmu_format_value).  Files are small
 * and read whole; their text is outside data and parsed with bounds.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "luaprof/probe.h"

#define DEFAULT_ROOT "/sys/bus/event_source/devices"

static char root[512] = DEFAULT_ROOT;

void lp_pmu_set_root(const char *dir)
{
	snprintf(root, sizeof root, "%s", dir ? dir : DEFAULT_ROOT);
}

const char *lp_pmu_root(void)
{
	return root;
}

/* A PMU or term name that cannot leave its directory. */
static bool safe_name(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/') && strlen(s) < 128;
}

/* Reads root/pmu/sub (sub may be "type", "format/x", "events/x") into buf
 * as a string.  Returns 0, -ENOENT, -EINVAL (empty), -ENAMETOOLONG. */
static int read_small(const char *pmu, const char *dir, const char *name, char *buf, size_t size)
{
	char path[1024];
	if (!safe_name(pmu) || (name && !safe_name(name)))
		return -ENOENT;
	int n = snprintf(path, sizeof path, "%s/%s/%s%s%s", root, pmu, dir, name ? "/" : "",
			 name ? name : "");
	if (n < 0 || (size_t)n >= sizeof path)
		return -ENAMETOOLONG;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	ssize_t got = read(fd, buf, size - 1);
	int e = errno;
	close(fd);
	if (got < 0)
		return -e;
	if ((size_t)got == size - 1)
		return -ENAMETOOLONG;
	buf[got] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return *buf ? 0 : -EINVAL;
}

int lp_pmu_type(const char *pmu, uint32_t *type)
{
	char buf[32], *end;
	int rc = read_small(pmu, "type", NULL, buf, sizeof buf);
	if (rc)
		return rc == -ENAMETOOLONG ? -EINVAL : rc;
	errno = 0;
	unsigned long v = strtoul(buf, &end, 10);
	if (errno || end == buf || *end || v > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

/* One bit number of a range: 0 to 63. */
static int parse_bit(const char **p, unsigned *bit)
{
	if (!isdigit((unsigned char)**p))
		return -EINVAL;
	unsigned v = 0;
	while (isdigit((unsigned char)**p)) {
		v = v * 10 + (unsigned)(*(*p)++ - '0');
		if (v > 63)
			return -EINVAL;
	}
	*bit = v;
	return 0;
}

/* "config", "config1", "config2", "config3" and the colon after it. */
static int parse_word(const char **p, unsigned *word)
{
	if (strncmp(*p, "config", 6))
		return -EINVAL;
	*p += 6;
	*word = 0;
	if (**p >= '1' && **p <= '3')
		*word = (unsigned)(*(*p)++ - '0');
	return *(*p)++ == ':' ? 0 : -EINVAL;
}

int lp_pmu_format_parse(const char *text, struct lp_pmu_format *out)
{
	const char *p = text;
	memset(out, 0, sizeof *out);
	if (parse_word(&p, &out->word))
		return -EINVAL;
	for (;;) {
		unsigned lo, hi;
		if (parse_bit(&p, &lo))
			return -EINVAL;
		hi = lo;
		if (*p == '-' && (p++, parse_bit(&p, &hi) || hi < lo))
			return -EINVAL;
		for (unsigned b = lo; b <= hi; b++)
			out->mask |= 1ull << b;
		if (*p != ',')
			break;
		p++;
	}
	while (*p == '\n' || *p == ' ')
		p++;
	return *p ? -EINVAL : 0;
}

int lp_pmu_format_pack(const struct lp_pmu_format *f, uint64_t value, uint64_t config[4])
{
	uint64_t v = value, packed = 0;
	for (unsigned b = 0; b < 64 && v; b++) {
		if (!(f->mask & (1ull << b)))
			continue;
		packed |= (v & 1) << b;
		v >>= 1;
	}
	if (v || f->word > 3)
		return -ERANGE;
	config[f->word] = (config[f->word] & ~f->mask) | packed;
	return 0;
}

int lp_pmu_format(const char *pmu, const char *term, struct lp_pmu_format *out)
{
	char buf[256];
	int rc = read_small(pmu, "format", term, buf, sizeof buf);
	if (rc)
		return rc == -ENOENT ? -ENOENT : -EINVAL;
	return lp_pmu_format_parse(buf, out);
}

int lp_pmu_alias(const char *pmu, const char *name, char *buf, size_t size)
{
	int rc = read_small(pmu, "events", name, buf, size);
	return rc == -EINVAL ? -ENOENT : rc;
}

int lp_pmu_terms(const char *pmu, char *buf, size_t size)
{
	char path[1024];
	int n = 0;
	*buf = '\0';
	if (!safe_name(pmu) || snprintf(path, sizeof path, "%s/%s/format", root, pmu) >= (int)sizeof path)
		return 0;
	DIR *d = opendir(path);
	struct dirent *de;
	size_t len = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		int w = snprintf(buf + len, size - len, "%s%s", n ? ", " : "", de->d_name);
		if (w < 0 || (size_t)w >= size - len)
			break;
		len += (size_t)w;
		n++;
	}
	if (d)
		closedir(d);
	return n;
}
