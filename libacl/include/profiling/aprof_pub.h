/* SPDX-License-Identifier: MIT */
/*
 * The one call of the vendor's profiling registration header that its
 * samples make: a graph engine names a model (by its index) and its
 * device before the model is loaded, so that it may be subscribed
 * (aclprofModelSubscribe) already. Implemented in libascendcl
 * (libprofapi.so names it).
 */
#ifndef LIBASCENDCL_APROF_PUB_H
#define LIBASCENDCL_APROF_PUB_H

#include <stdint.h>

#ifndef MSVP_PROF_API
#define MSVP_PROF_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* 0, or -1 when no more models can be named. */
MSVP_PROF_API int32_t MsprofSetDeviceIdByGeModelIdx(const uint32_t geModelIdx,
						    const uint32_t deviceId);

#ifdef __cplusplus
}
#endif

#endif /* LIBASCENDCL_APROF_PUB_H */
