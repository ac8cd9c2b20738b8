// cxxsort.cc [ROUNDS]: C++ names as perf report shows them: the work is in
// a member of a class template in a namespace (fxns::Worker<long>::run)
// and in std::sort's instantiations, whose names carry parameter lists
// that perf report leaves out.
#include <algorithm>
#include <cstdlib>
#include <vector>

namespace fxns {
template <typename T> struct Worker {
	std::vector<T> v;
	__attribute__((noinline)) T run(T n)
	{
		v.resize(static_cast<size_t>(n));
		T x = n;
		for (auto &e : v)
			e = x = x * 6364136223846793005 + 1442695040888963407;
		std::sort(v.begin(), v.end());
		return v[v.size() / 2];
	}
};
}

int main(int argc, char **argv)
{
	fxns::Worker<long> w;
	long rounds = argc > 1 ? atol(argv[1]) : 20;
	long sink = 0;
	for (long i = 0; i < rounds; i++)
		sink += w.run(100000);
	return sink == 42;
}
