#include "models/pipeline_layout.hpp"

#include <cctype>

namespace trainsim {

namespace {

bool is_slot(char c) { return c == 'E' || c == 't' || c == 'm' || c == 'L' || c == '|'; }

const char* const k_symbols =
    "expected E (embedding), t (transformer layer), m (MTP layer), L (loss), | (next stage), X*N or (...)*N";

std::string too_long() {
  return "more than " + std::to_string(k_max_layout_unrolled) + " symbols once its repetitions are unrolled";
}

// Appends `piece` `times` times to `out`; false past k_max_layout_unrolled.
bool repeat(std::string& out, const std::string& piece, long long times) {
  const long long room = k_max_layout_unrolled - static_cast<long long>(out.size());
  if (times > 0 && times > room / static_cast<long long>(piece.size())) return false;
  for (long long k = 0; k < times; ++k) out += piece;
  return true;
}

// Unrolls the items of `text` from `i` to its end or, in a group, to the group's ')' (left at
// `i`) into `out`; returns the rule the text breaks, if any.
std::optional<std::string> unroll(std::string_view text, size_t& i, bool in_group, std::string& out) {
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == ',') {  // cosmetic, as in Megatron-Core
      ++i;
      continue;
    }
    if (c == ')') {
      if (in_group) return std::nullopt;
      return std::string("a ')' without its '('");
    }
    std::string piece;
    if (is_slot(c)) {
      piece = c;
      ++i;
    } else if (c == '(') {
      if (in_group) return std::string("nested parentheses: Megatron-Core unrolls one level of (...)*N");
      ++i;
      if (auto rule = unroll(text, i, true, piece)) return rule;
      ++i;  // the ')'
      if (piece.empty()) return std::string("an empty group '()'");
      if (i == n || text[i] != '*') return std::string("a parenthesised group needs a repetition after it: (...)*N");
    } else if (c == '*') {
      return std::string("'*' must follow a symbol or a group: X*N or (...)*N");
    } else {
      return std::string("unknown symbol '") + c + "': " + k_symbols;
    }
    long long times = 1;
    if (i < n && text[i] == '*') {
      ++i;
      const size_t digits = i;
      times = 0;
      for (; i < n && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
        times = times * 10 + (text[i] - '0');
        if (times > k_max_layout_unrolled) return too_long();
      }
      if (i == digits) return std::string("'*' needs a count: X*N or (...)*N");
      if (i < n && text[i] == '*') return std::string("one repetition per symbol or group (write X*6, not X*2*3)");
    }
    if (!repeat(out, piece, times)) return too_long();
  }
  if (in_group) return std::string("a '(' without its ')'");
  return std::nullopt;
}

}  // namespace

int PipelineLayout::layers() const {
  int sum = 0;
  for (const LayoutStage& st : stages) sum += st.layers;
  return sum;
}

int PipelineLayout::mtp_layers() const {
  int sum = 0;
  for (const LayoutStage& st : stages) sum += st.mtp;
  return sum;
}

std::optional<std::string> parse_pipeline_layout(std::string_view text, PipelineLayout& out) {
  if (text.empty()) return std::string("expected a layout such as Et|(tt|)*30mL, or none");
  std::string flat;
  size_t at = 0;
  if (auto rule = unroll(text, at, false, flat)) return rule;
  PipelineLayout layout;
  layout.text = std::string(text);
  layout.stages.emplace_back();
  int embeddings = 0, losses = 0;
  bool mtp_seen = false;
  for (size_t i = 0; i < flat.size(); ++i) {
    LayoutStage& st = layout.stages.back();
    switch (flat[i]) {
      case '|':
        layout.stages.emplace_back();
        break;
      case 'E':
        ++embeddings;
        st.embedding = true;
        break;
      case 't':
        if (mtp_seen) return std::string("a t after an m: Megatron-Core places the transformer layers before the MTP layers");
        ++st.layers;
        break;
      case 'm':
        mtp_seen = true;
        ++st.mtp;
        break;
      default:  // 'L'
        ++losses;
        st.loss = true;
        break;
    }
  }
  if (embeddings != 1) return "needs exactly one E (the embedding), found " + std::to_string(embeddings);
  if (losses != 1) return "needs exactly one L (the loss), found " + std::to_string(losses);
  // Megatron-Core: "The first layer must be embedding", "The last layer must be loss".
  if (flat.front() != 'E') return std::string("E (the embedding) must open the first stage");
  if (flat.back() != 'L') return std::string("L (the loss) must close the last stage");
  out = std::move(layout);
  return std::nullopt;
}

std::optional<std::string> check_pipeline_layout(const PipelineLayout& layout, int layers, int mtp_depth, int pp,
                                                 int virtual_stages) {
  const long long chunks = static_cast<long long>(pp) * virtual_stages;
  const long long stages = static_cast<long long>(layout.stages.size());
  if (stages != chunks)
    return "has " + std::to_string(stages) + " stages, but parallel.pp x parallel.virtual_stages = " +
           std::to_string(pp) + " x " + std::to_string(virtual_stages) + " = " + std::to_string(chunks) +
           " (stage i runs on pipeline rank i mod pp)";
  if (layout.layers() != layers)
    return "has " + std::to_string(layout.layers()) + " t (transformer layers), but model.layers = " +
           std::to_string(layers);
  if (layout.mtp_layers() != mtp_depth)
    return "has " + std::to_string(layout.mtp_layers()) + " m (MTP layers), but model.mtp_depth = " +
           std::to_string(mtp_depth);
  // Megatron-Core's validate_layer_layout: all MTP layers in one virtual stage, the last of
  // its pipeline rank.
  for (long long i = 0; i < stages; ++i) {
    const int mtp = layout.stages[static_cast<size_t>(i)].mtp;
    if (mtp == 0) continue;
    if (mtp != mtp_depth)
      return "splits its m (MTP layers) over several stages: Megatron-Core keeps them in one virtual stage";
    if (i / pp != virtual_stages - 1)
      return "has m in stage " + std::to_string(i) + ", virtual stage " + std::to_string(i / pp) +
             " of pipeline rank " + std::to_string(i % pp) +
             ": Megatron-Core runs MTP layers only in a rank's last virtual stage";
  }
  return std::nullopt;
}

std::vector<ModelChunk> layout_chunks(const PipelineLayout& layout) {
  std::vector<ModelChunk> chunks;
  int next = 0;
  for (const LayoutStage& st : layout.stages) {
    ModelChunk c;
    c.first_layer = next;
    c.layers = st.layers;
    c.has_embedding = st.embedding;
    c.has_output = st.loss;
    c.mtp_layers = st.mtp;
    c.cost = st.layers;
    next += st.layers;
    chunks.push_back(c);
  }
  return chunks;
}

}  // namespace trainsim
