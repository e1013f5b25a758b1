// LeaseNames: an application's lease names, each claimed once.
#include <set>
#include <stdexcept>

#include "core/mutex.h"
#include "forgemeter/campaign.h"
#include "lease/event_text.h"

namespace forgemeter {

struct LeaseNames::Impl {
  mutable core_detail::Mutex mu;
  std::set<std::string, std::less<>> names GUARDED_BY(mu);  // node-based: views into it stay valid
};

std::shared_ptr<LeaseNames::Impl> LeaseNames::make_impl() { return std::make_shared<Impl>(); }

std::string_view LeaseNames::claim(std::string_view name) {
  if (auto why = check_lease_name(name)) throw std::invalid_argument("LeaseNames::claim: " + *why);
  core_detail::MutexLock lock(impl_->mu);
  auto [it, inserted] = impl_->names.emplace(name);
  if (!inserted)
    throw std::logic_error("LeaseNames::claim: lease name \"" + lease_detail::escape_for_line(name) +
                           "\" is already claimed (two nets would campaign on one lease)");
  return *it;
}

bool LeaseNames::claimed(std::string_view name) const {
  core_detail::MutexLock lock(impl_->mu);
  return impl_->names.contains(name);
}

LeaseNames& LeaseNames::process() {
  static LeaseNames* names = new LeaseNames;  // never destroyed: usable from static destructors
  return *names;
}

}  // namespace forgemeter
