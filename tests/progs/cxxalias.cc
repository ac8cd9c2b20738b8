/* cxxalias [N]: ns::f (C++, mangled _ZN2ns1fEm) and its alias ab, one
 * function with two names at one address, N rounds of a loop in it (for
 * the alias_names test).  perf chooses between names at one address by
 * choose_best_symbol on the names as it stores them, demangled: ns::f (5
 * characters) beats ab (2), where the raw names would give ab (no
 * leading underscore against _ZN2ns1fEm's one). */
#include <cstdlib>

namespace ns {
__attribute__((noinline)) unsigned long f(unsigned long n)
{
	unsigned long s = 0;
	for (unsigned long i = 0; i < n; i++)
		s += (i * i) ^ (s >> 3);
	return s;
}
}

extern "C" unsigned long ab(unsigned long) __attribute__((alias("_ZN2ns1fEm")));

static volatile unsigned long sink;

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 100000000;
	sink = ns::f(n);
	return 0;
}
