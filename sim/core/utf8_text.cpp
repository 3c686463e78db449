#include "sim/core/utf8_text.hpp"

#include <cstdio>

#include "sim/core/comment_line.hpp"

namespace trainsim {

std::size_t first_invalid_utf8(std::string_view text) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(text[i]); };
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = byte(i);
    std::size_t n = 0;                   // continuation bytes
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      n = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      n = 2;
      lo = c == 0xE0 ? 0xA0 : 0x80;  // no overlong forms
      hi = c == 0xED ? 0x9F : 0xBF;  // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      n = 3;
      lo = c == 0xF0 ? 0x90 : 0x80;
      hi = c == 0xF4 ? 0x8F : 0xBF;  // nothing above U+10FFFF
    } else if (c >= 0x80) {
      return i;
    }
    if (i + n >= text.size() && n > 0) return i;
    for (std::size_t k = 1; k <= n; ++k) {
      const unsigned char b = byte(i + k);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) return i;
    }
    i += n + 1;
  }
  return std::string_view::npos;
}

namespace {

// `text` with each byte that is not UTF-8 written as `instead(byte)`.
template <typename Instead>
std::string with_invalid_bytes(std::string_view text, Instead instead) {
  std::string out;
  while (!text.empty()) {
    const std::size_t at = first_invalid_utf8(text);
    out += text.substr(0, at);
    if (at == std::string_view::npos) break;
    out += instead(static_cast<unsigned char>(text[at]));
    text.remove_prefix(at + 1);
  }
  return out;
}

}  // namespace

std::string utf8_escaped(std::string_view text) {
  return comment_line(with_invalid_bytes(text, [](unsigned char byte) {
    char hex[5];
    std::snprintf(hex, sizeof hex, "\\x%02x", byte);
    return std::string(hex);
  }));
}

std::string utf8_replaced(std::string_view text) {
  return with_invalid_bytes(text, [](unsigned char) { return std::string("\xEF\xBF\xBD"); });
}

}  // namespace trainsim
