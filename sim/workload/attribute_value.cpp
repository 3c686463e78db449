#include "sim/workload/attribute_value.hpp"

#include <cstdio>
#include <limits>

namespace trainsim::workload {

using trainsim::chakra::Attribute;

std::optional<std::int64_t> attribute_int(const Attribute& a) {
  switch (a.value_case()) {
    case Attribute::kInt32Val:
      return a.int32_val();
    case Attribute::kInt64Val:
      return a.int64_val();
    case Attribute::kUint32Val:
      return a.uint32_val();
    case Attribute::kUint64Val:
      if (a.uint64_val() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
      return static_cast<std::int64_t>(a.uint64_val());
    case Attribute::kSint32Val:
      return a.sint32_val();
    case Attribute::kSint64Val:
      return a.sint64_val();
    case Attribute::kFixed32Val:
      return a.fixed32_val();
    case Attribute::kFixed64Val:
      if (a.fixed64_val() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return std::nullopt;
      return static_cast<std::int64_t>(a.fixed64_val());
    case Attribute::kSfixed32Val:
      return a.sfixed32_val();
    case Attribute::kSfixed64Val:
      return a.sfixed64_val();
    case Attribute::kBoolVal:
      return a.bool_val() ? 1 : 0;
    default:
      return std::nullopt;
  }
}

std::optional<std::vector<bool>> attribute_flags(const Attribute& a) {
  std::vector<bool> flags;
  switch (a.value_case()) {
    case Attribute::kBoolList:
      for (const bool b : a.bool_list().values()) flags.push_back(b);
      return flags;
    case Attribute::kInt32List:
      for (const auto v : a.int32_list().values()) flags.push_back(v != 0);
      return flags;
    case Attribute::kInt64List:
      for (const auto v : a.int64_list().values()) flags.push_back(v != 0);
      return flags;
    case Attribute::kUint32List:
      for (const auto v : a.uint32_list().values()) flags.push_back(v != 0);
      return flags;
    case Attribute::kUint64List:
      for (const auto v : a.uint64_list().values()) flags.push_back(v != 0);
      return flags;
    default:
      if (const auto v = attribute_int(a)) return std::vector<bool>{*v != 0};
      return std::nullopt;
  }
}

std::string attribute_text(const Attribute& a) {
  if (a.value_case() == Attribute::kStringVal) return a.string_val();
  if (const auto v = attribute_int(a)) return std::to_string(*v);
  if (a.value_case() == Attribute::kDoubleVal || a.value_case() == Attribute::kFloatVal) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.17g", a.value_case() == Attribute::kDoubleVal ? a.double_val() : a.float_val());
    return buf;
  }
  if (a.value_case() == Attribute::kStringList) {
    std::string s = "[";
    for (int i = 0; i < a.string_list().values_size(); ++i) s += (i ? ", " : "") + a.string_list().values(i);
    return s + "]";
  }
  if (const auto f = attribute_flags(a)) {
    std::string s = "[";
    for (size_t i = 0; i < f->size(); ++i) s += std::string(i ? ", " : "") + ((*f)[i] ? "true" : "false");
    return s + "]";
  }
  return "";
}

}  // namespace trainsim::workload
