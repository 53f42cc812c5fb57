// SPDX-License-Identifier: MIT
/*
 * The .om parser of the model runtime, on the host, linked alone
 * (libacl/src/model_parse.c): valid files parse into what they say; every
 * check of docs/om-format.md refuses a file made to fail it, with a
 * message naming it; and truncated or randomly corrupted files are either
 * refused with a message or accepted only when an independent check
 * finds every tensor inside its region. Built with ASan and UBSan, so an
 * out-of-bounds read or an overflow in the parser fails the run.
 *
 * OM_FUZZ_SEED varies the random corruptions, OM_FUZZ_ROUNDS their number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "om_builder.h"
#include "model_parse.h"
#include "kselftest_harness.h"

/* ---- an independent check of an accepted file -------------------------- */

typedef unsigned __int128 u128;

static u128 region_bytes(const struct acl_om *om, unsigned int r)
{
	if (r == OM_REGION_WEIGHTS)
		return om->weights_size;
	if (r == OM_REGION_WORKSPACE)
		return om->workspace_size;
	return om->io[r - OM_REGION_INPUT0].size;
}

/* Products and sums in 128 bits, stuck at CAP: past any region either way. */
#define CAP ((u128)1 << 100)

static u128 mul_cap(u128 a, u128 b)
{
	return a && b > CAP / a ? CAP : a * b;
}

static u128 add_cap(u128 a, u128 b)
{
	return a + b > CAP ? CAP : a + b;
}

/* Bytes a tensor spans, computed another way than the parser does. */
static u128 extent128(const struct npu_tensor_desc *t)
{
	u128 last = 0;

	for (unsigned int d = 0; d < t->ndims; d++)
		if (!t->dims[d])
			return 0;
	if (t->format == NPU_FORMAT_NCHW16C)
		return mul_cap(mul_cap(mul_cap(mul_cap(t->dims[0], ((u128)t->dims[1] + 15) / 16 * 16),
					       t->dims[2]), t->dims[3]), NPU_DTYPE_SIZE(t->dtype));
	if (t->format == NPU_FORMAT_PACKED)
		return mul_cap(add_cap(mul_cap(mul_cap(mul_cap(((u128)t->dims[0] + 15) / 16 * 16,
							       ((u128)t->dims[1] + 15) / 16 * 16),
						       (u128)t->dims[2] + 3),
					       (u128)t->dims[3] + 3), NPU_PACKED_HEADER_ELEMS),
			       NPU_DTYPE_SIZE(t->dtype));
	if (t->format == NPU_FORMAT_OIHW16I16O)
		return mul_cap(mul_cap(mul_cap(mul_cap(((u128)t->dims[0] + 15) / 16 * 16,
						       ((u128)t->dims[1] + 15) / 16 * 16),
					       t->dims[2]), t->dims[3]), NPU_DTYPE_SIZE(t->dtype));
	for (unsigned int d = 0; d < t->ndims; d++)
		last = add_cap(last, mul_cap(t->dims[d] - 1, t->strides[d]));
	return mul_cap(last + 1, NPU_DTYPE_SIZE(t->dtype));
}

