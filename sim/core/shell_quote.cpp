#include "sim/core/shell_quote.hpp"

#include <algorithm>
#include <string_view>

namespace trainsim {

namespace {

bool plain(char c) {
  const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  return alnum || std::string_view("_-./,:@%+").find(c) != std::string_view::npos;
}

}  // namespace

std::string shell_quoted(const std::string& word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain)) return word;
  std::string q = "'";
  for (const char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string shell_quoted_path(const std::string& path) {
  return shell_quoted(path.starts_with('-') ? "./" + path : path);
}

}  // namespace trainsim
