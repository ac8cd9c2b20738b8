// realcxx.cc [ROUNDS]: a C++ workload of the kind real programs are made
// of, for tests/e2e/real_cxx.sh: class templates in a namespace, std::sort
// with a comparator object (std::__introsort_loop, std::__insertion_sort:
// templates instantiated and inlined), a std::map, std::string and
// std::vector growth (operator new, memcpy).  Deterministic: a fixed
// linear congruential sequence; prints a checksum so nothing is optimised
// away.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace shapes {
template <typename T> struct Point {
	T x, y;
	T norm2() const { return x * x + y * y; }
};

template <typename T> struct ByNorm {
	bool operator()(const Point<T> &a, const Point<T> &b) const
	{
		return a.norm2() < b.norm2() || (a.norm2() == b.norm2() && a.x < b.x);
	}
};

template <typename T> class Cloud {
	std::vector<Point<T>> pts;
	unsigned long seed;

	T next()
	{
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		return static_cast<T>((seed >> 33) % 100000);
	}

public:
	explicit Cloud(unsigned long s) : seed(s) {}
	__attribute__((noinline)) void fill(size_t n)
	{
		pts.clear();
		for (size_t i = 0; i < n; i++)
			pts.push_back(Point<T>{ next(), next() });
	}
	__attribute__((noinline)) T sorted_checksum()
	{
		std::sort(pts.begin(), pts.end(), ByNorm<T>());
		T sum = 0;
		for (size_t i = 0; i < pts.size(); i += 97)
			sum += pts[i].x;
		return sum;
	}
};
} // namespace shapes

namespace words {
__attribute__((noinline)) size_t count(unsigned long seed, int n)
{
	std::map<std::string, int> m;
	for (int i = 0; i < n; i++) {
		seed = seed * 6364136223846793005ul + 1442695040888963407ul;
		m[std::to_string((seed >> 40) % 5000)]++;
	}
	return m.size();
}
} // namespace words

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 10;
	shapes::Cloud<long> cl(1);
	shapes::Cloud<double> cd(2);
	double sum = 0;
	for (int r = 0; r < rounds; r++) {
		cl.fill(200000);
		sum += cl.sorted_checksum();
		cd.fill(100000);
		sum += cd.sorted_checksum();
		sum += words::count(r, 50000);
	}
	printf("%.0f\n", sum);
	return 0;
}
