// SPDX-License-Identifier: MIT
/*
 * Offline models (aclmdl*) on the card: loading from files and memory,
 * with the library's or the caller's device memory; sizes; descriptions;
 * datasets; tensor descriptions; execution, checked against the same
 * computation in plain C; ordering with copies and events; one model on
 * two streams and from two threads at once; a program longer than one
 * submission; unloading with work queued; an operator the card refuses;
 * and every documented error.
 * The models are built here (tests/include/om_builder.h), not compiled.
 */
#include "acl_test.h"
#include "om_builder.h"
#include "kselftest_harness.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

#define AFFINE_N	1000
#define CHAIN_N		256
#define CHAIN_STEPS	300	/* more than DRM_NPU_MAX_BATCH operators */

static const int64_t add_dims[3] = { 2, 3, 5 };
#define ADD_N		30

struct model_file {
	void *data;
	size_t size;
};

FIXTURE(mdl) {
	aclrtStream s1, s2;
	struct gate g;			/* opened by the teardown too, should a test fail */
	struct model_file add, affine, chain;
	char path[64];			/* the affine model, as a file */
};

static void write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (f) {
		fwrite(data, 1, size, f);
		fclose(f);
	}
}

FIXTURE_SETUP(mdl)
{
	ASSERT_TRUE(acl_ok_init());
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&self->s2));
	ASSERT_EQ(ACL_SUCCESS, gate_init(&self->g));
	self->add.data = om_model_add(3, add_dims, &self->add.size);
	self->affine.data = om_model_affine(AFFINE_N, &self->affine.size);
	self->chain.data = om_model_chain(CHAIN_N, CHAIN_STEPS, &self->chain.size);
	snprintf(self->path, sizeof(self->path), "/tmp/model_test_%d.om", (int)getpid());
	write_file(self->path, self->affine.data, self->affine.size);
}

FIXTURE_TEARDOWN(mdl)
{
	gate_open(&self->g);
	unlink(self->path);
	free(self->add.data);
	free(self->affine.data);
	free(self->chain.data);
	aclrtResetDevice(0);
	aclFinalize();
}

/* ---- helpers ------------------------------------------------------------- */

/* Device buffers of the given sizes in a dataset. */
struct dset {
	aclmdlDataset *ds;
	void *dev[4];
	size_t n;
};

static aclError dset_make(struct dset *d, size_t n, const size_t *sizes)
{
	aclError err;

	memset(d, 0, sizeof(*d));
	d->ds = aclmdlCreateDataset();
	if (!d->ds)
		return ACL_ERROR_BAD_ALLOC;
	for (size_t i = 0; i < n; i++) {
		err = aclrtMalloc(&d->dev[i], sizes[i], ACL_MEM_MALLOC_NORMAL_ONLY);
		if (err)
			return err;
		d->n++;
		err = aclmdlAddDatasetBuffer(d->ds, aclCreateDataBuffer(d->dev[i], sizes[i]));
		if (err)
			return err;
	}
	return ACL_SUCCESS;
}

static void dset_free(struct dset *d)
{
	for (size_t i = 0; d->ds && i < aclmdlGetDatasetNumBuffers(d->ds); i++)
		aclDestroyDataBuffer(aclmdlGetDatasetBuffer(d->ds, i));
	for (size_t i = 0; i < d->n; i++)
		aclrtFree(d->dev[i]);
	if (d->ds)
		aclmdlDestroyDataset(d->ds);
	memset(d, 0, sizeof(*d));
}

static float xval(size_t i, unsigned int seed)
{
	/* small multiples of 1/4: every product and sum here is exact */
	return (float)((int)((i * 7 + seed * 3) % 23) - 11) * 0.25f;
}

static void fill_x(float *x, size_t n, unsigned int seed)
{
	for (size_t i = 0; i < n; i++)
		x[i] = xval(i, seed);
}

/* Index of the first element that differs, -1 if none. */
static long first_diff(const float *got, const float *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			return (long)i;
	return -1;
}

static aclError to_dev(void *dev, const void *host, size_t n)
{
	return aclrtMemcpy(dev, n, host, n, ACL_MEMCPY_HOST_TO_DEVICE);
}

static aclError to_host(void *host, const void *dev, size_t n)
{
	return aclrtMemcpy(host, n, dev, n, ACL_MEMCPY_DEVICE_TO_HOST);
}

/* Runs the affine model once, synchronously, and checks y. */
static long affine_run(uint32_t id, unsigned int seed)
{
	size_t bytes = AFFINE_N * sizeof(float);
	float x[AFFINE_N], y[AFFINE_N], want[AFFINE_N];
	struct dset in, out;
	long bad = -2;

	fill_x(x, AFFINE_N, seed);
	om_affine_ref(x, want, AFFINE_N);
	if (dset_make(&in, 1, &bytes) || dset_make(&out, 1, &bytes))
		goto done;
	if (to_dev(in.dev[0], x, bytes) || aclmdlExecute(id, in.ds, out.ds) ||
	    to_host(y, out.dev[0], bytes))
		goto done;
	bad = first_diff(y, want, AFFINE_N);
done:
	dset_free(&in);
	dset_free(&out);
	return bad;
}

/*
 * Free device memory of device 0, once back at want: the driver gives a
 * buffer back when it retires the last job that used it, in its own time.
 */
static size_t devmem_free_settled(size_t want)
{
	size_t fr = 0, total;

	test_wait_until(aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total) || fr == want,
			TEST_SETTLE_MS);
	return fr;
}

static size_t devmem_free(void)
{
	size_t fr = 0, total;

	aclrtGetMemInfo(ACL_HBM_MEM, &fr, &total);
	return fr;
}

static bool msg_has(const char *s)
{
	const char *m = aclGetRecentErrMsg();

	return m && strstr(m, s);
}

/* ---- loading --------------------------------------------------------------- */

