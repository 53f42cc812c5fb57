/* SPDX-License-Identifier: MIT */
/*
 * Shape, TensorDesc and Tensor.  A Tensor's data is host memory it owns,
 * or, given with a deleter (SetData(ptr, size, deleter)), any memory the
 * caller names: RunGraphWithStreamAsync takes device memory that way.
 */
#ifndef INC_EXTERNAL_GRAPH_TENSOR_H_
#define INC_EXTERNAL_GRAPH_TENSOR_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "graph/ascend_string.h"
#include "graph/ge_error_codes.h"
#include "graph/types.h"

namespace ge {
class ShapeImpl;
class GE_FUNC_VISIBILITY Shape {
 public:
	Shape();
	~Shape() = default;
	explicit Shape(const std::vector<int64_t> &dims);

	size_t GetDimNum() const;
	int64_t GetDim(size_t idx) const;
	graphStatus SetDim(size_t idx, int64_t value);
	std::vector<int64_t> GetDims() const;
	int64_t GetShapeSize() const;

 private:
	std::shared_ptr<ShapeImpl> impl_;
};

class TensorDescImpl;
class GE_FUNC_VISIBILITY TensorDesc {
 public:
	TensorDesc();
	~TensorDesc() = default;
	explicit TensorDesc(Shape shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT);
	TensorDesc(const TensorDesc &desc);
	TensorDesc(TensorDesc &&desc);
	TensorDesc &operator=(const TensorDesc &desc);
	TensorDesc &operator=(TensorDesc &&desc);

	void Update(const Shape &shape, Format format = FORMAT_ND, DataType dt = DT_FLOAT);
	Shape GetShape() const;
	void SetShape(const Shape &shape);
	Format GetFormat() const;
	void SetFormat(Format format);
	Shape GetOriginShape() const;
	void SetOriginShape(const Shape &origin_shape);
	Format GetOriginFormat() const;
	void SetOriginFormat(Format origin_format);
	DataType GetDataType() const;
	void SetDataType(DataType dt);
	graphStatus GetName(AscendString &name) const;
	void SetName(const char_t *name);
	void SetSize(int64_t size);
	int64_t GetSize() const;
	int64_t GetRealDimCnt() const;
	void SetRealDimCnt(const int64_t real_dim_cnt);
	void SetPlacement(Placement placement);
	Placement GetPlacement() const;

 private:
	std::shared_ptr<TensorDescImpl> impl;
};

class TensorImpl;
class GE_FUNC_VISIBILITY Tensor {
 public:
	using DeleteFunc = std::function<void(uint8_t *)>;
	Tensor();
	~Tensor() = default;
	explicit Tensor(const TensorDesc &tensor_desc);
	Tensor(const TensorDesc &tensor_desc, const std::vector<uint8_t> &data);
	Tensor(const TensorDesc &tensor_desc, const uint8_t *data, size_t size);
	Tensor(TensorDesc &&tensor_desc, std::vector<uint8_t> &&data);

	TensorDesc GetTensorDesc() const;
	graphStatus SetTensorDesc(const TensorDesc &tensor_desc);

	const uint8_t *GetData() const;
	uint8_t *GetData();
	size_t GetSize() const;
	std::unique_ptr<uint8_t[], Tensor::DeleteFunc> ResetData();

	graphStatus SetData(std::vector<uint8_t> &&data);
	graphStatus SetData(const std::vector<uint8_t> &data);
	graphStatus SetData(const uint8_t *data, size_t size);
	graphStatus SetData(uint8_t *data, size_t size, const Tensor::DeleteFunc &deleter_func);
	graphStatus IsValid();

	graphStatus SetFormat(const ge::Format &format);
	ge::Format GetFormat() const;
	graphStatus SetDataType(const ge::DataType &dtype);
	ge::DataType GetDataType() const;
	graphStatus SetPlacement(const ge::Placement &placement);
	ge::Placement GetPlacement() const;
	size_t GetShapeDimNum() const;
	int64_t GetShapeDim(const size_t idx) const;

	Tensor Clone() const;

 private:
	std::shared_ptr<TensorImpl> impl;
};
}  // namespace ge

#endif  // INC_EXTERNAL_GRAPH_TENSOR_H_
