#include "formats/xray/xray_format.h"

#include <sys/stat.h>

#include "formats/xray/xray_header.h"
#include "formats/xray/xray_reader.h"

namespace ttd::fmt {

FormatEntry xray_format() {
  FormatEntry e;
  e.name = "xray";
  e.description = "LLVM XRay function trace (FDR versions 1-5, basic versions 1-3)";
  e.sniff = [](const std::string& path, std::span<const uint8_t> head) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    return xray::looks_like_xray(head, uint64_t(st.st_size));
  };
  e.open = [](const std::string& path, const ReaderOptions& opts) -> Result<std::unique_ptr<TraceReader>> {
    auto r = xray::XrayTraceReader::open(path, opts);
    if (!r) return r.error();
    return std::unique_ptr<TraceReader>(std::move(*r));
  };
  return e;
}

}  // namespace ttd::fmt
