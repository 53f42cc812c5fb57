// SPDX-License-Identifier: MIT
/*
 * Constant folding: evaluates on the host, at compile time, the nodes
 * whose inputs are all constants, above all the Shape, Gather, Cast,
 * Slice, Concat, Unsqueeze and Reshape chains that exporters emit to
 * compute shapes.  Shape and Size need only the input's shape, which is
 * static once --input_shape has fixed the inputs.  Each function here
 * runs after the node's shape function, so outputs already have dims.
 * Integers are computed as int64 and floats as double, then stored in the
 * output's type.
 */
#include <math.h>
#include <string.h>

#include "ir.h"
#include "ops.h"

/* Shape and Size fold from the input's shape alone. */
static bool fold_needs_data(const struct ir_node *n)
{
	return strcmp(n->op, "Shape") && strcmp(n->op, "Size");
}

static bool foldable(const struct ir_node *n, const struct op_def *def)
{
	int k;

	if (!def->fold)
		return false;
	if (!fold_needs_data(n))
		return true;
	for (k = 0; k < n->num_in; k++)
		if (n->in[k] && !n->in[k]->data)
			return false;
	return true;
}

int fold_node(struct ir_graph *g, struct ir_node *n, const struct op_def *def)
{
	int k;

	if (!foldable(n, def))
		return 0;
	if (def->fold(g, n))
		return -1;
	ir_log(g, NPUCC_LOG_DEBUG, "folded %s '%s'", n->op, n->name);
	for (k = 0; k < n->num_out; k++)
		if (n->out[k])
			n->out[k]->producer = NULL;
	n->dead = true;
	return 0;
}

static int alloc_outputs(struct ir_graph *g, struct ir_node *n)
{
	int k;

	for (k = 0; k < n->num_out; k++)
		if (n->out[k] && ir_alloc_data(g, n->out[k]))
			return -1;
	return 0;
}

int fold_constant(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_attr *a = &n->attrs[0];
	struct ir_value *y = n->out[0];
	int64_t i;

	if (!y)
		return 0;
	if (a->type == IR_ATTR_TENSOR) {
		ir_set_shape(y, a->t->dtype, a->t->rank, a->t->dims);
		y->data = a->t->data;
		return 0;
	}
	if (a->type == IR_ATTR_FLOAT || a->type == IR_ATTR_INT) {
		ir_set_shape(y, a->type == IR_ATTR_FLOAT ? IR_FLOAT : IR_INT64, 0, NULL);
		if (ir_alloc_data(g, y))
			return -1;
		if (a->type == IR_ATTR_FLOAT)
			ir_set_f64(y, 0, a->f);
		else
			ir_set_i64(y, 0, a->i);
		return 0;
	}
	if (a->type == IR_ATTR_FLOATS || a->type == IR_ATTR_INTS) {
		int64_t dims[1] = { (int64_t)a->n };

		ir_set_shape(y, a->type == IR_ATTR_FLOATS ? IR_FLOAT : IR_INT64, 1, dims);
		if (ir_alloc_data(g, y))
			return -1;
		for (i = 0; i < (int64_t)a->n; i++) {
			if (a->type == IR_ATTR_FLOATS)
				ir_set_f64(y, i, a->floats[i]);
			else
				ir_set_i64(y, i, a->ints[i]);
		}
		return 0;
	}
	return ir_node_error(g, n, NPUCC_E_UNSUPPORTED_ATTR, "attribute '%s'", a->name);
}

/* Reshape, Flatten, Squeeze, Unsqueeze, Identity, Dropout: the same bytes. */
int fold_view(struct ir_graph *g, struct ir_node *n)
{
	int k;

	n->out[0]->data = n->in[0]->data;
	for (k = 1; k < n->num_out; k++) {
		if (!n->out[k])
			continue;
		if (ir_alloc_data(g, n->out[k]))
			return -1;
		memset(n->out[k]->data, 1, ir_numel(n->out[k]));	/* Dropout's mask */
	}
	return 0;
}

