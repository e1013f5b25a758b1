#include "cli/parse_error.h"

#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

namespace forgemeter::cli {

namespace {

// The option of that name on the deepest subcommand the parser reached, or
// on one above it (an option of the root is valid under every subcommand).
const CLI::Option* find_option(const CLI::App& root, const std::string& name) {
  std::vector<const CLI::App*> deepest_first{&root};
  for (auto subs = root.get_subcommands(); !subs.empty(); subs = subs.front()->get_subcommands())
    deepest_first.insert(deepest_first.begin(), subs.front());
  for (const CLI::App* at : deepest_first)
    if (const CLI::Option* opt = at->get_option_no_throw(name)) return opt;
  return nullptr;
}

}  // namespace

std::optional<std::string> missing_value_message(const CLI::App& root, const CLI::ParseError& e) {
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) == nullptr) return std::nullopt;
  // CLI11 2.x words a value missing at the end of the arguments (or before
  // the next option) as "NAME: N required TYPE missing".
  const std::string_view what = e.what();
  const std::size_t colon = what.find(": ");
  constexpr std::string_view kRequired = " required ";
  if (colon == std::string_view::npos || !what.ends_with(" missing")) return std::nullopt;
  const std::size_t required = what.find(kRequired, colon);
  if (required == std::string_view::npos) return std::nullopt;
  const std::string_view count = what.substr(colon + 2, required - colon - 2);
  const CLI::Option* opt = find_option(root, std::string(what.substr(0, colon)));
  if (opt == nullptr) return std::nullopt;
  const std::string takes = opt->get_option_text().empty() ? opt->get_type_name() : opt->get_option_text();
  return fmt::format("{} needs {} ({})", opt->get_name(), count == "1" ? "a value" : fmt::format("{} values", count),
                     takes);
}

}  // namespace forgemeter::cli
