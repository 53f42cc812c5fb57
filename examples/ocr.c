// SPDX-License-Identifier: MIT
/*
 * ocr: reads the text of an image on the card with PP-OCRv4, the way
 * PaddleOCR's pipeline does, minus the direction classifier.
 *
 *     ocr DET.om REC.om KEYS.txt IMAGE.ppm [EXPECTED]
 *
 * DET.om and REC.om are ch_PP-OCRv4_det_infer.onnx and
 * ch_PP-OCRv4_rec_infer.onnx compiled by atc at fixed shapes (make run
 * does it); KEYS.txt is their dictionary, ppocr_keys_v1.txt. Detection
 * gives a probability map of text; each region above 0.3, expanded as
 * PP-OCR's unclip does, is cut from the image and recognized; the CTC
 * output is decoded greedily. Prints the text and its confidence; with
 * EXPECTED, exits 1 unless the text is exactly that.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "check.h"

#define DET_THRESH	0.3f
#define UNCLIP_RATIO	1.5f
#define MIN_BOX_AREA	16
#define MAX_BOXES	32
#define MAX_TEXT	1024

/* Without libm: the examples link only libascendcl. */
static float min_f(float a, float b)
{
	return a < b ? a : b;
}

static float max_f(float a, float b)
{
	return a > b ? a : b;
}

struct image {
	int w, h;
	uint8_t *rgb;
};

struct box {
	int x0, y0, x1, y1;	/* inclusive, in image pixels */
};

/* A loaded model with its device buffers: one input, one output. */
struct net {
	uint32_t id;
	aclmdlDesc *desc;
	aclmdlIODims in_dims, out_dims;
	size_t in_size, out_size;
	void *dev_in, *dev_out;
	aclmdlDataset *in, *out;
	float *host_in, *host_out;
};

struct dict {
	char **keys;	/* keys[0] is the CTC blank */
	size_t n;
};