TEST_F(mdl, query_size)
{
	size_t work = 0, weights = 0;
	uint8_t *bad;

	ASSERT_EQ(ACL_SUCCESS, aclmdlQuerySizeFromMem(self->affine.data, self->affine.size,
						      &work, &weights));
	EXPECT_EQ(OM_AFFINE_WS_OFFSET + AFFINE_N * 4, work);
	EXPECT_EQ(omb_align(AFFINE_N * 4) + AFFINE_N * 4, weights);
	work = weights = 0;
	ASSERT_EQ(ACL_SUCCESS, aclmdlQuerySize(self->path, &work, &weights));
	EXPECT_EQ(OM_AFFINE_WS_OFFSET + AFFINE_N * 4, work);
	EXPECT_EQ(omb_align(AFFINE_N * 4) + AFFINE_N * 4, weights);
	ASSERT_EQ(ACL_SUCCESS, aclmdlQuerySizeFromMem(self->add.data, self->add.size,
						      &work, &weights));
	EXPECT_EQ(0, work);
	EXPECT_EQ(0, weights);

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlQuerySize(NULL, &work, &weights));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlQuerySize(self->path, NULL, &weights));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlQuerySize(self->path, &work, NULL));
	EXPECT_EQ(ACL_ERROR_READ_MODEL_FAILURE, aclmdlQuerySize("/nonexistent.om", &work,
								  &weights));
	EXPECT_TRUE(msg_has("/nonexistent.om"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlQuerySizeFromMem(NULL, self->add.size, &work, &weights));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlQuerySizeFromMem(self->add.data, 0, &work,
								  &weights));
	bad = malloc(self->add.size);
	memcpy(bad, self->add.data, self->add.size);
	bad[0] ^= 0xff;
	EXPECT_EQ(ACL_ERROR_PARSE_MODEL, aclmdlQuerySizeFromMem(bad, self->add.size, &work,
								&weights));
	EXPECT_TRUE(msg_has("not an .om file"));
	free(bad);
}

TEST_F(mdl, load_from_mem_and_file)
{
	size_t before = devmem_free();
	uint32_t a = 0, b = 0;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->affine.data, self->affine.size, &a));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromFile(self->path, &b));
	EXPECT_NE(0, a);
	EXPECT_NE(a, b);
	/* the weights are on the card, once per model */
	EXPECT_LT(devmem_free(), before);
	EXPECT_EQ(-1, affine_run(a, 1));
	EXPECT_EQ(-1, affine_run(b, 2));
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(a));
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(b));
	/* ids are not reused: the unloaded ones stay unknown */
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlUnload(a));
	EXPECT_TRUE(msg_has("not loaded"));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &a));
	EXPECT_NE(b, a);
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlUnload(b));
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(a));
	/* nothing is left behind on the card */
	EXPECT_EQ(before, devmem_free_settled(before));
}

TEST_F(mdl, load_argument_errors)
{
	uint32_t id;
	void *work;

	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlLoadFromMem(NULL, self->add.size, &id));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlLoadFromMem(self->add.data, 0, &id));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlLoadFromMem(self->add.data, self->add.size, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlLoadFromFile(NULL, &id));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlLoadFromFile(self->path, NULL));
	EXPECT_EQ(ACL_ERROR_READ_MODEL_FAILURE, aclmdlLoadFromFile("/nonexistent.om", &id));
	EXPECT_EQ(ACL_ERROR_READ_MODEL_FAILURE, aclmdlLoadFromFile("/tmp", &id));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlUnload(0));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlUnload(0xfffffff0));

	/* the caller's memory must hold what the model needs, on the device */
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&work, 4096, ACL_MEM_MALLOC_NORMAL_ONLY));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlLoadFromMemWithMem(self->affine.data, self->affine.size, &id, work, 16,
					   NULL, 0));
	EXPECT_TRUE(msg_has("workspace"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlLoadFromMemWithMem(self->affine.data, self->affine.size, &id,
					   (uint8_t *)work + 3800, 4096, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlLoadFromMemWithMem(self->affine.data, self->affine.size, &id, NULL, 0,
					   work, 100));
	{
		static uint8_t host[8192];

		EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
			  aclmdlLoadFromMemWithMem(self->affine.data, self->affine.size, &id,
						   NULL, 0, host, sizeof(host)));
		EXPECT_TRUE(msg_has("not"));
	}
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlLoadFromFileWithMem(self->path, &id, work, 16, NULL, 0));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(work));
}

TEST_F(mdl, load_refuses_bad_files)
{
	size_t before = devmem_free();
	uint8_t *f = malloc(self->affine.size);
	struct om_header *h = (struct om_header *)f;
	uint32_t id = 12345;

	memcpy(f, self->affine.data, self->affine.size);
	EXPECT_EQ(ACL_ERROR_PARSE_MODEL, aclmdlLoadFromMem(f, self->affine.size - 1, &id));
	EXPECT_TRUE(msg_has("truncated"));
	h->version_major = 9;
	EXPECT_EQ(ACL_ERROR_PARSE_MODEL, aclmdlLoadFromMem(f, self->affine.size, &id));
	EXPECT_TRUE(msg_has("format version 9"));
	h->version_major = OM_VERSION_MAJOR;
	h->workspace_size = 16;	/* the product no longer fits in the workspace */
	EXPECT_EQ(ACL_ERROR_PARSE_MODEL, aclmdlLoadFromMem(f, self->affine.size, &id));
	EXPECT_TRUE(msg_has("outside region 1"));
	h->workspace_size = OM_AFFINE_WS_OFFSET + AFFINE_N * 4;
	h->num_ops = 3;
	EXPECT_EQ(ACL_ERROR_PARSE_MODEL, aclmdlLoadFromMem(f, self->affine.size, &id));
	EXPECT_EQ(12345, id);
	free(f);
	/* a refused file leaves nothing on the card */
	EXPECT_EQ(before, devmem_free_settled(before));
}

TEST_F(mdl, load_with_mem)
{
	size_t work_size, weight_size, before;
	void *work, *weights;
	uint32_t a, b;

	ASSERT_EQ(ACL_SUCCESS, aclmdlQuerySizeFromMem(self->affine.data, self->affine.size,
						      &work_size, &weight_size));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&work, work_size, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&weights, weight_size, ACL_MEM_MALLOC_NORMAL_ONLY));
	before = devmem_free();
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMemWithMem(self->affine.data, self->affine.size, &a,
							work, work_size, weights, weight_size));
	/* the caller gave everything: the model takes no device memory of its own */
	EXPECT_EQ(before, devmem_free());
	EXPECT_EQ(-1, affine_run(a, 3));
	{
		/* the weights went to the caller's memory */
		float c1;

		ASSERT_EQ(ACL_SUCCESS, to_host(&c1, (uint8_t *)weights + omb_align(AFFINE_N * 4) + 4,
					       4));
		EXPECT_EQ(om_affine_c(1), c1);
	}
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(a));

	/* from a file, with the caller's workspace and the library's weights */
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromFileWithMem(self->path, &b, work, work_size,
							 NULL, 0));
	EXPECT_EQ(-1, affine_run(b, 4));
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(b));
	/* neither workspace nor weights given: as aclmdlLoadFromMem */
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMemWithMem(self->affine.data, self->affine.size, &b,
							NULL, 0, NULL, 0));
	EXPECT_EQ(-1, affine_run(b, 5));
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(b));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(work));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(weights));
}

