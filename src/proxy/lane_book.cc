#include "proxy/lane_book.h"

#include <stdexcept>
#include <utility>

namespace forgemeter::proxy {

LaneBook::LaneBook(LaneOptions options) : fixed_(!options.named.empty()), max_(options.max_lanes) {
  for (auto& name : options.named) {
    if (auto why = Lane::check(name)) throw std::invalid_argument("lane '" + name + "': " + *why);
    names_.insert(std::move(name));
  }
}

std::optional<std::string> LaneBook::admit(std::string_view name) {
  if (auto why = Lane::check(name)) return "lane: " + *why;
  core_detail::MutexLock lock(mu_);
  if (names_.contains(name)) return std::nullopt;
  if (fixed_) return "lane '" + std::string(name) + "' is not one of the proxy's lanes";
  if (names_.size() >= max_)
    return "lane '" + std::string(name) + "': the proxy already has its " + std::to_string(max_) + " lanes";
  names_.emplace(name);
  return std::nullopt;
}

LanePick LaneBook::pick(std::optional<std::string_view> header, std::string_view path) {
  LanePick p;
  std::optional<std::string_view> name = header;
  p.path = std::string(path.empty() ? "/" : path);
  if (path.starts_with(kLanePrefix)) {
    const std::string_view rest = path.substr(kLanePrefix.size());
    const std::size_t slash = rest.find('/');
    const std::string_view in_path = rest.substr(0, slash);
    if (header && *header != in_path) {
      p.refused = "the lane header and the path name two lanes";
      return p;
    }
    name = in_path;
    p.base_path = std::string(path.substr(0, kLanePrefix.size() + in_path.size()));
    p.path = slash == std::string_view::npos ? "/" : std::string(rest.substr(slash));
  }
  if (!name) return p;
  if (auto why = admit(*name)) {
    p.refused = std::move(why);
    return p;
  }
  p.lane = Lane::parse(*name);
  return p;
}

std::size_t LaneBook::size() const {
  core_detail::MutexLock lock(mu_);
  return names_.size();
}

}  // namespace forgemeter::proxy
