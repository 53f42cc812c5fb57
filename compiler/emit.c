// SPDX-License-Identifier: MIT
/*
 * Emit: the .om file of compiler/om_format.h and docs/om-format.md.
 * The header, the inputs' and outputs' descriptions, one record per card
 * operator (those the loader runs once first: the weights the card packs),
 * the weights, and the names.  Before it returns, every tensor
 * extent is checked against its region, as a loader will check it.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "lower.h"
#include "om_format.h"

#define ALIGN(x)	(((x) + OM_ALIGN - 1) & ~(uint64_t)(OM_ALIGN - 1))

_Static_assert(sizeof(struct om_header) == 128, "om_header is 128 bytes");
_Static_assert(sizeof(struct om_op_record) % 8 == 0, "om_op_record is 8-byte aligned");

struct strtab {
	char *buf;
	size_t len, cap;
};

static int64_t str_add(struct strtab *s, const char *str)
{
	size_t n = strlen(str) + 1;
	size_t off = s->len;

	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 4096;
		char *p;

		while (cap < s->len + n)
			cap *= 2;
		p = realloc(s->buf, cap);
		if (!p)
			return -1;
		s->buf = p;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, str, n);
	s->len += n;
	return (int64_t)off;
}

static void io_desc(struct ir_graph *g, struct om_io_desc *d, const struct ir_value *v,
		    uint32_t name, bool is_input)
{
	const char *fmt = g->opts && g->opts->input_format ? g->opts->input_format : "NCHW";
	bool nchw = v->rank == 4 && (!is_input || !strcmp(fmt, "NCHW"));
	uint64_t bytes = 0;
	int i;

	ir_nbytes(g, v, &bytes);
	d->name = htole32(name);
	d->data_type = htole32((uint32_t)npu_dtype_onnx_to_acl(v->dtype));
	d->format = htole32(nchw ? 0 : 2);	/* ACL_FORMAT_NCHW, ACL_FORMAT_ND */
	d->num_dims = htole32((uint32_t)v->rank);
	for (i = 0; i < v->rank; i++)
		d->dims[i] = htole64((uint64_t)v->dims[i]);
	d->size = htole64(bytes);
}

static uint64_t region_size(struct ir_graph *g, int region, uint64_t workspace, uint64_t weights)
{
	uint64_t bytes = 0;
	int io = region - OM_REGION_INPUT0;

	if (region == OM_REGION_WEIGHTS)
		return weights;
	if (region == OM_REGION_WORKSPACE)
		return workspace;
	if (io < g->num_inputs)
		ir_nbytes(g, g->inputs[io], &bytes);
	else
		ir_nbytes(g, g->outputs[io - g->num_inputs], &bytes);
	return bytes;
}

static int fill_tensor(struct ir_graph *g, const struct lo_op *op, int i,
		       struct npu_tensor_desc *t, uint8_t *region, uint64_t workspace,
		       uint64_t weights)
{
	const struct lo_tensor *lt = &op->t[i];
	const struct ir_value *v = lt->v, *root = v->alias ? v->alias : v;
	uint64_t stride = 1, extent = 0, esize = ir_dtype_size(v->dtype);
	bool blocked = root->format != NPU_FORMAT_STRIDED;
	bool empty = false;
	int d;

	if (v->region == IR_REGION_NONE || v->region > 255)
		return ir_node_error(g, op->node, NPUCC_E_INVALID_MODEL,
				     "internal: tensor '%s' has no memory", v->name);
	*region = (uint8_t)v->region;
	t->addr = htole64(v->offset);
	t->dtype = htole16((uint16_t)npu_dtype_onnx_to_card(v->dtype));
	t->format = htole16((uint16_t)root->format);
	t->ndims = htole16((uint16_t)lt->ndims);
	for (d = lt->ndims - 1; d >= 0; d--) {
		t->dims[d] = htole64((uint64_t)lt->dims[d]);
		t->strides[d] = blocked ? 0 : htole64(stride);
		extent += (uint64_t)(lt->dims[d] - 1) * stride;
		empty |= !lt->dims[d];
		stride *= (uint64_t)lt->dims[d];
	}
	extent = (extent + 1) * esize;
	if (root->format == NPU_FORMAT_PACKED)
		extent = esize * (uint64_t)NPU_PACKED_ELEMS(lt->dims[0], lt->dims[1],
							    lt->dims[2], lt->dims[3]);
	else if (blocked)
		extent = esize * (uint64_t)(root->format == NPU_FORMAT_OIHW16I16O ?
					    (lt->dims[0] + 15) / 16 * 16 : lt->dims[0]) *
			 (uint64_t)((lt->dims[1] + 15) / 16 * 16) *
			 (uint64_t)lt->dims[2] * (uint64_t)lt->dims[3];
	if (!empty && v->offset + extent > region_size(g, v->region, workspace, weights))
		return ir_node_error(g, op->node, NPUCC_E_INVALID_MODEL,
				     "internal: tensor '%s' overruns region %d", v->name, v->region);
	return 0;
}

