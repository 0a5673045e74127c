#include "tools/ttd/monitor_args.h"

namespace ttd::cli {

namespace {

std::vector<std::string> split_words(std::string_view text) {
  std::vector<std::string> words;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    size_t start = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > start) words.emplace_back(text.substr(start, i - start));
  }
  return words;
}

}  // namespace

std::string MonitorArgs::option(const std::string& name) const {
  auto it = options.find(name);
  return it == options.end() ? std::string() : it->second;
}

Result<MonitorArgs> parse_monitor_args(std::string_view text, const MonitorSyntax& syntax, const std::string& command) {
  MonitorArgs out;
  std::vector<std::string> words = split_words(text);
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!w.starts_with("--")) {
      if (out.positional.size() == syntax.max_positional)
        return make_error(command, "unexpected argument '" + w + "' (see monitor help)");
      out.positional.push_back(w);
      continue;
    }
    std::string name = w, value;
    bool inline_value = false;
    if (auto eq = w.find('='); eq != std::string::npos) {
      name = w.substr(0, eq);
      value = w.substr(eq + 1);
      inline_value = true;
    }
    if (syntax.flags.count(name)) {
      if (inline_value) return make_error(command, name + " takes no value");
      out.flags.insert(name);
    } else if (syntax.options.count(name)) {
      if (!inline_value) {
        if (i + 1 == words.size()) return make_error(command, name + " needs a value");
        value = words[++i];
      }
      out.options[name] = value;
    } else {
      return make_error(command, "unknown option '" + name + "' (see monitor help)");
    }
  }
  return out;
}

}  // namespace ttd::cli
