// SPDX-License-Identifier: MIT
/*
 * The .om parser. Every value of the file is checked before it is used:
 * the file may be truncated, corrupted or hostile. Structures are copied
 * out of the file before they are read, so the file need not be aligned,
 * and all arithmetic on the file's numbers is checked for overflow.
 */
#include <endian.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl_base_rt.h"
#include "model_parse.h"
#include "npu_dtypes.h"

struct parse {
	const uint8_t *file;
	uint64_t size;
	struct om_header hdr;
	uint64_t strings_offset, strings_size;
	struct acl_om *om;
	char *why;
	size_t why_len;
};

__attribute__((format(printf, 2, 3)))
static int refuse(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p->why, p->why_len, fmt, ap);
	va_end(ap);
	return -1;
}

uint64_t acl_om_region_size(const struct acl_om *om, unsigned int r)
{
	if (r == OM_REGION_WEIGHTS)
		return om->weights_size;
	if (r == OM_REGION_WORKSPACE)
		return om->workspace_size;
	if (r - OM_REGION_INPUT0 < om->num_inputs + om->num_outputs)
		return om->io[r - OM_REGION_INPUT0].size;
	return 0;
}

/* ---- the header ------------------------------------------------------ */

/* A section [offset, offset + len) lies inside the file and is aligned. */
static int check_section(struct parse *p, const char *what, uint64_t offset, uint64_t len)
{
	uint64_t end;

	if (offset % OM_ALIGN)
		return refuse(p, "the %s section's offset %llu is not a multiple of %d", what,
			      (unsigned long long)offset, OM_ALIGN);
	if (__builtin_add_overflow(offset, len, &end) || end > p->size)
		return refuse(p, "the %s section (offset %llu, %llu bytes) runs past the end of "
			      "the %llu-byte file", what, (unsigned long long)offset,
			      (unsigned long long)len, (unsigned long long)p->size);
	return 0;
}

static int check_header(struct parse *p)
{
	struct om_header *h = &p->hdr;
	uint32_t ni, no;

	if (p->size < sizeof(*h))
		return refuse(p, "the file has %llu bytes, fewer than its %zu-byte header",
			      (unsigned long long)p->size, sizeof(*h));
	memcpy(h, p->file, sizeof(*h));
	if (le32toh(h->magic) != OM_MAGIC)
		return refuse(p, "bad magic %#x: not an .om file", le32toh(h->magic));
	if (le16toh(h->version_major) != OM_VERSION_MAJOR)
		return refuse(p, "format version %u.%u, this loader reads %d.x",
			      le16toh(h->version_major), le16toh(h->version_minor),
			      OM_VERSION_MAJOR);
	if (le32toh(h->header_size) != sizeof(*h))
		return refuse(p, "header_size is %u, not %zu", le32toh(h->header_size), sizeof(*h));
	if (le64toh(h->file_size) != p->size)
		return refuse(p, "the header says the file has %llu bytes, it has %llu "
			      "(truncated or padded)", (unsigned long long)le64toh(h->file_size),
			      (unsigned long long)p->size);
	ni = le32toh(h->num_inputs);
	no = le32toh(h->num_outputs);
	if (ni > OM_MAX_IO || no > OM_MAX_IO)
		return refuse(p, "%u inputs and %u outputs: at most %d of each", ni, no, OM_MAX_IO);
	p->strings_offset = le64toh(h->strings_offset);
	p->strings_size = le64toh(h->strings_size);
	if (check_section(p, "inputs and outputs", le64toh(h->io_offset),
			  (uint64_t)(ni + no) * sizeof(struct om_io_desc)) ||
	    check_section(p, "program", le64toh(h->program_offset), le64toh(h->program_size)) ||
	    check_section(p, "weights", le64toh(h->weights_offset), le64toh(h->weights_size)) ||
	    check_section(p, "strings", p->strings_offset, p->strings_size))
		return -1;
	p->om->num_inputs = ni;
	p->om->num_outputs = no;
	p->om->weights_offset = le64toh(h->weights_offset);
	p->om->weights_size = le64toh(h->weights_size);
	p->om->workspace_size = le64toh(h->workspace_size);
	return 0;
}

/* ---- names ----------------------------------------------------------- */

static int copy_strings(struct parse *p)
{
	/* One byte more, so that an empty section still gives "" names. */
	p->om->strings = calloc(1, p->strings_size + 1);
	if (!p->om->strings)
		return refuse(p, "out of memory for %llu bytes of names",
			      (unsigned long long)p->strings_size);
	memcpy(p->om->strings, p->file + p->strings_offset, p->strings_size);
	return 0;
}