static size_t record_size(const struct lo_op *op)
{
	size_t desc = sizeof(struct npu_op_desc) +
		      (size_t)(op->num_in + op->num_out) * sizeof(struct npu_tensor_desc);

	return ALIGN(offsetof(struct om_op_record, desc) + desc);
}

static int write_record(struct ir_graph *g, const struct lo_op *op, uint8_t *p,
			uint32_t name, uint64_t workspace, uint64_t weights)
{
	struct om_op_record *r = (struct om_op_record *)p;
	int i, nt = op->num_in + op->num_out;

	r->size = htole32((uint32_t)record_size(op));
	r->desc_size = htole32((uint32_t)(sizeof(struct npu_op_desc) +
					  (size_t)nt * sizeof(struct npu_tensor_desc)));
	r->name = htole32(name);
	r->desc.kind = htole16((uint16_t)op->kind);
	r->desc.num_inputs = (uint8_t)op->num_in;
	r->desc.num_outputs = (uint8_t)op->num_out;
	r->desc.attrs = op->attrs;
	for (i = 0; i < nt; i++)
		if (fill_tensor(g, op, i, &r->desc.tensors[i], &r->region[i], workspace, weights))
			return -1;
	return 0;
}

/* The bytes of the program's records, those run at load included. */
static uint64_t program_size(const struct lo_program *prog)
{
	uint64_t size = 0;
	int i;

	for (i = 0; i < prog->num_load + prog->num_ops; i++)
		size += record_size(&prog->ops[i]);
	return size;
}

/*
 * (O, I, KH, KW) float weights into OIHW16I16O: 16 x 16 blocks of output
 * by input channels, the output channel innermost.  Layout made O and I
 * multiples of 16, so there is no padding to fill.
 */
static void copy_oihw16i16o(const struct ir_value *v, float *dst)
{
	const float *src = v->data;
	int64_t o, i, h, w, oc = v->dims[0], ic = v->dims[1], kh = v->dims[2], kw = v->dims[3];

	for (o = 0; o < oc; o++)
		for (i = 0; i < ic; i++)
			for (h = 0; h < kh; h++)
				for (w = 0; w < kw; w++)
					dst[((((o / 16) * (ic / 16) + i / 16) * kh + h) * kw + w) * 256 +
					    (i % 16) * 16 + o % 16] = src[((o * ic + i) * kh + h) * kw + w];
}

static void copy_weights(struct ir_graph *g, uint8_t *dst)
{
	uint64_t bytes;
	int i;

	for (i = 0; i < g->num_values; i++) {
		const struct ir_value *v = g->values[i];

		if (v->region != OM_REGION_WEIGHTS || v->alias || !v->data)
			continue;
		if (v->format == NPU_FORMAT_OIHW16I16O)
			copy_oihw16i16o(v, (float *)(dst + v->offset));
		else if (!ir_nbytes(g, v, &bytes) && bytes)
			memcpy(dst + v->offset, v->data, bytes);
	}
}

