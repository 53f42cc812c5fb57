// SPDX-License-Identifier: MIT
/*
 * Loading and unloading models. A load checks the whole file (model_parse.c)
 * before anything reaches the card, then uploads the weights once; the
 * model keeps only host copies of what executions need. Model ids count
 * up from 1 and are never reused, so a stale id is refused, not taken for
 * a later model.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model.h"

static struct acl_mutex models_lock = ACL_MUTEX_INITIALIZER;
static struct acl_model **models;	/* the loaded ones, models_lock */
static size_t num_models, cap_models;
static uint32_t next_model_id = 1;

/* ---- the table --------------------------------------------------------- */

static struct acl_model **find_locked(uint32_t id)
{
	ACL_ASSERT_HELD(&models_lock);
	for (size_t i = 0; i < num_models; i++)
		if (models[i]->id == id)
			return &models[i];
	return NULL;
}

static aclError insert(struct acl_model *m)
{
	aclError err = ACL_SUCCESS;

	acl_mutex_lock(&models_lock);
	if (num_models == cap_models) {
		size_t cap = cap_models ? 2 * cap_models : 16;
		struct acl_model **v = realloc(models, cap * sizeof(*v));

		if (v) {
			models = v;
			cap_models = cap;
		}
	}
	if (num_models < cap_models && next_model_id) {
		m->id = next_model_id++;
		m->refs = 1;
		models[num_models++] = m;
	} else {
		err = ACL_FAIL(next_model_id ? ACL_ERROR_BAD_ALLOC : ACL_ERROR_INVALID_MODEL_ID,
			       "no room for another model");
	}
	acl_mutex_unlock(&models_lock);
	return err;
}

struct acl_model *acl_model_get(uint32_t id, aclError *err)
{
	struct acl_model **slot, *m = NULL;

	acl_mutex_lock(&models_lock);
	slot = find_locked(id);
	if (slot) {
		m = *slot;
		m->refs++;
	}
	acl_mutex_unlock(&models_lock);
	if (!m)
		*err = ACL_FAIL(ACL_ERROR_INVALID_MODEL_ID, "model %u is not loaded", id);
	return m;
}

static void buf_free_locked(struct acl_device *d, struct acl_model_buf *b)
{
	ACL_ASSERT_HELD(&models_lock);
	if (d && b->handle)
		drv_gem_close(d->fd, b->handle);
	b->handle = 0;
}

void acl_model_put(struct acl_model *m)
{
	aclrtEvent work_done = NULL;
	bool last;

	acl_mutex_lock(&models_lock);
	last = --m->refs == 0;
	if (last) {
		buf_free_locked(m->dev, &m->own_weights);
		buf_free_locked(m->dev, &m->spare_work);
		work_done = m->work_done;
	}
	acl_mutex_unlock(&models_lock);
	if (!last)
		return;
	/* A record still queued keeps the event's slot until it completes (event.c). */
	if (work_done)
		aclrtDestroyEvent(work_done);
	acl_mutex_destroy(&m->work_lock);
	acl_om_free(&m->om);
	free(m);
}

void acl_model_drop_device(struct acl_device *d)
{
	acl_mutex_lock(&models_lock);
	for (size_t i = 0; i < num_models; i++) {
		struct acl_model *m = models[i];

		if (m->dev != d)
			continue;
		/* Closing the card's file frees the buffers; their handles die with it. */
		m->dev = NULL;
		m->own_weights.handle = 0;
		m->spare_work.handle = 0;
		m->work_done = NULL;
	}
	acl_mutex_unlock(&models_lock);
}

bool acl_model_devmem_holds(struct acl_device *d, uint64_t addr, uint64_t len)
{
	struct acl_range *r;
	bool holds = false;

	acl_rwlock_rdlock(&d->devmem.lock);
	r = acl_rmap_find_locked(&d->devmem, addr);
	if (r) {
		struct acl_devmem *m = r->data;

		holds = len <= m->size && addr - m->addr <= m->size - len;
	}
	acl_rwlock_unlock(&d->devmem.lock);
	return holds;
}

/* ---- loading ----------------------------------------------------------- */

/* What a load is given besides the file. */
struct load_args {
	void *work;
	size_t work_size;
	void *weights;
	size_t weights_size;
};

