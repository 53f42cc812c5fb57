/* SPDX-License-Identifier: MIT */
/*
 * The vendor's op proto header of this name: the builders are one table,
 * all_ops.h, so each of these headers is all of it.
 */
#ifndef NPU_GE_NONLINEAR_FUC_OPS_H
#define NPU_GE_NONLINEAR_FUC_OPS_H

#include "all_ops.h"

#endif /* NPU_GE_NONLINEAR_FUC_OPS_H */
