// SPDX-License-Identifier: MIT
/*
 * om_conformance MANIFEST: runs each model of a manifest that
 * tests/onnx/prepare.py wrote on the card, through the AscendCL model API
 * as an application would (aclmdlLoadFromFile, datasets of device
 * buffers, aclmdlExecute), and compares every output with the expected
 * one: |got - want| <= atol + rtol * |want| for floating types (onnx's
 * backend test rule), equality otherwise.  Prints TAP, one line per model,
 * each after a comment with the largest |got - want| over its floating
 * outputs, then "N passed, M failed".
 *
 * A manifest line: NAME OM RTOL ATOL NIN IN... NOUT OUT...
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"

#define MAX_IO		64
#define LINE_MAX_LEN	65536

struct test_case {
	char *name, *om;
	double rtol, atol;
	int nin, nout;
	char *in[MAX_IO], *out[MAX_IO];
};

static void *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = NULL;
	long size;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) >= 0 && !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)size + 1);
		if (buf && fread(buf, 1, (size_t)size, f) != (size_t)size) {
			free(buf);
			buf = NULL;
		}
		*len = (size_t)size;
	}
	fclose(f);
	return buf;
}

static int parse_line(char *line, struct test_case *t)
{
	char *save = NULL, *tok;
	int i;

	memset(t, 0, sizeof(*t));
	t->name = strtok_r(line, " \n", &save);
	t->om = strtok_r(NULL, " \n", &save);
	tok = strtok_r(NULL, " \n", &save);
	t->rtol = tok ? atof(tok) : 0;
	tok = strtok_r(NULL, " \n", &save);
	t->atol = tok ? atof(tok) : 0;
	tok = strtok_r(NULL, " \n", &save);
	t->nin = tok ? atoi(tok) : -1;
	if (!t->name || !t->om || t->nin < 0 || t->nin > MAX_IO)
		return -1;
	for (i = 0; i < t->nin; i++)
		if (!(t->in[i] = strtok_r(NULL, " \n", &save)))
			return -1;
	tok = strtok_r(NULL, " \n", &save);
	t->nout = tok ? atoi(tok) : -1;
	if (t->nout < 0 || t->nout > MAX_IO)
		return -1;
	for (i = 0; i < t->nout; i++)
		if (!(t->out[i] = strtok_r(NULL, " \n", &save)))
			return -1;
	return 0;
}

static float half_to_float(uint16_t h)
{
	int exp = (h >> 10) & 0x1f;
	float m = (float)(h & 0x3ff), v;

	if (exp == 0x1f)
		v = (h & 0x3ff) ? NAN : INFINITY;
	else if (exp)
		v = ldexpf(1024.0f + m, exp - 25);
	else
		v = ldexpf(m, -24);
	return (h & 0x8000) ? -v : v;
}

static float bf16_to_float(uint16_t b)
{
	uint32_t bits = (uint32_t)b << 16;
	float f;

	memcpy(&f, &bits, sizeof(f));
	return f;
}

static double element(const void *p, size_t i, aclDataType type)
{
	switch (type) {
	case ACL_FLOAT: return ((const float *)p)[i];
	case ACL_FLOAT16: return half_to_float(((const uint16_t *)p)[i]);
	case ACL_BF16: return bf16_to_float(((const uint16_t *)p)[i]);
	case ACL_INT32: return ((const int32_t *)p)[i];
	case ACL_INT8: return ((const int8_t *)p)[i];
	case ACL_UINT8: case ACL_BOOL: return ((const uint8_t *)p)[i];
	case ACL_INT64: return (double)((const int64_t *)p)[i];
	default: return NAN;
	}
}

/* NULL when @got matches @want; otherwise why not, in @why. */
static const char *compare(const void *got, const void *want, size_t bytes, aclDataType type,
			   double rtol, double atol, double *max_diff, char *why, size_t len)
{
	size_t es = aclDataTypeSize(type), i;

	if (!es)
		return snprintf(why, len, "output type %d", type), why;
	if (type != ACL_FLOAT && type != ACL_FLOAT16 && type != ACL_BF16) {
		if (!memcmp(got, want, bytes))
			return NULL;
		for (i = 0; i < bytes / es && !memcmp((const char *)got + i * es,
						    (const char *)want + i * es, es); i++)
			;
		snprintf(why, len, "element %zu differs", i);
		return why;
	}
	for (i = 0; i < bytes / es; i++) {
		double g = element(got, i, type), w = element(want, i, type);

		if ((isnan(w) && isnan(g)) || (isinf(w) && g == w))
			continue;
		if (!(fabs(g - w) <= *max_diff))
			*max_diff = fabs(g - w);
		if (!(fabs(g - w) <= atol + rtol * fabs(w))) {
			snprintf(why, len, "element %zu is %.9g, expected %.9g", i, g, w);
			return why;
		}
	}
	return NULL;
}

