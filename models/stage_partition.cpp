#include "models/stage_partition.hpp"

#include <limits>
#include <stdexcept>

namespace trainsim {

namespace {

struct Score {
  double max_cost = std::numeric_limits<double>::infinity();
  double sum_squares = std::numeric_limits<double>::infinity();
  bool better_than(const Score& o) const {
    if (max_cost != o.max_cost) return max_cost < o.max_cost;
    return sum_squares < o.sum_squares;
  }
};

}  // namespace

std::vector<ModelChunk> partition_layers(const std::vector<double>& layer_costs, int chunks, double embedding_cost,
                                         double output_cost) {
  const int n = static_cast<int>(layer_costs.size());
  if (chunks < 1 || chunks > n) throw std::invalid_argument("partition_layers: need 1 <= chunks <= layers");

  std::vector<double> prefix(n + 1, 0.0);
  for (int i = 0; i < n; ++i) prefix[i + 1] = prefix[i] + layer_costs[i];
  const auto chunk_cost = [&](int c, int begin, int end) {
    double cost = prefix[end] - prefix[begin];
    if (c == 0) cost += embedding_cost;
    if (c == chunks - 1) cost += output_cost;
    return cost;
  };

  // best[c][j]: best split of layers [0, j) into chunks 0..c; cut[c][j]: where chunk c begins.
  std::vector<std::vector<Score>> best(chunks, std::vector<Score>(n + 1));
  std::vector<std::vector<int>> cut(chunks, std::vector<int>(n + 1, -1));
  for (int j = 1; j <= n - (chunks - 1); ++j) {
    const double cost = chunk_cost(0, 0, j);
    best[0][j] = {cost, cost * cost};
    cut[0][j] = 0;
  }
  for (int c = 1; c < chunks; ++c) {
    for (int j = c + 1; j <= n - (chunks - 1 - c); ++j) {
      for (int i = c; i < j; ++i) {
        const Score& before = best[c - 1][i];
        if (cut[c - 1][i] < 0) continue;
        const double cost = chunk_cost(c, i, j);
        const Score candidate{std::max(before.max_cost, cost), before.sum_squares + cost * cost};
        if (candidate.better_than(best[c][j])) {
          best[c][j] = candidate;
          cut[c][j] = i;
        }
      }
    }
  }

  std::vector<ModelChunk> result(chunks);
  int end = n;
  for (int c = chunks - 1; c >= 0; --c) {
    const int begin = cut[c][end];
    result[c].first_layer = begin;
    result[c].layers = end - begin;
    result[c].has_embedding = c == 0;
    result[c].has_output = c == chunks - 1;
    result[c].cost = chunk_cost(c, begin, end);
    end = begin;
  }
  return result;
}

std::vector<ModelChunk> even_layers(int layers, int chunks, bool ends_count_as_layers) {
  const int slots = layers + (ends_count_as_layers ? 2 : 0);
  if (chunks < 1 || slots % chunks != 0) throw std::invalid_argument("even_layers: chunks must divide the layers");
  const int per = slots / chunks;
  std::vector<ModelChunk> result(static_cast<size_t>(chunks));
  int next = 0;
  for (int c = 0; c < chunks; ++c) {
    ModelChunk& chunk = result[static_cast<size_t>(c)];
    chunk.first_layer = next;
    chunk.layers = per - (ends_count_as_layers && c == 0 ? 1 : 0) - (ends_count_as_layers && c == chunks - 1 ? 1 : 0);
    // Llama 3 §3.3.2: "the first model chunk on the first stage has only the embedding, and
    // the last model chunk on the last stage has only output projection and loss".
    if (chunk.layers < 0 || (chunk.layers == 0 && !(ends_count_as_layers && (c == 0 || c == chunks - 1))))
      throw std::invalid_argument("even_layers: a chunk without layers");
    chunk.has_embedding = c == 0;
    chunk.has_output = c == chunks - 1;
    chunk.cost = chunk.layers;
    next += chunk.layers;
  }
  return result;
}

std::vector<ModelChunk> chunks_of_stage(const std::vector<ModelChunk>& chunks, int pp, int stage) {
  std::vector<ModelChunk> mine;
  for (size_t c = static_cast<size_t>(stage); c < chunks.size(); c += static_cast<size_t>(pp))
    mine.push_back(chunks[c]);
  return mine;
}

std::vector<ModelChunk> mirrored_chunks_of_stage(const std::vector<ModelChunk>& chunks, int stage) {
  const size_t pp = chunks.size();
  return {chunks[static_cast<size_t>(stage)], chunks[pp - 1 - static_cast<size_t>(stage)]};
}

}  // namespace trainsim