static aclError parse(const void *file, size_t size, struct acl_om *om)
{
	char why[512];

	if (acl_om_parse(file, size, om, why, sizeof(why)))
		return ACL_FAIL(ACL_ERROR_PARSE_MODEL, "the model is not a valid .om file: %s", why);
	return ACL_SUCCESS;
}

/* The caller's device memory for a model, when given, must hold need bytes. */
static aclError check_given(struct acl_device *d, const char *what, void *ptr, size_t size,
			    uint64_t need)
{
	if (!ptr)
		return ACL_SUCCESS;
	if (size < need)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"the %s memory has %zu bytes, the model needs %llu", what, size,
				(unsigned long long)need);
	if (!acl_model_devmem_holds(d, (uintptr_t)ptr, need))
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM,
				"the %s memory %p is not %llu bytes of one device allocation of "
				"device %d", what, ptr, (unsigned long long)need, d->id);
	return ACL_SUCCESS;
}

/* Puts the weights on the card: into the caller's memory or a buffer of the model's. */
static aclError upload_weights(struct acl_model *m, const uint8_t *file, void *given)
{
	struct acl_device *d = m->dev;
	uint64_t size = m->om.weights_size;
	int ret;

	if (given) {
		m->weights = (uintptr_t)given;
	} else {
		/* At least one line, so that every region has a device address. */
		ret = drv_bo_create(d->fd, size > OM_ALIGN ? size : OM_ALIGN, DRM_NPU_BO_DEVICE,
				    &m->own_weights.handle, &m->own_weights.addr, NULL);
		if (ret)
			return ACL_DRV_FAIL(d, ret, "allocating the model's %llu bytes of weights",
					    (unsigned long long)size);
		m->weights = m->own_weights.addr;
	}
	if (!size)
		return ACL_SUCCESS;
	return aclrtMemcpy((void *)(uintptr_t)m->weights, size, file + m->om.weights_offset, size,
			   ACL_MEMCPY_HOST_TO_DEVICE);
}

/* Every operator and data type of the model is one the card's library has. */
static aclError check_card_runs(struct acl_model *m)
{
	struct acl_device *d = m->dev;
	uint64_t operators, dtypes;
	int ret;

	ret = drv_get_param(d->fd, DRM_NPU_PARAM_OPERATORS, &operators);
	if (!ret)
		ret = drv_get_param(d->fd, DRM_NPU_PARAM_DTYPES, &dtypes);
	if (ret)
		return ACL_DRV_FAIL(d, ret, "reading the card's operators");
	for (uint32_t n = 0; n < m->om.num_load_ops + m->om.num_ops; n++) {
		const struct acl_om_op *op = n < m->om.num_load_ops ? &m->om.load_ops[n] :
					     &m->om.ops[n - m->om.num_load_ops];
		const struct npu_op_desc *desc = (const void *)((const uint8_t *)m->om.image +
								op->image_offset);

		if (!(operators & (1ULL << op->kind)))
			return ACL_FAIL(ACL_ERROR_OP_NOT_FOUND, "op %u (%s): device %d does not run "
					"operator %u", n, op->name, d->id, op->kind);
		for (uint32_t t = 0; t < op->num_tensors; t++)
			if (!(dtypes & (1ULL << le16toh(desc->tensors[t].dtype))))
				return ACL_FAIL(ACL_ERROR_UNSUPPORTED_DATA_TYPE, "op %u (%s), "
						"tensor %u: device %d has no data type %u", n,
						op->name, t, d->id, le16toh(desc->tensors[t].dtype));
	}
	return ACL_SUCCESS;
}

/*
 * The model's load-time operators (the card packing weights for its
 * kernels), on the weights just uploaded, before any execution: on the
 * context's default stream, waited for.
 */
