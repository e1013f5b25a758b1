// Term: the self-invalidating gate (forgemeter/campaign.h).
#include "lease/term_state.h"

namespace forgemeter {

bool Term::valid() const noexcept { return state_->valid(); }
std::uint64_t Term::number() const noexcept { return state_->number; }
std::stop_token Term::stop_token() const noexcept { return state_->stop.get_token(); }
UtcMillis Term::started() const noexcept { return state_->started; }
SteadyTime Term::deadline() const noexcept { return state_->deadline(); }

}  // namespace forgemeter
