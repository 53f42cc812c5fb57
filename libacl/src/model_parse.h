/* SPDX-License-Identifier: MIT */
/*
 * The .om loader's parser: it checks a whole file (docs/om-format.md,
 * "What a loader checks", and the layout rules the driver applies to every
 * operator descriptor) and turns it into host data the runtime can use
 * without looking at the file again. It touches no device and no state of
 * the library, so the host tests fuzz it alone (tests/acl-host).
 */
#ifndef LIBASCENDCL_MODEL_PARSE_H
#define LIBASCENDCL_MODEL_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "om_format.h"

/* Regions a tensor may live in: weights, workspace, inputs, outputs. */
#define ACL_OM_MAX_REGIONS	(OM_REGION_INPUT0 + 2 * OM_MAX_IO)

/* One input or output of the model. */
struct acl_om_io {
	const char *name;		/* in acl_om.strings */
	int32_t data_type;		/* aclDataType */
	int32_t format;			/* aclFormat */
	uint32_t num_dims;
	int64_t dims[OM_MAX_DIMS];
	uint64_t size;			/* bytes */
};

/*
 * One operator: its descriptor sits in acl_om.image, with every tensor
 * address 0; an execution copies the image and sets tensor t's address to
 * the device address of region[t] plus offset[t].
 */
struct acl_om_op {
	const char *name;		/* the graph node */
	uint16_t kind;			/* enum npu_operator */
	uint64_t image_offset;		/* of the descriptor, a multiple of 64 */
	uint32_t desc_size;
	uint32_t num_tensors;
	uint8_t region[NPU_OP_MAX_TENSORS];
	uint64_t offset[NPU_OP_MAX_TENSORS];
};

struct acl_om {
	uint32_t num_inputs, num_outputs, num_ops;
	struct acl_om_io *io;		/* num_inputs, then num_outputs */
	struct acl_om_op *ops;
	/* run once at load, on the weights only: they pack weights for the card */
	uint32_t num_load_ops;
	struct acl_om_op *load_ops;
	void *image;			/* the descriptors, 64-byte aligned */
	uint64_t image_size;
	uint64_t weights_offset;	/* in the file */
	uint64_t weights_size;
	uint64_t workspace_size;
	char *strings;			/* a copy of the strings section */
};

/*
 * Checks the size bytes at file and fills om (free it with acl_om_free).
 * On failure returns -1 with om empty and a sentence in why naming the
 * check that failed. file need not be aligned.
 */
int acl_om_parse(const void *file, size_t size, struct acl_om *om, char *why, size_t why_len);
void acl_om_free(struct acl_om *om);

/* Bytes of the region r of om, 0 if it has none. */
uint64_t acl_om_region_size(const struct acl_om *om, unsigned int r);

#endif /* LIBASCENDCL_MODEL_PARSE_H */