static aclError run_load_ops(struct acl_model *m)
{
	const struct acl_om *om = &m->om;
	struct drm_npu_cmd *cmds;
	struct acl_stream *s;
	struct acl_ticket t;
	aclError err;
	void *image;

	if (!om->num_load_ops)
		return ACL_SUCCESS;
	s = acl_stream_resolve(NULL, &err);
	if (!s)
		return err;
	image = aligned_alloc(OM_ALIGN, om->image_size ? om->image_size : OM_ALIGN);
	cmds = calloc(om->num_load_ops, sizeof(*cmds));
	if (!image || !cmds) {
		free(image);
		free(cmds);
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory for %u load-time operators",
				om->num_load_ops);
	}
	memcpy(image, om->image, om->image_size);
	for (uint32_t i = 0; i < om->num_load_ops; i++) {
		const struct acl_om_op *op = &om->load_ops[i];
		struct npu_op_desc *desc = (void *)((uint8_t *)image + op->image_offset);

		/* the parser let load-time tensors into the weights only */
		for (uint32_t k = 0; k < op->num_tensors; k++)
			desc->tensors[k].addr = htole64(m->weights + op->offset[k]);
		cmds[i] = (struct drm_npu_cmd){ .op = DRM_NPU_OP_COMPUTE,
						.src = (uintptr_t)desc,
						.size = op->desc_size };
	}
	err = acl_stream_submit(s, cmds, om->num_load_ops, &t);
	if (!err)
		err = acl_stream_wait(s, &t, -1);
	free(cmds);
	free(image);
	return err;
}

static aclError model_setup(struct acl_model *m, const void *file, const struct load_args *a)
{
	aclError err;

	err = check_card_runs(m);
	if (!err)
		err = check_given(m->dev, "workspace", a->work, a->work_size,
				  m->om.workspace_size);
	if (!err)
		err = check_given(m->dev, "weight", a->weights, a->weights_size,
				  m->om.weights_size);
	if (!err && a->work) {
		m->work = (uintptr_t)a->work;
		err = aclrtCreateEvent(&m->work_done);
	}
	if (!err)
		err = upload_weights(m, file, a->weights);
	if (!err)
		err = run_load_ops(m);
	return err;
}

static aclError load(const void *file, size_t size, uint32_t *id, const struct load_args *a)
{
	struct acl_context *c;
	struct acl_model *m;
	aclError err;

	ACL_CHECK_NULL(id);
	c = acl_current_ctx();
	if (!c)
		return ACL_ERROR_RT_CONTEXT_NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	acl_mutex_init(&m->work_lock);
	m->dev = c->dev;
	err = parse(file, size, &m->om);
	if (!err)
		err = model_setup(m, file, a);
	if (!err)
		err = insert(m);
	if (err) {
		m->refs = 1;
		acl_model_put(m);
		return err;
	}
	*id = m->id;
	ACL_LOGI("model %u loaded on device %d: %u inputs, %u outputs, %u ops, %llu bytes of "
		 "weights", m->id, c->dev->id, m->om.num_inputs, m->om.num_outputs,
		 m->om.num_ops, (unsigned long long)m->om.weights_size);
	return ACL_SUCCESS;
}

/* Reads a whole file into memory (free it). */
static aclError read_file(const char *path, void **data, size_t *size)
{
	struct stat st;
	size_t done = 0;
	uint8_t *buf;
	int fd;

	ACL_CHECK_NULL(path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return ACL_FAIL(ACL_ERROR_READ_MODEL_FAILURE, "cannot open %s: %s", path,
				strerror(errno));
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return ACL_FAIL(ACL_ERROR_READ_MODEL_FAILURE, "%s is not a regular file", path);
	}
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		close(fd);
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "no memory for the %lld bytes of %s",
				(long long)st.st_size, path);
	}
	while (done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);

		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			free(buf);
			close(fd);
			return ACL_FAIL(ACL_ERROR_READ_MODEL_FAILURE, "reading %s failed: %s", path,
					n ? strerror(errno) : "the file shrank");
		}
		done += (size_t)n;
	}
	close(fd);
	*data = buf;
	*size = done;
	return ACL_SUCCESS;
}

static aclError load_file(const char *path, uint32_t *id, const struct load_args *a)
{
	size_t size;
	void *file;
	aclError err;

	ACL_CHECK_NULL(id);
	err = read_file(path, &file, &size);
	if (err)
		return err;
	err = load(file, size, id, a);
	free(file);
	return err;
}

static aclError load_mem(const void *model, size_t size, uint32_t *id, const struct load_args *a)
{
	ACL_CHECK_NULL(model);
	if (!size)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelSize is 0");
	return load(model, size, id, a);
}