/* The NUL-terminated name at offset off of the strings section. */
static int name_at(struct parse *p, uint32_t off, const char *whose, const char **name)
{
	if (off >= p->strings_size)
		return refuse(p, "%s: name offset %u is outside the %llu-byte strings section",
			      whose, off, (unsigned long long)p->strings_size);
	if (!memchr(p->om->strings + off, 0, p->strings_size - off))
		return refuse(p, "%s: the name at offset %u runs past the strings section",
			      whose, off);
	*name = p->om->strings + off;
	return 0;
}

/* ---- inputs and outputs --------------------------------------------- */

static int parse_io(struct parse *p, uint32_t i, struct acl_om_io *io)
{
	struct om_io_desc d;
	uint64_t bytes;
	size_t esize;
	char whose[32];

	if (i < p->om->num_inputs)
		snprintf(whose, sizeof(whose), "input %u", i);
	else
		snprintf(whose, sizeof(whose), "output %u", i - p->om->num_inputs);
	memcpy(&d, p->file + le64toh(p->hdr.io_offset) + (uint64_t)i * sizeof(d), sizeof(d));
	if (name_at(p, le32toh(d.name), whose, &io->name))
		return -1;
	io->data_type = (int32_t)le32toh(d.data_type);
	io->format = (int32_t)le32toh(d.format);
	io->num_dims = le32toh(d.num_dims);
	io->size = le64toh(d.size);
	if (io->num_dims > OM_MAX_DIMS)
		return refuse(p, "%s (%s): %u dims, at most %d", whose, io->name, io->num_dims,
			      OM_MAX_DIMS);
	esize = aclDataTypeSize((aclDataType)io->data_type);
	if (!esize)
		return refuse(p, "%s (%s): data type %d has no known size", whose, io->name,
			      io->data_type);
	bytes = esize;
	for (uint32_t d_ = 0; d_ < io->num_dims; d_++) {
		uint64_t dim = le64toh(d.dims[d_]);

		if (dim > INT64_MAX || __builtin_mul_overflow(bytes, dim, &bytes))
			return refuse(p, "%s (%s): dim %u (%llu) is out of range", whose, io->name,
				      d_, (unsigned long long)dim);
		io->dims[d_] = (int64_t)dim;
	}
	if (bytes != io->size)
		return refuse(p, "%s (%s): size %llu is not the dims' product times %zu (%llu)",
			      whose, io->name, (unsigned long long)io->size, esize,
			      (unsigned long long)bytes);
	return 0;
}

/* ---- the program ----------------------------------------------------- */

/*
 * The layout rules the driver applies to every tensor of a COMPUTE
 * descriptor (uapi/npu_accel.h): a file that breaks them could never run,
 * so it is refused at load. NULL if t keeps them, else which it breaks.
 */
static const char *tensor_layout(const struct npu_tensor_desc *t)
{
	uint16_t ndims = le16toh(t->ndims), format = le16toh(t->format);
	uint64_t count = 1;

	if (!npu_dtype_card_size(le16toh(t->dtype)))
		return "unknown data type";
	if (t->bind)
		return "a binding, which only a direct ring takes";
	if (ndims > NPU_TENSOR_MAX_DIMS)
		return "more than 8 dims";
	if (format > NPU_FORMAT_LAST)
		return "unknown format";
	if (format != NPU_FORMAT_STRIDED && ndims != 4)
		return "a blocked format with a rank other than 4";
	for (unsigned int d = 0; d < NPU_TENSOR_MAX_DIMS; d++) {
		uint64_t dim = le64toh(t->dims[d]), stride = le64toh(t->strides[d]);

		if (d >= ndims && (dim || stride))
			return "dims or strides past its rank that are not 0";
		if (dim > INT64_MAX || __builtin_mul_overflow(count, dim, &count))
			return "dims whose product overflows";
		if (stride > INT64_MAX || (format != NPU_FORMAT_STRIDED && stride))
			return "a stride over INT64_MAX, or strides on a blocked tensor";
	}
	return NULL;
}

/*
 * Bytes a tensor of a good layout spans from its address, 0 when a dim is
 * 0. NULL on success, else why it cannot be told.
 */
