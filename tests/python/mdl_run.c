// SPDX-License-Identifier: MIT
/*
 * mdl_run MODEL.om INPUT OUTPUT: one execution of an offline model through
 * the C API, in its own process, for test_mdl to compare acl.mdl with.
 * INPUT holds the model's inputs one after the other, each of the size its
 * description gives; OUTPUT gets the outputs the same way. Device 0.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "acl/acl.h"

#define CHECK(call)								\
	do {									\
		aclError err_ = (call);						\
		if (err_ != ACL_SUCCESS) {					\
			fprintf(stderr, "%s: %d (%s)\n", #call, err_,		\
				aclGetRecentErrMsg());				\
			exit(1);						\
		}								\
	} while (0)

/*
 * A dataset of device buffers of the description's input or output sizes,
 * filled from *src (advanced past them) when src is non-NULL.
 */
static aclmdlDataset *make_dataset(aclmdlDesc *desc, bool outputs, const char **src)
{
	size_t n = outputs ? aclmdlGetNumOutputs(desc) : aclmdlGetNumInputs(desc);
	aclmdlDataset *ds = aclmdlCreateDataset();

	for (size_t i = 0; i < n; i++) {
		size_t size = outputs ? aclmdlGetOutputSizeByIndex(desc, i)
				      : aclmdlGetInputSizeByIndex(desc, i);
		void *dev;

		CHECK(aclrtMalloc(&dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
		if (src) {
			CHECK(aclrtMemcpy(dev, size, *src, size, ACL_MEMCPY_HOST_TO_DEVICE));
			*src += size;
		}
		CHECK(aclmdlAddDatasetBuffer(ds, aclCreateDataBuffer(dev, size)));
	}
	return ds;
}

static void write_outputs(aclmdlDataset *ds, FILE *f)
{
	for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); i++) {
		aclDataBuffer *buf = aclmdlGetDatasetBuffer(ds, i);
		size_t size = aclGetDataBufferSizeV2(buf);
		void *host = malloc(size);

		CHECK(aclrtMemcpy(host, size, aclGetDataBufferAddr(buf), size,
				  ACL_MEMCPY_DEVICE_TO_HOST));
		if (fwrite(host, 1, size, f) != size) {
			perror("fwrite");
			exit(1);
		}
		free(host);
	}
}

static void free_dataset(aclmdlDataset *ds)
{
	for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(ds); i++) {
		aclDataBuffer *buf = aclmdlGetDatasetBuffer(ds, i);

		CHECK(aclrtFree(aclGetDataBufferAddr(buf)));
		CHECK(aclDestroyDataBuffer(buf));
	}
	CHECK(aclmdlDestroyDataset(ds));
}

static char *read_input(const char *path, size_t want)
{
	char *data = malloc(want + 1);
	FILE *f = fopen(path, "rb");

	if (!f || fread(data, 1, want + 1, f) != want) {
		fprintf(stderr, "%s: not %zu bytes\n", path, want);
		exit(1);
	}
	fclose(f);
	return data;
}

int main(int argc, char **argv)
{
	aclmdlDataset *in, *out;
	size_t in_size = 0;
	const char *src;
	aclmdlDesc *desc;
	uint32_t id;
	char *input;
	FILE *f;

	if (argc != 4) {
		fprintf(stderr, "usage: %s MODEL.om INPUT OUTPUT\n", argv[0]);
		return 2;
	}
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclmdlLoadFromFile(argv[1], &id));
	desc = aclmdlCreateDesc();
	CHECK(aclmdlGetDesc(desc, id));
	for (size_t i = 0; i < aclmdlGetNumInputs(desc); i++)
		in_size += aclmdlGetInputSizeByIndex(desc, i);
	input = read_input(argv[2], in_size);
	src = input;
	in = make_dataset(desc, false, &src);
	out = make_dataset(desc, true, NULL);
	CHECK(aclmdlExecute(id, in, out));
	f = fopen(argv[3], "wb");
	if (!f) {
		perror(argv[3]);
		return 1;
	}
	write_outputs(out, f);
	fclose(f);
	free_dataset(in);
	free_dataset(out);
	free(input);
	CHECK(aclmdlDestroyDesc(desc));
	CHECK(aclmdlUnload(id));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	return 0;
}
