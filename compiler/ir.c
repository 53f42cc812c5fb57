// SPDX-License-Identifier: MIT
/*
 * The graph IR's bookkeeping: values, nodes, names, attributes, errors.
 * Everything the IR allocates is freed with the graph.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "npu_operator.h"

/* Every allocation is chained to the graph, so errors need no unwinding. */
struct ir_chunk {
	struct ir_chunk *next;
	max_align_t data[];
};

struct ir_graph_priv {
	struct ir_graph g;
	struct ir_chunk *chunks;
};

static struct ir_graph_priv *priv(struct ir_graph *g)
{
	return (struct ir_graph_priv *)g;
}

void *ir_alloc(struct ir_graph *g, size_t size)
{
	struct ir_chunk *c;

	if (size > SIZE_MAX - sizeof(*c))
		return NULL;
	c = calloc(1, sizeof(*c) + size);
	if (!c) {
		ir_error(g, NPUCC_E_NOMEM, "out of memory (%zu bytes)", size);
		return NULL;
	}
	c->next = priv(g)->chunks;
	priv(g)->chunks = c;
	return c->data;
}

char *ir_strdup(struct ir_graph *g, const char *s)
{
	size_t len = strlen(s ? s : "");
	char *d = ir_alloc(g, len + 1);

	if (d)
		memcpy(d, s ? s : "", len);
	return d;
}

struct ir_graph *ir_graph_new(const struct npucc_options *opts)
{
	struct ir_graph_priv *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->g.opts = opts;
	return &p->g;
}

void ir_graph_free(struct ir_graph *g)
{
	struct ir_chunk *c, *next;

	if (!g)
		return;
	for (c = priv(g)->chunks; c; c = next) {
		next = c->next;
		free(c);
	}
	free(g->nodes);
	free(g->values);
	free(g->by_name);
	free(priv(g));
}

static int grow(struct ir_graph *g, void **arr, int *cap, int need, size_t elem)
{
	int ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return ir_error(g, NPUCC_E_NOMEM, "out of memory");
	*arr = p;
	*cap = ncap;
	return 0;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
	return h;
}

static int by_name_insert(struct ir_graph *g, struct ir_value *v)
{
	size_t i, cap = g->by_name_cap;

	if ((size_t)g->num_values * 2 >= cap) {
		struct ir_value **old = g->by_name;
		size_t ncap = cap ? cap * 2 : 256;

		g->by_name = calloc(ncap, sizeof(*g->by_name));
		if (!g->by_name) {
			g->by_name = old;
			return ir_error(g, NPUCC_E_NOMEM, "out of memory");
		}
		g->by_name_cap = ncap;
		for (i = 0; i < cap; i++)
			if (old[i])
				by_name_insert(g, old[i]);
		free(old);
		cap = ncap;
	}
	for (i = name_hash(v->name) & (cap - 1); g->by_name[i]; i = (i + 1) & (cap - 1))
		;
	g->by_name[i] = v;
	return 0;
}

struct ir_value *ir_value_find(struct ir_graph *g, const char *name)
{
	size_t i, cap = g->by_name_cap;

	if (!cap)
		return NULL;
	for (i = name_hash(name) & (cap - 1); g->by_name[i]; i = (i + 1) & (cap - 1))
		if (!strcmp(g->by_name[i]->name, name))
			return g->by_name[i];
	return NULL;
}

/* The value named name becomes the graph's next output; both importers' check. */
int ir_graph_add_output(struct ir_graph *g, const char *name)
{
	struct ir_value *v = ir_value_find(g, name);

	if (!v)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "graph output '%s' is not defined", name);
	if (v->output_index >= 0)
		return ir_error(g, NPUCC_E_UNSUPPORTED_ATTR, "graph output '%s' is listed twice",
				name);
	v->output_index = g->num_outputs;
	g->outputs[g->num_outputs++] = v;
	return 0;
}

/* A new value; a NULL name makes a unique one. */
struct ir_value *ir_value_new(struct ir_graph *g, const char *name)
{
	struct ir_value *v;
	char gen[64];

	if (!name) {
		snprintf(gen, sizeof(gen), "npucc_%lu", ++g->serial);
		name = gen;
	}
	if (grow(g, (void **)&g->values, &g->cap_values, g->num_values + 1, sizeof(v)))
		return NULL;
	v = ir_alloc(g, sizeof(*v));
	if (!v)
		return NULL;
	v->name = ir_strdup(g, name);
	if (!v->name)
		return NULL;
	v->rank = -1;
	v->input_index = -1;
	v->output_index = -1;
	v->region = IR_REGION_NONE;
	g->values[g->num_values++] = v;
	if (by_name_insert(g, v))
		return NULL;
	return v;
}

