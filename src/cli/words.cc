#include "cli/words.h"

#include <algorithm>
#include <array>
#include <numeric>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

namespace forgemeter::cli {

namespace {

// Edits between a and b, a transposition of neighbours counting one
// (optimal string alignment): "reprot" is one edit from "report".
std::size_t edits(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  std::iota(d[0].begin(), d[0].end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

bool shown(const CLI::App* sub) { return !sub->get_group().empty(); }  // group "" hides
bool shown(const CLI::Option* opt) { return !opt->get_group().empty(); }

std::vector<std::string> command_words(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App* s) { return shown(s); }))
    out.push_back(sub->get_name());
  return out;
}

std::vector<std::string> option_words(const CLI::App& app) {
  std::vector<std::string> out;
  for (const CLI::Option* opt : app.get_options([](const CLI::Option* o) { return shown(o) && o->nonpositional(); })) {
    for (const auto& l : opt->get_lnames()) out.push_back("--" + l);
    for (const auto& s : opt->get_snames()) out.push_back("-" + s);
  }
  return out;
}

const CLI::App* command_named(const CLI::App& app, std::string_view word) {
  auto subs = app.get_subcommands([&](const CLI::App* s) { return s->check_name(std::string(word)); });
  return subs.empty() ? nullptr : subs.front();
}

// The option `word` names (`--ttl`, `--ttl=90s`, `-X`), or nullptr.
const CLI::Option* option_named(const CLI::App& app, std::string_view word) {
  const std::string name(word.substr(0, word.find('=')));
  auto opts = app.get_options([&](const CLI::Option* o) { return o->nonpositional() && o->check_name(name); });
  return opts.empty() ? nullptr : opts.front();
}

bool takes_value(const CLI::Option* opt, std::string_view word) {
  return opt != nullptr && opt->get_type_size_max() > 0 && word.find('=') == std::string_view::npos;
}

// The deepest command the parser reached.
const CLI::App* reached(const CLI::App& root) {
  const CLI::App* at = &root;
  for (auto subs = at->get_subcommands(); !subs.empty(); subs = at->get_subcommands()) at = subs.front();
  return at;
}

std::string command_path(const CLI::App* at) {
  std::string path = at->get_name();
  for (const CLI::App* p = at->get_parent(); p != nullptr; p = p->get_parent()) path = p->get_name() + " " + path;
  return path;
}

// curl options fetch leaves out on purpose, and what to use instead: a
// curl user's first guesses deserve more than a near spelling.
std::optional<std::string_view> not_offered(std::string_view command, std::string_view option) {
  static constexpr std::array<std::array<std::string_view, 3>, 6> kWhy{{
      {"fetch", "-k", "TLS is always verified: give the forge's CA with --cacert FILE"},
      {"fetch", "--insecure", "TLS is always verified: give the forge's CA with --cacert FILE"},
      {"fetch", "-u", "give the credential with --bearer-file FILE, or -H 'Authorization: ...'"},
      {"fetch", "--user", "give the credential with --bearer-file FILE, or -H 'Authorization: ...'"},
      {"fetch", "-I", "-i shows the answer's status line and header fields before its body"},
      {"fetch", "--head", "-i shows the answer's status line and header fields before its body"},
  }};
  for (const auto& [cmd, opt, why] : kWhy)
    if (cmd == command && opt == option) return why;
  return std::nullopt;
}

// The values an option takes when it names them (CLI::IsMember shows them in
// its type as `TEXT:{table,json,csv,html}`, as --help prints it); none for a
// file, a number or free text.
std::vector<std::string> choices(const CLI::Option& opt) {
  const std::string type = opt.get_type_name();
  const auto open = type.find(":{");
  if (open == std::string::npos || !type.ends_with('}')) return {};
  std::vector<std::string> out;
  std::string_view list = std::string_view(type).substr(open + 2, type.size() - open - 3);
  for (std::size_t at = 0; at <= list.size();) {
    const auto comma = std::min(list.find(',', at), list.size());
    out.emplace_back(list.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

}  // namespace

std::optional<std::string> closest(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_edits = std::max<std::size_t>(1, word.size() / 3) + 1;
  for (const auto& c : candidates)
    if (const std::size_t e = edits(word, c); e < best_edits) best = c, best_edits = e;
  return best;
}

std::string WordError::text() const {
  return suggestion ? fmt::format("{}; did you mean '{}'?", what, *suggestion) : what;
}

std::optional<WordError> unknown_word(const CLI::App& root) {
  const CLI::App* at = reached(root);
  const std::vector<std::string> left = root.remaining(true);
  const std::vector<std::string> commands = command_words(*at);
  const std::string where = at == &root ? std::string() : fmt::format(" for '{}'", command_path(at));
  if (left.empty()) {
    if (commands.empty() || !at->get_subcommands().empty()) return std::nullopt;
    return WordError{fmt::format("a command is needed{}: {}", where, fmt::join(commands, ", ")), std::nullopt};
  }
  // An unknown option comes first, wherever it stands: it may have taken the
  // word after it as its value and shifted every argument after it
  // (`lease run --bogus x NAME -- CMD` leaves CMD over, not --bogus).
  const auto unknown_option = std::find_if(
      left.begin(), left.end(), [](const std::string& w) { return w.size() > 1 && w[0] == '-' && w != "--"; });
  const std::string& word = unknown_option != left.end() ? *unknown_option : left.front();
  if (word == "--")  // `lease run NAME --` and nothing after it
    return WordError{fmt::format("nothing follows '--'{}: give the command to run after it", where), std::nullopt};
  const bool option = word.size() > 1 && word[0] == '-';
  if (!option && commands.empty())
    return WordError{fmt::format("unexpected argument '{}'{}", word, where), std::nullopt};
  WordError said{fmt::format("unknown {} '{}'{}", option ? "option" : "command", word, where), std::nullopt};
  const std::string_view name = option ? std::string_view(word).substr(0, word.find('=')) : std::string_view(word);
  if (const auto why = option ? not_offered(at->get_name(), name) : std::nullopt) {
    said.what += "; " + std::string(*why);
    return said;
  }
  // One letter away from any short option is no spelling mistake: no guess for those.
  if (!(name.size() == 2 && option)) said.suggestion = closest(name, option ? option_words(*at) : commands);
  return said;
}

std::string reached_command(const CLI::App& root) { return command_path(reached(root)); }

std::string completion_candidates(const CLI::App& root, const std::vector<std::string>& words) {
  const CLI::App* at = &root;
  const std::string cur = words.empty() ? std::string() : words.back();
  const CLI::Option* wants_value = nullptr;  // the previous word is an option that takes one
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& w = words[i];
    if (wants_value != nullptr) {
      wants_value = nullptr;
    } else if (w == "--") {
      return "__commands__\n";
    } else if (w.size() > 1 && w[0] == '-') {
      const CLI::Option* opt = option_named(*at, w);
      wants_value = takes_value(opt, w) ? opt : nullptr;
    } else if (const CLI::App* sub = command_named(*at, w)) {
      at = sub;
    }
  }
  std::vector<std::string> pool = wants_value != nullptr          ? choices(*wants_value)
                                  : !cur.empty() && cur[0] == '-' ? option_words(*at)
                                                                  : command_words(*at);
  if (pool.empty()) return "__files__\n";
  std::string out;
  for (const auto& w : pool)
    if (w.compare(0, cur.size(), cur) == 0) out += w + "\n";
  return out;
}

}  // namespace forgemeter::cli