int fold_shape(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = n->in[0];
	int64_t start = ir_attr_int(n, "start", 0), i;

	if (start < 0)
		start += x->rank;
	if (start < 0)
		start = 0;
	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < n->out[0]->dims[0]; i++)
		ir_set_i64(n->out[0], i, x->dims[start + i]);
	return 0;
}

int fold_size(struct ir_graph *g, struct ir_node *n)
{
	if (alloc_outputs(g, n))
		return -1;
	ir_set_i64(n->out[0], 0, ir_numel(n->in[0]));
	return 0;
}

static void copy_elem(struct ir_value *y, int64_t yi, const struct ir_value *x, int64_t xi)
{
	size_t es = ir_dtype_size(x->dtype);

	memcpy((char *)y->data + yi * es, (const char *)x->data + xi * es, es);
}

int fold_gather(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = n->in[0], *idx = n->in[1];
	int64_t outer = 1, inner = 1, dim, ni = ir_numel(idx), o, i, k;
	int axis, d;

	if (norm_axis(g, n, ir_attr_int(n, "axis", 0), x->rank, &axis) || alloc_outputs(g, n))
		return -1;
	for (d = 0; d < axis; d++)
		outer *= x->dims[d];
	for (d = axis + 1; d < x->rank; d++)
		inner *= x->dims[d];
	dim = x->dims[axis];
	for (o = 0; o < outer; o++) {
		for (i = 0; i < ni; i++) {
			int64_t j = ir_get_i64(idx, i);

			if (j < 0)
				j += dim;
			if (j < 0 || j >= dim)
				return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
						     "index %lld is out of range", (long long)j);
			for (k = 0; k < inner; k++)
				copy_elem(n->out[0], (o * ni + i) * inner + k, x,
					  (o * dim + j) * inner + k);
		}
	}
	return 0;
}

int fold_cast(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = n->in[0];
	struct ir_value *y = n->out[0];
	int64_t i, num = ir_numel(x);

	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < num; i++) {
		if (ir_dtype_is_float(x->dtype))
			ir_set_f64(y, i, ir_get_f64(x, i));
		else
			ir_set_i64(y, i, ir_get_i64(x, i));
	}
	return 0;
}

/* Row-major index helpers over up to IR_MAX_DIMS axes. */
static void unravel(int64_t i, int rank, const int64_t *dims, int64_t *idx)
{
	int d;

	for (d = rank - 1; d >= 0; d--) {
		idx[d] = dims[d] ? i % dims[d] : 0;
		i = dims[d] ? i / dims[d] : 0;
	}
}

/* The element of @v (broadcast to @rank dims) at the output index @idx. */
static int64_t bcast_offset(const struct ir_value *v, int rank, const int64_t *idx)
{
	int64_t off = 0;
	int d, lead = rank - v->rank;

	for (d = 0; d < v->rank; d++)
		off = off * v->dims[d] + (v->dims[d] == 1 ? 0 : idx[d + lead]);
	return off;
}

int fold_slice(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = n->in[0];
	struct ir_value *y = n->out[0];
	int64_t starts[IR_MAX_DIMS], steps[IR_MAX_DIMS], dims[IR_MAX_DIMS], idx[IR_MAX_DIMS];
	int64_t i, num;
	int d;

	if (slice_params(g, n, starts, steps, dims) || alloc_outputs(g, n))
		return -1;
	num = ir_numel(y);
	for (i = 0; i < num; i++) {
		int64_t off = 0;

		unravel(i, y->rank, y->dims, idx);
		for (d = 0; d < x->rank; d++)
			off = off * x->dims[d] + starts[d] + idx[d] * steps[d];
		copy_elem(y, i, x, off);
	}
	return 0;
}

