// SPDX-License-Identifier: GPL-2.0
/*
 * The widest vector instructions the library's hand-written loops may use:
 * what the CPU has, capped by the setting that caps oneDNN's primitives,
 * ONEDNN_MAX_CPU_ISA (or its older name DNNL_MAX_CPU_ISA), so that one
 * setting picks the code path of the whole library and a test can run the
 * narrower loops on a wider CPU.  Read once per process, as oneDNN reads
 * it; a value oneDNN would not know caps nothing, as there.
 */
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>

#include "oplib_impl.h"

static enum oplib_isa isa_cap(const char *name)
{
	if (!name || !strcasecmp(name, "ALL") || !strcasecmp(name, "DEFAULT") ||
	    !strncasecmp(name, "AVX512", 6) || !strncasecmp(name, "AVX10", 5))
		return OPLIB_ISA_AVX512;
	if (!strncasecmp(name, "AVX2", 4))
		return OPLIB_ISA_AVX2;
	if (!strcasecmp(name, "SSE41") || !strcasecmp(name, "AVX"))
		return OPLIB_ISA_BASE;
	return OPLIB_ISA_AVX512;
}

static enum oplib_isa isa_of_cpu(void)
{
	if (__builtin_cpu_supports("avx512f"))
		return OPLIB_ISA_AVX512;
	if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
		return OPLIB_ISA_AVX2;
	return OPLIB_ISA_BASE;
}

static enum oplib_isa isa;
static pthread_once_t isa_once = PTHREAD_ONCE_INIT;

static void isa_init(void)
{
	const char *cap = getenv("ONEDNN_MAX_CPU_ISA");
	enum oplib_isa most;

	if (!cap)
		cap = getenv("DNNL_MAX_CPU_ISA");
	most = isa_cap(cap);
	isa = isa_of_cpu();
	if (isa > most)
		isa = most;
}

enum oplib_isa oplib_isa(void)
{
	pthread_once(&isa_once, isa_init);
	return isa;
}