ACL_EXPORT aclError aclmdlLoadFromFile(const char *modelPath, uint32_t *modelId)
{
	return load_file(modelPath, modelId, &(struct load_args){ 0 });
}

ACL_EXPORT aclError aclmdlLoadFromMem(const void *model, size_t modelSize, uint32_t *modelId)
{
	return load_mem(model, modelSize, modelId, &(struct load_args){ 0 });
}

ACL_EXPORT aclError aclmdlLoadFromFileWithMem(const char *modelPath, uint32_t *modelId,
					      void *workPtr, size_t workSize, void *weightPtr,
					      size_t weightSize)
{
	return load_file(modelPath, modelId,
			 &(struct load_args){ workPtr, workSize, weightPtr, weightSize });
}

ACL_EXPORT aclError aclmdlLoadFromMemWithMem(const void *model, size_t modelSize,
					     uint32_t *modelId, void *workPtr, size_t workSize,
					     void *weightPtr, size_t weightSize)
{
	return load_mem(model, modelSize, modelId,
			&(struct load_args){ workPtr, workSize, weightPtr, weightSize });
}

ACL_EXPORT aclError aclmdlUnload(uint32_t modelId)
{
	struct acl_model **slot, *m = NULL;

	acl_mutex_lock(&models_lock);
	slot = find_locked(modelId);
	if (slot) {
		m = *slot;
		*slot = models[--num_models];
	}
	acl_mutex_unlock(&models_lock);
	if (!m)
		return ACL_FAIL(ACL_ERROR_INVALID_MODEL_ID, "model %u is not loaded", modelId);
	acl_model_put(m);
	return ACL_SUCCESS;
}

/* ---- sizes and descriptions without loading ---------------------------- */

static aclError query(const void *file, size_t size, size_t *work, size_t *weights)
{
	struct acl_om om;
	aclError err;

	ACL_CHECK_NULL(work);
	ACL_CHECK_NULL(weights);
	err = parse(file, size, &om);
	if (err)
		return err;
	*work = om.workspace_size;
	*weights = om.weights_size;
	acl_om_free(&om);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlQuerySize(const char *fileName, size_t *workSize, size_t *weightSize)
{
	size_t size;
	void *file;
	aclError err;

	ACL_CHECK_NULL(workSize);
	ACL_CHECK_NULL(weightSize);
	err = read_file(fileName, &file, &size);
	if (err)
		return err;
	err = query(file, size, workSize, weightSize);
	free(file);
	return err;
}

ACL_EXPORT aclError aclmdlQuerySizeFromMem(const void *model, size_t modelSize, size_t *workSize,
					   size_t *weightSize)
{
	ACL_CHECK_NULL(model);
	if (!modelSize)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelSize is 0");
	return query(model, modelSize, workSize, weightSize);
}

ACL_EXPORT aclError aclmdlGetDesc(aclmdlDesc *modelDesc, uint32_t modelId)
{
	struct acl_model *m;
	aclError err = ACL_SUCCESS;

	ACL_CHECK_NULL(modelDesc);
	m = acl_model_get(modelId, &err);
	if (!m)
		return err;
	err = acl_mdl_desc_fill(modelDesc, &m->om);
	acl_model_put(m);
	return err;
}

static aclError desc_from(aclmdlDesc *desc, const void *file, size_t size)
{
	struct acl_om om;
	aclError err;

	err = parse(file, size, &om);
	if (err)
		return err;
	err = acl_mdl_desc_fill(desc, &om);
	acl_om_free(&om);
	return err;
}

ACL_EXPORT aclError aclmdlGetDescFromFile(aclmdlDesc *modelDesc, const char *modelPath)
{
	size_t size;
	void *file;
	aclError err;

	ACL_CHECK_NULL(modelDesc);
	err = read_file(modelPath, &file, &size);
	if (err)
		return err;
	err = desc_from(modelDesc, file, size);
	free(file);
	return err;
}

ACL_EXPORT aclError aclmdlGetDescFromMem(aclmdlDesc *modelDesc, const void *model,
					 size_t modelSize)
{
	ACL_CHECK_NULL(modelDesc);
	ACL_CHECK_NULL(model);
	if (!modelSize)
		return ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelSize is 0");
	return desc_from(modelDesc, model, modelSize);
}
