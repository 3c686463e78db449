#pragma once
// Whether input text is UTF-8: everything trainsim prints or writes as JSON, HDF5 strings or
// one-line messages must be, so readers check the text they keep (scenario files, Chakra node
// and process-group names) at the boundary.

#include <cstddef>
#include <string>
#include <string_view>

namespace trainsim {

/// The offset of the first byte that does not belong to valid UTF-8 (RFC 3629: no overlong
/// forms, no surrogates, nothing above U+10FFFF), or std::string_view::npos.
std::size_t first_invalid_utf8(std::string_view text);

/// `text` with each byte that is not UTF-8 and each control character written as a C escape
/// (\xff, \n; comment_line.hpp): a name or a program's output shown in a one-line message.
std::string utf8_escaped(std::string_view text);

/// `text` with each byte that is not UTF-8 written as U+FFFD, as a --json result writes it
/// (cli/json_output.hpp): for strings stored as UTF-8 (HDF5 strings of cset UTF-8).
std::string utf8_replaced(std::string_view text);

}  // namespace trainsim