int fold_concat(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *y = n->out[0];
	int64_t outer = 1, inner = 1, o, pos = 0;
	size_t es = ir_dtype_size(y->dtype);
	int axis, d, k;

	if (norm_axis(g, n, ir_attr_int(n, "axis", 0), y->rank, &axis) || alloc_outputs(g, n))
		return -1;
	for (d = 0; d < axis; d++)
		outer *= y->dims[d];
	for (d = axis + 1; d < y->rank; d++)
		inner *= y->dims[d];
	for (o = 0; o < outer; o++) {
		for (k = 0; k < n->num_in; k++) {
			const struct ir_value *x = n->in[k];
			size_t chunk = (size_t)(x->dims[axis] * inner) * es;

			if (chunk)
				memcpy((char *)y->data + pos, (const char *)x->data + o * chunk, chunk);
			pos += chunk;
		}
	}
	return 0;
}

int fold_transpose(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = n->in[0];
	struct ir_value *y = n->out[0];
	int64_t idx[IR_MAX_DIMS], i, num = ir_numel(y);
	size_t np;
	const int64_t *perm = ir_attr_ints(n, "perm", &np);
	int d;

	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < num; i++) {
		int64_t xi[IR_MAX_DIMS], off = 0;

		unravel(i, y->rank, y->dims, idx);
		for (d = 0; d < y->rank; d++)
			xi[perm ? perm[d] : y->rank - 1 - d] = idx[d];
		for (d = 0; d < x->rank; d++)
			off = off * x->dims[d] + xi[d];
		copy_elem(y, i, x, off);
	}
	return 0;
}

static double unary_f(const char *op, double x, const struct ir_node *n)
{
	if (!strcmp(op, "Neg")) return -x;
	if (!strcmp(op, "Abs")) return fabs(x);
	if (!strcmp(op, "Sqrt")) return sqrt(x);
	if (!strcmp(op, "Exp")) return exp(x);
	if (!strcmp(op, "Log")) return log(x);
	if (!strcmp(op, "Relu")) return x > 0 ? x : 0;
	if (!strcmp(op, "Floor")) return floor(x);
	if (!strcmp(op, "Ceil")) return ceil(x);
	if (!strcmp(op, "Round")) return nearbyint(x);
	if (!strcmp(op, "Reciprocal")) return 1 / x;
	if (!strcmp(op, "Sigmoid")) return 1 / (1 + exp(-x));
	if (!strcmp(op, "Tanh")) return tanh(x);
	if (!strcmp(op, "Erf")) return erf(x);
	if (!strcmp(op, "Not")) return x == 0;
	if (!strcmp(op, "Sign")) return (x > 0) - (x < 0);
	if (!strcmp(op, "Softplus")) return log1p(exp(x));
	if (!strcmp(op, "LeakyRelu")) return x >= 0 ? x : x * ir_attr_float(n, "alpha", 0.01f);
	if (!strcmp(op, "Elu")) return x >= 0 ? x : ir_attr_float(n, "alpha", 1.0f) * expm1(x);
	if (!strcmp(op, "HardSigmoid")) {
		double y = ir_attr_float(n, "alpha", 0.2f) * x + ir_attr_float(n, "beta", 0.5f);

		return fmax(0, fmin(1, y));
	}
	if (!strcmp(op, "HardSwish")) return x * fmax(0, fmin(1, x / 6 + 0.5));
	return x;	/* Identity-like: Cast handles types elsewhere */
}

static int64_t unary_i(const char *op, int64_t x)
{
	if (!strcmp(op, "Neg")) return -x;
	if (!strcmp(op, "Abs")) return x < 0 ? -x : x;
	if (!strcmp(op, "Relu")) return x > 0 ? x : 0;
	if (!strcmp(op, "Not")) return !x;
	if (!strcmp(op, "Sign")) return (x > 0) - (x < 0);
	return x;
}

int fold_unary(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = n->in[0];
	struct ir_value *y = n->out[0];
	int64_t i, num = ir_numel(y);

	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < num; i++) {
		if (ir_dtype_is_float(x->dtype))
			ir_set_f64(y, i, unary_f(n->op, ir_get_f64(x, i), n));
		else
			ir_set_i64(y, i, unary_i(n->op, ir_get_i64(x, i)));
	}
	return 0;
}

