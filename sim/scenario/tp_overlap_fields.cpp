#include "sim/scenario/tp_overlap_fields.hpp"

#include "sim/core/error.hpp"
#include "sim/scenario/value_parsers.hpp"

namespace trainsim {

namespace {

using Rule = std::optional<std::string>;

ScenarioField sms_field() {
  ScenarioField f;
  f.name = "parallel.tp_comm_overlap_sms";
  f.help = "with tp_comm_overlap: SMs every SM-kernel userbuffers collective (pipeline, bulk) takes; 0: each "
           "GEMM's own (parallel.tp_overlap_<gemm>)";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::integer(text);
    if (!v || *v < 0 || *v > 1024) return "expected an integer from 0 to 1024: beyond any GPU's SMs";
    s.parallel.tp_overlap.sms = static_cast<int>(*v);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return std::to_string(s.parallel.tp_overlap.sms); };
  return f;
}

ScenarioField gemm_field(TpOverlapGemm g) {
  ScenarioField f;
  f.name = std::string("parallel.tp_overlap_") + tp_overlap_gemm_name(g);
  f.help = std::string("with tp_comm_overlap: how ") + tp_overlap_gemm_name(g) +
           " runs beside its collective: ring_exchange[:SMS], pipeline[:SMS[:SPLITS]], bulk[:SMS] "
           "(Transformer Engine's ub_cfgs); default: the GPU family's";
  f.apply = [g](Scenario& s, std::string_view text) -> Rule {
    auto& slot = s.parallel.tp_overlap.gemm[static_cast<size_t>(g)];
    if (text == "default") {
      slot.reset();
      return std::nullopt;
    }
    std::string rule;
    const auto v = parse_tp_overlap_setting(text, g, &rule);
    if (!v) return rule;
    slot = *v;
    return std::nullopt;
  };
  f.show = [g](const Scenario& s) {
    const auto& slot = s.parallel.tp_overlap.gemm[static_cast<size_t>(g)];
    return slot ? tp_overlap_setting_text(*slot) : std::string("default");
  };
  return f;
}

}  // namespace

std::vector<ScenarioField> tp_overlap_fields() {
  std::vector<ScenarioField> fields{sms_field()};
  for (int g = 0; g < k_tp_overlap_gemms; ++g) fields.push_back(gemm_field(static_cast<TpOverlapGemm>(g)));
  return fields;
}

void check_tp_overlap(const Scenario& s) {
  const int sms = s.cluster.gpu.sms;
  if (sms <= 0) return;
  const TpOverlapSettings& t = s.parallel.tp_overlap;
  const std::string rule = "must be below the GPU's " + std::to_string(sms) + " SMs (" + s.cluster.gpu.name + ")";
  if (t.sms >= sms) throw InputError(s.source, "parallel.tp_comm_overlap_sms", std::to_string(t.sms), rule);
  for (int g = 0; g < k_tp_overlap_gemms; ++g) {
    const auto& slot = t.gemm[static_cast<size_t>(g)];
    if (slot && slot->sms >= sms)
      throw InputError(s.source, std::string("parallel.tp_overlap_") + tp_overlap_gemm_name(static_cast<TpOverlapGemm>(g)),
                       tp_overlap_setting_text(*slot), rule);
  }
}

}  // namespace trainsim
