/* SPDX-License-Identifier: MIT */
/* The string type of the graph API's signatures. */
#ifndef INC_EXTERNAL_GRAPH_ASCEND_STRING_H_
#define INC_EXTERNAL_GRAPH_ASCEND_STRING_H_

#include <functional>
#include <memory>
#include <string>

#include "graph/types.h"

namespace ge {
class GE_FUNC_VISIBILITY AscendString {
 public:
	AscendString() = default;
	~AscendString() = default;
	AscendString(const char_t *const name);
	AscendString(const char_t *const name, size_t length);

	const char_t *GetString() const;
	size_t GetLength() const;
	size_t Find(const AscendString &ascend_string) const;
	size_t Hash() const;

	bool operator<(const AscendString &d) const;
	bool operator>(const AscendString &d) const;
	bool operator<=(const AscendString &d) const;
	bool operator>=(const AscendString &d) const;
	bool operator==(const AscendString &d) const;
	bool operator!=(const AscendString &d) const;
	bool operator==(const char_t *const d) const;
	bool operator!=(const char_t *const d) const;

 private:
	std::shared_ptr<std::string> name_;
};
}  // namespace ge

namespace std {
template <>
struct hash<ge::AscendString> {
	size_t operator()(const ge::AscendString &name) const { return name.Hash(); }
};
}  // namespace std

#endif  // INC_EXTERNAL_GRAPH_ASCEND_STRING_H_
