#include "models/op_queries.hpp"

namespace trainsim {

double total_flops(const std::vector<Op>& ops, bool executed) {
  double sum = 0;
  for (const Op& op : ops) sum += executed ? op.flops : op.model_flops;
  return sum;
}

bool is_attention_core(const Op& op) {
  if (op.kind == OpKind::attention) return true;
  for (const char* prefix :
       {"attention.scores", "attention.softmax", "attention.dropout", "attention.values", "attention.cp."})
    if (op.name.rfind(prefix, 0) == 0) return true;
  return false;
}

}  // namespace trainsim
