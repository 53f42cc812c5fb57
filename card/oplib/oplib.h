/* SPDX-License-Identifier: GPL-2.0 */
/*
 * oplib: the card's operator library.  It runs one npu_op_desc (see
 * driver/npu_hw.h, "Operators") on tensors in a block of device memory,
 * with oneDNN primitives where oneDNN has the operator and plain loops
 * where it does not.
 *
 * The library knows nothing of rings or of the card: it is given a
 * descriptor already copied out of host memory, the device memory and a few
 * hooks, so the card and a host benchmark run the same code.  It
 * trusts nothing in the descriptor: every field is checked before a tensor
 * is touched, and no byte outside the tensors is read or written.
 *
 * Primitives are cached by the descriptor minus its addresses, so the
 * second run of an operator pays no JIT compilation.  Several threads may
 * run operators on one library at once.
 */
#ifndef OPLIB_H
#define OPLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "npu_hw.h"

#define OPLIB_VERSION_MAJOR	1
/*
 * 1: OIHW16I16O weights; 2: GATHER; 3: S64, S16, BOOL, broadcast inputs;
 * 4: the single-operator functions, comparisons and reductions, TRIANGLE,
 * RMSNORM and GROUPNORM
 */
#define OPLIB_VERSION_MINOR	4
#define OPLIB_VERSION		((OPLIB_VERSION_MAJOR << 16) | OPLIB_VERSION_MINOR)

/* The largest descriptor: the header and NPU_OP_MAX_TENSORS tensors. */
#define OPLIB_DESC_MAX		(sizeof(struct npu_op_desc) + \
				 NPU_OP_MAX_TENSORS * sizeof(struct npu_tensor_desc))

/* oplib_run() gave up on the operator because a hook told it to. */
#define OPLIB_ABORTED		(-1)

struct oplib;

struct oplib_config {
	/* OpenMP threads one operator uses; 0: oplib_threads_per_engine(1) */
	unsigned int threads;
	/* cached operators; 0: OPLIB_CACHE_DEFAULT */
	unsigned int cache_capacity;
};

#define OPLIB_CACHE_DEFAULT	256

struct oplib_stats {
	uint64_t hits;		/* runs that found their primitives cached */
	uint64_t misses;	/* runs that had to create them */
	uint64_t evictions;
	uint32_t entries;
};

/*
 * How the caller shares compute engines between the threads that run
 * operators: all three hooks, or a NULL struct oplib_hooks for an operator
 * that waits for nothing.
 *
 * engine_get() waits for an engine; false means the operator must not go
 * on now (paused or abandoned).  Between the steps of an operator, with the
 * engine held, the library asks go_on(ctx, false), which must not block:
 * may the operator go on now?  If not, the library puts the engine back
 * and calls go_on(ctx, true), which sits out the pause (a hung operator, a
 * dead card) and is false when the operator must be abandoned (a reset).
 * After a pause the library waits for an engine again.
 *
 * A step done by a loop asks abandoned(ctx) every so many elements, so a
 * reset need not wait for a whole loop over a large tensor; it must be
 * cheap and not block.  oneDNN's primitives cannot stop midway.
 */
struct oplib_hooks {
	bool (*engine_get)(void *ctx);
	void (*engine_put)(void *ctx);
	bool (*go_on)(void *ctx, bool wait);
	bool (*abandoned)(void *ctx);
	void *ctx;
};

/* NULL if oneDNN cannot start (no CPU engine) or memory runs out. */
struct oplib *oplib_create(const struct oplib_config *cfg);
void oplib_destroy(struct oplib *lib);

/*
 * The OpenMP threads each of @engines engines gets so that engines running
 * at once do not oversubscribe the CPUs this process may use.
 */
unsigned int oplib_threads_per_engine(unsigned int engines);

/*
 * RANDOM's generator, Philox4x32-10: the block at counter @ctr under @key
 * (oplib_random.c), for tests to check against the published answers.
 */
void oplib_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2],
			 uint32_t out[4]);

/* Capability registers: NPU_ID_OPERATORS and NPU_ID_DTYPES. */
uint64_t oplib_operators(const struct oplib *lib);
uint32_t oplib_dtypes(const struct oplib *lib);

/*
 * Check @desc (@size bytes, little endian) against device memory of
 * @devmem_size bytes without running it: NPU_ERR_NONE or the ring error
 * the card reports for it.
 */
int oplib_check(const struct npu_op_desc *desc, size_t size,
		uint64_t devmem_size);

/* Bytes of device memory at @addr: where a tensor's buffer lies. */
struct oplib_range {
	uint64_t addr;
	uint64_t size;
};

/*
 * oplib_check(), and each tensor i wholly inside @within[i] as well
 * (NPU_ERR_ACCESS if not): the buffers a direct ring's submitter named.
 */
int oplib_check_within(const struct npu_op_desc *desc, size_t size,
		       uint64_t devmem_size, const struct oplib_range *within);

struct oplib_family;

/* A decoded npu_tensor_desc, host byte order. */
struct oplib_tensor {
	uint64_t addr;
	uint16_t dtype;		/* enum npu_dtype */
	uint16_t format;	/* enum npu_tensor_format */
	unsigned int ndims;
	int64_t dims[NPU_TENSOR_MAX_DIMS];
	int64_t strides[NPU_TENSOR_MAX_DIMS];	/* 0 for NCHW16C */
	uint64_t nelems;	/* product of dims */
	uint64_t extent;	/* bytes spanned from addr */
};

/*
 * A descriptor decoded and checked in full by oplib_check_op(): tensors
 * 0..num_inputs-1 are inputs, then outputs.  It points into the
 * descriptor, which must stay unchanged while it is used.
 */
struct oplib_op {
	uint16_t kind;		/* enum npu_operator */
	unsigned int num_inputs;
	unsigned int num_outputs;
	unsigned int num_tensors;
	const union npu_op_attrs *attrs;	/* raw, little endian */
	struct oplib_tensor t[NPU_OP_MAX_TENSORS];
	/* what runs it, and the bytes its cached plan is found by */
	const struct oplib_family *family;
	const struct npu_op_desc *desc;
	size_t desc_size;
};

/*
 * oplib_check_within() (@within may be NULL), and the operator it checked
 * in *@op: a caller that checks before it runs checks once, with
 * oplib_run_op().
 */
int oplib_check_op(const struct npu_op_desc *desc, size_t size,
		   uint64_t devmem_size, const struct oplib_range *within,
		   struct oplib_op *op);

/*
 * Run an operator oplib_check_op() passed, on device memory of the size it
 * was checked against; as oplib_run() does from there on.
 */
int oplib_run_op(struct oplib *lib, const struct oplib_op *op,
		 uint8_t *devmem, const struct oplib_hooks *hooks);

/*
 * Check and run the operator.  Returns NPU_ERR_NONE, the ring error, or
 * OPLIB_ABORTED when a hook abandoned it (its output may then be partly
 * written).  The engine is held only while the operator computes: not for
 * the checks, not for an empty output, and not on return.  @desc must
 * stay unchanged during the call.
 */
int oplib_run(struct oplib *lib, const struct npu_op_desc *desc, size_t size,
	      uint8_t *devmem, uint64_t devmem_size,
	      const struct oplib_hooks *hooks);

void oplib_get_stats(struct oplib *lib, struct oplib_stats *stats);

#endif /* OPLIB_H */