/* ---- descriptions --------------------------------------------------------- */

TEST_F(mdl, desc_getters)
{
	aclmdlDesc *d = aclmdlCreateDesc();
	aclmdlIODims dims;
	size_t index = 99;
	uint32_t id;

	ASSERT_NE(NULL, d);
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &id));
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetDesc(d, id));
	EXPECT_EQ(2, aclmdlGetNumInputs(d));
	EXPECT_EQ(1, aclmdlGetNumOutputs(d));
	EXPECT_EQ(ADD_N * 4, aclmdlGetInputSizeByIndex(d, 0));
	EXPECT_EQ(ADD_N * 4, aclmdlGetInputSizeByIndex(d, 1));
	EXPECT_EQ(ADD_N * 4, aclmdlGetOutputSizeByIndex(d, 0));
	EXPECT_STREQ("a", aclmdlGetInputNameByIndex(d, 0));
	EXPECT_STREQ("b", aclmdlGetInputNameByIndex(d, 1));
	EXPECT_STREQ("y", aclmdlGetOutputNameByIndex(d, 0));
	EXPECT_EQ(ACL_FLOAT, aclmdlGetInputDataType(d, 1));
	EXPECT_EQ(ACL_FLOAT, aclmdlGetOutputDataType(d, 0));
	EXPECT_EQ(ACL_FORMAT_ND, aclmdlGetInputFormat(d, 0));
	EXPECT_EQ(ACL_FORMAT_ND, aclmdlGetOutputFormat(d, 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetInputDims(d, 1, &dims));
	EXPECT_STREQ("b", dims.name);
	EXPECT_EQ(3, dims.dimCount);
	EXPECT_EQ(2, dims.dims[0]);
	EXPECT_EQ(3, dims.dims[1]);
	EXPECT_EQ(5, dims.dims[2]);
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetInputDimsV2(d, 0, &dims));
	EXPECT_STREQ("a", dims.name);
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetOutputDims(d, 0, &dims));
	EXPECT_STREQ("y", dims.name);
	EXPECT_EQ(3, dims.dimCount);
	memset(&dims, 0, sizeof(dims));
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetCurOutputDims(d, 0, &dims));
	EXPECT_EQ(5, dims.dims[2]);
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetInputIndexByName(d, "b", &index));
	EXPECT_EQ(1, index);
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetOutputIndexByName(d, "y", &index));
	EXPECT_EQ(0, index);

	/* bad index, bad name, NULL arguments */
	EXPECT_EQ(0, aclmdlGetInputSizeByIndex(d, 2));
	EXPECT_TRUE(msg_has("input 2 does not exist"));
	EXPECT_EQ(0, aclmdlGetOutputSizeByIndex(d, 1));
	EXPECT_STREQ("", aclmdlGetInputNameByIndex(d, 5));
	EXPECT_STREQ("", aclmdlGetOutputNameByIndex(d, 1));
	EXPECT_EQ(ACL_DT_UNDEFINED, aclmdlGetInputDataType(d, 2));
	EXPECT_EQ(ACL_DT_UNDEFINED, aclmdlGetOutputDataType(d, 1));
	EXPECT_EQ(ACL_FORMAT_UNDEFINED, aclmdlGetInputFormat(d, 2));
	EXPECT_EQ(ACL_FORMAT_UNDEFINED, aclmdlGetOutputFormat(d, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetInputDims(d, 2, &dims));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetOutputDims(d, 1, &dims));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetCurOutputDims(d, 1, &dims));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetInputDims(d, 0, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetInputDims(NULL, 0, &dims));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetInputIndexByName(d, "y", &index));
	EXPECT_TRUE(msg_has("no input named \"y\""));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetOutputIndexByName(d, "a", &index));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetInputIndexByName(d, NULL, &index));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetInputIndexByName(d, "a", NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetInputIndexByName(NULL, "a", &index));
	EXPECT_EQ(0, aclmdlGetNumInputs(NULL));
	EXPECT_EQ(0, aclmdlGetNumOutputs(NULL));
	EXPECT_EQ(0, aclmdlGetInputSizeByIndex(NULL, 0));
	EXPECT_STREQ("", aclmdlGetInputNameByIndex(NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetDesc(NULL, id));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlGetDesc(d, id + 1000));

	/* a description outlives its model */
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
	EXPECT_STREQ("b", aclmdlGetInputNameByIndex(d, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlGetDesc(d, id));

	/* filled again, from memory and from a file, without loading */
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetDescFromMem(d, self->affine.data, self->affine.size));
	EXPECT_EQ(1, aclmdlGetNumInputs(d));
	EXPECT_STREQ("x", aclmdlGetInputNameByIndex(d, 0));
	EXPECT_EQ(AFFINE_N * 4, aclmdlGetOutputSizeByIndex(d, 0));
	ASSERT_EQ(ACL_SUCCESS, aclmdlGetDescFromFile(d, self->path));
	EXPECT_STREQ("y", aclmdlGetOutputNameByIndex(d, 0));
	EXPECT_EQ(ACL_ERROR_PARSE_MODEL, aclmdlGetDescFromMem(d, self->affine.data, 100));
	EXPECT_EQ(ACL_ERROR_READ_MODEL_FAILURE, aclmdlGetDescFromFile(d, "/nonexistent.om"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetDescFromMem(d, NULL, 100));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlGetDescFromFile(NULL, self->path));
	/* a failed fill leaves the description as it was */
	EXPECT_EQ(1, aclmdlGetNumInputs(d));
	EXPECT_EQ(ACL_SUCCESS, aclmdlDestroyDesc(d));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlDestroyDesc(NULL));
}

