/* SPDX-License-Identifier: MIT */
/*
 * The operator builders: one table of the op types libge_runner compiles,
 * each with the vendor's input, output and attribute names and defaults
 * (docs/graph.md lists them with what each becomes on the card).
 */
#ifndef NPU_GE_ALL_OPS_H
#define NPU_GE_ALL_OPS_H

#include "graph/operator_reg.h"

namespace ge {
/* Graph inputs and constants. */
REG_OP(Data)
	.INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.ATTR(index, Int, 0)
	.OP_END_FACTORY_REG(Data)

REG_OP(Const)
	.OUTPUT(y, TensorType::ALL())
	.ATTR(value, Tensor, Tensor())
	.OP_END_FACTORY_REG(Const)

/* Convolution and matrix products. */
REG_OP(Conv2D)
	.INPUT(x, TensorType({DT_FLOAT}))
	.INPUT(filter, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(offset_w, TensorType({DT_INT8}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.REQUIRED_ATTR(strides, ListInt)
	.REQUIRED_ATTR(pads, ListInt)
	.ATTR(dilations, ListInt, {1, 1, 1, 1})
	.ATTR(groups, Int, 1)
	.ATTR(data_format, String, "NHWC")
	.ATTR(offset_x, Int, 0)
	.OP_END_FACTORY_REG(Conv2D)

REG_OP(MatMul)
	.INPUT(x1, TensorType({DT_FLOAT}))
	.INPUT(x2, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(transpose_x1, Bool, false)
	.ATTR(transpose_x2, Bool, false)
	.OP_END_FACTORY_REG(MatMul)

REG_OP(MatMulV2)
	.INPUT(x1, TensorType({DT_FLOAT}))
	.INPUT(x2, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(offset_w, TensorType({DT_INT8}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(transpose_x1, Bool, false)
	.ATTR(transpose_x2, Bool, false)
	.ATTR(offset_x, Int, 0)
	.OP_END_FACTORY_REG(MatMulV2)

REG_OP(BatchMatMul)
	.INPUT(x1, TensorType({DT_FLOAT}))
	.INPUT(x2, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(adj_x1, Bool, false)
	.ATTR(adj_x2, Bool, false)
	.OP_END_FACTORY_REG(BatchMatMul)

REG_OP(BatchMatMulV2)
	.INPUT(x1, TensorType({DT_FLOAT}))
	.INPUT(x2, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(bias, TensorType({DT_FLOAT}))
	.OPTIONAL_INPUT(offset_w, TensorType({DT_INT8}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(adj_x1, Bool, false)
	.ATTR(adj_x2, Bool, false)
	.ATTR(offset_x, Int, 0)
	.OP_END_FACTORY_REG(BatchMatMulV2)

REG_OP(BiasAdd)
	.INPUT(x, TensorType({DT_FLOAT}))
	.INPUT(bias, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(data_format, String, "NHWC")
	.OP_END_FACTORY_REG(BiasAdd)

/* Element-wise, two inputs with broadcasting. */
#define NPU_GE_BINARY_OP(T)                                                    \
	REG_OP(T)                                                              \
		.INPUT(x1, TensorType({DT_FLOAT}))                             \
		.INPUT(x2, TensorType({DT_FLOAT}))                             \
		.OUTPUT(y, TensorType({DT_FLOAT}))                             \
		.OP_END_FACTORY_REG(T)
NPU_GE_BINARY_OP(Add)
NPU_GE_BINARY_OP(AddV2)
NPU_GE_BINARY_OP(Sub)
NPU_GE_BINARY_OP(Mul)
NPU_GE_BINARY_OP(Div)
NPU_GE_BINARY_OP(RealDiv)
NPU_GE_BINARY_OP(Maximum)
NPU_GE_BINARY_OP(Minimum)
NPU_GE_BINARY_OP(Pow)
#undef NPU_GE_BINARY_OP

/* Element-wise, one input. */
#define NPU_GE_UNARY_OP(T)                                                     \
	REG_OP(T)                                                              \
		.INPUT(x, TensorType({DT_FLOAT}))                              \
		.OUTPUT(y, TensorType({DT_FLOAT}))                             \
		.OP_END_FACTORY_REG(T)
NPU_GE_UNARY_OP(Relu)
NPU_GE_UNARY_OP(Relu6)
NPU_GE_UNARY_OP(Sigmoid)
NPU_GE_UNARY_OP(Tanh)
NPU_GE_UNARY_OP(Sqrt)
NPU_GE_UNARY_OP(Abs)
NPU_GE_UNARY_OP(Neg)
NPU_GE_UNARY_OP(Erf)
NPU_GE_UNARY_OP(Softplus)
NPU_GE_UNARY_OP(Reciprocal)
NPU_GE_UNARY_OP(Identity)
#undef NPU_GE_UNARY_OP

REG_OP(Exp)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(base, Float, -1.0)
	.ATTR(scale, Float, 1.0)
	.ATTR(shift, Float, 0.0)
	.OP_END_FACTORY_REG(Exp)

REG_OP(Log)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(base, Float, -1.0)
	.ATTR(scale, Float, 1.0)
	.ATTR(shift, Float, 0.0)
	.OP_END_FACTORY_REG(Log)

REG_OP(Elu)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(alpha, Float, 1.0)
	.OP_END_FACTORY_REG(Elu)

REG_OP(LeakyRelu)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(negative_slope, Float, 0.0)
	.OP_END_FACTORY_REG(LeakyRelu)

REG_OP(HardSigmoid)
	.INPUT(input_x, TensorType({DT_FLOAT}))
	.OUTPUT(output_y, TensorType({DT_FLOAT}))
	.ATTR(alpha, Float, 0.16666666)
	.ATTR(beta, Float, 0.5)
	.OP_END_FACTORY_REG(HardSigmoid)

/* Softmax: the vendor's is SoftmaxV2; Softmax is ours, the same builder. */
REG_OP(SoftmaxV2)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(axes, ListInt, {-1})
	.ATTR(half_to_float, Bool, false)
	.OP_END_FACTORY_REG(SoftmaxV2)

REG_OP(Softmax)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.ATTR(axes, ListInt, {-1})
	.OP_END_FACTORY_REG(Softmax)

REG_OP(LogSoftmaxV2)
	.INPUT(logits, TensorType({DT_FLOAT}))
	.OUTPUT(logsoftmax, TensorType({DT_FLOAT}))
	.ATTR(axes, ListInt, {-1})
	.OP_END_FACTORY_REG(LogSoftmaxV2)

/* Pooling. */
REG_OP(MaxPool)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.REQUIRED_ATTR(ksize, ListInt)
	.REQUIRED_ATTR(strides, ListInt)
	.REQUIRED_ATTR(padding, String)
	.ATTR(data_format, String, "NHWC")
	.OP_END_FACTORY_REG(MaxPool)

REG_OP(MaxPoolV3)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.REQUIRED_ATTR(ksize, ListInt)
	.REQUIRED_ATTR(strides, ListInt)
	.ATTR(padding_mode, String, "CALCULATED")
	.ATTR(pads, ListInt, {0, 0, 0, 0})
	.ATTR(data_format, String, "NCHW")
	.ATTR(global_pooling, Bool, false)
	.ATTR(ceil_mode, Bool, false)
	.OP_END_FACTORY_REG(MaxPoolV3)

REG_OP(AvgPool)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.REQUIRED_ATTR(ksize, ListInt)
	.REQUIRED_ATTR(strides, ListInt)
	.REQUIRED_ATTR(padding, String)
	.ATTR(data_format, String, "NHWC")
	.OP_END_FACTORY_REG(AvgPool)

REG_OP(AvgPoolV2)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.REQUIRED_ATTR(ksize, ListInt)
	.REQUIRED_ATTR(strides, ListInt)
	.ATTR(padding_mode, String, "CALCULATED")
	.ATTR(pads, ListInt, {0, 0, 0, 0})
	.ATTR(data_format, String, "NCHW")
	.ATTR(global_pooling, Bool, false)
	.ATTR(ceil_mode, Bool, false)
	.ATTR(exclusive, Bool, true)
	.ATTR(divisor_override, Int, 0)
	.OP_END_FACTORY_REG(AvgPoolV2)

REG_OP(GlobalAveragePool)
	.INPUT(x, TensorType({DT_FLOAT}))
	.OUTPUT(y, TensorType({DT_FLOAT}))
	.OP_END_FACTORY_REG(GlobalAveragePool)

/* Reductions. */
#define NPU_GE_REDUCE_OP(T)                                                    \
	REG_OP(T)                                                              \
		.INPUT(x, TensorType({DT_FLOAT}))                              \
		.INPUT(axes, TensorType({DT_INT32, DT_INT64}))                 \
		.OUTPUT(y, TensorType({DT_FLOAT}))                             \
		.ATTR(keep_dims, Bool, false)                                  \
		.OP_END_FACTORY_REG(T)                                         \
	REG_OP(T##D)                                                           \
		.INPUT(x, TensorType({DT_FLOAT}))                              \
		.OUTPUT(y, TensorType({DT_FLOAT}))                             \
		.REQUIRED_ATTR(axes, ListInt)                                  \
		.ATTR(keep_dims, Bool, false)                                  \
		.OP_END_FACTORY_REG(T##D)
NPU_GE_REDUCE_OP(ReduceMean)
NPU_GE_REDUCE_OP(ReduceSum)
NPU_GE_REDUCE_OP(ReduceMax)
NPU_GE_REDUCE_OP(ReduceMin)
#undef NPU_GE_REDUCE_OP

/* Shapes and layouts. */
REG_OP(Reshape)
	.INPUT(x, TensorType::ALL())
	.INPUT(shape, TensorType({DT_INT32, DT_INT64}))
	.OUTPUT(y, TensorType::ALL())
	.ATTR(axis, Int, 0)
	.ATTR(num_axes, Int, -1)
	.OP_END_FACTORY_REG(Reshape)

REG_OP(Flatten)
	.INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.ATTR(axis, Int, 1)
	.OP_END_FACTORY_REG(Flatten)

REG_OP(Squeeze)
	.INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.ATTR(axis, ListInt, {})
	.OP_END_FACTORY_REG(Squeeze)

REG_OP(Unsqueeze)
	.INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.ATTR(axes, ListInt, {})
	.OP_END_FACTORY_REG(Unsqueeze)

REG_OP(Concat)
	.INPUT(concat_dim, TensorType({DT_INT32, DT_INT64}))
	.DYNAMIC_INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.ATTR(N, Int, 1)
	.OP_END_FACTORY_REG(Concat)

REG_OP(ConcatV2)
	.DYNAMIC_INPUT(x, TensorType::ALL())
	.INPUT(concat_dim, TensorType({DT_INT32, DT_INT64}))
	.OUTPUT(y, TensorType::ALL())
	.ATTR(N, Int, 1)
	.OP_END_FACTORY_REG(ConcatV2)

REG_OP(ConcatD)
	.DYNAMIC_INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.REQUIRED_ATTR(concat_dim, Int)
	.ATTR(N, Int, 1)
	.OP_END_FACTORY_REG(ConcatD)

REG_OP(Transpose)
	.INPUT(x, TensorType::ALL())
	.INPUT(perm, TensorType({DT_INT32, DT_INT64}))
	.OUTPUT(y, TensorType::ALL())
	.OP_END_FACTORY_REG(Transpose)

REG_OP(TransposeD)
	.INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.REQUIRED_ATTR(perm, ListInt)
	.OP_END_FACTORY_REG(TransposeD)

REG_OP(Cast)
	.INPUT(x, TensorType::ALL())
	.OUTPUT(y, TensorType::ALL())
	.REQUIRED_ATTR(dst_type, Int)
	.OP_END_FACTORY_REG(Cast)
}  // namespace ge

#endif  // NPU_GE_ALL_OPS_H
