// The scenario schema section by section (sim/scenario/scenario_sections.hpp): each section's
// list holds its own keys only, scenario_fields() is the lists in their order, key names are
// unique, scenarios/README.md documents every key in its section's rows; each section's rules
// refuse a scenario naming that section's key, in the order check_scenario_rules runs them;
// and the helpers the sections share (field_kinds.hpp, rule_helpers.hpp).

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/scenario/field_kinds.hpp"
#include "sim/scenario/rule_helpers.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/scenario/scenario_rules.hpp"
#include "sim/scenario/scenario_sections.hpp"
#include "support/run_trainsim.hpp"
#include "support/scenario_entries.hpp"

namespace trainsim {
namespace {

using schema::section_field_lists;
using testing::entries;

TEST(ScenarioSections, EachSectionListsItsOwnKeysWithTheirParsers) {
  ASSERT_FALSE(section_field_lists().empty());
  for (const schema::SectionFields& section : section_field_lists()) {
    const std::vector<ScenarioField> fields = section.fields();
    EXPECT_FALSE(fields.empty()) << section.name;
    for (const ScenarioField& f : fields) {
      EXPECT_EQ(f.section(), section.name) << f.name;
      EXPECT_FALSE(f.key().empty()) << f.name;
      EXPECT_FALSE(f.help.empty()) << f.name;
      EXPECT_TRUE(f.apply && f.show) << f.name;
    }
  }
}

TEST(ScenarioSections, ScenarioFieldsAreTheSectionsInTheirOrder) {
  std::vector<std::string> composed, names;
  for (const schema::SectionFields& section : section_field_lists()) {
    names.emplace_back(section.name);
    for (const ScenarioField& f : section.fields()) composed.push_back(f.name);
  }
  std::vector<std::string> listed;
  for (const ScenarioField& f : scenario_fields()) listed.push_back(f.name);
  EXPECT_EQ(listed, composed);
  EXPECT_EQ(scenario_sections(), names);
  // `trainsim check` writes one [section] header per section: each section's keys together.
  std::vector<std::string> runs;
  for (const ScenarioField& f : scenario_fields())
    if (runs.empty() || runs.back() != f.section()) runs.push_back(f.section());
  EXPECT_EQ(runs, names);
}

TEST(ScenarioSections, KeyNamesAreUniqueAcrossSections) {
  std::map<std::string, std::string> owner;
  for (const schema::SectionFields& section : section_field_lists())
    for (const ScenarioField& f : section.fields())
      EXPECT_TRUE(owner.emplace(f.name, section.name).second) << f.name << " listed twice";
  EXPECT_EQ(owner.size(), scenario_fields().size());
}

// scenarios/README.md's "Every key" table: a row per group of keys, its section first.
TEST(ScenarioSections, ReadmeDocumentsEveryKeyInItsSectionsRows) {
  std::ifstream in(testing::source_path("scenarios/README.md"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  const auto begin = text.find("## Every key");
  ASSERT_NE(begin, std::string::npos);
  const std::string table = text.substr(begin, text.find("\n## ", begin + 1) - begin);
  std::map<std::string, std::string> keys_of;  // section -> its rows' key cells
  std::vector<std::string> order;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| ", 0) != 0 || line.rfind("| section ", 0) == 0) continue;
    const auto first = line.find(" | ");
    const auto second = line.find(" | ", first + 3);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string section = line.substr(2, first - 2);
    if (order.empty() || order.back() != section) order.push_back(section);
    keys_of[section] += line.substr(first + 3, second - first - 3) + " ";
  }
  EXPECT_EQ(order, scenario_sections());
  for (const ScenarioField& f : scenario_fields())
    EXPECT_NE(keys_of[f.section()].find("`" + f.key() + "`"), std::string::npos) << f.name;
}

Scenario valid() {
  return load_scenario(entries({{"model.preset", "llama3-8b"},
                                {"training.micro_batch", "1"},
                                {"training.grad_accum", "8"},
                                {"parallel.tp", "4"},
                                {"parallel.pp", "2"},
                                {"cluster.preset", "dgx-h100"},
                                {"cluster.nodes", "2"}}),
                       "test.ini");
}

// The key `rule` names when it refuses `s`, or "" when it passes.
std::string refused_key(const std::function<void(const Scenario&)>& rule, const Scenario& s) {
  try {
    rule(s);
  } catch (const InputError& e) {
    return e.key();
  }
  return "";
}

struct SectionRule {
  const char* name;
  std::function<void(const Scenario&)> rule;
  std::function<void(Scenario&)> breaks;
  const char* key;
};

TEST(ScenarioSections, EachSectionsRulesPassAValidScenarioAndNameTheirKey) {
  const std::vector<SectionRule> cases{
      {"model", schema::check_model, [](Scenario& s) { s.model.top_k = s.model.experts + 1; }, "model.top_k"},
      {"training", schema::check_recompute, [](Scenario& s) { s.training.recompute_layers = 2; },
       "training.recompute_layers"},
      {"parallel", schema::check_layout, [](Scenario& s) { s.parallel.dp = 3; }, "parallel.dp"},
      {"cluster", schema::check_in_network_reduction,
       [](Scenario& s) {
         s.cluster.sharp = true;
         s.cluster.network = Network::roce;
       },
       "cluster.sharp"},
      {"cluster size", check_cluster_size, [](Scenario& s) { s.cluster.nodes = 1 << 20; }, "cluster.nodes"},
      {"run", schema::check_simulated_work, [](Scenario& s) { s.run.steps = 100000; }, "run.steps"},
      {"elastic", schema::check_elastic, [](Scenario& s) { s.elastic.min_dp = s.parallel.dp + 1; }, "elastic.min_dp"},
      {"variations", schema::check_variations, [](Scenario& s) { s.variations.slow_gpu_count = 1000; },
       "variations.slow_gpus"},
  };
  const Scenario good = valid();
  for (const SectionRule& c : cases) {
    EXPECT_EQ(refused_key(c.rule, good), "") << c.name;
    Scenario bad = good;
    c.breaks(bad);
    EXPECT_EQ(refused_key(c.rule, bad), c.key) << c.name;
  }
}

TEST(ScenarioSections, RulesRunInTheirFixedOrderAcrossSections) {
  // parallel.dp's layout rule runs before [model]'s: a scenario breaking both names parallel.dp.
  std::vector<IniEntry> e = entries({{"model.preset", "llama3-8b"},
                                     {"model.top_k", "2"},
                                     {"parallel.tp", "4"},
                                     {"parallel.dp", "3"},
                                     {"cluster.preset", "dgx-h100"},
                                     {"cluster.nodes", "2"}});
  try {
    (void)load_scenario(e, "test.ini");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.key(), "parallel.dp") << error.what();
  }
  e.erase(e.begin() + 3);  // parallel.dp derived: now [model]'s rule is the first broken
  try {
    (void)load_scenario(e, "test.ini");
    ADD_FAILURE() << "accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.key(), "model.top_k") << error.what();
  }
}

TEST(ScenarioSections, SharedFieldKindsParseAndShowTheirUnits) {
  ScenarioField bytes = field_kinds::bytes_field(
      "training.dp_bucket", "b", [](auto& x) -> auto& { return x.training.dp_bucket_bytes; });
  Scenario s;
  EXPECT_FALSE(bytes.apply(s, "512MiB"));
  EXPECT_EQ(bytes.show(s), "512MiB");
  EXPECT_FALSE(bytes.apply(s, "2GiB"));
  EXPECT_EQ(bytes.show(s), "2GiB");
  ScenarioField fraction = field_kinds::fraction_field(
      "training.fragmentation", "f", [](auto& x) -> auto& { return x.training.fragmentation_fraction; });
  EXPECT_FALSE(fraction.apply(s, "5%"));
  EXPECT_EQ(fraction.show(s), "5%");
  EXPECT_EQ(fraction.apply(s, "2").value_or(""), "expected a fraction from 0 to 1 (0.05 or 5%)");
  ScenarioField bandwidth = field_kinds::bandwidth_field(
      "cluster.nic_bandwidth", "n", [](auto& x) -> auto& { return x.cluster.nic_bandwidth_Bps; });
  EXPECT_TRUE(bandwidth.apply(s, "0GB/s").value_or("").starts_with("expected a value > 0 with a unit"));
  EXPECT_EQ(field_kinds::join({"a", "b", "c"}), "a, b, c");
}

TEST(ScenarioSections, RequireNamesTheKeyTheValueAndTheRule) {
  Scenario s;
  s.source = "x.ini";
  EXPECT_NO_THROW(schema::require(s, true, "parallel.tp", 3, "never"));
  try {
    schema::require(s, false, "parallel.tp", 3, "must divide 8");
    ADD_FAILURE() << "passed";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key(), "parallel.tp");
    const std::string what = e.what();
    EXPECT_NE(what.find("x.ini"), std::string::npos) << what;
    EXPECT_NE(what.find("3"), std::string::npos) << what;
    EXPECT_NE(what.find("must divide 8"), std::string::npos) << what;
  }
  EXPECT_EQ(schema::seconds(1.5), "1.5s");
  EXPECT_EQ(schema::number(0.25), "0.25");
}

}  // namespace
}  // namespace trainsim