void ir_set_shape(struct ir_value *v, int dtype, int rank, const int64_t *dims)
{
	int d;

	v->dtype = dtype;
	v->rank = rank;
	for (d = 0; d < IR_MAX_DIMS; d++)
		v->dims[d] = d < rank ? dims[d] : 0;
}

/* A constant of the given shape, its elements zeroed. */
struct ir_value *ir_const_new(struct ir_graph *g, const char *hint, int dtype,
			      int rank, const int64_t *dims)
{
	char name[96];
	struct ir_value *v;

	snprintf(name, sizeof(name), "%.60s_npucc%lu", hint ? hint : "const", ++g->serial);
	v = ir_value_new(g, name);
	if (!v)
		return NULL;
	ir_set_shape(v, dtype, rank, dims);
	if (ir_alloc_data(g, v))
		return NULL;
	return v;
}

int ir_alloc_data(struct ir_graph *g, struct ir_value *v)
{
	uint64_t bytes;

	if (ir_nbytes(g, v, &bytes))
		return -1;
	v->data = ir_alloc(g, bytes ? bytes : 1);
	return v->data ? 0 : -1;
}

struct ir_node *ir_node_new(struct ir_graph *g, const char *name, const char *op,
			    int num_in, int num_out)
{
	struct ir_node *n;
	char gen[64];

	if (grow(g, (void **)&g->nodes, &g->cap_nodes, g->num_nodes + 1, sizeof(n)))
		return NULL;
	n = ir_alloc(g, sizeof(*n));
	if (!n)
		return NULL;
	if (!name || !*name) {
		snprintf(gen, sizeof(gen), "%.40s_%d", op, g->num_nodes);
		name = gen;
	}
	n->name = ir_strdup(g, name);
	n->op = ir_strdup(g, op);
	n->in = ir_alloc(g, sizeof(*n->in) * (num_in + 1));
	n->out = ir_alloc(g, sizeof(*n->out) * (num_out + 1));
	if (!n->name || !n->op || !n->in || !n->out)
		return NULL;
	n->num_in = num_in;
	n->num_out = num_out;
	n->index = g->num_nodes;
	g->nodes[g->num_nodes++] = n;
	return n;
}

/* Moves @n, just created at the end, to right after @after. */
int ir_node_insert_after(struct ir_graph *g, struct ir_node *n, struct ir_node *after)
{
	int i, pos = after ? after->index + 1 : 0;

	if (g->nodes[g->num_nodes - 1] != n)
		return ir_error(g, NPUCC_E_INVALID_MODEL, "internal: node inserted twice");
	memmove(&g->nodes[pos + 1], &g->nodes[pos],
		sizeof(*g->nodes) * (size_t)(g->num_nodes - 1 - pos));
	g->nodes[pos] = n;
	for (i = pos; i < g->num_nodes; i++)
		g->nodes[i]->index = i;
	return 0;
}

void ir_compact(struct ir_graph *g)
{
	int i, j = 0;

	for (i = 0; i < g->num_nodes; i++) {
		if (g->nodes[i]->dead)
			continue;
		g->nodes[j] = g->nodes[i];
		g->nodes[j]->index = j;
		j++;
	}
	g->num_nodes = j;
}

void ir_count_uses(struct ir_graph *g)
{
	int i, k;

	for (i = 0; i < g->num_values; i++)
		g->values[i]->num_uses = 0;
	for (i = 0; i < g->num_nodes; i++) {
		struct ir_node *n = g->nodes[i];

		if (n->dead)
			continue;
		for (k = 0; k < n->num_in; k++)
			if (n->in[k])
				n->in[k]->num_uses++;
	}
}

/* Drops nodes none of whose outputs is used or a graph output. */
int ir_remove_dead(struct ir_graph *g)
{
	int i, k, removed = 0;

	ir_count_uses(g);
	for (i = g->num_nodes - 1; i >= 0; i--) {
		struct ir_node *n = g->nodes[i];
		bool live = false;

		if (n->dead)
			continue;
		for (k = 0; k < n->num_out; k++)
			if (n->out[k] && (n->out[k]->num_uses || n->out[k]->output_index >= 0))
				live = true;
		if (live)
			continue;
		n->dead = true;
		removed++;
		for (k = 0; k < n->num_in; k++)
			if (n->in[k])
				n->in[k]->num_uses--;
	}
	ir_compact(g);
	return removed;
}

void ir_replace_uses(struct ir_graph *g, struct ir_value *from, struct ir_value *to)
{
	int i, k;

	for (i = 0; i < g->num_nodes; i++)
		for (k = 0; k < g->nodes[i]->num_in; k++)
			if (g->nodes[i]->in[k] == from)
				g->nodes[i]->in[k] = to;
}

