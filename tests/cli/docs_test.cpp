// The docs tell the truth: the sample outputs of README.md and sim/drill/README.md are what the
// build prints, and scenarios/README.md documents every scenario key.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "sim/scenario/scenario_fields.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

std::string doc(const std::string& path) {
  std::ifstream in(testing::source_path(path));
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string readme() {
  return doc("README.md");
}

TEST(Docs, ReadmeMemorySampleIsCurrent) {
  const std::string text = readme();
  const auto begin = text.find("```\ntrainsim memory: ");
  ASSERT_NE(begin, std::string::npos);
  const auto body = begin + 4;
  const auto end = text.find("```", body);
  const auto r = testing::run_trainsim({"memory", testing::source_path("scenarios/default.ini")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(text.substr(body, end - body), r.out);
}

TEST(Docs, ScenarioReadmeDocumentsEveryKey) {
  const std::string text = doc("scenarios/README.md");
  for (const ScenarioField& f : scenario_fields())
    EXPECT_NE(text.find("`" + f.key() + "`"), std::string::npos) << f.name;
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// The README's `trainsim run` sample that starts with `header`, up to its "...", is what
// `trainsim run scenario` prints, but for the simulation's wall time.
void expect_run_sample(const std::string& header, const std::string& scenario) {
  const std::string text = readme();
  const auto begin = text.find("```\n" + header);
  ASSERT_NE(begin, std::string::npos) << header;
  const auto body = begin + 4;
  const std::string sample = text.substr(body, text.find("...\n```", body) - body);
  const auto r = testing::run_trainsim({"run", testing::source_path(scenario)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto strip_wall = [](std::string s) {
    const auto at = s.find(" simulated in ");
    if (at != std::string::npos) s.erase(at, s.find(')', at) - at);
    return s;
  };
  const std::string expected = strip_wall(sample);
  EXPECT_EQ(strip_wall(r.out).substr(0, expected.size()), expected);
}

TEST(Docs, ReadmeRunSampleIsCurrent) {
  expect_run_sample("trainsim run: llama3-70b on 64 x h100-sxm", "scenarios/default.ini");
}

TEST(Docs, ReadmeGraceBlackwellSampleIsCurrent) {
  expect_run_sample("trainsim run: llama3-70b on 64 x gb200", "scenarios/examples/llama3-70b-gb200-fsdp-offload.ini");
  // The memory the sentence before it gives without the offload.
  const auto r = testing::run_trainsim({"memory", testing::source_path("scenarios/examples/llama3-70b-gb200-fsdp-offload.ini"),
                                        "--set", "training.offload_activations=0"});
  EXPECT_NE(r.out.find("needs 324.41 GiB of 185.03 GiB"), std::string::npos) << r.out;
  EXPECT_NE(readme().find("324.41 GiB of 185.03"), std::string::npos);
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

TEST(Docs, SimReadmeDrillSampleIsCurrent) {
  // sim/drill/README.md's `trainsim drill` sample, but for the drill's wall time.
  const std::string text = doc("sim/drill/README.md");
  const auto begin = text.find("```\ntrainsim drill: ");
  ASSERT_NE(begin, std::string::npos);
  const auto body = begin + 4;
  const std::string sample = text.substr(body, text.find("```", body) - body);
  const auto r = testing::run_trainsim(
      {"drill", testing::source_path("scenarios/default.ini"), "--omit", "rng,cursor,optimizer,scheduler,loss_scale"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto strip_wall = [](std::string s) {
    const auto at = s.find("drill wall time ");
    if (at != std::string::npos) s.erase(at, s.find('\n', at) - at);
    return s;
  };
  EXPECT_EQ(strip_wall(r.out), strip_wall(sample));
}

}  // namespace
}  // namespace trainsim

namespace trainsim {
namespace {

// The project's own files under the source tree, relative to it, sorted, that `keep` takes: not
// .git or other hidden folders, build trees, or the team's shared folder where a checkout holds
// one.
template <typename Keep>
std::vector<std::filesystem::path> project_files(Keep keep) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::source_path("")).lexically_normal();
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = it->path().lexically_relative(root);
    if (it->is_directory()) {
      if (rel.filename().string().starts_with(".") || fs::exists(it->path() / "CMakeCache.txt") || rel == "shared")
        it.disable_recursion_pending();
      continue;
    }
    if (keep(rel)) files.push_back(rel);
  }
  std::sort(files.begin(), files.end());
  return files;
}

int line_count(const std::filesystem::path& rel) {
  std::ifstream in(std::filesystem::path(testing::source_path("")) / rel);
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

// Docs a user reads stay short enough to read (issue 59 item 3): the top README at most 450
// lines, sim/README.md at most 400, any other document at most 500; what outgrows them moves
// to the README of the folder it describes, or to docs/.
TEST(Docs, DocumentsStayShort) {
  const auto docs = project_files([](const std::filesystem::path& rel) { return rel.extension() == ".md"; });
  ASSERT_GE(docs.size(), 10u);
  for (const auto& rel : docs) {
    const int limit = rel == "README.md" ? 450 : rel == "sim/README.md" ? 400 : 500;
    EXPECT_LE(line_count(rel), limit) << rel;
  }
}

// A clone has only the repository: every Markdown document and every scenario file under
// scenarios/ states the source of a figure where it uses it (publication, repository@commit,
// issue), never by sending the reader to the team's notes beside the checkout (issue 55, item 7).
TEST(Docs, ProvenanceIsStatedWhereItIsUsed) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(testing::source_path("")).lexically_normal();
  const std::vector<fs::path> files = project_files([](const fs::path& rel) {
    return rel.extension() == ".md" || (*rel.begin() == "scenarios" && rel.extension() == ".ini");
  });
  ASSERT_NE(std::find(files.begin(), files.end(), fs::path("README.md")), files.end());
  ASSERT_NE(std::find(files.begin(), files.end(), fs::path("scenarios/default.ini")), files.end());
  std::string offending;
  for (const fs::path& rel : files) {
    std::ifstream in(root / rel);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      for (const char* note : {"public.md", "DESIGN.md", "STYLE.md"})
        if (line.find(note) != std::string::npos)
          offending += rel.string() + ":" + std::to_string(n) + ": cites " + note + "\n";
  }
  EXPECT_EQ(offending, "") << "state the primary source instead (public.md, DESIGN.md and STYLE.md are not in a clone)";
}

}  // namespace
}  // namespace trainsim