/* NULL when om keeps every promise the runtime relies on, else which it breaks. */
static const char *broken_promise(const struct acl_om *om, size_t file_size)
{
	unsigned int nregions = OM_REGION_INPUT0 + om->num_inputs + om->num_outputs;

	if (om->num_inputs > OM_MAX_IO || om->num_outputs > OM_MAX_IO)
		return "too many inputs or outputs";
	if (om->weights_offset + (u128)om->weights_size > file_size)
		return "weights outside the file";
	for (uint32_t i = 0; i < om->num_inputs + om->num_outputs; i++) {
		const struct acl_om_io *io = &om->io[i];
		u128 bytes = aclDataTypeSize((aclDataType)io->data_type);

		if (!io->name || strlen(io->name) > file_size || io->num_dims > OM_MAX_DIMS)
			return "a bad input or output";
		for (uint32_t d = 0; d < io->num_dims; d++)
			bytes = mul_cap(bytes, (uint64_t)io->dims[d]);
		if (!bytes && io->size)
			return "an input or output without element size";
		if (bytes != io->size)
			return "an input or output size that disagrees with its dims";
	}
	/* load-time operators touch the weights alone */
	for (uint32_t n = 0; n < om->num_load_ops; n++)
		for (uint32_t t = 0; t < om->load_ops[n].num_tensors && t < NPU_OP_MAX_TENSORS; t++)
			if (om->load_ops[n].region[t] != OM_REGION_WEIGHTS)
				return "a load-time operator outside the weights";
	for (uint32_t n = 0; n < om->num_ops; n++) {
		const struct acl_om_op *op = &om->ops[n];
		const struct npu_op_desc *desc;

		if (op->image_offset % OM_ALIGN ||
		    op->image_offset + (u128)op->desc_size > om->image_size)
			return "a descriptor outside the image";
		desc = (const void *)((const uint8_t *)om->image + op->image_offset);
		if (op->kind > NPU_OPERATOR_LAST || op->kind != desc->kind || desc->flags ||
		    desc->rsvd0 || desc->rsvd1)
			return "an unknown operator or a reserved field set";
		if (!op->name || strlen(op->name) > file_size ||
		    op->num_tensors != (uint32_t)desc->num_inputs + desc->num_outputs ||
		    op->num_tensors > NPU_OP_MAX_TENSORS ||
		    op->desc_size != sizeof(*desc) + op->num_tensors * sizeof(desc->tensors[0]))
			return "a malformed operator";
		for (uint32_t t = 0; t < op->num_tensors; t++) {
			const struct npu_tensor_desc *td = &desc->tensors[t];

			u128 count = 1;

			if (td->addr)
				return "a tensor address left in the image";
			if (td->bind)
				return "a tensor with a binding";
			for (unsigned int d = 0; d < NPU_TENSOR_MAX_DIMS; d++) {
				if (d >= td->ndims && (td->dims[d] || td->strides[d]))
					return "dims or strides past a tensor's rank";
				if (td->strides[d] > INT64_MAX ||
				    (td->format != NPU_FORMAT_STRIDED && td->strides[d]))
					return "a stride the driver refuses";
				count = mul_cap(count, td->dims[d] > INT64_MAX ? CAP : td->dims[d]);
			}
			if (count > UINT64_MAX)
				return "dims whose product overflows";
			if (op->region[t] >= nregions || td->dtype > NPU_DTYPE_LAST ||
			    td->ndims > NPU_TENSOR_MAX_DIMS ||
			    (td->format != NPU_FORMAT_STRIDED && td->ndims != 4) ||
			    td->format > NPU_FORMAT_LAST)
				return "a malformed tensor";
			if (add_cap(op->offset[t], extent128(td)) > region_bytes(om, op->region[t]))
				return "a tensor outside its region";
		}
	}
	return NULL;
}

/* ---- the valid files ---------------------------------------------------- */

struct sample {
	void *file;
	size_t size;
};

static void samples_make(struct sample s[3])
{
	int64_t dims[3] = { 2, 3, 5 };

	s[0].file = om_model_add(3, dims, &s[0].size);
	s[1].file = om_model_affine(100, &s[1].size);
	s[2].file = om_model_chain(16, 40, &s[2].size);
}

static void samples_free(struct sample s[3])
{
	for (int i = 0; i < 3; i++)
		free(s[i].file);
}

static struct om_header *hdr(void *f)
{
	return f;
}

static struct om_io_desc *io_desc(void *f, unsigned int i)
{
	return (struct om_io_desc *)((uint8_t *)f + hdr(f)->io_offset) + i;
}

static struct om_op_record *op_record(void *f, unsigned int n)
{
	uint8_t *p = (uint8_t *)f + hdr(f)->program_offset;

	while (n--)
		p += ((struct om_op_record *)p)->size;
	return (struct om_op_record *)p;
}

static char *strings(void *f)
{
	return (char *)f + hdr(f)->strings_offset;
}

