// SPDX-License-Identifier: MIT
/*
 * Model descriptions (aclmdlDesc: a host copy of a model's inputs and
 * outputs, valid after the model is unloaded) and datasets (aclmdlDataset:
 * the data buffers of one execution, in the model's order).
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

struct aclmdlDesc {
	uint32_t num_inputs, num_outputs;
	struct acl_om_io *io;		/* inputs, then outputs; names owned */
};

ACL_EXPORT aclmdlDesc *aclmdlCreateDesc(void)
{
	aclmdlDesc *d = calloc(1, sizeof(*d));

	if (!d)
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	return d;
}

static void desc_clear(aclmdlDesc *d)
{
	for (uint32_t i = 0; d->io && i < d->num_inputs + d->num_outputs; i++)
		free((char *)d->io[i].name);
	free(d->io);
	d->io = NULL;
	d->num_inputs = d->num_outputs = 0;
}

ACL_EXPORT aclError aclmdlDestroyDesc(aclmdlDesc *modelDesc)
{
	ACL_CHECK_NULL(modelDesc);
	desc_clear(modelDesc);
	free(modelDesc);
	return ACL_SUCCESS;
}

aclError acl_mdl_desc_fill(aclmdlDesc *desc, const struct acl_om *om)
{
	uint32_t n = om->num_inputs + om->num_outputs;
	struct acl_om_io *io = calloc(n + 1, sizeof(*io));

	if (!io)
		return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	for (uint32_t i = 0; i < n; i++) {
		io[i] = om->io[i];
		io[i].name = strdup(om->io[i].name);
		if (!io[i].name) {
			while (i--)
				free((char *)io[i].name);
			free(io);
			return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		}
	}
	desc_clear(desc);
	desc->io = io;
	desc->num_inputs = om->num_inputs;
	desc->num_outputs = om->num_outputs;
	return ACL_SUCCESS;
}

/* Input or output index of desc; NULL (and an error) when there is none. */
static const struct acl_om_io *io_at(const char *fn, const aclmdlDesc *desc, bool output,
				     size_t index)
{
	size_t count;

	if (!desc) {
		acl_fail(fn, ACL_ERROR_INVALID_PARAM, "modelDesc is NULL");
		return NULL;
	}
	count = output ? desc->num_outputs : desc->num_inputs;
	if (index >= count) {
		acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%s %zu does not exist: the model has %zu",
			 output ? "output" : "input", index, count);
		return NULL;
	}
	return &desc->io[(output ? desc->num_inputs : 0) + index];
}

ACL_EXPORT size_t aclmdlGetNumInputs(aclmdlDesc *modelDesc)
{
	if (!modelDesc) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelDesc is NULL");
		return 0;
	}
	return modelDesc->num_inputs;
}

ACL_EXPORT size_t aclmdlGetNumOutputs(aclmdlDesc *modelDesc)
{
	if (!modelDesc) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "modelDesc is NULL");
		return 0;
	}
	return modelDesc->num_outputs;
}

ACL_EXPORT size_t aclmdlGetInputSizeByIndex(aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, false, index);

	return io ? io->size : 0;
}

ACL_EXPORT size_t aclmdlGetOutputSizeByIndex(aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, true, index);

	return io ? io->size : 0;
}

static aclError get_dims(const char *fn, const aclmdlDesc *desc, bool output, size_t index,
			 aclmdlIODims *dims)
{
	const struct acl_om_io *io;

	if (!dims)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "dims is NULL");
	io = io_at(fn, desc, output, index);
	if (!io)
		return ACL_ERROR_INVALID_PARAM;
	memset(dims, 0, sizeof(*dims));
	/* A longer name is cut, as the struct has no room for it. */
	strncpy(dims->name, io->name, sizeof(dims->name) - 1);
	dims->dimCount = io->num_dims;
	memcpy(dims->dims, io->dims, io->num_dims * sizeof(io->dims[0]));
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlGetInputDims(const aclmdlDesc *modelDesc, size_t index,
				       aclmdlIODims *dims)
{
	return get_dims(__func__, modelDesc, false, index, dims);
}

ACL_EXPORT aclError aclmdlGetInputDimsV2(const aclmdlDesc *modelDesc, size_t index,
					 aclmdlIODims *dims)
{
	return get_dims(__func__, modelDesc, false, index, dims);
}

ACL_EXPORT aclError aclmdlGetOutputDims(const aclmdlDesc *modelDesc, size_t index,
					aclmdlIODims *dims)
{
	return get_dims(__func__, modelDesc, true, index, dims);
}

ACL_EXPORT aclError aclmdlGetCurOutputDims(const aclmdlDesc *modelDesc, size_t index,
					   aclmdlIODims *dims)
{
	return get_dims(__func__, modelDesc, true, index, dims);
}

ACL_EXPORT const char *aclmdlGetInputNameByIndex(const aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, false, index);

	return io ? io->name : "";
}

ACL_EXPORT const char *aclmdlGetOutputNameByIndex(const aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, true, index);

	return io ? io->name : "";
}

ACL_EXPORT aclFormat aclmdlGetInputFormat(const aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, false, index);

	return io ? (aclFormat)io->format : ACL_FORMAT_UNDEFINED;
}