/* A dataset of device buffers, one per file (inputs) or size (outputs). */
static aclmdlDataset *make_dataset(aclmdlDesc *desc, int n, char *const *files, bool input,
				   void **dev, char *why, size_t len)
{
	aclmdlDataset *ds = aclmdlCreateDataset();
	int i;

	for (i = 0; ds && i < n; i++) {
		size_t size = input ? aclmdlGetInputSizeByIndex(desc, (size_t)i) :
				      aclmdlGetOutputSizeByIndex(desc, (size_t)i), flen = 0;
		void *host = NULL;

		if (aclrtMalloc(&dev[i], size ? size : 1, ACL_MEM_MALLOC_HUGE_FIRST)) {
			snprintf(why, len, "aclrtMalloc(%zu) failed", size);
			return ds;
		}
		if (input) {
			host = read_all(files[i], &flen);
			if (!host || flen != size) {
				snprintf(why, len, "%s has %zu bytes, the model takes %zu", files[i], flen, size);
				free(host);
				return ds;
			}
			if (size && aclrtMemcpy(dev[i], size, host, size, ACL_MEMCPY_HOST_TO_DEVICE)) {
				snprintf(why, len, "aclrtMemcpy to the device failed");
				free(host);
				return ds;
			}
			free(host);
		}
		if (aclmdlAddDatasetBuffer(ds, aclCreateDataBuffer(dev[i], size))) {
			snprintf(why, len, "aclmdlAddDatasetBuffer failed");
			return ds;
		}
	}
	return ds;
}

static void free_dataset(aclmdlDataset *ds, void **dev, int n)
{
	size_t i;

	for (i = 0; ds && i < aclmdlGetDatasetNumBuffers(ds); i++)
		aclDestroyDataBuffer(aclmdlGetDatasetBuffer(ds, i));
	if (ds)
		aclmdlDestroyDataset(ds);
	for (i = 0; i < (size_t)n; i++)
		if (dev[i])
			aclrtFree(dev[i]);
}

static void check_outputs(const struct test_case *t, aclmdlDesc *desc, void **dev,
			  double *max_diff, char *why, size_t len)
{
	int i;

	for (i = 0; i < t->nout && !why[0]; i++) {
		size_t size = aclmdlGetOutputSizeByIndex(desc, (size_t)i), wlen = 0;
		void *want = read_all(t->out[i], &wlen), *got = malloc(size + 1);
		const char *bad;

		if (!want || wlen != size) {
			snprintf(why, len, "output %d: %s has %zu bytes, the model writes %zu", i,
				 t->out[i], wlen, size);
		} else if (size && aclrtMemcpy(got, size, dev[i], size, ACL_MEMCPY_DEVICE_TO_HOST)) {
			snprintf(why, len, "output %d: aclrtMemcpy from the device failed", i);
		} else {
			bad = compare(got, want, size, aclmdlGetOutputDataType(desc, (size_t)i),
				      t->rtol, t->atol, max_diff, why, len);
			if (bad) {
				char tmp[256];

				snprintf(tmp, sizeof(tmp), "output %d: %s", i, bad);
				snprintf(why, len, "%s", tmp);
			}
		}
		free(want);
		free(got);
	}
}

static void run_case(const struct test_case *t, double *max_diff, char *why, size_t len)
{
	void *in_dev[MAX_IO] = { 0 }, *out_dev[MAX_IO] = { 0 };
	aclmdlDataset *in = NULL, *out = NULL;
	aclmdlDesc *desc = NULL;
	uint32_t id;
	aclError err;

	why[0] = 0;
	err = aclmdlLoadFromFile(t->om, &id);
	if (err) {
		snprintf(why, len, "aclmdlLoadFromFile: %d %s", err, aclGetRecentErrMsg());
		return;
	}
	desc = aclmdlCreateDesc();
	if (!desc || aclmdlGetDesc(desc, id)) {
		snprintf(why, len, "aclmdlGetDesc failed");
	} else if (aclmdlGetNumInputs(desc) != (size_t)t->nin ||
		   aclmdlGetNumOutputs(desc) != (size_t)t->nout) {
		snprintf(why, len, "the model has %zu inputs and %zu outputs, the manifest %d and %d",
			 aclmdlGetNumInputs(desc), aclmdlGetNumOutputs(desc), t->nin, t->nout);
	} else {
		in = make_dataset(desc, t->nin, t->in, true, in_dev, why, len);
		if (!why[0])
			out = make_dataset(desc, t->nout, t->out, false, out_dev, why, len);
		if (!why[0] && (err = aclmdlExecute(id, in, out)))
			snprintf(why, len, "aclmdlExecute: %d %s", err, aclGetRecentErrMsg());
		if (!why[0])
			check_outputs(t, desc, out_dev, max_diff, why, len);
	}
	free_dataset(in, in_dev, t->nin);
	free_dataset(out, out_dev, t->nout);
	if (desc)
		aclmdlDestroyDesc(desc);
	aclmdlUnload(id);
}

int main(int argc, char **argv)
{
	static char line[LINE_MAX_LEN];
	int n = 0, passed = 0, failed = 0;
	struct test_case t;
	double max_diff;
	char why[512];
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: om_conformance MANIFEST\n");
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	if (aclInit(NULL) || aclrtSetDevice(0)) {
		fprintf(stderr, "om_conformance: no device: %s\n", aclGetRecentErrMsg());
		fclose(f);
		return 2;
	}
	printf("TAP version 13\n");
	while (fgets(line, sizeof(line), f)) {
		if (parse_line(line, &t))
			continue;
		n++;
		max_diff = 0;
		run_case(&t, &max_diff, why, sizeof(why));
		printf("# %s: max abs diff %.3g\n", t.name, max_diff);
		if (why[0]) {
			printf("not ok %d %s # %s\n", n, t.name, why);
			failed++;
		} else {
			printf("ok %d %s\n", n, t.name);
			passed++;
		}
		fflush(stdout);
	}
	fclose(f);
	printf("1..%d\n", n);
	printf("%d passed, %d failed\n", passed, failed);
	aclrtResetDevice(0);
	aclFinalize();
	return failed ? 1 : 0;
}
