/* pltcalls [N]: N*10000 rounds of calls to cheap libc functions, made
 * directly, so that samples land in the program's PLT stubs (NAME@plt) as
 * well as in libc, and (through snprintf) in libc's own PLT stubs. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char text[64] = "12 pltcalls: cheap libc functions, called often";

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 10) * 10000, sum = 0;
	char buf[96];

	for (long i = 0; i < n; i++) {
		for (int k = 0; k < 10; k++) {
			text[0] = (char)('1' + (i + k) % 8);
			sum += strtol(text, NULL, 10);
			sum += (long)strlen(text + ((i + k) & 3));
			sum += strchr(text + (k & 1), ':') != NULL;
			sum += strcmp(text, argv[0]);
			sum += (long)strspn(text, "0123456789");
			sum += memchr(text, 'c', sizeof text) != NULL;
			sum += toupper(text[(i + k) & 15]);
			sum += strrchr(text, 'l') != NULL;
		}
		sum += snprintf(buf, sizeof buf, "%s-%ld-%s", argv[0], i, text);
	}
	return sum == 42;
}