/* 0 for the types libnpucc holds no tensors of: strings, and complex numbers. */
size_t ir_dtype_size(int dtype)
{
	if (dtype == IR_COMPLEX64 || dtype == IR_COMPLEX128)
		return 0;
	return npu_dtype_onnx_size(dtype);
}

const char *ir_dtype_name(int dtype)
{
	const struct npu_dtype_info *t = npu_dtype_by_onnx(dtype);

	if (dtype == IR_UNDEFINED)
		return "undefined";
	return t ? t->name : "unknown";
}

bool ir_dtype_is_float(int dtype)
{
	return dtype == IR_FLOAT || dtype == IR_DOUBLE || dtype == IR_FLOAT16 ||
	       dtype == IR_BFLOAT16;
}

bool ir_shape_known(const struct ir_value *v)
{
	int d;

	if (v->rank < 0)
		return false;
	for (d = 0; d < v->rank; d++)
		if (v->dims[d] < 0)
			return false;
	return true;
}

int64_t ir_numel(const struct ir_value *v)
{
	int64_t n = 1;
	int d;

	for (d = 0; d < v->rank; d++)
		n *= v->dims[d];
	return n;
}

/* The value's bytes, failing on unknown shapes and on overflow. */
int ir_nbytes(struct ir_graph *g, const struct ir_value *v, uint64_t *bytes)
{
	uint64_t n = ir_dtype_size(v->dtype);
	int d;

	if (!n)
		return ir_error(g, NPUCC_E_UNSUPPORTED_DTYPE, "tensor '%s' has data type %s",
				v->name, ir_dtype_name(v->dtype));
	if (!ir_shape_known(v))
		return ir_error(g, NPUCC_E_DYNAMIC_SHAPE, "tensor '%s' has no known shape",
				v->name);
	for (d = 0; d < v->rank; d++) {
		if (v->dims[d] && n > (UINT64_C(1) << 40) / (uint64_t)v->dims[d])
			return ir_error(g, NPUCC_E_LIMIT, "tensor '%s' is larger than 1 TiB",
					v->name);
		n *= (uint64_t)v->dims[d];
	}
	*bytes = n;
	return 0;
}

static float half_to_float(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
	uint32_t bits;
	float f;

	if (exp == 0x1f) {
		bits = sign | 0x7f800000 | (man << 13);
	} else if (exp) {
		bits = sign | ((exp + 112) << 23) | (man << 13);
	} else if (man) {
		f = ldexpf((float)man, -24);
		return sign ? -f : f;
	} else {
		bits = sign;
	}
	memcpy(&f, &bits, 4);
	return f;
}

static uint16_t float_to_half(float f)
{
	uint32_t bits, sign, man;
	int exp;

	memcpy(&bits, &f, 4);
	sign = (bits >> 16) & 0x8000;
	exp = (int)((bits >> 23) & 0xff) - 127 + 15;
	man = bits & 0x7fffff;
	if (((bits >> 23) & 0xff) == 0xff)
		return sign | 0x7c00 | (man ? 0x200 : 0);
	if (exp >= 0x1f)
		return sign | 0x7c00;
	if (exp <= 0) {
		if (exp < -10)
			return sign;
		man |= 0x800000;
		return sign | (uint16_t)((man >> (14 - exp)) + ((man >> (13 - exp)) & 1));
	}
	return sign | (uint16_t)(((uint32_t)exp << 10) + (man >> 13) + ((man >> 12) & 1));
}

double ir_get_f64(const struct ir_value *v, int64_t i)
{
	const void *p = v->data;
	uint32_t b32;
	float f;

	switch (v->dtype) {
	case IR_FLOAT: return ((const float *)p)[i];
	case IR_DOUBLE: return ((const double *)p)[i];
	case IR_FLOAT16: return half_to_float(((const uint16_t *)p)[i]);
	case IR_BFLOAT16:
		b32 = (uint32_t)((const uint16_t *)p)[i] << 16;
		memcpy(&f, &b32, 4);
		return f;
	case IR_UINT64: return (double)((const uint64_t *)p)[i];
	default: return (double)ir_get_i64(v, i);
	}
}

int64_t ir_get_i64(const struct ir_value *v, int64_t i)
{
	const void *p = v->data;

	switch (v->dtype) {
	case IR_UINT8: case IR_BOOL: return ((const uint8_t *)p)[i];
	case IR_INT8: return ((const int8_t *)p)[i];
	case IR_UINT16: return ((const uint16_t *)p)[i];
	case IR_INT16: return ((const int16_t *)p)[i];
	case IR_INT32: return ((const int32_t *)p)[i];
	case IR_UINT32: return ((const uint32_t *)p)[i];
	case IR_INT64: return ((const int64_t *)p)[i];
	case IR_UINT64: return (int64_t)((const uint64_t *)p)[i];
	default: {
		double d = ir_get_f64(v, i);

		if (isnan(d))
			return 0;
		if (d >= 9.2e18)
			return INT64_MAX;
		if (d <= -9.2e18)
			return INT64_MIN;
		return (int64_t)d;
	}
	}
}