TEST_F(mdl, datasets)
{
	aclmdlDataset *ds = aclmdlCreateDataset();
	aclDataBuffer *b0 = aclCreateDataBuffer((void *)0x1000, 16);
	aclDataBuffer *b1 = aclCreateDataBuffer(NULL, 0);
	int64_t dims[2] = { 4, 1 };
	aclTensorDesc *td = aclCreateTensorDesc(ACL_FLOAT, 2, dims, ACL_FORMAT_ND);

	ASSERT_NE(NULL, ds);
	ASSERT_NE(NULL, td);
	EXPECT_EQ(0, aclmdlGetDatasetNumBuffers(ds));
	EXPECT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(ds, b0));
	EXPECT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(ds, b1));
	for (int i = 0; i < 20; i++)	/* grows past its first allocation */
		EXPECT_EQ(ACL_SUCCESS, aclmdlAddDatasetBuffer(ds, b1));
	EXPECT_EQ(22, aclmdlGetDatasetNumBuffers(ds));
	EXPECT_EQ(b0, aclmdlGetDatasetBuffer(ds, 0));
	EXPECT_EQ(b1, aclmdlGetDatasetBuffer(ds, 21));
	EXPECT_EQ(NULL, aclmdlGetDatasetBuffer(ds, 22));
	EXPECT_TRUE(msg_has("buffer 22 does not exist"));
	EXPECT_EQ(NULL, aclmdlGetDatasetTensorDesc(ds, 0));
	EXPECT_EQ(ACL_SUCCESS, aclmdlSetDatasetTensorDesc(ds, td, 1));
	EXPECT_EQ(td, aclmdlGetDatasetTensorDesc(ds, 1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlSetDatasetTensorDesc(ds, td, 22));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlSetDatasetTensorDesc(ds, NULL, 0));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlSetDatasetTensorDesc(NULL, td, 0));
	EXPECT_EQ(NULL, aclmdlGetDatasetTensorDesc(ds, 22));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlAddDatasetBuffer(ds, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlAddDatasetBuffer(NULL, b0));
	EXPECT_EQ(0, aclmdlGetDatasetNumBuffers(NULL));
	EXPECT_EQ(NULL, aclmdlGetDatasetBuffer(NULL, 0));
	/* the data buffer calls a dataset's user needs */
	EXPECT_EQ((void *)0x1000, aclGetDataBufferAddr(b0));
	EXPECT_EQ(16, aclGetDataBufferSizeV2(b0));
	EXPECT_EQ(16, aclGetDataBufferSize(b0));
	EXPECT_EQ(ACL_SUCCESS, aclUpdateDataBuffer(b0, (void *)0x2000, 32));
	EXPECT_EQ((void *)0x2000, aclGetDataBufferAddr(aclmdlGetDatasetBuffer(ds, 0)));
	EXPECT_EQ(ACL_SUCCESS, aclmdlDestroyDataset(ds));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlDestroyDataset(NULL));
	/* the dataset did not own its buffers */
	EXPECT_EQ(ACL_SUCCESS, aclDestroyDataBuffer(b0));
	EXPECT_EQ(ACL_SUCCESS, aclDestroyDataBuffer(b1));
	aclDestroyTensorDesc(td);
}

