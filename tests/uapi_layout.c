// SPDX-License-Identifier: GPL-2.0-only
/*
 * Built, never run: with -Wpadded -Werror an implicit hole in a uapi or
 * hardware struct fails the build, and the asserts pin every size, so an
 * ABI change cannot slip in unnoticed.
 */

#include "npu_accel.h"
#include "npu_hw.h"
#include "npu_operator.h"

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
SIZE_IS(struct drm_npu_stream_map, 24);
SIZE_IS(struct drm_npu_stream_kick, 8);
SIZE_IS(struct drm_npu_program_create, 24);
SIZE_IS(struct drm_npu_program_destroy, 8);
SIZE_IS(struct drm_npu_bo_export, 16);
SIZE_IS(struct drm_npu_bo_export_ctl, 24);
SIZE_IS(struct drm_npu_bo_import, 32);
SIZE_IS(struct drm_npu_direct_cmd, 64);
SIZE_IS(struct drm_npu_direct_ctrl, 64);
SIZE_IS(struct npu_direct_cmd, 64);
SIZE_IS(struct npu_binding, 32);
SIZE_IS(struct npu_bind_table, 64);
SIZE_IS(struct npu_slot, 32);
SIZE_IS(struct npu_cmd, 64);
SIZE_IS(struct npu_sg_entry, 16);
SIZE_IS(struct npu_ring_shadow, 64);
SIZE_IS(struct npu_tensor_desc, 144);
SIZE_IS(struct npu_activation, 16);
SIZE_IS(struct npu_attr_conv, 48);
SIZE_IS(struct npu_attr_matmul, 32);
SIZE_IS(struct npu_attr_pool, 40);
SIZE_IS(struct npu_attr_unary, 16);
SIZE_IS(struct npu_attr_binary, 24);
SIZE_IS(struct npu_attr_norm, 24);
SIZE_IS(struct npu_attr_softmax, 8);
SIZE_IS(struct npu_attr_reduce, 8);
SIZE_IS(struct npu_attr_concat, 8);
SIZE_IS(struct npu_attr_transpose, 32);
SIZE_IS(struct npu_attr_resize, 48);
SIZE_IS(struct npu_attr_pad, 72);
SIZE_IS(struct npu_attr_slice, 128);
SIZE_IS(struct npu_attr_pack_conv, 120);
SIZE_IS(struct npu_attr_gather, 8);
SIZE_IS(struct npu_attr_fill, 24);
SIZE_IS(struct npu_attr_triangle, 16);
SIZE_IS(struct npu_attr_groupnorm, 24);
SIZE_IS(union npu_op_attrs, 128);
SIZE_IS(struct npu_op_desc, 144);

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
	struct drm_npu_bo_export bo_export;
	struct drm_npu_bo_export_ctl bo_export_ctl;
	struct drm_npu_bo_import bo_import;
	struct npu_cmd hw_cmd;
	struct npu_sg_entry sg_entry;
	struct npu_ring_shadow ring_shadow;
	struct npu_tensor_desc tensor_desc;
	struct npu_attr_conv attr_conv;
	struct npu_attr_matmul attr_matmul;
	struct npu_attr_pool attr_pool;
	struct npu_attr_binary attr_binary;
	struct npu_attr_norm attr_norm;
	struct npu_attr_resize attr_resize;
	struct npu_attr_pad attr_pad;
	struct npu_attr_slice attr_slice;
	struct npu_attr_pack_conv attr_pack_conv;
	struct npu_op_desc op_desc;	/* last: its tensors[] is flexible */
};

SIZE_IS(struct test_uapi_layout, 16 + 32 + 24 + 8 + 64 + 32 + 24 + 16 + 32 + 16 + 24 + 32 +
	64 + 16 + 64 +
	144 + 48 + 32 + 40 + 24 + 24 + 48 + 72 + 128 + 120 + 144);