ACL_EXPORT aclFormat aclmdlGetOutputFormat(const aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, true, index);

	return io ? (aclFormat)io->format : ACL_FORMAT_UNDEFINED;
}

ACL_EXPORT aclDataType aclmdlGetInputDataType(const aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, false, index);

	return io ? (aclDataType)io->data_type : ACL_DT_UNDEFINED;
}

ACL_EXPORT aclDataType aclmdlGetOutputDataType(const aclmdlDesc *modelDesc, size_t index)
{
	const struct acl_om_io *io = io_at(__func__, modelDesc, true, index);

	return io ? (aclDataType)io->data_type : ACL_DT_UNDEFINED;
}

static aclError index_by_name(const char *fn, const aclmdlDesc *desc, bool output,
			      const char *name, size_t *index)
{
	size_t count, first;

	if (!desc || !name || !index)
		return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "%s is NULL",
				!desc ? "modelDesc" : !name ? "name" : "index");
	count = output ? desc->num_outputs : desc->num_inputs;
	first = output ? desc->num_inputs : 0;
	for (size_t i = 0; i < count; i++) {
		if (!strcmp(desc->io[first + i].name, name)) {
			*index = i;
			return ACL_SUCCESS;
		}
	}
	return acl_fail(fn, ACL_ERROR_INVALID_PARAM, "the model has no %s named \"%s\"",
			output ? "output" : "input", name);
}

ACL_EXPORT aclError aclmdlGetInputIndexByName(const aclmdlDesc *modelDesc, const char *name,
					      size_t *index)
{
	return index_by_name(__func__, modelDesc, false, name, index);
}

ACL_EXPORT aclError aclmdlGetOutputIndexByName(const aclmdlDesc *modelDesc, const char *name,
					       size_t *index)
{
	return index_by_name(__func__, modelDesc, true, name, index);
}

/* ---- datasets ---------------------------------------------------------- */

struct aclmdlDataset {
	size_t num, cap;
	aclDataBuffer **bufs;
	aclTensorDesc **descs;		/* the caller's, not copied */
};

ACL_EXPORT aclmdlDataset *aclmdlCreateDataset(void)
{
	aclmdlDataset *ds = calloc(1, sizeof(*ds));

	if (!ds)
		ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
	return ds;
}

ACL_EXPORT aclError aclmdlDestroyDataset(const aclmdlDataset *dataset)
{
	aclmdlDataset *ds = (aclmdlDataset *)dataset;

	ACL_CHECK_NULL(ds);
	free(ds->bufs);
	free(ds->descs);
	free(ds);
	return ACL_SUCCESS;
}

ACL_EXPORT aclError aclmdlAddDatasetBuffer(aclmdlDataset *dataset, aclDataBuffer *dataBuffer)
{
	ACL_CHECK_NULL(dataset);
	ACL_CHECK_NULL(dataBuffer);
	if (dataset->num == dataset->cap) {
		size_t cap = dataset->cap ? 2 * dataset->cap : 8;
		aclDataBuffer **bufs = realloc(dataset->bufs, cap * sizeof(*bufs));
		aclTensorDesc **descs;

		if (!bufs)
			return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		dataset->bufs = bufs;
		descs = realloc(dataset->descs, cap * sizeof(*descs));
		if (!descs)
			return ACL_FAIL(ACL_ERROR_BAD_ALLOC, "out of memory");
		dataset->descs = descs;
		dataset->cap = cap;
	}
	dataset->descs[dataset->num] = NULL;
	dataset->bufs[dataset->num++] = dataBuffer;
	return ACL_SUCCESS;
}

ACL_EXPORT size_t aclmdlGetDatasetNumBuffers(const aclmdlDataset *dataset)
{
	if (!dataset) {
		ACL_FAIL(ACL_ERROR_INVALID_PARAM, "dataset is NULL");
		return 0;
	}
	return dataset->num;
}

static bool dataset_has(const char *fn, const aclmdlDataset *ds, size_t index)
{
	if (!ds) {
		acl_fail(fn, ACL_ERROR_INVALID_PARAM, "dataset is NULL");
		return false;
	}
	if (index >= ds->num) {
		acl_fail(fn, ACL_ERROR_INVALID_PARAM, "buffer %zu does not exist: the dataset has "
			 "%zu", index, ds->num);
		return false;
	}
	return true;
}

ACL_EXPORT aclDataBuffer *aclmdlGetDatasetBuffer(const aclmdlDataset *dataset, size_t index)
{
	return dataset_has(__func__, dataset, index) ? dataset->bufs[index] : NULL;
}

ACL_EXPORT aclError aclmdlSetDatasetTensorDesc(aclmdlDataset *dataset, aclTensorDesc *tensorDesc,
					       size_t index)
{
	ACL_CHECK_NULL(tensorDesc);
	if (!dataset_has(__func__, dataset, index))
		return ACL_ERROR_INVALID_PARAM;
	dataset->descs[index] = tensorDesc;
	return ACL_SUCCESS;
}

ACL_EXPORT aclTensorDesc *aclmdlGetDatasetTensorDesc(const aclmdlDataset *dataset, size_t index)
{
	return dataset_has(__func__, dataset, index) ? dataset->descs[index] : NULL;
}
