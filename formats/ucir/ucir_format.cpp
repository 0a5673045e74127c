#include "formats/ucir/ucir_format.h"

#include <cstring>

#include "formats/ucir/ucir_reader.h"

namespace ttd::fmt {

FormatEntry ucir_format() {
  FormatEntry e;
  e.name = "ucir";
  e.description = "usercorn UCIR instruction trace (snappy framed ops)";
  e.sniff = [](const std::string&, std::span<const uint8_t> head) {
    return head.size() >= 4 && std::memcmp(head.data(), "UCIR", 4) == 0;
  };
  e.open = [](const std::string& path, const ReaderOptions& opts) -> Result<std::unique_ptr<TraceReader>> {
    auto r = UcirReader::open(path, opts);
    if (!r) return r.error();
    return std::unique_ptr<TraceReader>(std::move(*r));
  };
  return e;
}

}  // namespace ttd::fmt
