/* clockloop [N]: calls clock_gettime(CLOCK_MONOTONIC) N million times, so
 * the time goes to the vDSO. */
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = (argc > 1 ? atol(argv[1]) : 10) * 1000000;
	struct timespec ts;
	long sum = 0;
	for (long i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC, &ts);
		sum += ts.tv_nsec & 1;
	}
	return sum == -1;
}
