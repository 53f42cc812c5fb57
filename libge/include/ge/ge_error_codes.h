/* SPDX-License-Identifier: MIT */
/* Status, what the ge:: API returns. */
#ifndef INC_EXTERNAL_GE_GE_ERROR_CODES_H_
#define INC_EXTERNAL_GE_GE_ERROR_CODES_H_

#include <cstdint>

#include "graph/ge_error_codes.h"

namespace ge {
using Status = uint32_t;
}  // namespace ge

#endif  // INC_EXTERNAL_GE_GE_ERROR_CODES_H_
