// SPDX-License-Identifier: MIT
/* AscendString, Shape, TensorDesc and Tensor. */
#include <cstring>
#include <functional>

#include "ge_internal.h"

namespace ge {
/* The table's numbers are the ones applications compile against. */
#define GE_NUMBER_IS(id, name, size, acl, onnx, ge, card) \
	static_assert(DT_##id == (ge), "ge::DataType of " #id);
NPU_DTYPES_GE(GE_NUMBER_IS)
static_assert(DT_UNDEFINED == NPU_DT_GE_UNDEFINED, "ge::DataType of no type");

int GetSizeByDataType(DataType data_type)
{
	size_t size = npu_dtype_ge_size(data_type);

	return size ? (int)size : -1;
}

/* AscendString */

AscendString::AscendString(const char_t *const name)
	: name_(name ? std::make_shared<std::string>(name) : nullptr) {}

AscendString::AscendString(const char_t *const name, size_t length)
	: name_(name ? std::make_shared<std::string>(name, length) : nullptr) {}

const char_t *AscendString::GetString() const { return name_ ? name_->c_str() : ""; }
size_t AscendString::GetLength() const { return name_ ? name_->size() : 0; }

size_t AscendString::Find(const AscendString &s) const
{
	return std::string(GetString()).find(s.GetString());
}

size_t AscendString::Hash() const { return std::hash<std::string>()(GetString()); }

static int compare(const AscendString &a, const AscendString &b)
{
	return std::strcmp(a.GetString(), b.GetString());
}

bool AscendString::operator<(const AscendString &d) const { return compare(*this, d) < 0; }
bool AscendString::operator>(const AscendString &d) const { return compare(*this, d) > 0; }
bool AscendString::operator<=(const AscendString &d) const { return compare(*this, d) <= 0; }
bool AscendString::operator>=(const AscendString &d) const { return compare(*this, d) >= 0; }
bool AscendString::operator==(const AscendString &d) const { return compare(*this, d) == 0; }
bool AscendString::operator!=(const AscendString &d) const { return compare(*this, d) != 0; }
bool AscendString::operator==(const char_t *const d) const
{
	return std::strcmp(GetString(), d ? d : "") == 0;
}
bool AscendString::operator!=(const char_t *const d) const { return !(*this == d); }

/* Shape */

class ShapeImpl {
 public:
	std::vector<int64_t> dims;
};

Shape::Shape() : impl_(std::make_shared<ShapeImpl>()) {}

Shape::Shape(const std::vector<int64_t> &dims) : impl_(std::make_shared<ShapeImpl>())
{
	impl_->dims = dims;
}

size_t Shape::GetDimNum() const
{
	for (int64_t d : impl_->dims)
		if (d == UNKNOWN_DIM_NUM)
			return 0;
	return impl_->dims.size();
}

int64_t Shape::GetDim(size_t idx) const
{
	return idx < impl_->dims.size() ? impl_->dims[idx] : 0;
}

graphStatus Shape::SetDim(size_t idx, int64_t value)
{
	if (idx >= impl_->dims.size())
		return GRAPH_FAILED;
	impl_->dims[idx] = value;
	return GRAPH_SUCCESS;
}

std::vector<int64_t> Shape::GetDims() const { return impl_->dims; }

int64_t Shape::GetShapeSize() const
{
	int64_t n = 1;

	if (impl_->dims.empty())
		return 0;
	for (int64_t d : impl_->dims) {
		if (d < 0)
			return -1;
		if (d && n > INT64_MAX / d)
			return 0;
		n *= d;
	}
	return n;
}

/* TensorDesc: a value type; copies do not share. */

class TensorDescImpl {
 public:
	Shape shape, origin_shape;
	Format format = FORMAT_ND, origin_format = FORMAT_ND;
	DataType dtype = DT_FLOAT;
	std::string name;
	int64_t size = 0, real_dim_cnt = 0;
	Placement placement = kPlacementHost;
};

TensorDesc::TensorDesc() : impl(std::make_shared<TensorDescImpl>()) {}

TensorDesc::TensorDesc(Shape shape, Format format, DataType dt)
	: impl(std::make_shared<TensorDescImpl>())
{
	Update(shape, format, dt);
}

TensorDesc::TensorDesc(const TensorDesc &desc)
	: impl(std::make_shared<TensorDescImpl>(*desc.impl)) {}

TensorDesc::TensorDesc(TensorDesc &&desc) : impl(std::move(desc.impl))
{
	desc.impl = std::make_shared<TensorDescImpl>();
}

TensorDesc &TensorDesc::operator=(const TensorDesc &desc)
{
	if (this != &desc)
		impl = std::make_shared<TensorDescImpl>(*desc.impl);
	return *this;
}

TensorDesc &TensorDesc::operator=(TensorDesc &&desc)
{
	if (this != &desc) {
		impl = std::move(desc.impl);
		desc.impl = std::make_shared<TensorDescImpl>();
	}
	return *this;
}

void TensorDesc::Update(const Shape &shape, Format format, DataType dt)
{
	impl->shape = Shape(shape.GetDims());
	impl->origin_shape = Shape(shape.GetDims());
	impl->format = impl->origin_format = format;
	impl->dtype = dt;
	impl->real_dim_cnt = (int64_t)shape.GetDims().size();
}

Shape TensorDesc::GetShape() const { return Shape(impl->shape.GetDims()); }
void TensorDesc::SetShape(const Shape &shape)
{
	impl->shape = Shape(shape.GetDims());
	impl->real_dim_cnt = (int64_t)shape.GetDims().size();
}
Format TensorDesc::GetFormat() const { return impl->format; }
void TensorDesc::SetFormat(Format format) { impl->format = format; }
Shape TensorDesc::GetOriginShape() const { return Shape(impl->origin_shape.GetDims()); }
void TensorDesc::SetOriginShape(const Shape &s) { impl->origin_shape = Shape(s.GetDims()); }
Format TensorDesc::GetOriginFormat() const { return impl->origin_format; }
void TensorDesc::SetOriginFormat(Format f) { impl->origin_format = f; }
DataType TensorDesc::GetDataType() const { return impl->dtype; }
void TensorDesc::SetDataType(DataType dt) { impl->dtype = dt; }

graphStatus TensorDesc::GetName(AscendString &name) const
{
	name = AscendString(impl->name.c_str());
	return GRAPH_SUCCESS;
}

void TensorDesc::SetName(const char_t *name) { impl->name = name ? name : ""; }
void TensorDesc::SetSize(int64_t size) { impl->size = size; }
int64_t TensorDesc::GetSize() const { return impl->size; }
int64_t TensorDesc::GetRealDimCnt() const { return impl->real_dim_cnt; }
void TensorDesc::SetRealDimCnt(const int64_t n) { impl->real_dim_cnt = n; }
void TensorDesc::SetPlacement(Placement p) { impl->placement = p; }
Placement TensorDesc::GetPlacement() const { return impl->placement; }

/*
 * Tensor: copies share the data, as the vendor's do.  Data is a vector
 * the tensor owns, or a caller's pointer with its deleter.
 */
class TensorImpl {
 public:
	TensorDesc desc;
	std::vector<uint8_t> owned;
	std::unique_ptr<uint8_t[], Tensor::DeleteFunc> foreign{nullptr, [](uint8_t *) {}};
	size_t foreign_size = 0;

	uint8_t *data() { return foreign ? foreign.get() : owned.data(); }
	size_t size() const { return foreign ? foreign_size : owned.size(); }
	void drop_foreign()
	{
		foreign.reset();
		foreign_size = 0;
	}
};

Tensor::Tensor() : impl(std::make_shared<TensorImpl>()) {}

Tensor::Tensor(const TensorDesc &tensor_desc) : impl(std::make_shared<TensorImpl>())
{
	impl->desc = tensor_desc;
}

Tensor::Tensor(const TensorDesc &tensor_desc, const std::vector<uint8_t> &data)
	: impl(std::make_shared<TensorImpl>())
{
	impl->desc = tensor_desc;
	impl->owned = data;
}

Tensor::Tensor(const TensorDesc &tensor_desc, const uint8_t *data, size_t size)
	: impl(std::make_shared<TensorImpl>())
{
	impl->desc = tensor_desc;
	if (data)
		impl->owned.assign(data, data + size);
}

Tensor::Tensor(TensorDesc &&tensor_desc, std::vector<uint8_t> &&data)
	: impl(std::make_shared<TensorImpl>())
{
	impl->desc = std::move(tensor_desc);
	impl->owned = std::move(data);
}

TensorDesc Tensor::GetTensorDesc() const { return impl->desc; }

graphStatus Tensor::SetTensorDesc(const TensorDesc &tensor_desc)
{
	impl->desc = tensor_desc;
	return GRAPH_SUCCESS;
}

const uint8_t *Tensor::GetData() const { return impl->data(); }
uint8_t *Tensor::GetData() { return impl->data(); }
size_t Tensor::GetSize() const { return impl->size(); }

std::unique_ptr<uint8_t[], Tensor::DeleteFunc> Tensor::ResetData()
{
	if (impl->foreign) {
		DeleteFunc del = impl->foreign.get_deleter();
		std::unique_ptr<uint8_t[], DeleteFunc> p(impl->foreign.release(), del);

		impl->foreign_size = 0;
		return p;
	}
	uint8_t *copy = new uint8_t[impl->owned.size() ? impl->owned.size() : 1];

	if (!impl->owned.empty())
		std::memcpy(copy, impl->owned.data(), impl->owned.size());
	impl->owned.clear();
	return std::unique_ptr<uint8_t[], DeleteFunc>(copy, [](uint8_t *p) { delete[] p; });
}

graphStatus Tensor::SetData(std::vector<uint8_t> &&data)
{
	impl->drop_foreign();
	impl->owned = std::move(data);
	return GRAPH_SUCCESS;
}

graphStatus Tensor::SetData(const std::vector<uint8_t> &data)
{
	impl->drop_foreign();
	impl->owned = data;
	return GRAPH_SUCCESS;
}

graphStatus Tensor::SetData(const uint8_t *data, size_t size)
{
	if (!data && size)
		return GRAPH_PARAM_INVALID;
	impl->drop_foreign();
	impl->owned.assign(data, data + size);
	return GRAPH_SUCCESS;
}

graphStatus Tensor::SetData(uint8_t *data, size_t size, const Tensor::DeleteFunc &deleter_func)
{
	if (!data && size)
		return GRAPH_PARAM_INVALID;
	impl->owned.clear();
	impl->foreign = std::unique_ptr<uint8_t[], DeleteFunc>(
		data, deleter_func ? deleter_func : [](uint8_t *) {});
	impl->foreign_size = size;
	return GRAPH_SUCCESS;
}

graphStatus Tensor::IsValid()
{
	int64_t n = impl->desc.GetShape().GetShapeSize();
	int esize = GetSizeByDataType(impl->desc.GetDataType());

	if (impl->desc.GetShape().GetDims().empty())
		n = 1;
	if (n < 0 || esize < 0 || (uint64_t)n * (uint64_t)esize != impl->size())
		return GRAPH_FAILED;
	return GRAPH_SUCCESS;
}

graphStatus Tensor::SetFormat(const Format &format)
{
	impl->desc.SetFormat(format);
	return GRAPH_SUCCESS;
}

Format Tensor::GetFormat() const { return impl->desc.GetFormat(); }

graphStatus Tensor::SetDataType(const DataType &dtype)
{
	impl->desc.SetDataType(dtype);
	return GRAPH_SUCCESS;
}

DataType Tensor::GetDataType() const { return impl->desc.GetDataType(); }

graphStatus Tensor::SetPlacement(const Placement &placement)
{
	impl->desc.SetPlacement(placement);
	return GRAPH_SUCCESS;
}

Placement Tensor::GetPlacement() const { return impl->desc.GetPlacement(); }
size_t Tensor::GetShapeDimNum() const { return impl->desc.GetShape().GetDimNum(); }
int64_t Tensor::GetShapeDim(const size_t idx) const { return impl->desc.GetShape().GetDim(idx); }

Tensor Tensor::Clone() const
{
	Tensor t(impl->desc);

	t.impl->owned.assign(impl->data(), impl->data() + impl->size());
	return t;
}
}  // namespace ge
