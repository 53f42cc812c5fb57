/* SPDX-License-Identifier: MIT */
/*
 * libascendcl internals of the model API: a loaded model and what the
 * model files share.
 *
 * model_parse.c  checks an .om file into host data (struct acl_om)
 * model.c        the model table, loading, unloading, sizes
 * model_desc.c   aclmdlDesc and aclmdlDataset
 * model_exec.c   aclmdlExecute, aclmdlExecuteAsync
 *
 * Device memory of a model is allocated straight from the driver, not
 * through aclrtMalloc: it is no allocation of the application's, which
 * could free it. Freeing it while executions are queued is safe: the
 * driver keeps a buffer until the commands that use it complete.
 *
 * Locking: the model table lock is taken alone (nothing is called with
 * it held but the driver's GEM close); a model's work_lock is outer to
 * the stream and event locks.
 */
#ifndef LIBASCENDCL_MODEL_H
#define LIBASCENDCL_MODEL_H

#include "acl_internal.h"
#include "model_parse.h"

/* A device buffer of the model's own. */
struct acl_model_buf {
	uint32_t handle;		/* 0: none */
	uint64_t addr;
};

struct acl_model {
	uint32_t id;
	int refs;			/* the table's and each call's; table lock */
	struct acl_om om;
	/*
	 * The device the model was loaded on; NULL once it closed (reset,
	 * aclFinalize), which freed the model's device memory with it.
	 * Table lock.
	 */
	struct acl_device *dev;
	struct acl_model_buf own_weights;	/* unless the caller gave them */
	uint64_t weights;		/* device address of the weights */
	/*
	 * The caller's workspace (LoadWith*Mem), 0 if none: then the
	 * model's own below. Executions sharing one run one after the
	 * other: each waits on the card for work_done, which the one
	 * before recorded.
	 */
	uint64_t work;
	struct acl_mutex work_lock;
	aclrtEvent work_done;
	bool work_recorded;
	/*
	 * Without the caller's workspace: the model's own, kept for the
	 * stream of its last execution and chained like the caller's
	 * (model_exec.c). work_lock.
	 */
	struct acl_model_buf spare_work;
	struct acl_stream *spare_stream;
};

/* Takes a reference to the loaded model id; NULL (and an error) if none. */
struct acl_model *acl_model_get(uint32_t id, aclError *err);
void acl_model_put(struct acl_model *m);
/* The device closed: its models lose their device memory (device.c). */
void acl_model_drop_device(struct acl_device *d);
/* Whether [addr, addr + len) lies in one device allocation of d's application. */
bool acl_model_devmem_holds(struct acl_device *d, uint64_t addr, uint64_t len);

/* Fills an aclmdlDesc with copies of om's inputs and outputs. */
aclError acl_mdl_desc_fill(aclmdlDesc *desc, const struct acl_om *om);

#endif /* LIBASCENDCL_MODEL_H */
