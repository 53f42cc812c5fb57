/* SPDX-License-Identifier: MIT */
/* What every aclnnop header uses: the vendor's export marker. */
#ifndef ACLNNOP_ACLNN_UTIL_H
#define ACLNNOP_ACLNN_UTIL_H

#define ACLNN_API __attribute__((visibility("default")))

#endif /* ACLNNOP_ACLNN_UTIL_H */
