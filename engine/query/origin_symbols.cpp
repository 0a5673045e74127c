#include "engine/query/origin_symbols.h"

#include <sys/stat.h>

#include <unordered_map>

#include "debuginfo/debug_info.h"
#include "engine/program_image.h"
#include "engine/query/query_text.h"

namespace ttd::query {

Result<PcSymbolizer> program_symbolizer(const Trace& t, const std::string& explicit_program) {
  std::string path = explicit_program;
  if (path.empty() && t.program()) path = t.program()->path();
  if (path.empty()) {
    struct stat sb;
    if (!t.info().exec_path.empty() && ::stat(t.info().exec_path.c_str(), &sb) == 0 && S_ISREG(sb.st_mode))
      path = t.info().exec_path;
  }
  if (path.empty()) return PcSymbolizer();
  auto di = dbg::DebugInfo::open(path);
  if (!di) {
    if (!explicit_program.empty()) return make_error(explicit_program, di.error().message);
    return PcSymbolizer();
  }
  // DebugInfo is not thread-safe and the answer is one walk: share it in
  // the closure with a cache, since a walk meets the same pcs again.
  struct State {
    std::unique_ptr<dbg::DebugInfo> info;
    std::unordered_map<uint64_t, std::optional<PcPlace>> cache;
  };
  auto st = std::make_shared<State>();
  st->info = std::move(*di);
  return PcSymbolizer([st](uint64_t pc) -> std::optional<PcPlace> {
    if (auto it = st->cache.find(pc); it != st->cache.end()) return it->second;
    std::optional<PcPlace> out;
    auto f = st->info->function_at(pc);
    auto l = st->info->line_at(pc);
    if (f || l) {
      PcPlace p;
      if (f) {
        p.function = f->name;
        p.offset = pc - f->addr;
      }
      if (l) {
        p.file = l->file;
        p.line = l->line;
      }
      out = p;
    }
    st->cache.emplace(pc, out);
    return out;
  });
}

std::string pc_place_text(const std::optional<PcPlace>& p) {
  if (!p) return "";
  std::string s;
  if (!p->function.empty()) s = p->function + (p->offset ? "+" + hex(p->offset) : "");
  if (!p->file.empty()) {
    auto slash = p->file.rfind('/');
    std::string base = slash == std::string::npos ? p->file : p->file.substr(slash + 1);
    s += (s.empty() ? "" : " ") + ("(" + base + ":" + std::to_string(p->line) + ")");
  }
  return s;
}

}  // namespace ttd::query
