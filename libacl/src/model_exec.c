// SPDX-License-Identifier: MIT
/*
 * Executing a model: the datasets are checked against the model, each
 * region (weights, workspace, inputs, outputs) gets its device address,
 * a copy of the model's descriptors gets the tensors' addresses, and the
 * operators go to the stream as COMPUTE commands, in order, behind the
 * stream's earlier work. The driver copies each descriptor when it takes
 * the command, so the copy is freed as soon as the submission returns.
 *
 * A model has one workspace of its own, kept for the stream its last
 * execution ran on: the next execution on that stream takes it as it is
 * (allocating and clearing ResNet-50's 5 MB took the guest ~1 ms an
 * execution). One on another stream gets a new one, which replaces it;
 * the driver keeps the old one until its operators complete, so
 * executions on several streams still run side by side. A workspace
 * shared (the model's, or one the caller gave at load) chains its
 * executions on the card: each waits for the one before (needed when a
 * freed stream's address comes back as another's). A stream with an
 * allocator registered (allocator.c) gets its workspace from it instead,
 * given back once the execution is queued: the stream orders the block's
 * next use after it, so nothing chains.
 */
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include "allocator.h"
#include "model.h"
#include "prof.h"

/* Everything one execution needs, found before anything is submitted. */
struct exec {
	struct acl_model *m;
	struct acl_device *dev;
	struct acl_stream *s;
	aclrtStream stream;		/* as the caller named it */
	uint64_t base[ACL_OM_MAX_REGIONS];	/* device address of each region */
	bool chained;			/* on a shared workspace: holds work_lock */
	struct acl_allocator_block user_work;	/* from the stream's allocator */
};

/* The device address of one dataset buffer, checked against the model. */
static aclError check_buffer(struct exec *x, const aclmdlDataset *ds, bool output, uint32_t i)
{
	const struct acl_om *om = &x->m->om;
	const struct acl_om_io *io = &om->io[(output ? om->num_inputs : 0) + i];
	const char *what = output ? "output" : "input";
	aclDataBuffer *b = aclmdlGetDatasetBuffer(ds, i);
	void *data = aclGetDataBufferAddr(b);
	size_t size = aclGetDataBufferSizeV2(b);

	if (!b)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%s buffer %u is NULL", what, i);
	if (size < io->size)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%s %u (%s) has %zu bytes, the model needs "
				"%llu", what, i, io->name, size, (unsigned long long)io->size);
	if (!io->size)
		return ACL_SUCCESS;	/* an empty tensor: no memory is touched */
	if (!data || !acl_is_dev_ptr(data))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%s %u (%s) at %p is not device memory: "
				"the card computes on device memory only", what, i, io->name, data);
	if (!acl_model_devmem_holds(x->dev, (uintptr_t)data, io->size))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "%s %u (%s): %p is not %llu bytes of one "
				"allocation of device %d", what, i, io->name, data,
				(unsigned long long)io->size, x->dev->id);
	x->base[OM_REGION_INPUT0 + (output ? om->num_inputs : 0) + i] = (uintptr_t)data;
	return ACL_SUCCESS;
}

static aclError check_dataset(struct exec *x, const aclmdlDataset *ds, bool output)
{
	const struct acl_om *om = &x->m->om;
	uint32_t want = output ? om->num_outputs : om->num_inputs;
	const char *what = output ? "output" : "input";
	aclError err;

	if (!ds)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the %s dataset is NULL", what);
	if (aclmdlGetDatasetNumBuffers(ds) != want)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "the %s dataset has %zu buffers, model %u "
				"has %u %ss", what, aclmdlGetDatasetNumBuffers(ds), x->m->id, want,
				what);
	for (uint32_t i = 0; i < want; i++) {
		err = check_buffer(x, ds, output, i);
		if (err)
			return err;
	}
	return ACL_SUCCESS;
}

/* The model, its device and the stream, which must be on that device. */
static aclError exec_begin(struct exec *x, uint32_t id, aclrtStream stream)
{
	aclError err = ACL_SUCCESS;

	x->stream = stream;
	x->m = acl_model_get(id, &err);
	if (!x->m)
		return err;
	x->dev = x->m->dev;
	if (!x->dev)
		return ACL_FAIL(ACL_ERROR_INVALID_MODEL_ID, "model %u lost its device memory when "
				"its device was reset; unload it", id);
	x->s = acl_stream_resolve(stream, &err);
	if (!x->s)
		return err;
	if (x->s->dev != x->dev)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "model %u is on device %d, the stream on "
				"device %d", id, x->dev->id, x->s->dev->id);
	return ACL_SUCCESS;
}

/*
 * The model's own workspace, with work_lock held: the one kept for x's
 * stream, or a new one, kept for it from now on instead of the other
 * stream's (which the driver keeps until its operators complete): the
 * first execution on it waits for nothing.
 */
static aclError take_spare_work(struct exec *x)
{
	struct acl_model *m = x->m;
	struct acl_model_buf b;
	aclError err;
	int ret;

	ACL_ASSERT_HELD(&m->work_lock);
	if (!m->work_done) {
		err = aclrtCreateEvent(&m->work_done);
		if (err)
			return err;
	}
	if (!m->spare_work.handle || m->spare_stream != x->s) {
		ret = drv_bo_create(x->dev->fd, m->om.workspace_size, DRM_NPU_BO_DEVICE,
				    &b.handle, &b.addr, NULL);
		if (ret)
			return ACL_DRV_FAIL(x->dev, ret, "allocating model %u's %llu-byte "
					    "workspace", m->id,
					    (unsigned long long)m->om.workspace_size);
		if (m->spare_work.handle)
			drv_gem_close(x->dev->fd, m->spare_work.handle);
		m->spare_work = b;
		m->spare_stream = x->s;
		m->work_recorded = false;
	}
	x->base[OM_REGION_WORKSPACE] = m->spare_work.addr;
	return ACL_SUCCESS;
}