TEST(valid_files_parse)
{
	struct sample s[3];
	struct acl_om om;
	char why[512];

	samples_make(s);

	ASSERT_EQ(0, acl_om_parse(s[0].file, s[0].size, &om, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(2, om.num_inputs);
	EXPECT_EQ(1, om.num_outputs);
	EXPECT_EQ(1, om.num_ops);
	EXPECT_STREQ("a", om.io[0].name);
	EXPECT_STREQ("b", om.io[1].name);
	EXPECT_STREQ("y", om.io[2].name);
	EXPECT_EQ(ACL_FLOAT, om.io[2].data_type);
	EXPECT_EQ(3, om.io[2].num_dims);
	EXPECT_EQ(5, om.io[2].dims[2]);
	EXPECT_EQ(2 * 3 * 5 * 4, om.io[0].size);
	EXPECT_STREQ("add", om.ops[0].name);
	EXPECT_EQ(3, om.ops[0].num_tensors);
	EXPECT_EQ(OM_REGION_INPUT0, om.ops[0].region[0]);
	EXPECT_EQ(OM_REGION_INPUT0 + 1, om.ops[0].region[1]);
	EXPECT_EQ(OM_REGION_INPUT0 + 2, om.ops[0].region[2]);
	EXPECT_EQ(0, om.workspace_size);
	EXPECT_EQ(NULL, broken_promise(&om, s[0].size));
	acl_om_free(&om);

	ASSERT_EQ(0, acl_om_parse(s[1].file, s[1].size, &om, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(2, om.num_ops);
	EXPECT_EQ(448 + 400, om.weights_size);	/* w, padding to 64, c */
	EXPECT_EQ(OM_AFFINE_WS_OFFSET + 400, om.workspace_size);
	EXPECT_EQ(OM_REGION_WORKSPACE, om.ops[0].region[2]);
	EXPECT_EQ(OM_AFFINE_WS_OFFSET, om.ops[0].offset[2]);
	EXPECT_EQ(OM_REGION_WEIGHTS, om.ops[1].region[1]);
	EXPECT_EQ(448, om.ops[1].offset[1]);	/* after 400 bytes, aligned */
	EXPECT_STREQ("add_relu", om.ops[1].name);
	/* the weights are where the header says, byte for byte */
	EXPECT_EQ(0, memcmp((uint8_t *)s[1].file + om.weights_offset + 448 + 4,
			    &(float){ om_affine_c(1) }, 4));
	EXPECT_EQ(NULL, broken_promise(&om, s[1].size));
	acl_om_free(&om);

	ASSERT_EQ(0, acl_om_parse(s[2].file, s[2].size, &om, why, sizeof(why))) TH_LOG("%s", why);
	EXPECT_EQ(40, om.num_ops);
	EXPECT_EQ(NULL, broken_promise(&om, s[2].size));
	acl_om_free(&om);

	/* a later minor version only adds fields that were 0: still read */
	hdr(s[0].file)->version_minor = 7;
	EXPECT_EQ(0, acl_om_parse(s[0].file, s[0].size, &om, why, sizeof(why)));
	acl_om_free(&om);

	/* the file need not be aligned in memory */
	{
		uint8_t *odd = malloc(s[1].size + 1);

		memcpy(odd + 1, s[1].file, s[1].size);
		EXPECT_EQ(0, acl_om_parse(odd + 1, s[1].size, &om, why, sizeof(why)));
		acl_om_free(&om);
		free(odd);
	}
	samples_free(s);
}

/* ---- each check, failed on purpose -------------------------------------- */

struct hostile {
	const char *what;
	void (*make)(void *f, size_t *size);
	const char *says;	/* in the message */
};

static void short_file(void *f, size_t *size) { (void)f; *size = 100; }
static void bad_magic(void *f, size_t *size) { (void)size; hdr(f)->magic ^= 1; }
static void major_2(void *f, size_t *size) { (void)size; hdr(f)->version_major = 2; }
static void header_size(void *f, size_t *size) { (void)size; hdr(f)->header_size = 64; }
static void file_size_big(void *f, size_t *size) { (void)size; hdr(f)->file_size++; }
static void file_size_small(void *f, size_t *size) { hdr(f)->file_size = --*size; }
static void many_inputs(void *f, size_t *size) { (void)size; hdr(f)->num_inputs = OM_MAX_IO + 1; }
static void many_outputs(void *f, size_t *size) { (void)size; hdr(f)->num_outputs = 1000000; }
static void io_misaligned(void *f, size_t *size) { (void)size; hdr(f)->io_offset += 8; }
static void io_past_end(void *f, size_t *size) { hdr(f)->io_offset = *size / 64 * 64; }
static void program_overflow(void *f, size_t *size)
{
	(void)size;
	hdr(f)->program_size = UINT64_MAX - 63;
}
static void weights_past_end(void *f, size_t *size) { (void)size; hdr(f)->weights_size += 4096; }
static void weights_misaligned(void *f, size_t *size) { (void)size; hdr(f)->weights_offset += 4; }
static void strings_overflow(void *f, size_t *size)
{
	(void)size;
	hdr(f)->strings_offset = UINT64_MAX / 64 * 64;
}
static void ops_huge(void *f, size_t *size) { (void)size; hdr(f)->num_ops = UINT32_MAX; }
static void ops_one_more(void *f, size_t *size) { (void)size; hdr(f)->num_ops++; }
static void load_ops_huge(void *f, size_t *size) { (void)size; hdr(f)->num_load_ops = UINT32_MAX; }
/* the first record run at load, though it reads the model's input */
static void load_op_on_input(void *f, size_t *size)
{
	(void)size;
	hdr(f)->num_load_ops = 1;
	hdr(f)->num_ops--;
}
static void ops_one_less(void *f, size_t *size) { (void)size; hdr(f)->num_ops--; }
static void io_name_outside(void *f, size_t *size)
{
	(void)size;
	io_desc(f, 0)->name = (uint32_t)hdr(f)->strings_size;
}
static void name_unterminated(void *f, size_t *size)
{
	(void)size;
	/* the last name ends the section: its NUL goes */
	strings(f)[hdr(f)->strings_size - 1] = 'x';
}
static void io_nine_dims(void *f, size_t *size) { (void)size; io_desc(f, 0)->num_dims = 9; }
static void io_size_wrong(void *f, size_t *size) { (void)size; io_desc(f, 1)->size += 4; }
static void io_dims_overflow(void *f, size_t *size)
{
	(void)size;
	io_desc(f, 0)->dims[0] = UINT64_MAX / 2;
	io_desc(f, 0)->dims[1] = 4;
}
static void io_negative_dim(void *f, size_t *size) { (void)size; io_desc(f, 0)->dims[0] = -1; }
static void io_bad_type(void *f, size_t *size) { (void)size; io_desc(f, 0)->data_type = 99; }
static void rec_unaligned(void *f, size_t *size) { (void)size; op_record(f, 0)->size -= 8; }
static void rec_too_small(void *f, size_t *size) { (void)size; op_record(f, 0)->size = 64; }
static void rec_past_program(void *f, size_t *size)
{
	(void)size;
	op_record(f, 1)->size += 64;
}
static void rec_desc_size(void *f, size_t *size) { (void)size; op_record(f, 0)->desc_size -= 144; }
static void rec_many_tensors(void *f, size_t *size)
{
	struct om_op_record *r = op_record(f, 0);

	(void)size;
	r->desc.num_inputs = 15;
	r->desc.num_outputs = 2;
	r->desc_size = sizeof(r->desc) + 17 * sizeof(struct npu_tensor_desc);
}
static void rec_name(void *f, size_t *size) { (void)size; op_record(f, 1)->name = 0xfffffff0; }
static void tensor_region(void *f, size_t *size) { (void)size; op_record(f, 0)->region[1] = 4; }
static void tensor_region_255(void *f, size_t *size) { (void)size; op_record(f, 1)->region[2] = 255; }
static void tensor_past_weights(void *f, size_t *size)
{
	(void)size;
	op_record(f, 0)->desc.tensors[1].addr += 452;	/* w, moved 4 bytes past c's end */
}
static void tensor_past_output(void *f, size_t *size)
{
	(void)size;
	op_record(f, 1)->desc.tensors[2].dims[0]++;
}
static void tensor_past_workspace(void *f, size_t *size)
{
	(void)size;
	hdr(f)->workspace_size -= 4;
}
static void tensor_offset_huge(void *f, size_t *size)
{
	(void)size;
	op_record(f, 0)->desc.tensors[0].addr = UINT64_MAX - 2;
}
static void tensor_stride_overflow(void *f, size_t *size)
{
	(void)size;
	op_record(f, 0)->desc.tensors[0].strides[0] = UINT64_MAX / 8;
}
static void tensor_dtype(void *f, size_t *size) { (void)size; op_record(f, 0)->desc.tensors[0].dtype = NPU_DTYPE_LAST + 1; }
static void tensor_format(void *f, size_t *size)
{
	(void)size;
	op_record(f, 0)->desc.tensors[0].format = NPU_FORMAT_LAST + 1;
}
static void tensor_blocked_rank(void *f, size_t *size)
{
	(void)size;
	op_record(f, 0)->desc.tensors[0].format = NPU_FORMAT_NCHW16C;
}
static void tensor_ndims(void *f, size_t *size) { (void)size; op_record(f, 0)->desc.tensors[2].ndims = 9; }
static void blocked_past_input(void *f, size_t *size)
{
	struct npu_tensor_desc *t = &op_record(f, 0)->desc.tensors[0];

	/* 1 x 1 x 10 x 10 f32 is 400 bytes, but blocked it spans 16 channels */
	(void)size;
	t->format = NPU_FORMAT_NCHW16C;
	t->ndims = 4;
	t->dims[0] = 1;
	t->dims[1] = 1;
	t->dims[2] = 10;
	t->dims[3] = 10;
	memset(t->strides, 0, sizeof(t->strides));
}

static void op_kind(void *f, size_t *size) { (void)size; op_record(f, 1)->desc.kind = NPU_OPERATOR_LAST + 1; }
static void op_flags(void *f, size_t *size) { (void)size; op_record(f, 0)->desc.flags = 1; }
static void op_rsvd(void *f, size_t *size) { (void)size; op_record(f, 1)->desc.rsvd1 = 1; }
static void tensor_bind(void *f, size_t *size) { (void)size; op_record(f, 0)->desc.tensors[1].bind = 1; }
static void tensor_dim_past_rank(void *f, size_t *size)
{
	(void)size;
	op_record(f, 0)->desc.tensors[0].dims[1] = 1;
}
static void tensor_stride_past_rank(void *f, size_t *size)
{
	(void)size;
	op_record(f, 1)->desc.tensors[2].strides[7] = 1;
}
static void tensor_stride_negative(void *f, size_t *size)
{
	(void)size;
	op_record(f, 0)->desc.tensors[0].strides[0] = (uint64_t)-1;
}
static void blocked_strides(void *f, size_t *size)
{
	struct npu_tensor_desc *t = &op_record(f, 0)->desc.tensors[0];

	(void)size;
	t->format = NPU_FORMAT_NCHW16C;
	t->ndims = 4;
	t->dims[0] = t->dims[1] = t->dims[2] = t->dims[3] = 1;
	t->strides[3] = 1;
}
static void tensor_count_overflow(void *f, size_t *size)
{
	struct npu_tensor_desc *t = &op_record(f, 0)->desc.tensors[0];

	/* broadcast (stride 0) dims that span one element, but count 2^80 */
	(void)size;
	t->ndims = 2;
	t->dims[0] = t->dims[1] = 1ULL << 40;
	t->strides[0] = t->strides[1] = 0;
}

static const struct hostile hostiles[] = {
	{ "shorter than a header", short_file, "fewer than its 128-byte header" },
	{ "bad magic", bad_magic, "not an .om file" },
	{ "another major version", major_2, "format version 2.1" },
	{ "header_size", header_size, "header_size is 64" },
	{ "file_size over the bytes given", file_size_big, "truncated or padded" },
	{ "truncated, file_size fixed up", file_size_small, "section" },
	{ "too many inputs", many_inputs, "65 inputs" },
	{ "too many outputs", many_outputs, "1000000 outputs" },
	{ "io section misaligned", io_misaligned, "not a multiple of 64" },
	{ "io section past the end", io_past_end, "inputs and outputs section" },
	{ "program size overflowing", program_overflow, "program section" },
	{ "weights past the end", weights_past_end, "weights section" },
	{ "weights misaligned", weights_misaligned, "weights section's offset" },
	{ "strings offset overflowing", strings_overflow, "strings section" },
	{ "4 billion ops", ops_huge, "cannot fit" },
	{ "one op more than the records", ops_one_more, "op 2: the program ends" },
	{ "4 billion load-time ops", load_ops_huge, "cannot fit" },
	{ "a load-time op on an input", load_op_on_input, "a load-time operator's tensor in region" },
	{ "one op less than the records", ops_one_less, "records take" },
	{ "io name outside the strings", io_name_outside, "outside the" },
	{ "name without its NUL", name_unterminated, "runs past the strings section" },
	{ "nine dims", io_nine_dims, "9 dims" },
	{ "io size not the dims' product", io_size_wrong, "not the dims' product" },
	{ "io dims overflowing", io_dims_overflow, "out of range" },
	{ "negative dim", io_negative_dim, "out of range" },
	{ "io data type unknown", io_bad_type, "data type 99" },
	{ "record size not a multiple of 64", rec_unaligned, "record size" },
	{ "record smaller than its descriptor", rec_too_small, "record size 64" },
	{ "record past the program", rec_past_program, "runs past the program" },
	{ "desc_size wrong for the tensors", rec_desc_size, "desc_size" },
	{ "17 tensors", rec_many_tensors, "15 inputs and 2" },
	{ "op name offset", rec_name, "op 1: name offset" },
	{ "region past the last output", tensor_region, "region 4 does not exist" },
	{ "region 255", tensor_region_255, "region 255" },
	{ "tensor past the weights", tensor_past_weights, "outside region 0" },
	{ "tensor past its output", tensor_past_output, "outside region 3" },
	{ "tensor past the workspace", tensor_past_workspace, "outside region 1" },
	{ "tensor offset near 2^64", tensor_offset_huge, "outside region 2" },
	{ "tensor stride overflowing", tensor_stride_overflow, "overflows" },
	{ "tensor data type unknown", tensor_dtype, "unknown data type" },
	{ "tensor format unknown", tensor_format, "unknown format" },
	{ "NCHW16C of rank 1", tensor_blocked_rank, "rank other than 4" },
	{ "tensor of 9 dims", tensor_ndims, "more than 8 dims" },
	{ "blocked extent past its input", blocked_past_input, "outside region 2" },
	{ "unknown operator kind", op_kind, "op 1 (add_relu): unknown operator kind " },
	{ "descriptor flag", op_flags, "a flag or reserved field" },
	{ "descriptor reserved field", op_rsvd, "a flag or reserved field" },
	{ "tensor binding", tensor_bind, "tensor 1: a binding, which only a direct ring takes" },
	{ "dim past the rank", tensor_dim_past_rank, "past its rank" },
	{ "stride past the rank", tensor_stride_past_rank, "past its rank" },
	{ "negative stride", tensor_stride_negative, "stride over INT64_MAX" },
	{ "NCHW16C with strides", blocked_strides, "strides on a blocked tensor" },
	{ "dims counting past 2^64", tensor_count_overflow, "dims whose product overflows" },
};

/* The refusal names the kind, one past the last the card has. */
TEST(unknown_kind_is_named)
{
	struct sample s[3];
	char why[512], says[64];
	size_t size;
	uint8_t *f;
	struct acl_om om;

	samples_make(s);
	size = s[1].size;
	f = malloc(size);
	ASSERT_NE(NULL, f);
	memcpy(f, s[1].file, size);
	op_kind(f, &size);
	why[0] = 0;
	EXPECT_EQ(-1, acl_om_parse(f, size, &om, why, sizeof(why)));
	snprintf(says, sizeof(says), "unknown operator kind %u", NPU_OPERATOR_LAST + 1);
	EXPECT_NE(NULL, strstr(why, says)) TH_LOG("\"%s\" does not say \"%s\"", why, says);
	free(f);
	samples_free(s);
}

TEST(each_check_refuses)
{
	struct sample s[3];
	char why[512];

	samples_make(s);
	for (size_t i = 0; i < sizeof(hostiles) / sizeof(hostiles[0]); i++) {
		const struct hostile *h = &hostiles[i];
		size_t size = s[1].size;
		uint8_t *f = malloc(size);
		struct acl_om om;
		int ret;

		memcpy(f, s[1].file, size);
		h->make(f, &size);
		why[0] = 0;
		ret = acl_om_parse(f, size, &om, why, sizeof(why));
		EXPECT_EQ(-1, ret) TH_LOG("%s: accepted", h->what);
		EXPECT_NE(NULL, strstr(why, h->says)) TH_LOG("%s: \"%s\" does not say \"%s\"",
							    h->what, why, h->says);
		/* a refused file leaves nothing to free */
		EXPECT_EQ(NULL, om.io);
		EXPECT_EQ(NULL, om.image);
		free(f);
	}
	ksft_print_msg("%zu hostile files refused\n", sizeof(hostiles) / sizeof(hostiles[0]));
	samples_free(s);
}

/* ---- truncations and random corruption ---------------------------------- */

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static uint64_t env_or(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);

	return v && *v ? strtoull(v, NULL, 0) : dflt;
}

/* Parses f; refused needs a message, accepted needs every promise kept. */
static int judge(struct __test_metadata *_metadata, const void *f, size_t size,
		 const char *what, unsigned long n)
{
	struct acl_om om;
	char why[512] = "";
	const char *broken;

	if (acl_om_parse(f, size, &om, why, sizeof(why))) {
		EXPECT_NE(0, why[0]) TH_LOG("%s %lu: refused without a message", what, n);
		return 0;
	}
	broken = broken_promise(&om, size);
	EXPECT_EQ(NULL, broken) TH_LOG("%s %lu: accepted with %s", what, n, broken);
	acl_om_free(&om);
	return 1;
}

TEST(truncations)
{
	unsigned long tried = 0, accepted = 0;
	struct sample s[3];

	samples_make(s);
	for (int m = 0; m < 3; m++) {
		for (size_t len = 0; len < s[m].size; len++) {
			uint8_t *f = malloc(len ? len : 1);

			memcpy(f, s[m].file, len);
			/* as cut, and with the header's file_size made to agree */
			EXPECT_EQ(0, judge(_metadata, f, len, "truncation", len));
			if (len >= sizeof(struct om_header)) {
				hdr(f)->file_size = len;
				accepted += judge(_metadata, f, len, "fixed-up truncation", len);
				tried++;
			}
			tried++;
			free(f);
		}
	}
	ksft_print_msg("%lu truncated files, %lu accepted\n", tried,
		       accepted);
	samples_free(s);
}

/* One random change: a byte, a bit, or a field set to an edge value. */
static void corrupt_once(uint8_t *f, size_t size)
{
	static const uint64_t edges[] = {
		0, 1, 2, 63, 64, 65, 127, 128, 144, 255, 256, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000ULL, INT64_MAX, UINT64_MAX, UINT64_MAX - 63,
		UINT64_MAX - 127,
	};
	size_t pos = rng() % size;
	uint64_t v;

	switch (rng() % 4) {
	case 0:
		f[pos] = (uint8_t)rng();
		break;
	case 1:
		f[pos] ^= (uint8_t)(1u << (rng() % 8));
		break;
	case 2:		/* a 32-bit field */
		pos &= ~(size_t)3;
		if (pos + 4 > size)
			break;
		v = edges[rng() % (sizeof(edges) / sizeof(edges[0]))];
		if (rng() % 2)
			v = size + (rng() % 256) - 128;
		memcpy(f + pos, &(uint32_t){ (uint32_t)v }, 4);
		break;
	default:	/* a 64-bit field */
		pos &= ~(size_t)7;
		if (pos + 8 > size)
			break;
		v = edges[rng() % (sizeof(edges) / sizeof(edges[0]))];
		memcpy(f + pos, &v, 8);
		break;
	}
}

TEST(random_corruption)
{
	uint64_t rounds = env_or("OM_FUZZ_ROUNDS", 200000);
	unsigned long accepted = 0, refused = 0;
	struct sample s[3];

	rng_state = env_or("OM_FUZZ_SEED", 0x9e3779b97f4a7c15ULL);
	if (!rng_state)
		rng_state = 1;	/* xorshift stays at 0 */
	ksft_print_msg("seed %#llx (OM_FUZZ_SEED), %llu rounds (OM_FUZZ_ROUNDS)\n",
		       (unsigned long long)rng_state, (unsigned long long)rounds);
	samples_make(s);
	for (uint64_t n = 0; n < rounds; n++) {
		struct sample *base = &s[n % 3];
		uint8_t *f = malloc(base->size);
		unsigned int changes = 1 + rng() % 8;

		memcpy(f, base->file, base->size);
		/* most corruptions spare the header, to reach the later checks */
		for (unsigned int c = 0; c < changes; c++) {
			size_t skip = rng() % 4 ? sizeof(struct om_header) : 0;

			corrupt_once(f + skip, base->size - skip);
		}
		if (judge(_metadata, f, base->size, "corruption", (unsigned long)n))
			accepted++;
		else
			refused++;
		free(f);
	}
	ksft_print_msg("%llu corrupted files: %lu refused, %lu accepted with every promise kept\n",
		       (unsigned long long)rounds, refused, accepted);
	/* Corruption lands in every check, not only in bytes nobody reads. */
	EXPECT_GT(refused, rounds / 4);
	samples_free(s);
}

TEST_HARNESS_MAIN
