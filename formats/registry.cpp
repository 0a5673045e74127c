#include <fstream>

#include "formats/common/trace_reader.h"
#include "formats/umtrace/umtrace_format.h"
#include "formats/rvnblock/rvnblock_format.h"
#include "formats/tenet/tenet_format.h"
#include "formats/tt6/tt6_format.h"
#include "formats/ucir/ucir_format.h"
#include "formats/xray/xray_format.h"

namespace ttd::fmt {

const std::vector<FormatEntry>& all_formats() {
  static const std::vector<FormatEntry> formats = {
      ucir_format(),
      umtrace_format(),
      rvnblock_format(),
      tenet_format(),
      xray_format(),
      tt6_format(), tt6e_format(), tt6_full_format(),
  };
  return formats;
}

Result<std::unique_ptr<TraceReader>> open_trace(const std::string& path, const ReaderOptions& opts,
                                                 const std::string& format) {
  std::vector<uint8_t> head(4096);
  size_t got = 0;
  {
    std::ifstream f(path, std::ios::binary);
    if (f) {
      f.read(reinterpret_cast<char*>(head.data()), head.size());
      got = size_t(f.gcount());
    }
  }
  head.resize(got);
  for (const auto& e : all_formats()) {
    if (!format.empty()) {
      if (e.name == format) return e.open(path, opts);
      continue;
    }
    if (e.sniff(path, head)) return e.open(path, opts);
  }
  if (!format.empty()) return make_error("--format", "unknown format '" + format + "'");
  std::ifstream probe(path);
  if (!probe) return make_error(path, "cannot open file");
  std::string names;
  for (const auto& e : all_formats()) names += (names.empty() ? "" : ", ") + e.name;
  return make_error(path, "not a trace format ttd knows (tried: " + names + ")");
}

}  // namespace ttd::fmt
