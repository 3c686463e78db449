#pragma once
// The outputs of one command must not name one another: two options naming the same file gave
// one of them silently (`run --trace x --chrome-trace x` kept the Chrome trace only), and a
// file or folder written inside the folder of `--chakra-out`, which the export replaces whole,
// was moved aside with the earlier contents and left in a hidden folder
// (`--kineto-out D --chakra-out D` printed "wrote 2 Kineto trace(s)" and kept none).

#include <string>
#include <vector>

namespace trainsim {

/// One output of a command: the option that names it, the path given, and whether it is a
/// folder the command fills (`--kineto-out`, `--chakra-out`) or a file.
struct NamedOutput {
  std::string option;
  std::string path;
  bool folder = false;
};

/// Throws InputError (key: the later option, value: its path) when two of `outputs` are the
/// same file or folder (symbolic links followed, hard links by device and inode), or when one
/// lies inside another's folder. Outputs with an empty path are skipped, and so are files that
/// are both one existing device or FIFO (written through, one after the other). Call it before
/// any work, beside check_output_path.
void check_distinct_outputs(const std::vector<NamedOutput>& outputs);

}  // namespace trainsim
