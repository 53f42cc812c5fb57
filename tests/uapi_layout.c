// SPDX-License-Identifier: GPL-2.0-only
/*
 * Built, never run: with -Wpadded -Werror an implicit hole in a uapi or
 * hardware struct fails the build, and the asserts pin every size, so an
 * ABI change cannot slip in unnoticed.
 */

#include "npu_accel.h"
#include "npu_hw.h"

#define SIZE_IS(type, size) _Static_assert(sizeof(type) == (size), #type " changed size")

SIZE_IS(struct drm_npu_get_param, 16);
SIZE_IS(struct drm_npu_bo_create, 32);
SIZE_IS(struct drm_npu_stream_create, 24);
SIZE_IS(struct drm_npu_stream_destroy, 8);
SIZE_IS(struct drm_npu_cmd, 64);
SIZE_IS(struct drm_npu_submit, 32);
SIZE_IS(struct drm_npu_wait, 24);
SIZE_IS(struct drm_npu_slot, 16);
SIZE_IS(struct drm_npu_fence_slot, 32);
SIZE_IS(struct npu_cmd, 64);
SIZE_IS(struct npu_sg_entry, 16);
SIZE_IS(struct npu_ring_shadow, 64);

/* Each struct is used once so that -Wpadded looks at all of them. */
struct test_uapi_layout {
	struct drm_npu_get_param get_param;
	struct drm_npu_bo_create bo_create;
	struct drm_npu_stream_create stream_create;
	struct drm_npu_stream_destroy stream_destroy;
	struct drm_npu_cmd cmd;
	struct drm_npu_submit submit;
	struct drm_npu_wait wait;
	struct drm_npu_slot slot;
	struct drm_npu_fence_slot fence_slot;
	struct npu_cmd hw_cmd;
	struct npu_sg_entry sg_entry;
	struct npu_ring_shadow ring_shadow;
};

SIZE_IS(struct test_uapi_layout, 16 + 32 + 24 + 8 + 64 + 32 + 24 + 16 + 32 + 64 + 16 + 64);
