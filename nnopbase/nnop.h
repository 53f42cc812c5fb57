/* SPDX-License-Identifier: MIT */
/*
 * nnop: what libnnopbase gives libopapi, and nothing an application sees.
 *
 * An aclnn operator is two calls.  aclnnXxxGetWorkspaceSize() checks its
 * arguments and turns the operator into a program of card operators (each
 * one npu_op_desc, uapi/npu_operator.h) kept in an executor, with the
 * workspace those need; aclnnXxx() gives the program its addresses and
 * queues it on a stream.  So an operator of libopapi is only a check and
 * a translation: it names the executor's tensors, asks for workspace,
 * appends card operators over views of those, and finishes the executor.
 *
 * A view is what the card sees of a tensor: dims and strides in elements
 * and a byte offset from a base that is known only at launch, either an
 * executor tensor's (its data pointer plus its view offset, rebindable
 * with aclSetInputTensorAddr and friends) or the workspace's.  Strides of
 * 0 broadcast an input; an output's elements never share an address.
 *
 * Errors: every function that fails has recorded a message for
 * aclGetRecentErrMsg() (nnop_fail) and returns the ACLNN_ERR_* code an
 * operator returns as it is.
 */
#ifndef NNOP_H
#define NNOP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "acl/acl.h"
#include "aclnn/acl_meta.h"
#include "aclnn/opdev/op_errno.h"
#include "npu_operator.h"

#define NNOP_EXPORT		__attribute__((visibility("default")))

#define NNOP_MAX_DIMS		NPU_TENSOR_MAX_DIMS
/* Workspace pieces start on this boundary. */
#define NNOP_WORK_ALIGN		64

/* ---- messages ------------------------------------------------------- */

/*
 * Records "func: message" for aclGetRecentErrMsg() and logs it; returns
 * code.  Use through NNOP_FAIL().
 */