static double binary_f(const char *op, double a, double b)
{
	if (!strcmp(op, "Add") || !strcmp(op, "Sum")) return a + b;
	if (!strcmp(op, "Sub")) return a - b;
	if (!strcmp(op, "Mul")) return a * b;
	if (!strcmp(op, "Div")) return a / b;
	if (!strcmp(op, "Pow")) return pow(a, b);
	if (!strcmp(op, "Min")) return fmin(a, b);
	if (!strcmp(op, "Max")) return fmax(a, b);
	if (!strcmp(op, "Equal")) return a == b;
	if (!strcmp(op, "Less")) return a < b;
	if (!strcmp(op, "LessOrEqual")) return a <= b;
	if (!strcmp(op, "Greater")) return a > b;
	if (!strcmp(op, "GreaterOrEqual")) return a >= b;
	if (!strcmp(op, "And")) return a != 0 && b != 0;
	if (!strcmp(op, "Or")) return a != 0 || b != 0;
	if (!strcmp(op, "Xor")) return (a != 0) != (b != 0);
	if (!strcmp(op, "Mod")) return fmod(a, b);
	return NAN;
}

static int binary_i(const char *op, int64_t a, int64_t b, int64_t *r)
{
	if (!strcmp(op, "Add") || !strcmp(op, "Sum")) *r = (int64_t)((uint64_t)a + (uint64_t)b);
	else if (!strcmp(op, "Sub")) *r = (int64_t)((uint64_t)a - (uint64_t)b);
	else if (!strcmp(op, "Mul")) *r = (int64_t)((uint64_t)a * (uint64_t)b);
	else if (!strcmp(op, "Div") || !strcmp(op, "Mod")) {
		if (!b || (a == INT64_MIN && b == -1))
			return -1;
		*r = !strcmp(op, "Div") ? a / b : a % b;
		if (!strcmp(op, "Mod") && *r && ((*r < 0) != (b < 0)))
			*r += b;	/* fmod=0: the sign of the divisor */
	} else if (!strcmp(op, "Min")) *r = a < b ? a : b;
	else if (!strcmp(op, "Max")) *r = a > b ? a : b;
	else if (!strcmp(op, "Equal")) *r = a == b;
	else if (!strcmp(op, "Less")) *r = a < b;
	else if (!strcmp(op, "LessOrEqual")) *r = a <= b;
	else if (!strcmp(op, "Greater")) *r = a > b;
	else if (!strcmp(op, "GreaterOrEqual")) *r = a >= b;
	else if (!strcmp(op, "And")) *r = a && b;
	else if (!strcmp(op, "Or")) *r = a || b;
	else if (!strcmp(op, "Xor")) *r = !a != !b;
	else if (!strcmp(op, "Pow")) *r = (int64_t)pow((double)a, (double)b);
	else return -1;
	return 0;
}

/* Binary and variadic elementwise ops, folded left to right. */
int fold_binary(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *y = n->out[0];
	int64_t idx[IR_MAX_DIMS], i, num = ir_numel(y);
	bool is_float = ir_dtype_is_float(n->in[0]->dtype);
	int k;

	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < num; i++) {
		const struct ir_value *a = n->in[0];
		double fa;
		int64_t ia;

		unravel(i, y->rank, y->dims, idx);
		fa = is_float ? ir_get_f64(a, bcast_offset(a, y->rank, idx)) : 0;
		ia = is_float ? 0 : ir_get_i64(a, bcast_offset(a, y->rank, idx));
		for (k = 1; k < n->num_in; k++) {
			const struct ir_value *b = n->in[k];
			int64_t off = bcast_offset(b, y->rank, idx);

			if (is_float) {
				fa = binary_f(n->op, fa, ir_get_f64(b, off));
			} else if (binary_i(n->op, ia, ir_get_i64(b, off), &ia)) {
				return ir_node_error(g, n, NPUCC_E_INVALID_MODEL,
						     "integer division by zero");
			}
		}
		if (!ir_dtype_is_float(y->dtype) && is_float)
			ir_set_i64(y, i, fa != 0 && !isnan(fa));	/* comparisons: bool */
		else if (is_float)
			ir_set_f64(y, i, fa);
		else
			ir_set_i64(y, i, ia);
	}
	return 0;
}

