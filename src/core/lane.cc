#include "forgemeter/lane.h"

#include <memory>
#include <stdexcept>
#include <unordered_map>

#include "core/mutex.h"
#include "core/terminal_text.h"

namespace forgemeter {

struct Lane::Interned {
  std::string name;
};

namespace {

constexpr std::string_view kOther = "other";

bool lane_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

}  // namespace

// Interned names live for the process: a Lane is a pointer into this table.
// Never destroyed, so lanes stay valid in static destructors too.
static core_detail::Mutex& table_mutex() {
  static auto* mu = new core_detail::Mutex;
  return *mu;
}

static thread_local const void* t_current = nullptr;  // Lane::Interned*; nullptr = other

std::optional<std::string> Lane::check(std::string_view name) {
  if (name.empty()) return "lane name is empty (use 1-63 bytes of [a-z0-9._-])";
  if (name.size() > 63) return "lane name is " + std::to_string(name.size()) + " bytes long; the limit is 63";
  for (std::size_t i = 0; i < name.size(); ++i) {
    auto c = static_cast<unsigned char>(name[i]);
    if (!lane_byte(c)) {
      std::string shown = (c > 0x20 && c < 0x7f) ? std::string("'") + char(c) + "'" : "byte " + std::to_string(c);
      return "lane name has " + shown + " at offset " + std::to_string(i) + " (allowed: [a-z0-9._-])";
    }
  }
  auto first = static_cast<unsigned char>(name[0]);
  if (!((first >= 'a' && first <= 'z') || (first >= '0' && first <= '9')))
    return "lane name must start with a letter or a digit";
  if (name == kOther) return "lane name 'other' is reserved for untagged requests";
  return std::nullopt;
}

std::optional<Lane> Lane::parse(std::string_view name) {
  if (check(name)) return std::nullopt;
  static auto* names PT_GUARDED_BY(table_mutex()) = new std::unordered_map<std::string, std::unique_ptr<Interned>>;
  core_detail::MutexLock lock(table_mutex());
  auto& slot = (*names)[std::string(name)];
  if (!slot) slot = std::make_unique<Interned>(Interned{std::string(name)});
  return Lane(slot.get());
}

Lane::Lane(std::string_view name) : p_(nullptr) {
  if (auto why = check(name)) {
    throw std::invalid_argument("invalid lane \"" + core_detail::terminal_text(name, 64) + "\": " + *why);
  }
  p_ = parse(name)->p_;
}

Lane Lane::other() noexcept { return Lane(static_cast<const Interned*>(nullptr)); }

std::string_view Lane::name() const noexcept { return p_ ? std::string_view(p_->name) : kOther; }

bool Lane::is_other() const noexcept { return p_ == nullptr; }

std::strong_ordering operator<=>(Lane a, Lane b) noexcept {
  if (a.p_ == b.p_) return std::strong_ordering::equal;
  if (a.is_other()) return std::strong_ordering::less;
  if (b.is_other()) return std::strong_ordering::greater;
  return a.name().compare(b.name()) <=> 0;
}

LaneScope::LaneScope(Lane lane) noexcept : saved_(current_lane()) { t_current = lane.p_; }

LaneScope::~LaneScope() { t_current = saved_.p_; }

Lane current_lane() noexcept { return Lane(static_cast<const Lane::Interned*>(t_current)); }

}  // namespace forgemeter
