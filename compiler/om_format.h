/* SPDX-License-Identifier: MIT */
/*
 * The .om offline-model file: what the compiler (tools/atc, libnpucc)
 * writes and the runtime (libascendcl's aclmdl*) loads.  The runtime
 * includes this header and links nothing of the compiler.
 * docs/om-format.md describes it in prose.
 *
 * All integers are little endian.  Every offset counts from the start of
 * the file; every section starts on an OM_ALIGN boundary and lies inside
 * the file.  A loader checks every offset, size, count and index before it
 * uses one: the file may be truncated, corrupted or hostile.
 */
#ifndef OM_FORMAT_H
#define OM_FORMAT_H

#include <linux/types.h>

#include "npu_operator.h"

#define OM_MAGIC		0x4d4f504e	/* "NPOM" */
#define OM_VERSION_MAJOR	1		/* a loader rejects another major */
#define OM_VERSION_MINOR	1		/* 1: num_load_ops */
#define OM_ALIGN		64
#define OM_MAX_DIMS		NPU_TENSOR_MAX_DIMS
#define OM_MAX_IO		64		/* inputs and outputs, each */

/*
 * A tensor address inside the program names a region and an offset into
 * it; the loader turns it into a device address.  Regions are the weights
 * (uploaded once at load), the workspace (activations, shared by liveness),
 * and the caller's input and output buffers of one execution.
 */
enum om_region {
	OM_REGION_WEIGHTS = 0,
	OM_REGION_WORKSPACE = 1,
	OM_REGION_INPUT0 = 2,		/* input i: OM_REGION_INPUT0 + i */
					/* output j: OM_REGION_INPUT0 + num_inputs + j */
};

struct om_header {
	__le32 magic;			/* OM_MAGIC */
	__le16 version_major;
	__le16 version_minor;
	__le32 header_size;		/* sizeof(struct om_header) */
	__le32 flags;			/* none defined, 0 */
	__le64 file_size;		/* the whole file */
	__le32 num_inputs;
	__le32 num_outputs;
	__le64 io_offset;		/* (num_inputs + num_outputs) om_io_desc */
	__le32 num_ops;
	/*
	 * Since 1.1: the program's first num_load_ops records are run once,
	 * when the model is loaded, on the weights alone (packing them for
	 * the card); the num_ops after them on every execution.  A 1.0
	 * loader finds more records than num_ops and refuses the file.
	 */
	__le32 num_load_ops;
	__le64 program_offset;		/* num_load_ops + num_ops records, back to back */
	__le64 program_size;
	__le64 weights_offset;		/* copied to device memory at load */
	__le64 weights_size;
	__le64 workspace_size;		/* device memory one execution needs */
	__le64 strings_offset;		/* NUL-terminated names */
	__le64 strings_size;
	__le32 strings_rsvd;
	__le32 rsvd1[5];
};

/* One model input or output, in the terms of acl/acl_base.h. */
struct om_io_desc {
	__le32 name;			/* offset into the strings section */
	__le32 data_type;		/* aclDataType */
	__le32 format;			/* aclFormat */
	__le32 num_dims;		/* 0 .. OM_MAX_DIMS */
	__le64 dims[OM_MAX_DIMS];
	__le64 size;			/* bytes of the buffer the caller gives */
};

/*
 * One operator.  @desc is the card's descriptor as in uapi/npu_operator.h,
 * except that each tensor's addr is an offset into the region
 * @region[tensor], and @size includes the padding after it.
 */
struct om_op_record {
	__le32 size;			/* this record, a multiple of OM_ALIGN */
	__le32 desc_size;		/* bytes of @desc with its tensors */
	__le32 name;			/* the graph node, offset into strings */
	__le32 rsvd;
	__u8 region[NPU_OP_MAX_TENSORS];	/* enum om_region per tensor */
	__u8 pad[32];
	struct npu_op_desc desc;
};

#endif /* OM_FORMAT_H */
