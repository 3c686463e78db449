#include "sim/core/distinct_outputs.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "sim/core/error.hpp"

namespace trainsim {

namespace fs = std::filesystem;

namespace {

// `path` as an absolute path with every existing part's symbolic links followed ("out/",
// "./out" and a link to it are one name); the parts that do not exist yet stay as given.
fs::path full_name(const std::string& path) {
  std::error_code ec;
  fs::path whole = fs::weakly_canonical(fs::absolute(path, ec), ec);
  if (ec) whole = fs::absolute(path, ec).lexically_normal();
  if (whole.filename().empty() && whole != whole.root_path()) whole = whole.parent_path();  // "out/" is "out"
  return whole;
}

// Whether `inner` is `outer` or lies below it, by their parts.
bool within(const fs::path& inner, const fs::path& outer) {
  const auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end();
}

// Whether both name one existing file (a hard link too).
bool same_inode(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// Whether `path` is an existing device or FIFO: outputs are written through into it, one after
// the other, as a shell's `>>` would (`--trace /dev/null --chrome-trace /dev/null`).
bool written_through(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISFIFO(st.st_mode));
}

std::string kind(const NamedOutput& o) {
  return o.folder ? "folder" : "file";
}

}  // namespace

void check_distinct_outputs(const std::vector<NamedOutput>& outputs) {
  for (std::size_t later = 0; later < outputs.size(); ++later) {
    const NamedOutput& b = outputs[later];
    if (b.path.empty()) continue;
    const fs::path bn = full_name(b.path);
    for (std::size_t earlier = 0; earlier < later; ++earlier) {
      const NamedOutput& a = outputs[earlier];
      if (a.path.empty()) continue;
      const fs::path an = full_name(a.path);
      std::string rule;
      if (!a.folder && !b.folder && written_through(a.path) && written_through(b.path)) continue;
      if (an == bn || same_inode(a.path, b.path))
        rule = "is also " + a.option + "'s " + kind(a) + " ('" + a.path + "'): each output needs a name of its own";
      else if (a.folder && within(bn, an))
        rule = "lies in " + a.option + "'s folder '" + a.path + "', which holds only what " + a.option +
               " writes: give it a path outside";
      else if (b.folder && within(an, bn))
        rule = "holds " + a.option + "'s " + kind(a) + " ('" + a.path + "'), but holds only what " + b.option +
               " writes: give it a folder of its own";
      if (!rule.empty()) throw InputError("", b.option, b.path, rule);
    }
  }
}

}  // namespace trainsim
