#include "transport/admission/lane_gates.h"

#include <stdexcept>

namespace forgemeter::transport_detail {

void LaneGates::gate(Lane lane, std::function<bool()> valid) {
  if (!valid) throw std::invalid_argument("gate_lane: the gate function is empty");
  auto g = std::make_shared<const std::function<bool()>>(std::move(valid));
  core_detail::WriterLock lock(mu_);
  for (auto& [l, existing] : gates_)
    if (l == lane) {
      existing = std::move(g);
      return;
    }
  gates_.emplace_back(lane, std::move(g));
  count_.store(gates_.size(), std::memory_order_release);
}

void LaneGates::ungate(Lane lane) {
  core_detail::WriterLock lock(mu_);
  std::erase_if(gates_, [lane](const auto& e) { return e.first == lane; });
  count_.store(gates_.size(), std::memory_order_release);
}

bool LaneGates::allows(Lane lane) const noexcept {
  if (count_.load(std::memory_order_acquire) == 0) return true;
  Gate g;
  {
    core_detail::ReaderLock lock(mu_);
    for (const auto& [l, gate] : gates_)
      if (l == lane) g = gate;
  }
  if (!g) return true;
  try {
    return (*g)();
  } catch (...) {
    return false;
  }
}

}  // namespace forgemeter::transport_detail