static const char *tensor_extent(const struct npu_tensor_desc *t, uint64_t *extent)
{
	uint16_t ndims = le16toh(t->ndims);
	size_t esize = npu_dtype_card_size(le16toh(t->dtype));
	uint64_t n = 0, dims[NPU_TENSOR_MAX_DIMS];

	*extent = 0;
	for (unsigned int d = 0; d < ndims; d++) {
		dims[d] = le64toh(t->dims[d]);
		if (!dims[d])
			return NULL;
	}
	if (le16toh(t->format) == NPU_FORMAT_PACKED) {
		/* the card's header and room for any layout (uapi: NPU_PACKED_ELEMS) */
		uint64_t term = 1;

		n = NPU_PACKED_HEADER_ELEMS;
		for (unsigned int d = 0; d < 4; d++) {
			uint64_t grown = d < 2 ? dims[d] + 15 : dims[d] + 3;

			if (dims[d] > UINT64_MAX - 15 ||
			    __builtin_mul_overflow(term, d < 2 ? grown / 16 * 16 : grown, &term))
				return "an extent that overflows";
		}
		if (__builtin_add_overflow(n, term, &n))
			return "an extent that overflows";
	} else if (le16toh(t->format) != NPU_FORMAT_STRIDED) {
		/* N (O: rounded up to 16 too) x C rounded up to 16 x H x W elements */
		uint64_t outer = dims[0];

		if (le16toh(t->format) == NPU_FORMAT_OIHW16I16O) {
			if (outer > UINT64_MAX - 15)
				return "an extent that overflows";
			outer = (outer + 15) / 16 * 16;
		}
		if (dims[1] > UINT64_MAX - 15 ||
		    __builtin_mul_overflow(outer, (dims[1] + 15) / 16 * 16, &n) ||
		    __builtin_mul_overflow(n, dims[2], &n) ||
		    __builtin_mul_overflow(n, dims[3], &n))
			return "an extent that overflows";
	} else {
		/* the last element's index, plus one */
		for (unsigned int d = 0; d < ndims; d++) {
			uint64_t step;

			if (__builtin_mul_overflow(dims[d] - 1, le64toh(t->strides[d]), &step) ||
			    __builtin_add_overflow(n, step, &n))
				return "an extent that overflows";
		}
		if (__builtin_add_overflow(n, 1, &n))
			return "an extent that overflows";
	}
	if (__builtin_mul_overflow(n, esize, extent))
		return "an extent that overflows";
	return NULL;
}

static int check_tensor(struct parse *p, uint32_t n, const struct acl_om_op *op,
			const struct npu_tensor_desc *t, unsigned int i)
{
	unsigned int nregions = OM_REGION_INPUT0 + p->om->num_inputs + p->om->num_outputs;
	uint64_t extent, end, region_size;
	unsigned int r = op->region[i];
	const char *bad;

	if (r >= nregions)
		return refuse(p, "op %u (%s), tensor %u: region %u does not exist (the model has "
			      "%u)", n, op->name, i, r, nregions);
	bad = tensor_layout(t);
	if (!bad)
		bad = tensor_extent(t, &extent);
	if (bad)
		return refuse(p, "op %u (%s), tensor %u: %s", n, op->name, i, bad);
	region_size = acl_om_region_size(p->om, r);
	if (__builtin_add_overflow(op->offset[i], extent, &end) || end > region_size ||
	    op->offset[i] > region_size)
		return refuse(p, "op %u (%s), tensor %u: bytes %llu..%llu lie outside region %u "
			      "(%llu bytes)", n, op->name, i, (unsigned long long)op->offset[i],
			      (unsigned long long)op->offset[i] + extent, r,
			      (unsigned long long)region_size);
	return 0;
}

/* The fixed part of a record: what comes before its descriptor. */
#define RECORD_HEAD	offsetof(struct om_op_record, desc)

/*
 * Record @n of the program into @op; a load-time one (@at_load) may touch
 * the weights only, since it runs before any execution gives the others.
 */
