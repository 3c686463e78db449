#include "sim/scenario/hf_config_json.hpp"

#include <fstream>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"

namespace trainsim {

namespace {

constexpr std::size_t k_max_config_bytes = std::size_t{16} << 20;

// Text as a message shows it: control characters replaced, at most 60 bytes.
std::string printable(std::string text) {
  for (char& c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return text.size() > 60 ? text.substr(0, 57) + "..." : text;
}

// A value as the message shows it. Lists and objects are not written out: a deeply nested one
// would take as deep a recursion to print.
std::string shown(const nlohmann::json& v) {
  if (v.is_array()) return "[...]";
  if (v.is_object()) return "{...}";
  return printable(v.is_string() ? v.get<std::string>() : v.dump());
}

}  // namespace

HfConfigJson::HfConfigJson(std::string path) : path_(std::move(path)) {
  const std::string text = read_input_file(
      path_, {"the Hugging Face config", "cannot open the Hugging Face config (model.from)", k_max_config_bytes});
  try {
    json_ = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(path_, "", "", "not JSON: syntax error at byte " + std::to_string(e.byte));
  }
  if (!json_.is_object()) throw InputError(path_, "", "", "not a Hugging Face config: expected a JSON object");
  const nlohmann::json* arch = find("architectures");
  if (arch == nullptr) refuse("architectures", "", "missing: it names the model class (e.g. [\"LlamaForCausalLM\"])");
  if (!arch->is_array() || arch->empty() || !(*arch)[0].is_string())
    refuse("architectures", shown(*arch), "expected a list of model class names");
  architecture_ = (*arch)[0].get<std::string>();
}

const nlohmann::json* HfConfigJson::find(const char* field) const {
  const auto it = json_.find(field);
  return it == json_.end() || it->is_null() ? nullptr : &*it;
}

bool HfConfigJson::has(const char* field) const {
  return find(field) != nullptr;
}

void HfConfigJson::refuse(const std::string& field, const std::string& value, const std::string& rule) const {
  throw InputError(path_, field, printable(value), rule);
}

int HfConfigJson::integer(const char* field, const char* key, long long min, long long max,
                          const std::string& why) const {
  if (!has(field)) refuse(field, "", std::string("missing: ") + architecture_ + " needs it for " + key);
  return integer_or(field, 0, min, max, why);
}

int HfConfigJson::integer_or(const char* field, int fallback, long long min, long long max,
                             const std::string& why) const {
  const nlohmann::json* v = find(field);
  if (v == nullptr) return fallback;
  // JSON numbers written as integers only (4096, not 4096.0): transformers types these int.
  long long n = 0;
  if (v->is_number_integer())
    n = v->is_number_unsigned() && v->get<unsigned long long>() > static_cast<unsigned long long>(max)
            ? max + 1LL
            : v->get<long long>();
  if (!v->is_number_integer() || n < min || n > max) {
    const std::string bound = max == std::numeric_limits<int>::max()
                                  ? "an integer >= " + std::to_string(min)
                                  : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    refuse(field, shown(*v), "expected " + bound + (why.empty() ? "" : ": " + why));
  }
  return static_cast<int>(n);
}

bool HfConfigJson::flag_or(const char* field, bool fallback) const {
  const nlohmann::json* v = find(field);
  if (v == nullptr) return fallback;
  if (!v->is_boolean()) refuse(field, shown(*v), "expected true or false");
  return v->get<bool>();
}

std::string HfConfigJson::text_or(const char* field, const std::string& fallback) const {
  const nlohmann::json* v = find(field);
  if (v == nullptr) return fallback;
  if (!v->is_string()) refuse(field, shown(*v), "expected a string");
  return v->get<std::string>();
}

double HfConfigJson::number_or(const char* field, double fallback, double above) const {
  const nlohmann::json* v = find(field);
  if (v == nullptr) return fallback;
  if (!v->is_number() || !(v->get<double>() > above))
    refuse(field, shown(*v), "expected a number above " + shown(nlohmann::json(above)));
  return v->get<double>();
}

bool HfConfigJson::has_object(const char* field) const {
  const nlohmann::json* v = find(field);
  if (v != nullptr && !v->is_object()) refuse(field, shown(*v), "expected a JSON object");
  return v != nullptr;
}

std::string HfConfigJson::member_text(const char* field, const std::vector<const char*>& members) const {
  if (!has_object(field)) return "";
  const nlohmann::json& object = *find(field);
  for (const char* member : members) {
    const auto it = object.find(member);
    if (it == object.end() || it->is_null()) continue;
    if (!it->is_string()) refuse(std::string(field) + "." + member, shown(*it), "expected a string");
    return it->get<std::string>();
  }
  return "";
}

std::vector<int> HfConfigJson::integers(const char* field) const {
  const nlohmann::json* v = find(field);
  if (v == nullptr) return {};
  if (!v->is_array()) refuse(field, shown(*v), "expected a list of layer indices");
  std::vector<int> out;
  for (const nlohmann::json& e : *v) {
    if (!e.is_number_integer() || e.get<long long>() < 0 || e.get<long long>() > std::numeric_limits<int>::max())
      refuse(field, shown(e), "expected a list of layer indices (integers >= 0)");
    out.push_back(static_cast<int>(e.get<long long>()));
  }
  return out;
}

std::vector<std::string> HfConfigJson::texts(const char* field) const {
  const nlohmann::json* v = find(field);
  if (v == nullptr) return {};
  if (!v->is_array()) refuse(field, shown(*v), "expected a list of strings");
  std::vector<std::string> out;
  for (const nlohmann::json& e : *v) {
    if (!e.is_string()) refuse(field, shown(e), "expected a list of strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

}  // namespace trainsim