TEST_F(mdl, tensor_desc)
{
	int64_t dims[3] = { 2, 3, 4 }, range[3][2] = { { 1, 2 }, { 3, 3 }, { 1, 8 } }, v, r[2];
	int64_t unknown[1] = { -2 }, dyn[2] = { -1, 4 };
	aclTensorDesc *t = aclCreateTensorDesc(ACL_FLOAT16, 3, dims, ACL_FORMAT_NCHW);
	aclTensorDesc *s = aclCreateTensorDesc(ACL_INT32, 0, NULL, ACL_FORMAT_ND);
	aclTensorDesc *u = aclCreateTensorDesc(ACL_FLOAT, 1, unknown, ACL_FORMAT_ND);
	aclTensorDesc *y = aclCreateTensorDesc(ACL_FLOAT, 2, dyn, ACL_FORMAT_ND);
	float k[2] = { 1.5f, 2.5f };

	ASSERT_NE(NULL, t);
	ASSERT_NE(NULL, s);
	ASSERT_NE(NULL, u);
	ASSERT_NE(NULL, y);
	EXPECT_EQ(ACL_FLOAT16, aclGetTensorDescType(t));
	EXPECT_EQ(ACL_FORMAT_NCHW, aclGetTensorDescFormat(t));
	EXPECT_EQ(3, aclGetTensorDescNumDims(t));
	EXPECT_EQ(24, aclGetTensorDescElementCount(t));
	EXPECT_EQ(48, aclGetTensorDescSize(t));
	EXPECT_EQ(3, aclGetTensorDescDim(t, 1));
	EXPECT_EQ(-1, aclGetTensorDescDim(t, 3));
	EXPECT_EQ(ACL_SUCCESS, aclGetTensorDescDimV2(t, 2, &v));
	EXPECT_EQ(4, v);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclGetTensorDescDimV2(t, 3, &v));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclGetTensorDescDimV2(t, 0, NULL));
	/* a static dim's range is itself, until ranges are set */
	EXPECT_EQ(ACL_SUCCESS, aclGetTensorDescDimRange(t, 0, 2, r));
	EXPECT_EQ(2, r[0]);
	EXPECT_EQ(2, r[1]);
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorShapeRange(t, 3, range));
	EXPECT_EQ(ACL_SUCCESS, aclGetTensorDescDimRange(t, 2, 2, r));
	EXPECT_EQ(1, r[0]);
	EXPECT_EQ(8, r[1]);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclGetTensorDescDimRange(t, 2, 1, r));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclGetTensorDescDimRange(t, 3, 2, r));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorValueRange(t, 3, range));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorShapeRange(t, 3, NULL));

	EXPECT_STREQ("", aclGetTensorDescName(t));
	aclSetTensorDescName(t, "conv1");
	EXPECT_STREQ("conv1", aclGetTensorDescName(t));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorFormat(t, ACL_FORMAT_NHWC));
	EXPECT_EQ(ACL_FORMAT_NHWC, aclGetTensorDescFormat(t));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorStorageFormat(t, ACL_FORMAT_NCHW));
	EXPECT_EQ(ACL_FORMAT_NCHW, aclGetTensorDescFormat(t));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorShape(t, 2, dims));
	EXPECT_EQ(2, aclGetTensorDescNumDims(t));
	EXPECT_EQ(6, aclGetTensorDescElementCount(t));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorStorageShape(t, 1, dims));
	EXPECT_EQ(1, aclGetTensorDescNumDims(t));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorOriginFormat(t, ACL_FORMAT_ND));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorOriginShape(t, 3, dims));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorShape(t, -1, dims));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorShape(t, 2, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorShape(t, ACL_MAX_DIM_CNT + 1, dims));
	EXPECT_EQ(1, aclGetTensorDescNumDims(t));	/* a refused shape changes nothing */
	EXPECT_EQ(NULL, aclGetTensorDescAddress(t));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorConst(t, k, sizeof(k)));
	k[0] = 0;	/* it keeps a copy */
	EXPECT_EQ(1.5f, ((float *)aclGetTensorDescAddress(t))[0]);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorConst(t, NULL, 4));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorConst(t, k, 0));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorPlaceMent(t, ACL_MEMTYPE_HOST));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorPlaceMent(t, (aclMemType)7));
	EXPECT_EQ(ACL_SUCCESS, aclSetTensorDynamicInput(t, "x"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorDynamicInput(t, NULL));

	/* a scalar has one element; unknown ranks and dims have none known */
	EXPECT_EQ(0, aclGetTensorDescNumDims(s));
	EXPECT_EQ(1, aclGetTensorDescElementCount(s));
	EXPECT_EQ(4, aclGetTensorDescSize(s));
	EXPECT_EQ(ACL_UNKNOWN_RANK, aclGetTensorDescNumDims(u));
	EXPECT_EQ(0, aclGetTensorDescElementCount(u));
	EXPECT_EQ(2, aclGetTensorDescNumDims(y));
	EXPECT_EQ(-1, aclGetTensorDescDim(y, 0));
	EXPECT_EQ(0, aclGetTensorDescSize(y));

	/* NULL descriptions */
	EXPECT_EQ(ACL_DT_UNDEFINED, aclGetTensorDescType(NULL));
	EXPECT_EQ(ACL_FORMAT_UNDEFINED, aclGetTensorDescFormat(NULL));
	EXPECT_EQ(0, aclGetTensorDescSize(NULL));
	EXPECT_EQ(0, aclGetTensorDescElementCount(NULL));
	EXPECT_EQ(0, aclGetTensorDescNumDims(NULL));
	EXPECT_EQ(-1, aclGetTensorDescDim(NULL, 0));
	EXPECT_STREQ("", aclGetTensorDescName(NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclSetTensorFormat(NULL, ACL_FORMAT_ND));
	EXPECT_EQ(NULL, aclCreateTensorDesc(ACL_FLOAT, -1, dims, ACL_FORMAT_ND));
	EXPECT_EQ(NULL, aclCreateTensorDesc(ACL_FLOAT, 2, NULL, ACL_FORMAT_ND));
	aclDestroyTensorDesc(NULL);
	aclDestroyTensorDesc(t);
	aclDestroyTensorDesc(s);
	aclDestroyTensorDesc(u);
	aclDestroyTensorDesc(y);
}

/* ---- execution ------------------------------------------------------------ */

/* The add model's datasets, with a and b filled for seed. */
struct add_run {
	struct dset in, out;
	float a[ADD_N], b[ADD_N], want[ADD_N];
};

static aclError add_prepare(struct add_run *r, unsigned int seed)
{
	size_t bytes = ADD_N * sizeof(float), sizes[2] = { bytes, bytes };
	aclError err;

	fill_x(r->a, ADD_N, seed);
	fill_x(r->b, ADD_N, seed + 100);
	for (int i = 0; i < ADD_N; i++)
		r->want[i] = r->a[i] + r->b[i];
	err = dset_make(&r->in, 2, sizes);
	if (!err)
		err = dset_make(&r->out, 1, sizes);
	if (!err)
		err = to_dev(r->in.dev[0], r->a, bytes);
	if (!err)
		err = to_dev(r->in.dev[1], r->b, bytes);
	return err;
}

static long add_check(struct add_run *r)
{
	float y[ADD_N];

	if (to_host(y, r->out.dev[0], sizeof(y)))
		return -2;
	return first_diff(y, r->want, ADD_N);
}

static void add_free(struct add_run *r)
{
	dset_free(&r->in);
	dset_free(&r->out);
}

TEST_F(mdl, execute_add)
{
	struct add_run r;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &id));
	ASSERT_EQ(ACL_SUCCESS, add_prepare(&r, 1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecute(id, r.in.ds, r.out.ds));
	/* synchronous: the result is there when it returns */
	EXPECT_EQ(-1, add_check(&r));
	/* again on the same buffers, new inputs */
	fill_x(r.a, ADD_N, 7);
	for (int i = 0; i < ADD_N; i++)
		r.want[i] = r.a[i] + r.b[i];
	ASSERT_EQ(ACL_SUCCESS, to_dev(r.in.dev[0], r.a, sizeof(r.a)));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecute(id, r.in.ds, r.out.ds));
	EXPECT_EQ(-1, add_check(&r));
	add_free(&r);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
}

TEST_F(mdl, execute_checks_datasets)
{
	size_t bytes = ADD_N * sizeof(float), small = bytes - 4, sizes[3] = { bytes, bytes, bytes };
	struct dset one, three, short_in, out;
	aclmdlDataset *host_in;
	static float host[ADD_N];
	struct add_run r;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &id));
	ASSERT_EQ(ACL_SUCCESS, add_prepare(&r, 2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(r.out.dev[0], bytes, 0x5a, bytes));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&one, 1, sizes));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&three, 3, sizes));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&out, 1, &small));
	{
		size_t s2[2] = { bytes, small };

		ASSERT_EQ(ACL_SUCCESS, dset_make(&short_in, 2, s2));
	}
	/* wrong counts */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, one.ds, r.out.ds));
	EXPECT_TRUE(msg_has("input dataset has 1 buffers"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, three.ds, r.out.ds));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, r.in.ds, r.in.ds));
	EXPECT_TRUE(msg_has("output dataset has 2 buffers"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecuteAsync(id, one.ds, r.out.ds, self->s1));
	/* wrong sizes */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, short_in.ds, r.out.ds));
	EXPECT_TRUE(msg_has("input 1 (b) has 116 bytes, the model needs 120"));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, r.in.ds, out.ds));
	EXPECT_TRUE(msg_has("output 0 (y)"));
	/* NULL datasets, an unknown model */
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, NULL, r.out.ds));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, r.in.ds, NULL));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlExecute(id + 1000, r.in.ds, r.out.ds));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID,
		  aclmdlExecuteAsync(id + 1000, r.in.ds, r.out.ds, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM,
		  aclmdlExecuteAsync(id, r.in.ds, r.out.ds, (aclrtStream)0x42));
	/* host memory is no place for the card to compute on */
	host_in = aclmdlCreateDataset();
	aclmdlAddDatasetBuffer(host_in, aclCreateDataBuffer(host, bytes));
	aclmdlAddDatasetBuffer(host_in, aclCreateDataBuffer(host, bytes));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, host_in, r.out.ds));
	EXPECT_TRUE(msg_has("not device memory"));
	/* a buffer that says it is bigger than its allocation */
	aclUpdateDataBuffer(aclmdlGetDatasetBuffer(host_in, 0),
			    (uint8_t *)r.in.dev[0] + 8, bytes);
	aclUpdateDataBuffer(aclmdlGetDatasetBuffer(host_in, 1), r.in.dev[1], bytes);
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecute(id, host_in, r.out.ds));
	EXPECT_TRUE(msg_has("is not 120 bytes of one allocation"));
	/* nothing ran: the output keeps what was there */
	{
		uint8_t y[ADD_N * sizeof(float)];

		ASSERT_EQ(ACL_SUCCESS, to_host(y, r.out.dev[0], bytes));
		for (size_t i = 0; i < bytes; i++)
			ASSERT_EQ(0x5a, y[i]);
	}
	for (int i = 0; i < 2; i++)
		aclDestroyDataBuffer(aclmdlGetDatasetBuffer(host_in, i));
	aclmdlDestroyDataset(host_in);
	dset_free(&one);
	dset_free(&three);
	dset_free(&short_in);
	dset_free(&out);
	add_free(&r);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
}

