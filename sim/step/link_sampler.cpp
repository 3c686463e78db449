#include "sim/step/link_sampler.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Link.hpp>

#include <algorithm>
#include <map>
#include <numeric>

namespace trainsim {

namespace sg4 = simgrid::s4u;

LinkSampler::LinkSampler(double interval_s, int busiest) : interval_s_(interval_s), busiest_(busiest) {}

std::string LinkSampler::link_class(const std::string& name) {
  if (name.rfind("nvlink", 0) == 0) return "nvlink";
  if (name.find(".nic") != std::string::npos) return "nic";
  if (name.rfind("leaf", 0) == 0) return "leaf";
  return "spine";  // pod and rail uplinks to the core (platform.cpp)
}

void LinkSampler::start(sg4::Host* host) {
  for (sg4::Link* link : sg4::Engine::get_instance()->get_all_links())
    if (link->get_name() != "__loopback__") links_.push_back(link);
  // Sorted by name: the same platform gives the same order, hence the same trace.
  std::sort(links_.begin(), links_.end(), [](sg4::Link* a, sg4::Link* b) { return a->get_name() < b->get_name(); });
  utilization_.assign(links_.size(), {});
  sg4::Actor::create("link-sampler", host, [this] {
    for (;;) {
      sample_once();
      sg4::this_actor::sleep_for(interval_s_);
    }
  })->daemonize();  // ends with the simulation
}

void LinkSampler::sample_once() {
  times_s_.push_back(sg4::Engine::get_clock());
  for (size_t i = 0; i < links_.size(); ++i) {
    const double bandwidth = links_[i]->get_bandwidth();
    utilization_[i].push_back(bandwidth > 0 ? static_cast<float>(links_[i]->get_usage() / bandwidth) : 0.0f);
  }
}

std::vector<LinkSample> LinkSampler::samples() const {
  std::vector<double> mean(links_.size(), 0.0);
  for (size_t i = 0; i < links_.size(); ++i)
    mean[i] = std::accumulate(utilization_[i].begin(), utilization_[i].end(), 0.0) /
              std::max<size_t>(1, utilization_[i].size());
  std::vector<size_t> order(links_.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return mean[a] > mean[b]; });

  std::vector<LinkSample> out;
  for (size_t r = 0; r < std::min<size_t>(order.size(), static_cast<size_t>(busiest_)); ++r) {
    const size_t i = order[r];
    if (mean[i] <= 0) break;
    const std::string& name = links_[i]->get_name();
    for (size_t t = 0; t < times_s_.size(); ++t)
      out.push_back({name, link_class(name), times_s_[t], utilization_[i][t]});
  }
  std::map<std::string, std::vector<size_t>> classes;
  for (size_t i = 0; i < links_.size(); ++i) classes[link_class(links_[i]->get_name())].push_back(i);
  for (const auto& [cls, members] : classes) {
    for (size_t t = 0; t < times_s_.size(); ++t) {
      double sum = 0;
      for (const size_t i : members) sum += utilization_[i][t];
      out.push_back({"class:" + cls, cls, times_s_[t], sum / static_cast<double>(members.size())});
    }
  }
  return out;
}

}  // namespace trainsim
