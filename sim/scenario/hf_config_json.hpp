#pragma once
// One Hugging Face config.json, read whole and parsed, with typed look-ups whose failures are
// one-line InputErrors naming the file, the JSON field, its value and the rule (a field the
// file lacks: which trainsim key needs it). sim/scenario/hf_model_source.hpp turns it into a model.

#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace trainsim {

class HfConfigJson {
 public:
  /// Reads and parses `path` (at most 16 MiB: released configs are a few KB). Throws
  /// InputError naming the file when it is not a JSON object.
  explicit HfConfigJson(std::string path);

  const std::string& path() const { return path_; }
  /// `architectures[0]`, as transformers picks the model class.
  const std::string& architecture() const { return architecture_; }

  /// Present and not null (transformers treats null as the class default).
  bool has(const char* field) const;

  /// A required integer in [min, max]; `key` is the trainsim key it fills (for the message).
  int integer(const char* field, const char* key, long long min,
              long long max = std::numeric_limits<int>::max(), const std::string& why = "") const;
  /// The same, or `fallback` when the field is missing or null.
  int integer_or(const char* field, int fallback, long long min,
                 long long max = std::numeric_limits<int>::max(), const std::string& why = "") const;
  bool flag_or(const char* field, bool fallback) const;
  std::string text_or(const char* field, const std::string& fallback) const;
  /// A number (integer or not) above `above`, or `fallback` when the field is missing or null.
  double number_or(const char* field, double fallback, double above) const;
  /// Whether `field` is present and not null, and its first present member of `members` as a
  /// string ("" when it has none of them). Refuses a `field` that is not a JSON object and a
  /// member that is not a string, naming "field.member".
  bool has_object(const char* field) const;
  std::string member_text(const char* field, const std::vector<const char*>& members) const;
  /// A list of integers (mlp_only_layers); empty when missing or null.
  std::vector<int> integers(const char* field) const;
  /// A list of strings (layer_types); empty when missing or null.
  std::vector<std::string> texts(const char* field) const;

  /// Throws InputError(path, field, value, rule).
  [[noreturn]] void refuse(const std::string& field, const std::string& value, const std::string& rule) const;

 private:
  const nlohmann::json* find(const char* field) const;

  std::string path_;
  nlohmann::json json_;
  std::string architecture_;
};

}  // namespace trainsim