void ir_set_f64(struct ir_value *v, int64_t i, double x)
{
	void *p = v->data;
	float f = (float)x;
	uint32_t b32;

	switch (v->dtype) {
	case IR_FLOAT: ((float *)p)[i] = f; break;
	case IR_DOUBLE: ((double *)p)[i] = x; break;
	case IR_FLOAT16: ((uint16_t *)p)[i] = float_to_half(f); break;
	case IR_BFLOAT16:
		memcpy(&b32, &f, 4);
		((uint16_t *)p)[i] = (uint16_t)((b32 + 0x7fff + ((b32 >> 16) & 1)) >> 16);
		break;
	case IR_BOOL: ((uint8_t *)p)[i] = x != 0; break;
	default:
		if (isnan(x))
			x = 0;
		ir_set_i64(v, i, x >= 9.2e18 ? INT64_MAX : x <= -9.2e18 ? INT64_MIN : (int64_t)x);
	}
}

void ir_set_i64(struct ir_value *v, int64_t i, int64_t x)
{
	void *p = v->data;

	switch (v->dtype) {
	case IR_UINT8: ((uint8_t *)p)[i] = (uint8_t)x; break;
	case IR_BOOL: ((uint8_t *)p)[i] = x != 0; break;
	case IR_INT8: ((int8_t *)p)[i] = (int8_t)x; break;
	case IR_UINT16: ((uint16_t *)p)[i] = (uint16_t)x; break;
	case IR_INT16: ((int16_t *)p)[i] = (int16_t)x; break;
	case IR_INT32: ((int32_t *)p)[i] = (int32_t)x; break;
	case IR_UINT32: ((uint32_t *)p)[i] = (uint32_t)x; break;
	case IR_INT64: ((int64_t *)p)[i] = x; break;
	case IR_UINT64: ((uint64_t *)p)[i] = (uint64_t)x; break;
	default: ir_set_f64(v, i, (double)x);
	}
}

const struct ir_attr *ir_attr_find(const struct ir_node *n, const char *name)
{
	int i;

	for (i = 0; i < n->num_attrs; i++)
		if (!strcmp(n->attrs[i].name, name))
			return &n->attrs[i];
	return NULL;
}

int64_t ir_attr_int(const struct ir_node *n, const char *name, int64_t dflt)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	return a && a->type == IR_ATTR_INT ? a->i : dflt;
}

float ir_attr_float(const struct ir_node *n, const char *name, float dflt)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	if (a && a->type == IR_ATTR_FLOAT)
		return a->f;
	if (a && a->type == IR_ATTR_INT)
		return (float)a->i;
	return dflt;
}

const char *ir_attr_str(const struct ir_node *n, const char *name, const char *dflt)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	return a && a->type == IR_ATTR_STRING ? a->s : dflt;
}

const int64_t *ir_attr_ints(const struct ir_node *n, const char *name, size_t *count)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	if (!a || a->type != IR_ATTR_INTS) {
		*count = 0;
		return NULL;
	}
	*count = a->n;
	return a->ints;
}

const float *ir_attr_floats(const struct ir_node *n, const char *name, size_t *count)
{
	const struct ir_attr *a = ir_attr_find(n, name);

	if (!a || a->type != IR_ATTR_FLOATS) {
		*count = 0;
		return NULL;
	}
	*count = a->n;
	return a->floats;
}

static int verror(struct ir_graph *g, int code, const char *prefix, const char *fmt, va_list ap)
{
	size_t len;

	if (g->err_code)
		return -1;
	g->err_code = code;
	snprintf(g->err, sizeof(g->err), "%s", prefix);
	len = strlen(g->err);
	vsnprintf(g->err + len, sizeof(g->err) - len, fmt, ap);
	return -1;
}

int ir_error(struct ir_graph *g, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(g, code, "", fmt, ap);
	va_end(ap);
	return -1;
}

int ir_node_error(struct ir_graph *g, const struct ir_node *n, int code, const char *fmt, ...)
{
	char prefix[200];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "node '%.120s' (%.40s): ", n->name, n->op);
	va_start(ap, fmt);
	verror(g, code, prefix, fmt, ap);
	va_end(ap);
	return -1;
}

void ir_log(struct ir_graph *g, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!g->opts || !g->opts->log || level < g->opts->log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	g->opts->log(g->opts->log_arg, level, msg);
}