TEST_F(mdl, stream_of_another_device)
{
	aclrtContext c1;
	aclrtStream s;
	struct add_run r;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &id));
	ASSERT_EQ(ACL_SUCCESS, add_prepare(&r, 3));
	if (aclrtCreateContext(&c1, 1) != ACL_SUCCESS)
		SKIP(goto out, "no second device");
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateStream(&s));
	EXPECT_EQ(ACL_ERROR_INVALID_PARAM, aclmdlExecuteAsync(id, r.in.ds, r.out.ds, s));
	EXPECT_TRUE(msg_has("model"));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyStream(s));
	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyContext(c1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
out:
	add_free(&r);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
}

/*
 * ExecuteAsync behind a closed gate: nothing runs until the gate opens;
 * then the copies queued behind it see the result, and an event recorded
 * after it lets another stream copy the result too.
 */
TEST_F(mdl, async_ordered_with_copies_and_events)
{
	size_t bytes = ADD_N * sizeof(float);
	float *pin_a, *pin_y, *pin_z;
	aclrtStreamStatus st;
	struct add_run r;
	aclrtEvent ev;
	void *z;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &id));
	ASSERT_EQ(ACL_SUCCESS, add_prepare(&r, 4));
	/* pinned host memory: a copy of pageable memory would wait for the gate */
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&pin_a, bytes));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&pin_y, bytes));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&pin_z, bytes));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&z, bytes, ACL_MEM_MALLOC_NORMAL_ONLY));
	memcpy(pin_a, r.a, bytes);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(r.in.dev[0], bytes, 0, bytes));
	ASSERT_EQ(ACL_SUCCESS, aclrtCreateEvent(&ev));
	memset(pin_y, 0, bytes);
	memset(pin_z, 0, bytes);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(r.out.dev[0], bytes, 0, bytes));

	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	/* the input copy, the model and the output copy, in order on s1 */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(r.in.dev[0], bytes, pin_a, bytes,
						ACL_MEMCPY_HOST_TO_DEVICE, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, r.in.ds, r.out.ds, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(pin_y, bytes, r.out.dev[0], bytes,
						ACL_MEMCPY_DEVICE_TO_HOST, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtRecordEvent(ev, self->s1));
	/* s2 waits on the card for the event, then copies the output */
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamWaitEvent(self->s2, ev));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(z, bytes, r.out.dev[0], bytes,
						ACL_MEMCPY_DEVICE_TO_DEVICE, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(pin_z, bytes, z, bytes,
						ACL_MEMCPY_DEVICE_TO_HOST, self->s2));
	sleep_ms(100);
	ASSERT_EQ(ACL_SUCCESS, aclrtStreamQuery(self->s1, &st));
	EXPECT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
	EXPECT_EQ(0, event_state(ev));
	EXPECT_EQ(0.0f, pin_y[0]);
	EXPECT_EQ(0.0f, pin_z[0]);
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	/* s2 finished only after the event, so s1's copy is done too */
	EXPECT_EQ(1, event_state(ev));
	EXPECT_EQ(-1, first_diff(pin_y, r.want, ADD_N));
	EXPECT_EQ(-1, first_diff(pin_z, r.want, ADD_N));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));

	/* the default stream, named by NULL */
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(r.out.dev[0], bytes, 0, bytes));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, r.in.ds, r.out.ds, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(NULL));
	EXPECT_EQ(-1, add_check(&r));

	EXPECT_EQ(ACL_SUCCESS, aclrtDestroyEvent(ev));
	aclrtFree(z);
	aclrtFreeHost(pin_a);
	aclrtFreeHost(pin_y);
	aclrtFreeHost(pin_z);
	add_free(&r);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
}

static void *open_later(void *p)
{
	sleep_ms(300);
	gate_open(p);
	return NULL;
}

/* aclmdlExecute runs on the default stream, behind its earlier work, and waits for it. */
TEST_F(mdl, execute_waits_behind_default_stream)
{
	size_t bytes = ADD_N * sizeof(float);
	struct add_run r;
	pthread_t t;
	float *pin_a;
	double t0;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &id));
	ASSERT_EQ(ACL_SUCCESS, add_prepare(&r, 5));
	ASSERT_EQ(ACL_SUCCESS, aclrtMallocHost((void **)&pin_a, bytes));
	memcpy(pin_a, r.a, bytes);
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(r.in.dev[0], bytes, 0, bytes));
	/* queued before it, behind a gate: the model must see a, not zeros */
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, NULL));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemcpyAsync(r.in.dev[0], bytes, pin_a, bytes,
						ACL_MEMCPY_HOST_TO_DEVICE, NULL));
	ASSERT_EQ(0, pthread_create(&t, NULL, open_later, &self->g));
	t0 = now_ms();
	EXPECT_EQ(ACL_SUCCESS, aclmdlExecute(id, r.in.ds, r.out.ds));
	EXPECT_GE(now_ms() - t0, 250);
	pthread_join(t, NULL);
	EXPECT_EQ(-1, add_check(&r));
	aclrtFreeHost(pin_a);
	add_free(&r);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
}

