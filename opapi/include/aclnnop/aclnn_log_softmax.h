/* SPDX-License-Identifier: MIT */
/* aclnnLogSoftmax under the name the vendor's operator repository gives its header. */
#ifndef ACLNNOP_ACLNN_LOG_SOFTMAX_H
#define ACLNNOP_ACLNN_LOG_SOFTMAX_H

#include "aclnnop/aclnn_logsoftmax.h"

#endif /* ACLNNOP_ACLNN_LOG_SOFTMAX_H */
