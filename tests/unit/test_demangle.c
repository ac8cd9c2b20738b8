/*
 * test_demangle.c - names demangled (demangle.c) as c++filt and perf show
 * them: with parameters (c++filt), without (c++filt -p, perf), and the
 * names libiberty demangles only without.
 */
#include "test.h"
#include "luaprof/sym.h"
#include "sym/sym_int.h"

/* V8's, in Debian's /usr/bin/node (nodejs 20): c++filt leaves it mangled,
 * c++filt -p and perf report demangle it. */
#define ISRA "_ZN2v88internal11StringShape33DispatchToSpecificTypeWithoutCastIZNS1_22" \
	"DispatchToSpecificTypeIZNKS0_6String7GetImplEiNS0_16PtrComprCageBaseERKNS0_31" \
	"SharedStringAccessGuardIfNeededEE19StringGetDispatchertJRiRS5_S8_EEET0_S4_DpOT1_" \
	"E17CastingDispatchertJRS4_SA_SB_S8_EEESC_SF_.isra.0"

static void with_and_without_params(void)
{
	char *p = lp_demangle_name("_ZN2ns6WorkerIlE3runEl", true);
	char *n = lp_demangle_name("_ZN2ns6WorkerIlE3runEl", false);
	char *d = lp_demangle("_ZN2ns6WorkerIlE3runEl");

	TEST_STREQ(p, "ns::Worker<long>::run(long)");
	TEST_STREQ(n, "ns::Worker<long>::run");
	TEST_STREQ(d, "ns::Worker<long>::run(long)");
	free(p);
	free(n);
	free(d);
	TEST_TRUE(!lp_demangle("main"));
	TEST_TRUE(!lp_demangle("_Znot a name"));
}

static void only_without_params(void)
{
	char *p = lp_demangle_name(ISRA, true);
	char *n = lp_demangle_name(ISRA, false);
	char *d = lp_demangle(ISRA);

	TEST_TRUE(!p);          /* libiberty's limit, as c++filt's */
	static const char head[] = "v8::internal::StringShape::DispatchToSpecificTypeWithoutCast<";
	TEST_TRUE(n && !strncmp(n, head, sizeof head - 1));
	TEST_STREQ(d, n);       /* not left mangled: perf's name */
	free(p);
	free(n);
	free(d);
}

TEST_MAIN("demangle",
	  TEST_CASE(with_and_without_params),
	  TEST_CASE(only_without_params))