aclnnStatus nnop_fail(const char *func, aclnnStatus code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
#define NNOP_FAIL(code, ...)	nnop_fail(__func__, code, __VA_ARGS__)

/* ACLNN_ERR_PARAM_NULLPTR with "<name> is NULL" when p is NULL. */
#define NNOP_CHECK_NOTNULL(p)							\
	do {									\
		if (!(p))							\
			return NNOP_FAIL(ACLNN_ERR_PARAM_NULLPTR, "%s is NULL", #p); \
	} while (0)

/* ---- the objects, read-only ---------------------------------------- */

/*
 * An aclTensor's fields, checked when it was made: ndims <= NNOP_MAX_DIMS,
 * strides not negative, the view inside the storage.  dtype is the
 * aclDataType; card_dtype the card's enum npu_dtype, or -1 when the card
 * has no such type.
 */
struct nnop_tensor_info {
	int acl_dtype;
	int card_dtype;
	aclFormat format;
	unsigned int ndims;
	int64_t dims[NNOP_MAX_DIMS];
	int64_t strides[NNOP_MAX_DIMS];
	int64_t offset;			/* elements, from data */
	int64_t nelems;			/* product of dims */
	void *data;
};

void nnop_tensor_info(const aclTensor *t, struct nnop_tensor_info *info);
/* Contiguous: strides are the row-major strides of the dims (size-1 dims any). */
bool nnop_tensor_contiguous(const aclTensor *t);

/* The value of a scalar as binary64 and as int64 (exact for integer types). */
int nnop_scalar_acl_dtype(const aclScalar *s);
double nnop_scalar_f64(const aclScalar *s);
int64_t nnop_scalar_s64(const aclScalar *s);

uint64_t nnop_int_array_size(const aclIntArray *a);
const int64_t *nnop_int_array_data(const aclIntArray *a);
uint64_t nnop_float_array_size(const aclFloatArray *a);
const float *nnop_float_array_data(const aclFloatArray *a);
uint64_t nnop_bool_array_size(const aclBoolArray *a);
const bool *nnop_bool_array_data(const aclBoolArray *a);
uint64_t nnop_tensor_list_size(const aclTensorList *l);
const aclTensor *nnop_tensor_list_at(const aclTensorList *l, uint64_t i);
uint64_t nnop_scalar_list_size(const aclScalarList *l);
const aclScalar *nnop_scalar_list_at(const aclScalarList *l, uint64_t i);

/* ---- data types ------------------------------------------------------ */

/* "float16" etc. for messages; "unknown" for numbers no type has. */
const char *nnop_dtype_name(int acl_dtype);
/* Bytes per element of an aclDataType; 0 for unknown types. */
size_t nnop_dtype_size(int acl_dtype);
/* Bytes elems elements take: ACL_INT4 packs two a byte. */
uint64_t nnop_dtype_bytes(int acl_dtype, uint64_t elems);
/* The card's enum npu_dtype of an aclDataType; -1 if the card has none. */
int nnop_card_dtype(int acl_dtype);
bool nnop_dtype_is_float(int acl_dtype);	/* F16, BF16, F32, F64 */
bool nnop_dtype_is_int(int acl_dtype);		/* signed and unsigned, not BOOL */
/*
 * PyTorch's (and the vendor's) result type of a binary operator on two
 * tensor types; ACL_DT_UNDEFINED when they do not combine.
 */
int nnop_promote(int a, int b);

/* ---- the executor ---------------------------------------------------- */

/*
 * A new executor for operator op_name (the aclnn name without "aclnn",
 * as messages say it); NULL (message recorded) if memory runs out.
 */
aclOpExecutor *nnop_executor_new(const char *op_name);

/*
 * Names t as the executor's next input (or output), in the order of the
 * operator's aclTensor parameters: that order is the index
 * aclSetInputTensorAddr()/aclSetOutputTensorAddr() take.  Returns the
 * tensor's slot (>= 0) or a negative ACLNN_ERR_* (message recorded).
 * Tensor lists name each of their tensors: nnop_executor_input_list().
 */
int nnop_executor_input(aclOpExecutor *x, const aclTensor *t);
int nnop_executor_output(aclOpExecutor *x, const aclTensor *t);
int nnop_executor_input_list(aclOpExecutor *x, const aclTensorList *l, int *first_slot);
int nnop_executor_output_list(aclOpExecutor *x, const aclTensorList *l, int *first_slot);

enum nnop_base {
	NNOP_BASE_TENSOR,		/* slot's tensor: data + view offset */
	NNOP_BASE_WORKSPACE,		/* the workspace given at launch */
};

struct nnop_view {
	enum nnop_base base;
	int slot;			/* NNOP_BASE_TENSOR */
	uint64_t offset;		/* bytes from the base */
	int card_dtype;			/* enum npu_dtype */
	unsigned int ndims;
	int64_t dims[NNOP_MAX_DIMS];
	int64_t strides[NNOP_MAX_DIMS];	/* elements */
};

/* The view of slot's whole tensor as it was named. */
struct nnop_view nnop_view_of(const aclOpExecutor *x, int slot);
/*
 * bytes of workspace for this executor's operators, NNOP_WORK_ALIGN
 * aligned: returns the offset of the piece.
 */
uint64_t nnop_workspace(aclOpExecutor *x, uint64_t bytes);
/* A contiguous view of fresh workspace. */
struct nnop_view nnop_view_work(aclOpExecutor *x, int card_dtype, unsigned int ndims,
				const int64_t *dims);
/*
 * A scalar the card can read: one element of workspace that a FILL operator,
 * appended now, sets to value in card_dtype, seen with ndims dims of 1 so
 * that it broadcasts against any tensor of that rank.
 */
aclnnStatus nnop_view_scalar(aclOpExecutor *x, double value, int card_dtype,
			     unsigned int ndims, struct nnop_view *out);

/* Views reshaped without copying. */
void nnop_view_unsqueeze(struct nnop_view *v, unsigned int axis);	/* a dim of 1 at axis */
void nnop_view_squeeze(struct nnop_view *v, unsigned int axis);
/* Leading dims of 1 until v has ndims dims (numpy broadcasting aligns right). */
void nnop_view_align(struct nnop_view *v, unsigned int ndims);
/* Axis a broadcast to dim n: stride 0 (v's dim must be 1). */
void nnop_view_expand(struct nnop_view *v, unsigned int axis, int64_t n);
void nnop_view_permute(struct nnop_view *v, const unsigned int *perm);
/* Elements [start, start + len) of axis, taking every step-th. */
void nnop_view_narrow(struct nnop_view *v, unsigned int axis, int64_t start, int64_t len,
		      int64_t step);

/*
 * Appends a card operator: kind (enum npu_operator), its attributes (the
 * member of union npu_op_attrs the kind takes; attrs_size bytes of it, the
 * rest zero), num_inputs inputs then one output.  The card's rules (ranks,
 * shapes, types) are checked when the program is finished, not here.
 */
aclnnStatus nnop_executor_add(aclOpExecutor *x, unsigned int kind, const void *attrs,
			      size_t attrs_size, unsigned int num_inputs,
			      const struct nnop_view *views);

/*
 * Done: *workspace_size is what aclnnXxx needs, *executor the executor
 * for it.  On failure the executor is freed.  Always the last call of
 * aclnnXxxGetWorkspaceSize on success.
 */
aclnnStatus nnop_executor_finish(aclOpExecutor *x, uint64_t *workspace_size,
				 aclOpExecutor **executor);
/* Gives up on an executor not finished (a failed GetWorkspaceSize). */
void nnop_executor_abandon(aclOpExecutor *x);

/*
 * aclnnXxx: checks executor and workspace, resolves every view's address,
 * checks each against the current context's device memory, and queues the
 * operators on stream (NULL: the default stream) behind its earlier work.
 * A executor not made repeatable is freed, as the vendor's are.
 */
aclnnStatus nnop_launch(void *workspace, uint64_t workspace_size, aclOpExecutor *executor,
			aclrtStream stream, const char *op_name);

#endif /* NNOP_H */
