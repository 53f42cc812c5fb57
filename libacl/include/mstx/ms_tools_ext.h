/* SPDX-License-Identifier: MIT */
/*
 * mstx: markers and ranges a program puts on its profile's timeline, in
 * the default domain or in named ones. They are recorded while a profile
 * with ACL_PROF_MSPROFTX runs (acl/acl_prof.h) and cost a lock and a
 * clock reading otherwise; with a stream, the card's clock marks the
 * stream's timeline too. Implemented in libascendcl (libmsprofiler.so).
 */
#ifndef LIBASCENDCL_MS_TOOLS_EXT_H
#define LIBASCENDCL_MS_TOOLS_EXT_H

#include <stdint.h>

#ifndef MSTX_DECLSPEC
#define MSTX_DECLSPEC __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define MSTX_INVALID_RANGE_ID	0

typedef uint64_t mstxRangeId;
typedef struct mstxDomainRegistrationSt mstxDomainRegistration_st;
typedef mstxDomainRegistration_st *mstxDomainHandle_t;
typedef void *aclrtStream;

MSTX_DECLSPEC void mstxMarkA(const char *message, aclrtStream stream);
MSTX_DECLSPEC mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
MSTX_DECLSPEC void mstxRangeEnd(mstxRangeId id);

MSTX_DECLSPEC mstxDomainHandle_t mstxDomainCreateA(const char *name);
MSTX_DECLSPEC void mstxDomainDestroy(mstxDomainHandle_t domain);
MSTX_DECLSPEC void mstxDomainMarkA(mstxDomainHandle_t domain, const char *message,
				   aclrtStream stream);
MSTX_DECLSPEC mstxRangeId mstxDomainRangeStartA(mstxDomainHandle_t domain, const char *message,
						aclrtStream stream);
MSTX_DECLSPEC void mstxDomainRangeEnd(mstxDomainHandle_t domain, mstxRangeId id);

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_MS_TOOLS_EXT_H */
