#include "tests/engine/isolated_run.hpp"

#include <sstream>

#include "sim/core/forked_call.hpp"

namespace trainsim::engine::test {

std::vector<double> run_isolated(const std::function<std::vector<double>()>& simulate) {
  const std::string text = forked_call([&] {
    std::ostringstream out;
    out.precision(17);
    for (const double v : simulate()) out << v << ' ';
    return out.str();
  });
  std::istringstream in(text);
  std::vector<double> values;
  for (double v; in >> v;) values.push_back(v);
  return values;
}

}  // namespace trainsim::engine::test
