#include "formats/tt6/tt6_reader.h"

#include <algorithm>
#include <cstdio>

#include "formats/common/file_window.h"
#include "formats/tt6/read_window.h"
#include "formats/tt6/tt6_record_decoder.h"

namespace ttd::fmt::tt6 {

Result<std::unique_ptr<Tt6Reader>> Tt6Reader::open(const std::string& path, Variant variant) {
  if (variant == Variant::Full) return make_error(path, "internal: FULL traces have their own reader");
  auto win = FileWindow::open(path, 4096, kExpected);
  if (!win) return win.error();
  auto got = win->ensure(4);
  if (!got) return got.error();
  if (!got.value())
    return make_error_at(path, 0, "file too short: a TT6 trace starts with a 4-byte INITIAL_PC record");
  uint32_t pc = load_be32(win->data());
  if (pc & 3) return make_error_at(path, 0, "INITIAL_PC " + hex32(pc) + " is not word aligned: not a TT6 trace");
  return std::unique_ptr<Tt6Reader>(new Tt6Reader(path, variant));
}

TraceInfo Tt6Reader::info(uint32_t initial_pc) const {
  TraceInfo info;
  info.format = variant_format_name(variant_);
  info.arch = ArchId::Ppc32;
  info.os = "darwin";
  info.caps.registers = false;
  info.caps.memory_values = false;
  info.caps.memory_accesses = true;
  info.caps.code_bytes = true;
  info.caps.note =
      "pc, the opcode at each pc and the data addresses each instruction read or wrote; no register "
      "values, no memory values (stores make the bytes unknown; dcbz's zeros are known)";
  info.properties = {{"initial pc", hex32(initial_pc)},
                     {"threads", "one file per thread (Amber): read as thread 1 of process 1"},
                     {"escape records", "sync records are marker steps; the others are attributes of the next step"}};
  if (variant_ == Variant::Tt6e)
    info.properties.emplace_back("trap returns", "synthetic b 0x700 + rfi after a trap word: two interrupt steps");
  return info;
}

Status Tt6Reader::read(TraceSink& sink, const Progress& progress) {
  auto opened = FileWindow::open(path_, kWindow, kExpected);
  if (!opened) return opened.error();
  FileWindow& win = *opened;
  auto got = win.ensure(4);
  if (!got) return got.error();
  if (!got.value())
    return make_error_at(path_, 0, "file too short: a TT6 trace starts with a 4-byte INITIAL_PC record");
  const uint32_t initial_pc = load_be32(win.data());
  if (initial_pc & 3)
    return make_error_at(path_, 0, "INITIAL_PC " + hex32(initial_pc) + " is not word aligned: not a TT6 trace");
  win.consume(4);
  sink.begin(info(initial_pc));

  Tt6RecordDecoder decoder(variant_, sink, path_, initial_pc);
  uint64_t next_report = 0;
  size_t need = 1;
  for (;;) {
    if (progress && win.offset() >= next_report) {
      next_report = win.offset() + kProgressBytes;
      if (!progress(win.offset(), win.file_size())) return make_error_at(path_, win.offset(), "reading cancelled");
    }
    // Fill the window (at least the next record, usually megabytes).
    auto more = win.ensure(std::max(need, win.capacity() / 2));
    if (!more) return more.error();
    const bool at_eof = !more.value();
    if (win.available() == 0) break;
    auto decoded = decoder.decode(win.data(), win.data() + win.available(), win.offset(), at_eof);
    if (!decoded) return decoded.error();
    win.consume(decoded.value().consumed);
    need = decoded.value().need;
    if (need == 0 && at_eof) break;
    if (need == 0) need = 1;
  }
  decoder.finish();
  if (decoder.steps() == 0) return make_error_at(path_, 4, "no records after INITIAL_PC: the trace holds no step");
  if (progress) progress(win.offset(), win.file_size());
  sink.end();
  return {};
}

}  // namespace ttd::fmt::tt6
