// sorter.cc [ROUNDS]: std::sort of a vector of longs, ROUNDS times, for
// the dwarf_inline test: built -O2 -g, nearly all of the sort's
// functions (std::sort, std::__sort, partitions, iterator operators) are
// inlined into two out-of-line ones, so that perf shows them as inlined
// frames of a --call-graph dwarf recording.  Each round also parses
// numbers with glibc's atol, an extern "C" inline function (a DWARF name
// and no linkage name, in a C++ unit) that calls strtol.
#include <algorithm>
#include <cstdlib>
#include <vector>

static volatile long sink;
static const char digits[] = "1234567890123456";

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 20;
	std::vector<long> v(200000);
	unsigned long x = 1;
	long sum = 0;
	for (int r = 0; r < rounds; r++) {
		for (auto &e : v) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			e = (long)(x >> 20);
		}
		std::sort(v.begin(), v.end());
		for (int i = 0; i < 100000; i++)
			sum += atol(digits + i % 8);
		sum += v[(size_t)r % v.size()];
	}
	sink = sum;
	return 0;
}
