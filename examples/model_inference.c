// SPDX-License-Identifier: MIT
/*
 * Model inference, the vendor's quick-start flow: device, context and
 * stream; a model that atc compiled, loaded from its .om; its description;
 * input and output datasets of device buffers; the input copied to the
 * device; aclmdlExecute, then aclmdlExecuteAsync on the stream; the
 * output copied back and its five highest scores printed; everything
 * released in reverse.
 *
 * usage: model_inference [MODEL.om INPUT.bin]
 * Without arguments it runs the MobileNetV3 test network that make check
 * prepares (make e2e-prepare), on its seeded input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

#define DEFAULT_MODEL	"build/e2e/mobilenetv3_op11/model.om"
#define DEFAULT_INPUT	"build/e2e/mobilenetv3_op11/input_0.bin"
#define TOP		5

/* The input file into host memory of exactly the model's input size. */
static void *read_input(const char *path, size_t size)
{
	FILE *f = fopen(path, "rb");
	void *buf = malloc(size);
	size_t got = 0;

	if (f && buf)
		got = fread(buf, 1, size, f);
	if (f)
		fclose(f);
	if (got != size) {
		fprintf(stderr, "%s: expected %zu bytes of input\n", path, size);
		free(buf);
		return NULL;
	}
	return buf;
}

static void print_top(const float *scores, size_t n, const char *how)
{
	int best[TOP];

	for (int k = 0; k < TOP; k++) {
		best[k] = -1;
		for (size_t i = 0; i < n; i++) {
			int taken = 0;

			for (int j = 0; j < k; j++)
				taken |= best[j] == (int)i;
			if (!taken && (best[k] < 0 || scores[i] > scores[best[k]]))
				best[k] = (int)i;
		}
	}
	printf("%s top-%d:", how, TOP);
	for (int k = 0; k < TOP && best[k] >= 0; k++)
		printf(" class %d (%.4f)", best[k], scores[best[k]]);
	printf("\n");
}

int main(int argc, char **argv)
{
	const char *model_path = argc > 2 ? argv[1] : DEFAULT_MODEL;
	const char *input_path = argc > 2 ? argv[2] : DEFAULT_INPUT;
	aclrtContext context;
	aclrtStream stream;
	uint32_t model_id;
	aclmdlDesc *desc;
	aclmdlDataset *input, *output;
	aclDataBuffer *in_buf, *out_buf;
	void *in_dev, *out_dev, *host_in, *host_out, *host_sync;
	size_t in_size, out_size;

	/* Resources, in the order the runtime requires them. */
	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateContext(&context, 0));
	CHECK(aclrtCreateStream(&stream));

	/* The model and what it takes and gives. */
	CHECK(aclmdlLoadFromFile(model_path, &model_id));
	desc = aclmdlCreateDesc();
	if (!desc)
		return 1;
	CHECK(aclmdlGetDesc(desc, model_id));
	in_size = aclmdlGetInputSizeByIndex(desc, 0);
	out_size = aclmdlGetOutputSizeByIndex(desc, 0);
	printf("%s: %zu input(s), %zu output(s); input 0 %zu bytes, output 0 %zu bytes\n",
	       model_path, aclmdlGetNumInputs(desc), aclmdlGetNumOutputs(desc), in_size, out_size);
	if (aclmdlGetNumInputs(desc) != 1 || aclmdlGetOutputDataType(desc, 0) != ACL_FLOAT) {
		fprintf(stderr, "this example takes one input and a float output\n");
		return 1;
	}

	/* Device buffers, wrapped in the datasets aclmdlExecute takes. */
	CHECK(aclrtMalloc(&in_dev, in_size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&out_dev, out_size, ACL_MEM_MALLOC_HUGE_FIRST));
	input = aclmdlCreateDataset();
	output = aclmdlCreateDataset();
	in_buf = aclCreateDataBuffer(in_dev, in_size);
	out_buf = aclCreateDataBuffer(out_dev, out_size);
	if (!input || !output || !in_buf || !out_buf)
		return 1;
	CHECK(aclmdlAddDatasetBuffer(input, in_buf));
	CHECK(aclmdlAddDatasetBuffer(output, out_buf));

	/* Host to device. */
	host_in = read_input(input_path, in_size);
	if (!host_in)
		return 1;
	CHECK(aclrtMallocHost(&host_out, out_size));
	CHECK(aclrtMemcpy(in_dev, in_size, host_in, in_size, ACL_MEMCPY_HOST_TO_DEVICE));

	/* Synchronous: the call returns with the output written. */
	CHECK(aclmdlExecute(model_id, input, output));
	CHECK(aclrtMemcpy(host_out, out_size, out_dev, out_size, ACL_MEMCPY_DEVICE_TO_HOST));
	print_top(host_out, out_size / sizeof(float), "aclmdlExecute");

	/*
	 * Asynchronous: queued on the stream behind a clear of the output, and
	 * done once the stream is synced; the same input gives the same scores.
	 */
	host_sync = malloc(out_size);
	if (!host_sync)
		return 1;
	memcpy(host_sync, host_out, out_size);
	CHECK(aclrtMemsetAsync(out_dev, out_size, 0, out_size, stream));
	CHECK(aclmdlExecuteAsync(model_id, input, output, stream));
	CHECK(aclrtSynchronizeStream(stream));
	CHECK(aclrtMemcpy(host_out, out_size, out_dev, out_size, ACL_MEMCPY_DEVICE_TO_HOST));
	print_top(host_out, out_size / sizeof(float), "aclmdlExecuteAsync");
	if (memcmp(host_sync, host_out, out_size)) {
		fprintf(stderr, "aclmdlExecuteAsync's scores differ from aclmdlExecute's\n");
		return 1;
	}
	free(host_sync);

	/* Released in reverse. */
	CHECK(aclrtFreeHost(host_out));
	free(host_in);
	CHECK(aclDestroyDataBuffer(out_buf));
	CHECK(aclDestroyDataBuffer(in_buf));
	CHECK(aclmdlDestroyDataset(output));
	CHECK(aclmdlDestroyDataset(input));
	CHECK(aclrtFree(out_dev));
	CHECK(aclrtFree(in_dev));
	CHECK(aclmdlDestroyDesc(desc));
	CHECK(aclmdlUnload(model_id));
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	printf("model_inference: done\n");
	return 0;
}
