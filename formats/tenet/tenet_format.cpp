#include "formats/tenet/tenet_format.h"

#include "formats/tenet/tenet_arch.h"
#include "formats/tenet/tenet_line.h"
#include "formats/tenet/tenet_reader.h"

namespace ttd::fmt {

namespace {

// A Tenet trace starts with a line of NAME=VALUE entries whose register
// names reveal an architecture and which names the instruction pointer.
bool sniff(const std::string& path, std::span<const uint8_t> head) {
  std::string_view text(reinterpret_cast<const char*>(head.data()), head.size());
  size_t start = 0;
  for (;;) {
    if (start >= text.size()) return false;
    size_t nl = text.find('\n', start);
    // The first line must end inside the head (a 4 KiB line is no Tenet line).
    if (nl == std::string_view::npos) return false;
    std::string_view line = text.substr(start, nl - start);
    start = nl + 1;
    if (tenet::is_blank_line(line)) continue;
    for (char c : line)
      if (uint8_t(c) < 0x09 || uint8_t(c) == 0x7f) return false;  // binary
    std::vector<std::string> names;
    std::string error;
    if (!tenet::scan_register_names(line, names, error) || names.empty()) return false;
    auto arch = tenet::detect_arch(names);
    if (!arch) return false;
    const ArchDesc& a = arch_desc(*arch);
    for (const auto& n : names)
      if (auto idx = a.find(n); idx && *idx == a.pc_index) return true;
    return false;
  }
}

}  // namespace

FormatEntry tenet_format() {
  FormatEntry e;
  e.name = "tenet";
  e.description = "Tenet text trace (register deltas and memory accesses per instruction)";
  e.sniff = sniff;
  e.open = [](const std::string& path, const ReaderOptions&) -> Result<std::unique_ptr<TraceReader>> {
    auto r = tenet::TenetReader::open(path);
    if (!r) return r.error();
    return std::unique_ptr<TraceReader>(std::move(r.value()));
  };
  return e;
}

}  // namespace ttd::fmt