static int parse_op(struct parse *p, uint32_t n, uint64_t pos, struct acl_om_op *op,
		    bool at_load, uint64_t *next)
{
	uint64_t left = le64toh(p->hdr.program_size) - pos;
	const uint8_t *at = p->file + le64toh(p->hdr.program_offset) + pos;
	struct om_op_record rec;
	struct npu_op_desc *desc;
	uint32_t size, ntensors;
	char whose[32];

	snprintf(whose, sizeof(whose), "op %u", n);
	if (left < sizeof(rec))
		return refuse(p, "op %u: the program ends %llu bytes into its record", n,
			      (unsigned long long)left);
	memcpy(&rec, at, sizeof(rec));
	size = le32toh(rec.size);
	op->desc_size = le32toh(rec.desc_size);
	ntensors = (uint32_t)rec.desc.num_inputs + rec.desc.num_outputs;
	if (name_at(p, le32toh(rec.name), whose, &op->name))
		return -1;
	if (ntensors > NPU_OP_MAX_TENSORS ||
	    op->desc_size != sizeof(struct npu_op_desc) + ntensors * sizeof(struct npu_tensor_desc))
		return refuse(p, "op %u (%s): desc_size %u does not fit its %u inputs and %u "
			      "outputs", n, op->name, op->desc_size, rec.desc.num_inputs,
			      rec.desc.num_outputs);
	if (size % OM_ALIGN || size > left || size < RECORD_HEAD + (uint64_t)op->desc_size)
		return refuse(p, "op %u (%s): record size %u is not a multiple of %d, or is "
			      "smaller than its descriptor (%u bytes) needs, or runs past the "
			      "program (%llu bytes left)", n, op->name, size, OM_ALIGN,
			      op->desc_size, (unsigned long long)left);
	if (le16toh(rec.desc.kind) > NPU_OPERATOR_LAST)
		return refuse(p, "op %u (%s): unknown operator kind %u", n, op->name,
			      le16toh(rec.desc.kind));
	if (rec.desc.flags || rec.desc.rsvd0 || rec.desc.rsvd1)
		return refuse(p, "op %u (%s): a flag or reserved field of its descriptor is not 0",
			      n, op->name);
	op->kind = le16toh(rec.desc.kind);
	op->num_tensors = ntensors;
	op->image_offset = p->om->image_size;
	memcpy(op->region, rec.region, sizeof(op->region));
	desc = (struct npu_op_desc *)((uint8_t *)p->om->image + op->image_offset);
	memcpy(desc, at + RECORD_HEAD, op->desc_size);
	for (unsigned int i = 0; i < ntensors; i++) {
		op->offset[i] = le64toh(desc->tensors[i].addr);
		desc->tensors[i].addr = 0;
		if (check_tensor(p, n, op, &desc->tensors[i], i))
			return -1;
		if (at_load && op->region[i] != OM_REGION_WEIGHTS)
			return refuse(p, "op %u (%s), tensor %u: a load-time operator's tensor in "
				      "region %u, not the weights", n, op->name, i, op->region[i]);
	}
	p->om->image_size += (op->desc_size + OM_ALIGN - 1) / OM_ALIGN * OM_ALIGN;
	*next = pos + size;
	return 0;
}

static int parse_program(struct parse *p)
{
	uint64_t program_size = le64toh(p->hdr.program_size), pos = 0;
	struct acl_om *om = p->om;

	om->num_ops = le32toh(p->hdr.num_ops);
	om->num_load_ops = le32toh(p->hdr.num_load_ops);
	/* Each record is at least this big, so the counts cannot ask for more. */
	if (om->num_ops > program_size / sizeof(struct om_op_record) ||
	    om->num_load_ops > program_size / sizeof(struct om_op_record) - om->num_ops)
		return refuse(p, "%u + %u ops cannot fit a %llu-byte program", om->num_load_ops,
			      om->num_ops, (unsigned long long)program_size);
	om->ops = calloc(om->num_ops ? om->num_ops : 1, sizeof(*om->ops));
	om->load_ops = calloc(om->num_load_ops ? om->num_load_ops : 1, sizeof(*om->load_ops));
	/*
	 * A descriptor takes no more room in the image than its record in the
	 * file; aligned_alloc wants a multiple of the alignment.
	 */
	om->image = aligned_alloc(OM_ALIGN, program_size / OM_ALIGN * OM_ALIGN + OM_ALIGN);
	if (!om->ops || !om->load_ops || !om->image)
		return refuse(p, "out of memory for %u ops", om->num_ops);
	for (uint32_t n = 0; n < om->num_load_ops; n++)
		if (parse_op(p, n, pos, &om->load_ops[n], true, &pos))
			return -1;
	for (uint32_t n = 0; n < om->num_ops; n++)
		if (parse_op(p, om->num_load_ops + n, pos, &om->ops[n], false, &pos))
			return -1;
	if (pos != program_size)
		return refuse(p, "the %u op records take %llu bytes, the program has %llu",
			      om->num_load_ops + om->num_ops, (unsigned long long)pos,
			      (unsigned long long)program_size);
	return 0;
}

int acl_om_parse(const void *file, size_t size, struct acl_om *om, char *why, size_t why_len)
{
	struct parse p = { .file = file, .size = size, .om = om, .why = why, .why_len = why_len };

	memset(om, 0, sizeof(*om));
	if (check_header(&p) || copy_strings(&p))
		goto fail;
	om->io = calloc(om->num_inputs + om->num_outputs + 1, sizeof(*om->io));
	if (!om->io) {
		refuse(&p, "out of memory");
		goto fail;
	}
	for (uint32_t i = 0; i < om->num_inputs + om->num_outputs; i++)
		if (parse_io(&p, i, &om->io[i]))
			goto fail;
	if (parse_program(&p))
		goto fail;
	return 0;
fail:
	acl_om_free(om);
	return -1;
}

void acl_om_free(struct acl_om *om)
{
	free(om->io);
	free(om->ops);
	free(om->load_ops);
	free(om->image);
	free(om->strings);
	memset(om, 0, sizeof(*om));
}
