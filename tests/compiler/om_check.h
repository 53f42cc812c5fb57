/* SPDX-License-Identifier: MIT */
/*
 * The checks docs/om-format.md lists for a loader, written again for the
 * compiler's tests from the document alone (not shared with libascendcl's
 * loader): a file the compiler writes must pass every one.  om_check()
 * returns NULL, or the first check that fails.
 */
#ifndef OM_CHECK_H
#define OM_CHECK_H

#include <endian.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "om_format.h"

static inline bool om_in(uint64_t off, uint64_t size, uint64_t total)
{
	return off <= total && size <= total - off;
}

static inline bool om_name_ok(const uint8_t *file, uint64_t s_off, uint64_t s_size, uint32_t name)
{
	return name < s_size && memchr(file + s_off + name, 0, s_size - name);
}

static inline uint64_t om_acl_dtype_size(uint32_t t)
{
	switch (t) {
	case 0: case 3: case 8: return 4;	/* FLOAT, INT32, UINT32 */
	case 1: case 6: case 7: case 27: return 2;
	case 2: case 4: case 12: return 1;
	case 9: case 10: case 11: return 8;
	default: return 0;
	}
}

static inline uint64_t om_npu_dtype_size(uint16_t t)
{
	return t <= NPU_DTYPE_LAST ? NPU_DTYPE_SIZE(t) : 0;
}

/* The bytes a tensor spans, or UINT64_MAX when its fields are invalid. */
static inline uint64_t om_extent(const struct npu_tensor_desc *t)
{
	uint16_t nd = le16toh(t->ndims), fmt = le16toh(t->format);
	uint64_t es = om_npu_dtype_size(le16toh(t->dtype)), e = 0;
	int d;

	if (!es || nd > NPU_TENSOR_MAX_DIMS || fmt > NPU_FORMAT_LAST)
		return UINT64_MAX;
	for (d = 0; d < nd; d++)
		if (!le64toh(t->dims[d]))
			return 0;
	if (fmt == NPU_FORMAT_PACKED)
		return nd != 4 ? UINT64_MAX :
		       es * NPU_PACKED_ELEMS(le64toh(t->dims[0]), le64toh(t->dims[1]),
					     le64toh(t->dims[2]), le64toh(t->dims[3]));
	if (fmt != NPU_FORMAT_STRIDED) {
		uint64_t outer = le64toh(t->dims[0]);

		if (nd != 4)
			return UINT64_MAX;
		if (fmt == NPU_FORMAT_OIHW16I16O)
			outer = (outer + 15) / 16 * 16;
		return es * outer * ((le64toh(t->dims[1]) + 15) / 16 * 16) *
		       le64toh(t->dims[2]) * le64toh(t->dims[3]);
	}
	for (d = 0; d < nd; d++)
		e += (le64toh(t->dims[d]) - 1) * le64toh(t->strides[d]);
	return (e + 1) * es;
}

static inline const char *om_check(const uint8_t *file, uint64_t len)
{
	const struct om_header *h = (const void *)file;
	uint64_t io_off, p_off, p_size, w_off, w_size, s_off, s_size, ws, pos;
	uint64_t io_size[2 * OM_MAX_IO];
	uint32_t nin, nout, nops, nload, i, k;

	if (len < sizeof(*h))
		return "file shorter than the header";
	if (le32toh(h->magic) != OM_MAGIC)
		return "magic";
	if (le16toh(h->version_major) != OM_VERSION_MAJOR)
		return "major version";
	if (le32toh(h->header_size) != sizeof(*h))
		return "header_size";
	if (le64toh(h->file_size) != len)
		return "file_size";
	nin = le32toh(h->num_inputs);
	nout = le32toh(h->num_outputs);
	nops = le32toh(h->num_ops);
	nload = le32toh(h->num_load_ops);
	io_off = le64toh(h->io_offset);
	p_off = le64toh(h->program_offset);
	p_size = le64toh(h->program_size);
	w_off = le64toh(h->weights_offset);
	w_size = le64toh(h->weights_size);
	s_off = le64toh(h->strings_offset);
	s_size = le64toh(h->strings_size);
	ws = le64toh(h->workspace_size);
	if (nin > OM_MAX_IO || nout > OM_MAX_IO)
		return "input or output count";
	if (!om_in(io_off, (uint64_t)(nin + nout) * sizeof(struct om_io_desc), len) ||
	    !om_in(p_off, p_size, len) || !om_in(w_off, w_size, len) || !om_in(s_off, s_size, len))
		return "a section lies outside the file";
	if ((io_off | p_off | w_off | s_off) % OM_ALIGN)
		return "a section is not aligned";
	for (i = 0; i < nin + nout; i++) {
		const struct om_io_desc *d = (const void *)(file + io_off + i * sizeof(*d));
		uint32_t nd = le32toh(d->num_dims);
		uint64_t bytes = om_acl_dtype_size(le32toh(d->data_type));

		if (!om_name_ok(file, s_off, s_size, le32toh(d->name)))
			return "an input or output name";
		if (nd > OM_MAX_DIMS)
			return "an input or output num_dims";
		for (k = 0; k < nd; k++)
			bytes *= le64toh(d->dims[k]);
		if (!om_acl_dtype_size(le32toh(d->data_type)) || le64toh(d->size) != bytes)
			return "an input or output size";
		io_size[i] = bytes;
	}
	if (nload > UINT32_MAX - nops)
		return "the op counts";
	for (pos = 0, i = 0; i < nload + nops; i++) {
		const struct om_op_record *r = (const void *)(file + p_off + pos);
		uint32_t size, desc_size, nt;

		if (p_size - pos < offsetof(struct om_op_record, desc) + sizeof(struct npu_op_desc))
			return "an op record overruns the program";
		size = le32toh(r->size);
		desc_size = le32toh(r->desc_size);
		nt = (uint32_t)r->desc.num_inputs + r->desc.num_outputs;
		if (size % OM_ALIGN || size < offsetof(struct om_op_record, desc) + desc_size ||
		    size > p_size - pos)
			return "an op record's size";
		if (nt > NPU_OP_MAX_TENSORS ||
		    desc_size != sizeof(struct npu_op_desc) + nt * sizeof(struct npu_tensor_desc))
			return "an op record's desc_size";
		if (!om_name_ok(file, s_off, s_size, le32toh(r->name)))
			return "an op record's name";
		if (le16toh(r->desc.kind) > NPU_OPERATOR_LAST)
			return "an operator kind";
		for (k = 0; k < nt; k++) {
			const struct npu_tensor_desc *t = &r->desc.tensors[k];
			uint64_t ext = om_extent(t), limit;
			uint8_t region = r->region[k];

			if (region >= OM_REGION_INPUT0 + nin + nout)
				return "a tensor's region";
			if (i < nload && region != OM_REGION_WEIGHTS)
				return "a load-time operator's tensor outside the weights";
			limit = region == OM_REGION_WEIGHTS ? w_size :
				region == OM_REGION_WORKSPACE ? ws : io_size[region - OM_REGION_INPUT0];
			if (ext == UINT64_MAX)
				return "a tensor's type, format or rank";
			if (!om_in(le64toh(t->addr), ext, limit))
				return "a tensor's extent overruns its region";
		}
		pos += size;
	}
	if (pos != p_size)
		return "the op records do not add up to program_size";
	return NULL;
}

#endif /* OM_CHECK_H */
