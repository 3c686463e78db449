#include "sim/sweep/value_list.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/portable_math.hpp"
#include "sim/core/units.hpp"

namespace trainsim::sweep {

namespace {

constexpr size_t k_max_values = 100000;

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  const auto last = s.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

// A number with an optional unit suffix ("16", "2.5", "10min").
struct Quantity {
  double value = 0;
  std::string unit;
};

std::optional<Quantity> parse_quantity(const std::string& text) {
  if (text.empty()) return std::nullopt;
  size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  if (used == 0 || !std::isfinite(v)) return std::nullopt;
  return Quantity{v, trim(text.substr(used))};
}

std::string format_number(double v) {
  char buf[64];
  if (std::fabs(v - std::round(v)) < 1e-9 * std::max(1.0, std::fabs(v)) && std::fabs(v) < 9e15)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(std::llround(v)));
  else
    std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

bool close_to(double a, double b) {
  return std::fabs(a - b) <= 1e-9 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

class Expander {
 public:
  Expander(std::string file, std::string key, std::string text)
      : file_(std::move(file)), key_(std::move(key)), text_(std::move(text)) {}

  [[noreturn]] void fail(const std::string& rule) const { throw InputError(file_, key_, text_, rule); }

  void push(std::string v) {
    if (values_.size() >= k_max_values) fail("more than 100000 values");
    values_.push_back(std::move(v));
  }

  // from, from*step or from+step, ... up to `to` (included when hit). A factor below 1 or a
  // negative step runs downwards (512..16 x0.5, 100..10 +-10).
  void progression(double from, double to, double step, bool geometric, const std::string& unit) {
    if (geometric && (from <= 0 || to <= 0 || step <= 0 || close_to(step, 1)))
      fail("a geometric range needs ends > 0 and a factor > 0 other than 1 (x2 upwards, x0.5 downwards)");
    if (!geometric && step == 0) fail("an arithmetic range needs a step other than 0 (+2 upwards, +-2 downwards)");
    const bool down = geometric ? step < 1 : step < 0;
    if (!close_to(from, to) && (from > to) != down)
      fail(down ? "a range going down (a factor below 1 or a negative step) must start above its end"
                : "a range's start must not exceed its end (to go down, use a factor below 1 or a negative step)");
    for (size_t i = 0;; ++i) {
      const double v =
          geometric ? from * portable::pow(step, static_cast<double>(i)) : from + step * static_cast<double>(i);
      if ((down ? v < to : v > to) && !close_to(v, to)) break;
      push(format_number(v) + unit);
    }
  }

  void range(const std::string& item) {
    const auto dots = item.find("..");
    const std::string lhs = trim(item.substr(0, dots));
    std::istringstream rest(item.substr(dots + 2));
    std::string rhs, step_text, extra;
    rest >> rhs >> step_text >> extra;
    if (rhs.empty() || step_text.size() < 2 || !extra.empty() || (step_text[0] != 'x' && step_text[0] != '+'))
      fail("a range is 'a..b xK' (geometric) or 'a..b +K' (arithmetic)");
    const auto a = parse_quantity(lhs);
    const auto b = parse_quantity(rhs);
    const auto k = parse_quantity(step_text.substr(1));
    if (!a || !b || !k || !k->unit.empty()) fail("a range's ends and step must be numbers");
    const bool geometric = step_text[0] == 'x';
    if (a->unit == b->unit) return progression(a->value, b->value, k->value, geometric, a->unit);
    const auto from_s = units::parse_duration(lhs);
    const auto to_s = units::parse_duration(rhs);
    if (!from_s || !to_s) fail("a range's ends need the same unit, or both a duration unit");
    if (!geometric) {
      const auto step_s = units::parse_duration(step_text.substr(1));
      if (!step_s) fail("an arithmetic range over durations needs a step with a duration unit");
      return progression(*from_s, *to_s, *step_s, false, "s");
    }
    progression(*from_s, *to_s, k->value, true, "s");
  }

  // "..." continues the progression of the terms before it up to the term after it, upwards
  // or downwards (512,256,128,...,16). Three terms fix the progression; two do when only one
  // of the arithmetic and the geometric progression through them reaches the last term
  // (512,256,...,16 is geometric: 512,256,0 never reaches 16).
  void ellipsis(const std::string& next) {
    if (values_.size() < 2) fail("'...' needs three terms before it");
    const size_t terms = std::min<size_t>(3, values_.size());
    std::vector<Quantity> q;
    for (size_t i = values_.size() - terms; i < values_.size(); ++i) {
      const auto v = parse_quantity(values_[i]);
      if (!v) fail("'...' needs numbers with one unit before and after it");
      q.push_back(*v);
    }
    const auto end = parse_quantity(next);
    if (!end || std::any_of(q.begin(), q.end(), [&](const Quantity& t) { return t.unit != end->unit; }))
      fail("'...' needs numbers with one unit before and after it");
    const Quantity& a = q[q.size() - 2];
    const Quantity& b = q.back();
    const double difference = b.value - a.value;
    const bool positive = std::all_of(q.begin(), q.end(), [](const Quantity& t) { return t.value > 0; });
    const double ratio = positive ? b.value / a.value : 0;
    bool arithmetic = !close_to(b.value, a.value);
    bool geometric = positive && !close_to(b.value, a.value);
    if (terms == 3) {
      arithmetic = arithmetic && close_to(q[1].value - q[0].value, difference);
      geometric = geometric && close_to(q[1].value / q[0].value, ratio);
      if (arithmetic) geometric = false;  // 2,4,6 or 3,3,3: arithmetic
    } else {
      arithmetic = arithmetic && reaches(b.value, difference, false, end->value);
      geometric = geometric && reaches(b.value, ratio, true, end->value);
      if (arithmetic && geometric)
        fail("two terms before '...' reach " + next + " both arithmetically and geometrically: give three");
      if (!arithmetic && !geometric) fail("the progression before '...' does not reach " + next);
    }
    if (!arithmetic && !geometric)
      fail("the three terms before '...' are neither an arithmetic nor a geometric progression");
    const double step = geometric ? ratio : difference;
    const double first = geometric ? b.value * step : b.value + step;
    const bool down = geometric ? step < 1 : step < 0;
    if (!close_to(first, end->value) && (first > end->value) != down)
      fail("the progression before '...' does not reach " + next);
    const size_t before = values_.size();
    progression(first, end->value, step, geometric, a.unit);
    if (values_.size() == before || !close_to(parse_quantity(values_.back())->value, end->value))
      fail("the progression before '...' does not reach " + next);
  }

  // Whether the progression from `last` by `step` hits `end` after one or more steps.
  static bool reaches(double last, double step, bool geometric, double end) {
    if (geometric && end <= 0) return false;
    const double n = geometric ? portable::log(end / last) / portable::log(step) : (end - last) / step;
    return n > 0.5 && close_to(n, std::round(n));
  }

  std::vector<std::string> run() {
    std::vector<std::string> items;
    std::stringstream in(text_);
    std::string item;
    while (std::getline(in, item, ',')) items.push_back(trim(item));
    if (items.empty()) fail("expected a list of values or a range");
    for (size_t i = 0; i < items.size(); ++i) {
      const std::string& it = items[i];
      if (it.empty()) fail("an empty value in the list");
      if (it == "...") {
        if (i + 1 >= items.size()) fail("'...' needs a last term after it");
        ellipsis(items[i + 1]);
        ++i;  // the last term was generated by the progression
      } else if (it.find("..") != std::string::npos) {
        range(it);
      } else {
        push(it);
      }
    }
    return values_;
  }

 private:
  std::string file_;
  std::string key_;
  std::string text_;
  std::vector<std::string> values_;
};

}  // namespace

std::vector<std::string> expand_values(const std::string& file, const std::string& key, const std::string& text) {
  return Expander(file, key, text).run();
}

}  // namespace trainsim::sweep