/* A model the loader cannot fault: y has 29 elements, a + b has 30. */
static void *om_model_bad_shapes(size_t *size)
{
	union npu_op_attrs add = omb_binary(NPU_BINARY_ADD, NPU_UNARY_NONE);
	struct om_builder *b = omb_new();
	int64_t n30 = 30, n29 = 29;
	struct omb_tensor t[3];
	void *f;

	t[0] = omb_dense(omb_input(b, "a", ACL_FLOAT, 1, &n30), 0, NPU_DTYPE_F32, 1, &n30);
	t[1] = omb_dense(omb_input(b, "b", ACL_FLOAT, 1, &n30), 0, NPU_DTYPE_F32, 1, &n30);
	omb_output(b, "y", ACL_FLOAT, 1, &n29);
	t[2] = omb_dense(omb_output_region(b, 0), 0, NPU_DTYPE_F32, 1, &n29);
	omb_op(b, "add", NPU_OPERATOR_BINARY, &add, 2, 1, t);
	f = omb_finish(b, size);
	omb_free(b);
	return f;
}

/* The card refuses an operator: the execution fails, its stream goes on. */
TEST_F(mdl, card_refuses_an_operator)
{
	size_t size, s120[2] = { 120, 120 }, s116 = 116;
	void *bad = om_model_bad_shapes(&size);
	struct dset in, out;
	struct add_run r;
	uint32_t id, good;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(bad, size, &id));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &good));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&in, 2, s120));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&out, 1, &s116));
	ASSERT_EQ(ACL_SUCCESS, add_prepare(&r, 8));
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclmdlExecute(id, in.ds, out.ds));
	EXPECT_TRUE(msg_has("disagree"));
	EXPECT_EQ(ACL_SUCCESS, aclmdlExecute(good, r.in.ds, r.out.ds));
	EXPECT_EQ(-1, add_check(&r));
	/* asynchronously: the stream's next synchronization reports it */
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, in.ds, out.ds, self->s1));
	EXPECT_EQ(ACL_ERROR_RT_AICORE_EXCEPTION, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtMemset(r.out.dev[0], 120, 0, 120));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(good, r.in.ds, r.out.ds, self->s1));
	EXPECT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	EXPECT_EQ(-1, add_check(&r));
	add_free(&r);
	dset_free(&in);
	dset_free(&out);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(good));
	free(bad);
}

/* ---- concurrency ---------------------------------------------------------- */

#define ROUNDS 6

/* A model the bursts run, with its reference computation. */
struct burst_model {
	uint32_t id;
	size_t n;			/* elements of x and y */
	void (*ref)(const float *x, float *y, size_t n);
};

static void chain_ref(const float *x, float *y, size_t n)
{
	for (size_t i = 0; i < n; i++)
		y[i] = x[i] + CHAIN_STEPS;
}

/* Executions of a model in flight on one stream, each with its own data. */
static long burst(const struct burst_model *m, aclrtStream s, unsigned int seed)
{
	size_t bytes = m->n * sizeof(float);
	struct dset in[ROUNDS], out[ROUNDS];
	float *x = NULL, *y = NULL, *want = malloc(bytes);
	long bad = -1;
	int made = 0;

	/* pinned, so that the copies are queued, not waited for */
	if (!want || aclrtMallocHost((void **)&x, ROUNDS * bytes) ||
	    aclrtMallocHost((void **)&y, ROUNDS * bytes)) {
		bad = -2;
		goto done;
	}
	for (int k = 0; k < ROUNDS; k++) {
		fill_x(x + k * m->n, m->n, seed + k);
		if (dset_make(&in[k], 1, &bytes) || dset_make(&out[k], 1, &bytes)) {
			bad = -2;
			goto done;
		}
		made++;
	}
	for (int k = 0; k < ROUNDS; k++) {
		if (aclrtMemcpyAsync(in[k].dev[0], bytes, x + k * m->n, bytes,
				     ACL_MEMCPY_HOST_TO_DEVICE, s) ||
		    aclmdlExecuteAsync(m->id, in[k].ds, out[k].ds, s) ||
		    aclrtMemcpyAsync(y + k * m->n, bytes, out[k].dev[0], bytes,
				     ACL_MEMCPY_DEVICE_TO_HOST, s)) {
			bad = -3;
			goto done;
		}
	}
	if (aclrtSynchronizeStream(s)) {
		bad = -4;
		goto done;
	}
	for (int k = 0; k < ROUNDS && bad == -1; k++) {
		m->ref(x + k * m->n, want, m->n);
		bad = first_diff(y + k * m->n, want, m->n);
		if (bad >= 0)
			bad += k * m->n;
	}
done:
	for (int k = 0; k < made; k++) {
		dset_free(&in[k]);
		dset_free(&out[k]);
	}
	aclrtFreeHost(x);
	aclrtFreeHost(y);
	free(want);
	return bad;
}

struct burst_arg {
	aclrtContext ctx;
	const struct burst_model *m;
	aclrtStream s;
	unsigned int seed;
	long bad;
};

static void *burst_thread(void *p)
{
	struct burst_arg *a = p;

	if (aclrtSetCurrentContext(a->ctx)) {
		a->bad = -5;
		return NULL;
	}
	a->bad = burst(a->m, a->s, a->seed);
	return NULL;
}

/* Two threads, two streams, one model, all at once. */
static void two_streams_at_once(struct __test_metadata *_metadata, const struct burst_model *m,
				aclrtStream s1, aclrtStream s2)
{
	struct burst_arg a[2] = { { .m = m, .s = s1, .seed = 10 },
				  { .m = m, .s = s2, .seed = 50 } };
	pthread_t t[2];

	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(ACL_SUCCESS, aclrtGetCurrentContext(&a[i].ctx));
		ASSERT_EQ(0, pthread_create(&t[i], NULL, burst_thread, &a[i]));
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
		EXPECT_EQ(-1, a[i].bad) TH_LOG("thread %d", i);
	}
}

/*
 * The chain model keeps its workspace busy for 300 operators: two streams
 * sharing one workspace would overwrite each other's sums.
 */
TEST_F(mdl, two_streams_one_model)
{
	struct burst_model affine = { .n = AFFINE_N, .ref = om_affine_ref };
	struct burst_model chain = { .n = CHAIN_N, .ref = chain_ref };
	size_t before = devmem_free();

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->affine.data, self->affine.size, &affine.id));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->chain.data, self->chain.size, &chain.id));
	EXPECT_EQ(-1, burst(&affine, self->s1, 1));
	two_streams_at_once(_metadata, &affine, self->s1, self->s2);
	two_streams_at_once(_metadata, &chain, self->s1, self->s2);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(affine.id));
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(chain.id));
	/* every execution's workspace went back */
	EXPECT_EQ(before, devmem_free_settled(before));
}

