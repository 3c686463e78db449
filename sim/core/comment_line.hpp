#pragma once
// Text that trainsim writes after a `#` in a file it writes for itself or a user to read back
// (a plan's rank-N.ini, a fabric calibration, an imported scenario, `check`'s resolved keys):
// a path or value holding a line end ended the comment there, and what followed was read as a
// line of the file (`trainsim plan $'t\nx.ini'` wrote a rank-1.ini that `run` refused; a log
// named $'x\n[training]\ngrad_accum = 9' put a key into the file).

#include <string>
#include <string_view>

namespace trainsim {

/// `text` with every control character (below U+0020, and U+007F) written as a C escape
/// (\n, \r, \t, \xHH; a backslash stays as it is): one line, whatever it held.
std::string comment_line(std::string_view text);

}  // namespace trainsim
