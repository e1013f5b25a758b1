#include "cli/man_section.h"

#include <algorithm>
#include <memory>
#include <string_view>

#include <CLI/CLI.hpp>

namespace forgemeter::cli {
namespace {

std::string roff(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
    line_start = c == '\n';
  }
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

// A --help description as roff fills it: a line that starts with spaces (an
// example, a format) stays a line of its own; the rest runs on as a paragraph.
std::string paragraph(std::string_view text) {
  std::string out;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string_view line = text.substr(at, end - at);
    out += roff(line);
    if (line.starts_with(' ')) out += ".br\n";
    at = end + 1;
  }
  return out;
}

class RoffFormatter final : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode) const override {
    std::string out = paragraph(app->get_description());
    out += ".PP\n" + roff(make_usage(app, std::move(name)));
    options(
        out, app, "Arguments", [](const CLI::Option* o) { return o->get_positional(); }, true);
    options(
        out, app, "Options", [](const CLI::Option* o) { return o->nonpositional(); }, false);
    return out;
  }

 private:
  template <class Which>
  void options(std::string& out, const CLI::App* app, const char* heading, Which which, bool positional) const {
    const auto opts = app->get_options([&](const CLI::Option* o) { return !o->get_group().empty() && which(o); });
    if (opts.empty()) return;
    out += std::string(".PP\n.B ") + heading + "\n";
    for (const CLI::Option* o : opts) {
      std::string tag = roff(make_option_name(o, positional)), opts = roff(make_option_opts(o));
      tag.pop_back();  // its newline
      out += ".TP\n\\fB" + tag + "\\fR" + (opts.empty() ? "\n" : opts) + paragraph(make_option_desc(o));
    }
  }
};

}  // namespace

std::optional<std::string> man_section(CLI::App& root, const std::vector<std::string>& path) {
  CLI::App* at = &root;
  std::string prev = root.get_name();
  for (const std::string& word : path) {
    CLI::App* sub = nullptr;
    for (CLI::App* s : at->get_subcommands([&](CLI::App* c) { return c->get_name() == word; })) sub = s;
    if (sub == nullptr) return std::nullopt;
    if (at != &root) prev += " " + at->get_name();
    at = sub;
  }
  std::string title = root.get_name();
  for (const std::string& word : path) title += " " + word;
  at->formatter(std::make_shared<RoffFormatter>());
  return ".SS \"" + title + "\"\n" + at->help(prev);
}

}  // namespace forgemeter::cli