static int read_ppm(const char *path, struct image *img)
{
	FILE *f = fopen(path, "rb");
	int maxval;

	if (!f) {
		perror(path);
		return -1;
	}
	if (fscanf(f, "P6 %d %d %d", &img->w, &img->h, &maxval) != 3 || maxval != 255 ||
	    img->w <= 0 || img->h <= 0 || img->w > 8192 || img->h > 8192 || fgetc(f) == EOF) {
		fprintf(stderr, "%s: not an 8-bit binary PPM\n", path);
		fclose(f);
		return -1;
	}
	img->rgb = malloc((size_t)img->w * img->h * 3);
	if (!img->rgb || fread(img->rgb, 3, (size_t)img->w * img->h, f) != (size_t)img->w * img->h) {
		fprintf(stderr, "%s: short file\n", path);
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

/*
 * PP-OCR's dictionary convention: index 0 is the blank, then one key per
 * line of the file, then a space (use_space_char).
 */
static int read_dict(const char *path, struct dict *d)
{
	FILE *f = fopen(path, "r");
	char line[64];
	size_t cap = 8192;

	if (!f) {
		perror(path);
		return -1;
	}
	d->keys = malloc(cap * sizeof(*d->keys));
	if (!d->keys) {
		fclose(f);
		return -1;
	}
	d->keys[0] = strdup("");
	d->n = 1;
	while (fgets(line, sizeof(line), f) && d->n < cap - 1) {
		line[strcspn(line, "\r\n")] = 0;
		d->keys[d->n++] = strdup(line);
	}
	d->keys[d->n++] = strdup(" ");
	fclose(f);
	return 0;
}

static void free_dict(struct dict *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->keys[i]);
	free(d->keys);
}

/* Bilinear sample of channel c at (x, y), half-pixel centers as cv2.resize. */
static float sample(const struct image *img, float x, float y, int c)
{
	int x0, y0, x1, y1;
	float fx, fy, a, b;

	x = min_f(max_f(x, 0), img->w - 1);
	y = min_f(max_f(y, 0), img->h - 1);
	x0 = (int)x;
	y0 = (int)y;
	x1 = x0 + 1 < img->w ? x0 + 1 : x0;
	y1 = y0 + 1 < img->h ? y0 + 1 : y0;
	fx = x - x0;
	fy = y - y0;
#define PX(xx, yy) ((float)img->rgb[((size_t)(yy) * img->w + (xx)) * 3 + c])
	a = PX(x0, y0) * (1 - fx) + PX(x1, y0) * fx;
	b = PX(x0, y1) * (1 - fx) + PX(x1, y1) * fx;
#undef PX
	return a * (1 - fy) + b * fy;
}

/*
 * Resizes the region r of img into the top left w x h of a planar tensor
 * of width tw and height th, normalized per channel as (v / 255 - mean) /
 * std, channels in BGR order as PP-OCR (OpenCV) feeds them. The rest of the
 * tensor is pad.
 */
static void fill_tensor(float *t, int tw, int th, const struct image *img, const struct box *r,
			int w, int h, const float mean[3], const float std[3], float pad)
{
	float sx = (float)(r->x1 - r->x0 + 1) / w, sy = (float)(r->y1 - r->y0 + 1) / h;

	for (int c = 0; c < 3; c++) {
		float *plane = t + (size_t)c * tw * th;

		for (int y = 0; y < th; y++)
			for (int x = 0; x < tw; x++) {
				float v = pad;

				if (x < w && y < h)
					v = (sample(img, r->x0 + (x + 0.5f) * sx - 0.5f,
						    r->y0 + (y + 0.5f) * sy - 0.5f, 2 - c) / 255 -
					     mean[c]) / std[c];
				plane[(size_t)y * tw + x] = v;
			}
	}
}

static int load_net(const char *path, struct net *n)
{
	aclDataBuffer *buf;

	CHECK(aclmdlLoadFromFile(path, &n->id));
	n->desc = aclmdlCreateDesc();
	if (!n->desc)
		return 1;
	CHECK(aclmdlGetDesc(n->desc, n->id));
	CHECK(aclmdlGetInputDims(n->desc, 0, &n->in_dims));
	CHECK(aclmdlGetOutputDims(n->desc, 0, &n->out_dims));
	n->in_size = aclmdlGetInputSizeByIndex(n->desc, 0);
	n->out_size = aclmdlGetOutputSizeByIndex(n->desc, 0);
	CHECK(aclrtMalloc(&n->dev_in, n->in_size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMalloc(&n->dev_out, n->out_size, ACL_MEM_MALLOC_HUGE_FIRST));
	CHECK(aclrtMallocHost((void **)&n->host_in, n->in_size));
	CHECK(aclrtMallocHost((void **)&n->host_out, n->out_size));
	n->in = aclmdlCreateDataset();
	n->out = aclmdlCreateDataset();
	if (!n->in || !n->out)
		return 1;
	buf = aclCreateDataBuffer(n->dev_in, n->in_size);
	CHECK(aclmdlAddDatasetBuffer(n->in, buf));
	buf = aclCreateDataBuffer(n->dev_out, n->out_size);
	CHECK(aclmdlAddDatasetBuffer(n->out, buf));
	return 0;
}

static int run_net(struct net *n, aclrtStream stream)
{
	CHECK(aclrtMemcpy(n->dev_in, n->in_size, n->host_in, n->in_size, ACL_MEMCPY_HOST_TO_DEVICE));
	CHECK(aclmdlExecuteAsync(n->id, n->in, n->out, stream));
	CHECK(aclrtSynchronizeStream(stream));
	CHECK(aclrtMemcpy(n->host_out, n->out_size, n->dev_out, n->out_size,
			  ACL_MEMCPY_DEVICE_TO_HOST));
	return 0;
}

static int free_dataset(aclmdlDataset *set)
{
	for (size_t i = 0; i < aclmdlGetDatasetNumBuffers(set); i++)
		CHECK(aclDestroyDataBuffer(aclmdlGetDatasetBuffer(set, i)));
	CHECK(aclmdlDestroyDataset(set));
	return 0;
}

static int unload_net(struct net *n)
{
	if (free_dataset(n->in) || free_dataset(n->out))
		return 1;
	CHECK(aclrtFreeHost(n->host_in));
	CHECK(aclrtFreeHost(n->host_out));
	CHECK(aclrtFree(n->dev_in));
	CHECK(aclrtFree(n->dev_out));
	CHECK(aclmdlUnload(n->id));
	CHECK(aclmdlDestroyDesc(n->desc));
	return 0;
}

/*
 * Connected regions (8-neighbour) of the map above the threshold, each as
 * its bounding rectangle grown by PP-OCR's unclip distance
 * (area * ratio / perimeter), in map pixels.
 */
static int find_boxes(const float *map, int w, int h, struct box *boxes, int max)
{
	uint8_t *seen = calloc((size_t)w * h, 1);
	int *stack = malloc((size_t)w * h * sizeof(*stack));
	int n = 0;

	if (!seen || !stack) {
		free(seen);
		free(stack);
		return -1;
	}
	for (int start = 0; start < w * h; start++) {
		struct box b = { w, h, -1, -1 };
		int top = 0, area = 0;
		float d, bw, bh;

		if (seen[start] || map[start] <= DET_THRESH)
			continue;
		seen[start] = 1;
		stack[top++] = start;
		while (top) {
			int p = stack[--top], px = p % w, py = p / w;

			area++;
			b.x0 = px < b.x0 ? px : b.x0;
			b.x1 = px > b.x1 ? px : b.x1;
			b.y0 = py < b.y0 ? py : b.y0;
			b.y1 = py > b.y1 ? py : b.y1;
			for (int dy = -1; dy <= 1; dy++)
				for (int dx = -1; dx <= 1; dx++) {
					int qx = px + dx, qy = py + dy, q = qy * w + qx;

					if (qx < 0 || qy < 0 || qx >= w || qy >= h || seen[q] ||
					    map[q] <= DET_THRESH)
						continue;
					seen[q] = 1;
					stack[top++] = q;
				}
		}
		if (area < MIN_BOX_AREA || n == max)
			continue;
		bw = b.x1 - b.x0 + 1;
		bh = b.y1 - b.y0 + 1;
		d = bw * bh * UNCLIP_RATIO / (2 * (bw + bh));
		b.x0 = (int)max_f(0, b.x0 - d);
		b.y0 = (int)max_f(0, b.y0 - d);
		b.x1 = (int)min_f(w - 1, b.x1 + d);
		b.y1 = (int)min_f(h - 1, b.y1 + d);
		boxes[n++] = b;
	}
	free(seen);
	free(stack);
	return n;
}

/* Reading order: top to bottom by line, then left to right. */
static int box_order(const void *pa, const void *pb)
{
	const struct box *a = pa, *b = pb;

	if (a->y1 < b->y0)
		return -1;
	if (b->y1 < a->y0)
		return 1;
	return a->x0 - b->x0;
}

/*
 * Greedy CTC: the best class at each step, repeats merged, blanks
 * dropped. Appends the text to out and returns the mean probability of
 * the kept characters (1 when there are none).
 */
static float ctc_decode(const float *probs, int steps, int classes, const struct dict *d,
			char *out, size_t out_size)
{
	float conf = 0;
	int prev = 0, kept = 0;

	for (int t = 0; t < steps; t++) {
		const float *row = probs + (size_t)t * classes;
		int best = 0;

		for (int k = 1; k < classes; k++)
			if (row[k] > row[best])
				best = k;
		if (best != 0 && best != prev && (size_t)best < d->n) {
			strncat(out, d->keys[best], out_size - strlen(out) - 1);
			conf += row[best];
			kept++;
		}
		prev = best;
	}
	return kept ? conf / kept : 1;
}

static const float det_mean[3] = { 0.485f, 0.456f, 0.406f };
static const float det_std[3] = { 0.229f, 0.224f, 0.225f };
static const float rec_mean[3] = { 0.5f, 0.5f, 0.5f };
static const float rec_std[3] = { 0.5f, 0.5f, 0.5f };

/* Detection: the image scaled to fit the input, aspect kept, white around it. */
static int detect(struct net *det, aclrtStream stream, const struct image *img,
		  struct box *boxes, int *count)
{
	int th = (int)det->in_dims.dims[2], tw = (int)det->in_dims.dims[3];
	struct box all = { 0, 0, img->w - 1, img->h - 1 };
	float scale = min_f((float)th / img->h, (float)tw / img->w);
	int w = (int)(img->w * scale + 0.5f), h = (int)(img->h * scale + 0.5f);
	float white[3];

	for (int c = 0; c < 3; c++)
		white[c] = (1 - det_mean[c]) / det_std[c];
	fill_tensor(det->host_in, tw, th, img, &all, w, h, det_mean, det_std, 0);
	for (int c = 0; c < 3; c++)
		for (int y = 0; y < th; y++)
			for (int x = 0; x < tw; x++)
				if (x >= w || y >= h)
					det->host_in[((size_t)c * th + y) * tw + x] = white[c];
	if (run_net(det, stream))
		return 1;
	*count = find_boxes(det->host_out, tw, th, boxes, MAX_BOXES);
	if (*count < 0)
		return 1;
	for (int i = 0; i < *count; i++) {
		boxes[i].x0 = (int)(boxes[i].x0 / scale);
		boxes[i].y0 = (int)(boxes[i].y0 / scale);
		boxes[i].x1 = (int)min_f(img->w - 1, (boxes[i].x1 + 1) / scale);
		boxes[i].y1 = (int)min_f(img->h - 1, (boxes[i].y1 + 1) / scale);
	}
	qsort(boxes, *count, sizeof(*boxes), box_order);
	return 0;
}

/* Recognition of one box: height 48, width by aspect up to the input's, zero pad. */
static int recognize(struct net *rec, aclrtStream stream, const struct image *img,
		     const struct box *b, const struct dict *d, char *text, float *conf)
{
	int th = (int)rec->in_dims.dims[2], tw = (int)rec->in_dims.dims[3];
	int bw = b->x1 - b->x0 + 1, bh = b->y1 - b->y0 + 1;
	int w = (th * bw + bh - 1) / bh;

	if (w > tw)
		w = tw;
	fill_tensor(rec->host_in, tw, th, img, b, w, th, rec_mean, rec_std, 0);
	if (run_net(rec, stream))
		return 1;
	*conf = ctc_decode(rec->host_out, (int)rec->out_dims.dims[1], (int)rec->out_dims.dims[2],
			   d, text, MAX_TEXT);
	return 0;
}

int main(int argc, char **argv)
{
	struct box boxes[MAX_BOXES];
	char text[MAX_TEXT] = "";
	aclrtContext context;
	struct net det, rec;
	aclrtStream stream;
	struct image img;
	float conf = 0;
	struct dict d;
	int nboxes;

	if (argc != 5 && argc != 6) {
		fprintf(stderr, "usage: ocr DET.om REC.om KEYS.txt IMAGE.ppm [EXPECTED]\n");
		return 2;
	}
	if (read_ppm(argv[4], &img) || read_dict(argv[3], &d))
		return 1;

	CHECK(aclInit(NULL));
	CHECK(aclrtSetDevice(0));
	CHECK(aclrtCreateContext(&context, 0));
	CHECK(aclrtCreateStream(&stream));
	if (load_net(argv[1], &det) || load_net(argv[2], &rec))
		return 1;
	if (rec.out_dims.dimCount != 3 || (size_t)rec.out_dims.dims[2] != d.n) {
		fprintf(stderr, "ocr: %s has %lld classes, the dictionary %zu\n", argv[2],
			(long long)rec.out_dims.dims[rec.out_dims.dimCount - 1], d.n);
		return 1;
	}

	if (detect(&det, stream, &img, boxes, &nboxes))
		return 1;
	for (int i = 0; i < nboxes; i++) {
		float c;

		if (i)
			strncat(text, " ", sizeof(text) - strlen(text) - 1);
		if (recognize(&rec, stream, &img, &boxes[i], &d, text, &c))
			return 1;
		conf += c / nboxes;
		printf("ocr: box %d at (%d,%d)-(%d,%d) of %dx%d\n", i, boxes[i].x0, boxes[i].y0,
		       boxes[i].x1, boxes[i].y1, img.w, img.h);
	}
	printf("read on the card: %s (confidence %.3f)\n", text, conf);

	if (unload_net(&rec) || unload_net(&det))
		return 1;
	CHECK(aclrtDestroyStream(stream));
	CHECK(aclrtDestroyContext(context));
	CHECK(aclrtResetDevice(0));
	CHECK(aclFinalize());
	free_dict(&d);
	free(img.rgb);
	if (argc == 6 && strcmp(text, argv[5])) {
		fflush(stdout);		/* after what it read, when both go to one pipe */
		fprintf(stderr, "ocr: expected \"%s\"\n", argv[5]);
		return 1;
	}
	return 0;
}
