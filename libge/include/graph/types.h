/* SPDX-License-Identifier: MIT */
/* Data types and formats, with the vendor's values. */
#ifndef INC_EXTERNAL_GRAPH_TYPES_H_
#define INC_EXTERNAL_GRAPH_TYPES_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph/ge_error_codes.h"

namespace ge {
using char_t = char;
using float32_t = float;
using float64_t = double;

static const int64_t UNKNOWN_DIM = -1;
static const int64_t UNKNOWN_DIM_NUM = -2;

enum DataType {
	DT_FLOAT = 0,
	DT_FLOAT16 = 1,
	DT_INT8 = 2,
	DT_INT32 = 3,
	DT_UINT8 = 4,
	DT_INT16 = 6,
	DT_UINT16 = 7,
	DT_UINT32 = 8,
	DT_INT64 = 9,
	DT_UINT64 = 10,
	DT_DOUBLE = 11,
	DT_BOOL = 12,
	DT_STRING = 13,
	DT_BF16 = 27,
	DT_UNDEFINED = 28,
	DT_MAX = 29,	/* ours: the first value past those above */
};

/* Bytes per element; -1 for the types that have none. */
GE_FUNC_VISIBILITY int GetSizeByDataType(DataType data_type);

enum Format {
	FORMAT_NCHW = 0,
	FORMAT_NHWC = 1,
	FORMAT_ND = 2,
	FORMAT_NC1HWC0 = 3,
	FORMAT_FRACTAL_Z = 4,
	FORMAT_RESERVED = 40,	/* ours: no format given */
};

enum Placement {
	kPlacementHost = 0,
	kPlacementDevice = 1,
	kPlacementEnd,
};
}  // namespace ge

#endif  // INC_EXTERNAL_GRAPH_TYPES_H_