/*
 * Regions without bytes (an empty workspace, input or output) hold only
 * empty tensors; they get the weights' address, which every model has.
 * A shared workspace (the caller's, or the model's own) is taken with
 * work_lock, held until the execution is submitted.
 */
static aclError place_regions(struct exec *x)
{
	struct acl_model *m = x->m;
	aclError err;

	x->base[OM_REGION_WEIGHTS] = m->weights;
	if (!m->work && m->om.workspace_size &&
	    acl_allocator_take(x->s, m->om.workspace_size, &x->base[OM_REGION_WORKSPACE],
			       &x->user_work, &err)) {
		if (err)
			return err;
	} else if (m->work || m->om.workspace_size) {
		acl_mutex_lock(&m->work_lock);
		x->chained = true;
		if (m->work)
			x->base[OM_REGION_WORKSPACE] = m->work;
		else if ((err = take_spare_work(x)))
			return err;
	}
	for (unsigned int r = 0; r < ACL_OM_MAX_REGIONS; r++)
		if (!x->base[r])
			x->base[r] = m->weights;
	return ACL_SUCCESS;
}

/* The model's descriptors with this execution's addresses, and a command for each. */
static aclError build_program(struct exec *x, void **image, struct drm_npu_cmd **cmds)
{
	const struct acl_om *om = &x->m->om;

	*image = aligned_alloc(OM_ALIGN, om->image_size ? om->image_size : OM_ALIGN);
	*cmds = calloc(om->num_ops ? om->num_ops : 1, sizeof(**cmds));
	if (!*image || !*cmds)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory for model %u's %u operators",
				x->m->id, om->num_ops);
	memcpy(*image, om->image, om->image_size);
	for (uint32_t i = 0; i < om->num_ops; i++) {
		const struct acl_om_op *op = &om->ops[i];
		struct npu_op_desc *desc = (void *)((uint8_t *)*image + op->image_offset);

		for (uint32_t t = 0; t < op->num_tensors; t++)
			desc->tensors[t].addr = htole64(x->base[op->region[t]] + op->offset[t]);
		(*cmds)[i] = (struct drm_npu_cmd){
			.op = DRM_NPU_OP_COMPUTE,
			.src = (uintptr_t)desc,
			.size = op->desc_size,
		};
	}
	return ACL_SUCCESS;
}

/*
 * Executions sharing the caller's workspace: each waits on the card for
 * the one before, and is the one the next waits for.
 */
static aclError submit_chained(struct exec *x, struct drm_npu_cmd *cmds, struct acl_ticket *t)
{
	struct acl_model *m = x->m;
	aclError err = ACL_SUCCESS;

	if (m->work_recorded)
		err = aclrtStreamWaitEvent(x->stream, m->work_done);
	if (!err)
		err = acl_stream_submit(x->s, cmds, m->om.num_ops, t);
	if (!err)
		err = aclrtRecordEvent(m->work_done, x->stream);
	if (!err)
		m->work_recorded = true;
	return err;
}

static aclError submit(struct exec *x, struct acl_ticket *t)
{
	struct drm_npu_cmd *cmds = NULL;
	void *image = NULL;
	aclError err;

	err = build_program(x, &image, &cmds);
	if (!err)
		acl_prof_label(cmds, NULL, x->m->om.ops, x->m->id);
	if (!err && x->m->om.num_ops) {
		if (x->chained)
			err = submit_chained(x, cmds, t);
		else
			err = acl_stream_submit(x->s, cmds, x->m->om.num_ops, t);
	}
	free(cmds);
	free(image);
	return err;
}

static void exec_end(struct exec *x)
{
	acl_allocator_give_back(&x->user_work);
	if (x->chained)
		acl_mutex_unlock(&x->m->work_lock);
	if (x->m)
		acl_model_put(x->m);
}

/* Queues the execution; *t (when the model has operators) is where it completes. */
static aclError execute(uint32_t id, const aclmdlDataset *input, aclmdlDataset *output,
			aclrtStream stream, struct acl_ticket *t, bool *queued)
{
	struct exec x = { 0 };
	aclError err;

	*queued = false;
	err = exec_begin(&x, id, stream);
	if (!err)
		err = check_dataset(&x, input, false);
	if (!err)
		err = check_dataset(&x, output, true);
	if (!err)
		err = place_regions(&x);
	if (!err)
		err = submit(&x, t);
	*queued = !err && x.m->om.num_ops;
	exec_end(&x);
	return err;
}

ACL_EXPORT aclError aclmdlExecuteAsync(uint32_t modelId, const aclmdlDataset *input,
				       aclmdlDataset *output, aclrtStream stream)
{
	struct acl_ticket t;
	bool queued;

	return execute(modelId, input, output, stream, &t, &queued);
}

ACL_EXPORT aclError aclmdlExecute(uint32_t modelId, const aclmdlDataset *input,
				  aclmdlDataset *output)
{
	struct acl_stream *s;
	struct acl_ticket t;
	aclError err;
	bool queued;

	err = execute(modelId, input, output, NULL, &t, &queued);
	if (err || !queued)
		return err;
	s = acl_stream_resolve(NULL, &err);
	if (!s)
		return err;
	return acl_stream_wait(s, &t, -1);
}
