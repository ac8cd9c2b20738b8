/*
 * demangle.c - C++ and Rust names as people write them.
 *
 * libiberty's cplus_demangle (Debian's libiberty-dev, binutils' own
 * demangler, the one c++filt and perf use) is chosen over libstdc++'s
 * __cxa_demangle because it also demangles Rust, both the legacy scheme
 * (_ZN...17h<hash>E, hash left out as rustc-demangle does) and v0 (_R...),
 * and needs no C++ runtime.  Options DMGL_PARAMS | DMGL_ANSI: parameter
 * lists and qualifiers included, as c++filt prints them.
 */
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "sym/sym_int.h"

bool lp_is_mangled(const char *name)
{
	return name && name[0] == '_' && (name[1] == 'Z' || name[1] == 'R');
}

/* libiberty fails to demangle some names with their parameters that it
 * demangles without (V8's DispatchToSpecificTypeWithoutCast<...>
 * [clone .isra.0] in Debian's node, as c++filt shows): those are named as
 * perf names them, not left mangled. */
char *lp_demangle(const char *name)
{
	char *d = lp_demangle_name(name, true);
	return d ? d : lp_demangle_name(name, false);
}

/* Without parameters: DMGL_NO_OPTS, as perf demangles by default. */
char *lp_demangle_name(const char *name, bool params)
{
	int flags = params ? DMGL_PARAMS | DMGL_ANSI | DMGL_AUTO : DMGL_NO_OPTS | DMGL_AUTO;
	if (!lp_is_mangled(name))
		return NULL;
	const char *at = strstr(name, "@plt");
	if (!at || at[4])
		return cplus_demangle(name, flags);
	/* a PLT stub of a mangled name: NAME@plt, demangled NAME + "@plt" */
	char *base = strndup(name, (size_t)(at - name)), *d = NULL, *out = NULL;
	if (base && (d = cplus_demangle(base, flags)) &&
	    (out = malloc(strlen(d) + 5)))
		strcat(strcpy(out, d), "@plt");
	free(base);
	free(d);
	return out;
}
