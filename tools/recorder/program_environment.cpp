#include "tools/recorder/program_environment.h"

namespace ttd::rec {

Result<std::vector<std::string>> environment_with(std::vector<std::string> base,
                                                  const std::vector<std::string>& settings) {
  for (const auto& s : settings) {
    const size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0)
      return make_error("--env", "expected NAME=VALUE, got '" + s + "'");
    const std::string_view name(s.data(), eq + 1);  // "NAME="
    bool replaced = false;
    for (auto& e : base)
      if (std::string_view(e).substr(0, name.size()) == name) {
        // Every inherited copy goes: getenv() would find the first.
        if (!replaced) e = s;
        else e.clear();
        replaced = true;
      }
    if (!replaced) base.push_back(s);
    std::erase(base, std::string());
  }
  return base;
}

}  // namespace ttd::rec
