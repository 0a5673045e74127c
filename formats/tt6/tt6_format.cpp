#include "formats/tt6/tt6_format.h"

#include "formats/tt6/full_reader.h"
#include "formats/tt6/tt6_reader.h"
#include "formats/tt6/tt6_sniff.h"

namespace ttd::fmt {

namespace {

FormatEntry stream_entry(tt6::Variant v, const char* description) {
  FormatEntry e;
  e.name = tt6::variant_format_name(v);
  e.description = description;
  e.sniff = [v](const std::string& path, std::span<const uint8_t> head) { return tt6::sniff_variant(path, head, v); };
  e.open = [v](const std::string& path, const ReaderOptions&) -> Result<std::unique_ptr<TraceReader>> {
    auto r = tt6::Tt6Reader::open(path, v);
    if (!r) return r.error();
    return std::unique_ptr<TraceReader>(std::move(r.value()));
  };
  return e;
}

}  // namespace

FormatEntry tt6_format() {
  return stream_entry(tt6::Variant::Tt6, "Amber TT6 PowerPC instruction trace (.tt6: pc, opcodes, data addresses)");
}

FormatEntry tt6e_format() {
  return stream_entry(tt6::Variant::Tt6e,
                      "Amber TT6E PowerPC instruction trace (.tt6e: TT6 + DCBx addresses, trap returns)");
}

FormatEntry tt6_full_format() {
  FormatEntry e;
  e.name = tt6::variant_format_name(tt6::Variant::Full);
  e.description = "Amber FULL PowerPC trace (opcode + all user registers per instruction)";
  e.sniff = [](const std::string& path, std::span<const uint8_t> head) {
    return tt6::sniff_variant(path, head, tt6::Variant::Full);
  };
  e.open = [](const std::string& path, const ReaderOptions&) -> Result<std::unique_ptr<TraceReader>> {
    auto r = tt6::FullReader::open(path);
    if (!r) return r.error();
    return std::unique_ptr<TraceReader>(std::move(r.value()));
  };
  return e;
}

}  // namespace ttd::fmt
