#include "stub_sbatch.hpp"

#include <filesystem>
#include <fstream>

#include "sim/sweep/read_file.hpp"

namespace trainsim::testing {

namespace fs = std::filesystem;

// The test folders hold plain characters: single quotes suffice in the stub.
StubSbatch::StubSbatch(const std::string& folder, const std::string& failure, int fail_from) : folder_(folder) {
  fs::create_directories(folder);
  std::ofstream(folder + "/failure") << failure;
  std::ofstream(folder + "/sbatch") << "#!/bin/sh\n"
                                       "d='" << folder << "'\n"
                                       "n=$(( $(cat \"$d/count\" 2>/dev/null || echo 0) + 1 ))\n"
                                       "echo \"$n\" > \"$d/count\"\n"
                                       "printf '%s\\0' \"$@\" >> \"$d/record\"\n"
                                       "printf '\\n' >> \"$d/record\"\n"
                                       "if [ -s \"$d/failure\" ] && [ \"$n\" -ge " << fail_from << " ]; then\n"
                                       "  cat \"$d/failure\" >&2; echo >&2; exit 1\n"
                                       "fi\n"
                                       "echo $(( 1000 + n ))\n";
  fs::permissions(folder + "/sbatch", fs::perms::owner_all, fs::perm_options::replace);
}

std::string StubSbatch::shell_prefix() const {
  return "PATH='" + folder_ + "':\"$PATH\" exec ";
}

std::vector<std::vector<std::string>> StubSbatch::calls() const {
  std::vector<std::vector<std::string>> calls;
  const std::string record = sweep::read_file_or_empty(folder_ + "/record");
  std::vector<std::string> call;
  std::string arg;
  for (const char c : record) {
    if (c == '\0') {
      call.push_back(arg);
      arg.clear();
    } else if (c == '\n' && arg.empty()) {
      calls.push_back(call);
      call.clear();
    } else {
      arg += c;
    }
  }
  return calls;
}

}  // namespace trainsim::testing