static int build(struct ir_graph *g, const struct lo_op *ops, int num_load, int num_ops,
		 uint64_t program, uint64_t workspace, uint64_t weights, struct strtab *st,
		 uint8_t **out, size_t *out_size)
{
	int nio = g->num_inputs + g->num_outputs, i;
	uint64_t io_off = ALIGN(sizeof(struct om_header));
	uint64_t prog_off = ALIGN(io_off + (uint64_t)nio * sizeof(struct om_io_desc));
	uint64_t w_off = ALIGN(prog_off + program), s_off = ALIGN(w_off + weights);
	int64_t names[2 * OM_MAX_IO], op_names_first = 0;
	struct om_header *h;
	struct om_io_desc *io;
	uint8_t *file, *p;
	uint64_t size;

	for (i = 0; i < nio; i++)
		names[i] = str_add(st, i < g->num_inputs ? g->inputs[i]->name :
				   g->outputs[i - g->num_inputs]->name);
	op_names_first = (int64_t)st->len;
	num_ops += num_load;
	for (i = 0; i < num_ops; i++)
		if (str_add(st, ops[i].node->name) < 0)
			return ir_error(g, NPUCC_E_NOMEM, "out of memory");
	if (st->len > UINT32_MAX)
		return ir_error(g, NPUCC_E_LIMIT, "names take more than 4 GiB");
	size = s_off + ALIGN(st->len);
	file = calloc(1, size);
	if (!file)
		return ir_error(g, NPUCC_E_NOMEM, "out of memory (%llu bytes)", (unsigned long long)size);
	h = (struct om_header *)file;
	h->magic = htole32(OM_MAGIC);
	h->version_major = htole16(OM_VERSION_MAJOR);
	h->version_minor = htole16(OM_VERSION_MINOR);
	h->header_size = htole32(sizeof(*h));
	h->file_size = htole64(size);
	h->num_inputs = htole32((uint32_t)g->num_inputs);
	h->num_outputs = htole32((uint32_t)g->num_outputs);
	h->io_offset = htole64(io_off);
	h->num_ops = htole32((uint32_t)(num_ops - num_load));
	h->num_load_ops = htole32((uint32_t)num_load);
	h->program_offset = htole64(prog_off);
	h->program_size = htole64(program);
	h->weights_offset = htole64(w_off);
	h->weights_size = htole64(weights);
	h->workspace_size = htole64(workspace);
	h->strings_offset = htole64(s_off);
	h->strings_size = htole64(ALIGN(st->len));
	io = (struct om_io_desc *)(file + io_off);
	for (i = 0; i < nio; i++)
		io_desc(g, &io[i], i < g->num_inputs ? g->inputs[i] : g->outputs[i - g->num_inputs],
			(uint32_t)names[i], i < g->num_inputs);
	p = file + prog_off;
	for (i = 0; i < num_ops; i++) {
		if (write_record(g, &ops[i], p, (uint32_t)op_names_first, workspace, weights)) {
			free(file);
			return -1;
		}
		op_names_first += (int64_t)strlen(ops[i].node->name) + 1;
		p += record_size(&ops[i]);
	}
	copy_weights(g, file + w_off);
	memcpy(file + s_off, st->buf, st->len);
	*out = file;
	*out_size = size;
	return 0;
}

int pass_emit(struct ir_graph *g, const struct lo_program *prog, uint64_t workspace,
	      uint64_t weights, void **om, size_t *om_size)
{
	struct strtab st = { 0 };
	uint8_t *file = NULL;
	int ret;

	ret = build(g, prog->ops, prog->num_load, prog->num_ops, program_size(prog), workspace,
		    weights, &st, &file, om_size);
	free(st.buf);
	*om = file;
	return ret;
}