int fold_where(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *y = n->out[0];
	int64_t idx[IR_MAX_DIMS], i, num = ir_numel(y);

	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < num; i++) {
		const struct ir_value *src;

		unravel(i, y->rank, y->dims, idx);
		src = ir_get_i64(n->in[0], bcast_offset(n->in[0], y->rank, idx)) ? n->in[1] : n->in[2];
		copy_elem(y, i, src, bcast_offset(src, y->rank, idx));
	}
	return 0;
}

int fold_constant_of_shape(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_attr *a = ir_attr_find(n, "value");
	struct ir_value *y = n->out[0];
	int64_t i, num = ir_numel(y);

	if (alloc_outputs(g, n))
		return -1;
	if (!a || !a->t)
		return 0;	/* zeros */
	if (ir_numel(a->t) != 1)
		return ir_node_error(g, n, NPUCC_E_INVALID_MODEL, "value must have one element");
	for (i = 0; i < num; i++)
		copy_elem(y, i, a->t, 0);
	return 0;
}

int fold_range(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *y = n->out[0];
	int64_t i, num = ir_numel(y);

	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < num; i++) {
		if (ir_dtype_is_float(y->dtype))
			ir_set_f64(y, i, ir_get_f64(n->in[0], 0) + (double)i * ir_get_f64(n->in[2], 0));
		else
			ir_set_i64(y, i, ir_get_i64(n->in[0], 0) + i * ir_get_i64(n->in[2], 0));
	}
	return 0;
}

int fold_expand(struct ir_graph *g, struct ir_node *n)
{
	struct ir_value *y = n->out[0];
	int64_t idx[IR_MAX_DIMS], i, num = ir_numel(y);

	if (alloc_outputs(g, n))
		return -1;
	for (i = 0; i < num; i++) {
		unravel(i, y->rank, y->dims, idx);
		copy_elem(y, i, n->in[0], bcast_offset(n->in[0], y->rank, idx));
	}
	return 0;
}

/* ReduceSum, ReduceProd, ReduceMin, ReduceMax, ReduceMean of constants. */
int fold_reduce(struct ir_graph *g, struct ir_node *n)
{
	const struct ir_value *x = n->in[0];
	struct ir_value *y = n->out[0];
	int64_t idx[IR_MAX_DIMS], i, num = ir_numel(x), ynum = ir_numel(y), count;
	double *acc;
	unsigned mask;
	bool keep;
	int d;

	if (reduce_params(g, n, &mask, &keep) || alloc_outputs(g, n))
		return -1;
	acc = ir_alloc(g, sizeof(double) * (size_t)(ynum ? ynum : 1));
	if (!acc)
		return -1;
	count = ynum ? num / ynum : 0;
	for (i = 0; i < ynum; i++)
		acc[i] = !strcmp(n->op, "ReduceProd") ? 1 : !strcmp(n->op, "ReduceMax") ? -INFINITY :
			 !strcmp(n->op, "ReduceMin") ? INFINITY : 0;
	for (i = 0; i < num; i++) {
		int64_t yi = 0;
		double v = ir_get_f64(x, i);

		unravel(i, x->rank, x->dims, idx);
		for (d = 0; d < x->rank; d++)
			if (!(mask & (1u << d)))
				yi = yi * x->dims[d] + idx[d];
		if (!strcmp(n->op, "ReduceProd"))
			acc[yi] *= v;
		else if (!strcmp(n->op, "ReduceMax"))
			acc[yi] = fmax(acc[yi], v);
		else if (!strcmp(n->op, "ReduceMin"))
			acc[yi] = fmin(acc[yi], v);
		else
			acc[yi] += v;
	}
	for (i = 0; i < ynum; i++)
		ir_set_f64(y, i, !strcmp(n->op, "ReduceMean") && count ? acc[i] / (double)count : acc[i]);
	return 0;
}
