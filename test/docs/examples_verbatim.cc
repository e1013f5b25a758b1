// examples_verbatim: every code example in README.md, docs/*.md and the public
// headers stands verbatim in an examples/*.cc file, which examples/ compiles
// with -Wall -Wextra: an example that drifts from code that compiles fails here.
//
// What counts as an example:
//   * Markdown: a fenced block opened by ```cpp or ```c++.
//   * A public header (include/forgemeter/*.h, testing/*.h): a run of comment lines indented
//     at least two spaces deeper than prose (`//   code`) that reads as code:
//     one of its lines holds `forgemeter::` or ends (before any trailing `//`
//     comment) with `;`, `{` or `}`, and none of its lines is a bullet (`* `).
//     Grammar, sample output and bullet lists are indented too, and are not code.
// Verbatim: the block's lines, less their common indentation, are consecutive
// lines of one examples/*.cc file, all indented alike; trailing blanks aside.
//
//   examples_verbatim <source dir>   exit 0 when every block is found, else 1
//                                    with each missing block; 2 on a bad tree
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace fs = std::filesystem;
using Lines = std::vector<std::string>;

namespace {

struct Block {
  std::string where;  // file:line of its first line
  Lines lines;        // without their common indentation
};

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::size_t indent(std::string_view s) {
  const auto i = s.find_first_not_of(" \t");
  return i == std::string_view::npos ? s.size() : i;
}

bool read_lines(const fs::path& p, Lines& out) {
  std::ifstream in(p);
  if (!in) return false;
  for (std::string line; std::getline(in, line);) out.push_back(rtrim(line));
  return true;
}

Lines dedent(Lines lines) {
  std::size_t common = std::string::npos;
  for (const auto& l : lines)
    if (!l.empty()) common = std::min(common, indent(l));
  if (common == std::string::npos) return lines;
  for (auto& l : lines)
    if (!l.empty()) l.erase(0, common);
  return lines;
}

std::string rel(const fs::path& p, const fs::path& root) { return fs::relative(p, root).generic_string(); }

std::vector<Block> markdown_blocks(const fs::path& p, const fs::path& root) {
  std::vector<Block> out;
  Lines text;
  if (!read_lines(p, text)) return out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != "```cpp" && text[i] != "```c++") continue;
    Block b{rel(p, root) + ":" + std::to_string(i + 2), {}};
    for (++i; i < text.size() && text[i].rfind("```", 0) != 0; ++i) b.lines.push_back(text[i]);
    b.lines = dedent(std::move(b.lines));
    out.push_back(std::move(b));
  }
  return out;
}

// The text of a line ignoring a trailing `// comment` (one after a blank, so
// that `https://` is not one).
std::string_view code_part(std::string_view s) {
  const auto c = s.find(" //");
  return c == std::string_view::npos ? s : s.substr(0, c);
}

bool reads_as_code(const Lines& lines) {
  if (std::any_of(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("* ", 0) == 0; })) return false;
  return std::any_of(lines.begin(), lines.end(), [](const std::string& l) {
    if (l.find("forgemeter::") != std::string::npos) return true;
    std::string code = rtrim(std::string(code_part(l)));
    return !code.empty() && (code.back() == ';' || code.back() == '{' || code.back() == '}');
  });
}

std::vector<Block> header_blocks(const fs::path& p, const fs::path& root) {
  std::vector<Block> out;
  Lines text;
  if (!read_lines(p, text)) return out;
  Block cur;
  auto close = [&] {
    if (!cur.lines.empty()) {
      cur.lines = dedent(std::move(cur.lines));
      if (reads_as_code(cur.lines)) out.push_back(std::move(cur));
    }
    cur = {};
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    std::string_view l = text[i];
    l.remove_prefix(indent(l));
    // A comment line whose text starts at least two columns deeper than prose ("// text").
    const bool deep = l.rfind("//", 0) == 0 && l.size() > 4 && l.substr(2, 3) == "   ";
    if (!deep) {
      close();
      continue;
    }
    if (cur.lines.empty()) cur.where = rel(p, root) + ":" + std::to_string(i + 1);
    cur.lines.emplace_back(l.substr(2));
  }
  close();
  return out;
}

bool found_in(const Block& b, const Lines& file) {
  const std::size_t n = b.lines.size();
  for (std::size_t i = 0; i + n <= file.size(); ++i) {
    // The first line fixes the indentation the rest must share.
    const std::string& first = file[i];
    if (first.size() < b.lines[0].size() ||
        first.compare(first.size() - b.lines[0].size(), std::string::npos, b.lines[0]) != 0)
      continue;
    const std::string prefix = first.substr(0, first.size() - b.lines[0].size());
    if (prefix.find_first_not_of(" \t") != std::string::npos) continue;
    bool all = true;
    for (std::size_t k = 1; k < n && all; ++k)
      all = b.lines[k].empty() ? file[i + k].empty() : file[i + k] == prefix + b.lines[k];
    if (all) return true;
  }
  return false;
}

std::vector<fs::path> files(const fs::path& dir, std::string_view ext) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: examples_verbatim <source dir>\n");
    return 2;
  }
  const fs::path root = argv[1];
  std::vector<Block> markdown = markdown_blocks(root / "README.md", root), headers;
  for (const auto& p : files(root / "docs", ".md"))
    for (auto& b : markdown_blocks(p, root)) markdown.push_back(std::move(b));
  for (const auto& dir : {root / "include" / "forgemeter", root / "include" / "forgemeter" / "testing"})
    for (const auto& p : files(dir, ".h"))
      for (auto& b : header_blocks(p, root)) headers.push_back(std::move(b));
  std::vector<Lines> examples;
  for (const auto& p : files(root / "examples", ".cc")) {
    examples.emplace_back();
    read_lines(p, examples.back());
  }
  // A check that finds nothing to check has lost its way, not passed.
  if (markdown.empty() || headers.empty() || examples.empty()) {
    std::fprintf(stderr, "examples_verbatim: found %zu Markdown blocks, %zu header examples, %zu examples/*.cc in %s\n",
                 markdown.size(), headers.size(), examples.size(), root.c_str());
    return 2;
  }
  int missing = 0;
  for (const auto* set : {&markdown, &headers})
    for (const Block& b : *set) {
      if (std::any_of(examples.begin(), examples.end(), [&](const Lines& f) { return found_in(b, f); })) {
        std::printf("ok       %s\n", b.where.c_str());
        continue;
      }
      ++missing;
      std::printf("MISSING  %s: not verbatim in any examples/*.cc:\n", b.where.c_str());
      for (const auto& l : b.lines) std::printf("    | %s\n", l.c_str());
    }
  std::printf("%zu blocks, %d missing\n", markdown.size() + headers.size(), missing);
  return missing == 0 ? 0 : 1;
}