TEST_F(mdl, two_streams_caller_workspace)
{
	struct burst_model chain = { .n = CHAIN_N, .ref = chain_ref };
	size_t work_size, weight_size;
	void *work;

	ASSERT_EQ(ACL_SUCCESS, aclmdlQuerySizeFromMem(self->chain.data, self->chain.size,
						      &work_size, &weight_size));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&work, work_size, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMemWithMem(self->chain.data, self->chain.size,
							&chain.id, work, work_size, NULL, 0));
	/* one workspace for both streams: the executions take turns */
	two_streams_at_once(_metadata, &chain, self->s1, self->s2);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(chain.id));
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(work));
}

/* ---- long programs, unloading --------------------------------------------- */

TEST_F(mdl, program_longer_than_a_submission)
{
	size_t bytes = CHAIN_N * sizeof(float);
	float x[CHAIN_N], y[CHAIN_N], want[CHAIN_N];
	struct dset in, out;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->chain.data, self->chain.size, &id));
	fill_x(x, CHAIN_N, 9);
	for (int i = 0; i < CHAIN_N; i++)
		want[i] = x[i] + CHAIN_STEPS;
	ASSERT_EQ(ACL_SUCCESS, dset_make(&in, 1, &bytes));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&out, 1, &bytes));
	ASSERT_EQ(ACL_SUCCESS, to_dev(in.dev[0], x, bytes));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecute(id, in.ds, out.ds));
	ASSERT_EQ(ACL_SUCCESS, to_host(y, out.dev[0], bytes));
	EXPECT_EQ(-1, first_diff(y, want, CHAIN_N));
	/* and twice in a row on a stream, the second behind the first */
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, in.ds, out.ds, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, out.ds, in.ds, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, to_host(y, in.dev[0], bytes));
	for (int i = 0; i < CHAIN_N; i++)
		want[i] = x[i] + 2 * CHAIN_STEPS;
	EXPECT_EQ(-1, first_diff(y, want, CHAIN_N));
	dset_free(&in);
	dset_free(&out);
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
}

TEST_F(mdl, unload_with_work_queued)
{
	size_t bytes = AFFINE_N * sizeof(float), before;
	float x[AFFINE_N], y[AFFINE_N], want[AFFINE_N];
	struct dset in, out;
	uint32_t id;

	fill_x(x, AFFINE_N, 11);
	om_affine_ref(x, want, AFFINE_N);
	ASSERT_EQ(ACL_SUCCESS, dset_make(&in, 1, &bytes));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&out, 1, &bytes));
	ASSERT_EQ(ACL_SUCCESS, to_dev(in.dev[0], x, bytes));
	before = devmem_free();
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->affine.data, self->affine.size, &id));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	for (int k = 0; k < 4; k++)
		ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, in.ds, out.ds, self->s1));
	/* gone at once for the application, not for the work that uses it */
	ASSERT_EQ(ACL_SUCCESS, aclmdlUnload(id));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlExecuteAsync(id, in.ds, out.ds, self->s1));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlUnload(id));
	EXPECT_LT(devmem_free(), before);	/* weights and workspaces still held */
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, to_host(y, out.dev[0], bytes));
	EXPECT_EQ(-1, first_diff(y, want, AFFINE_N));
	/* and released once it is done */
	EXPECT_EQ(before, devmem_free_settled(before));
	dset_free(&in);
	dset_free(&out);
}

TEST_F(mdl, unload_chained_with_work_queued)
{
	size_t bytes = AFFINE_N * sizeof(float), work_size, weight_size;
	float x[AFFINE_N], y[AFFINE_N], want[AFFINE_N];
	struct dset in, out;
	void *work;
	uint32_t id;

	fill_x(x, AFFINE_N, 12);
	om_affine_ref(x, want, AFFINE_N);
	ASSERT_EQ(ACL_SUCCESS, aclmdlQuerySizeFromMem(self->affine.data, self->affine.size,
						      &work_size, &weight_size));
	ASSERT_EQ(ACL_SUCCESS, aclrtMalloc(&work, work_size, ACL_MEM_MALLOC_NORMAL_ONLY));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&in, 1, &bytes));
	ASSERT_EQ(ACL_SUCCESS, dset_make(&out, 1, &bytes));
	ASSERT_EQ(ACL_SUCCESS, to_dev(in.dev[0], x, bytes));
	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMemWithMem(self->affine.data, self->affine.size, &id,
							work, work_size, NULL, 0));
	ASSERT_EQ(ACL_SUCCESS, gate_close_on(&self->g, self->s1));
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, in.ds, out.ds, self->s1));
	/* s2's execution waits on the card for s1's */
	ASSERT_EQ(ACL_SUCCESS, aclmdlExecuteAsync(id, in.ds, out.ds, self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclmdlUnload(id));
	ASSERT_EQ(ACL_SUCCESS, gate_open(&self->g));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s2));
	ASSERT_EQ(ACL_SUCCESS, aclrtSynchronizeStream(self->s1));
	ASSERT_EQ(ACL_SUCCESS, to_host(y, out.dev[0], bytes));
	EXPECT_EQ(-1, first_diff(y, want, AFFINE_N));
	dset_free(&in);
	dset_free(&out);
	EXPECT_EQ(ACL_SUCCESS, aclrtFree(work));
}

TEST_F(mdl, device_reset_drops_model_memory)
{
	struct add_run r;
	uint32_t id;

	ASSERT_EQ(ACL_SUCCESS, aclmdlLoadFromMem(self->add.data, self->add.size, &id));
	ASSERT_EQ(ACL_SUCCESS, aclrtResetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, aclrtSetDevice(0));
	ASSERT_EQ(ACL_SUCCESS, add_prepare(&r, 6));
	EXPECT_EQ(ACL_ERROR_INVALID_MODEL_ID, aclmdlExecute(id, r.in.ds, r.out.ds));
	EXPECT_TRUE(msg_has("reset"));
	/* its description still reads, and it unloads */
	{
		aclmdlDesc *d = aclmdlCreateDesc();

		EXPECT_EQ(ACL_SUCCESS, aclmdlGetDesc(d, id));
		EXPECT_EQ(2, aclmdlGetNumInputs(d));
		aclmdlDestroyDesc(d);
	}
	EXPECT_EQ(ACL_SUCCESS, aclmdlUnload(id));
	add_free(&r);
}

TEST_HARNESS_MAIN
