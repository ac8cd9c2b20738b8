// worker.cc [ROUNDS]: C++ names for the demangling test: the work is in
// ns::Worker<long>::run(long), a member of a class template in a namespace.
#include <cstdlib>

namespace ns {
template <typename T> struct Worker {
	static volatile T sink;
	__attribute__((noinline, noclone)) T run(T n)
	{
		T x = sink;
		for (T i = 0; i < n; i++)
			x = x * 6364136223846793005 + 1442695040888963407;
		sink = x;
		return x;
	}
};
template <typename T> volatile T Worker<T>::sink;
}

int main(int argc, char **argv)
{
	ns::Worker<long> w;
	long rounds = argc > 1 ? atol(argv[1]) : 100;
	for (long i = 0; i < rounds; i++)
		w.run(1000000);
	return 0;
}
