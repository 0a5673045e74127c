#include "formats/tenet/tenet_reader.h"

#include "formats/tenet/line_reader.h"
#include "formats/tenet/tenet_arch.h"
#include "formats/tenet/tenet_effects.h"
#include "formats/tenet/tenet_line.h"

namespace ttd::fmt::tenet {

namespace {

// Report progress (and allow cancelling) every this many bytes.
constexpr uint64_t kProgressBytes = uint64_t(16) << 20;

const char* kConvention =
    "line n = step n at ip; its registers are the state before step n, its memory accesses are "
    "step n-1's with the bytes as they were after step n-1";

}  // namespace

Result<std::unique_ptr<TenetReader>> TenetReader::open(const std::string& path) {
  auto lines = LineReader::open(path);
  if (!lines) return lines.error();
  std::string_view line;
  for (;;) {
    auto more = lines.value()->next(line);
    if (!more) return more.error();
    if (!more.value())
      return make_error(path, "empty file: a Tenet trace has one line per executed instruction");
    if (!is_blank_line(line)) break;
  }
  const uint64_t n = lines.value()->line_number();
  std::vector<std::string> names;
  std::string error;
  if (!scan_register_names(line, names, error)) return make_error_line(path, n, error);
  auto arch = detect_arch(names);
  if (!arch)
    return make_error_line(path, n,
                           "cannot tell the architecture from the register names: expected rip/rax.. "
                           "(x86-64), eip/eax.. (i386), r0..r12/sp/lr/pc (arm), x0..x30 (aarch64) or "
                           "nip/msr/cr/ctr/xer/r16..r31 (ppc32)");
  return std::unique_ptr<TenetReader>(new TenetReader(path, *arch));
}

TraceInfo TenetReader::info() const {
  TraceInfo info;
  info.format = "tenet";
  info.arch = arch_;
  info.caps.registers = true;
  info.caps.memory_values = true;
  info.caps.memory_accesses = true;
  info.caps.code_bytes = false;
  info.caps.note =
      "general-purpose registers and the bytes each instruction read or wrote; other registers, "
      "untouched memory, code bytes and instruction sizes unknown; the last instruction's effects "
      "are not in the trace";
  info.properties = {{"line convention", kConvention},
                     {"memory reads", "carry the value read (known memory content after the step)"}};
  return info;
}

Status TenetReader::read(TraceSink& sink, const Progress& progress) {
  auto opened = LineReader::open(path_);
  if (!opened) return opened.error();
  LineReader& lines = *opened.value();
  const ArchDesc& arch = arch_desc(arch_);
  LineParser parser(arch);
  EffectEmitter emit(arch, sink, kThreadId, kProcessId);
  ParsedLine parsed;
  std::string error;
  std::string_view line;
  bool first = true;
  std::string first_line_zeroed;  // kept for revise()
  uint64_t next_report = 0;

  for (;;) {
    auto more = lines.next(line);
    if (!more) return more.error();
    if (!more.value()) break;
    if (is_blank_line(line)) continue;
    const bool parsed_ok = parser.parse(line, parsed, error);
    if (!parsed_ok || !parsed.has_ip) {
      if (parsed_ok)
        error = "no " + arch.pc().name +
                "= entry: every Tenet line is one executed instruction and must give its address";
      // Tracers end every line; a bad last line without its newline is a
      // record the copy cut short, not a malformed one.
      if (!lines.line_terminated())
        error = "trace truncated: the last line has no final newline and is cut short (" + error + ")";
      return make_error_line(path_, lines.line_number(), error);
    }
    if (first) {
      first = false;
      TraceInfo info = this->info();
      // Tell users which registers the first line left out (taken as zero).
      std::string zeroed;
      for (uint16_t idx : registers_missing_from_first_line(arch, parsed))
        zeroed += (zeroed.empty() ? "" : " ") + arch.regs[idx].name;
      if (!zeroed.empty()) info.properties.emplace_back("zero on the first line", zeroed);
      first_line_zeroed = zeroed;
      sink.begin(info);
      emit.initial_state(parsed);
    } else {
      emit.step_effects(parsed);
    }
    sink.step(StepInfo{kThreadId, kProcessId, parsed.ip, 0, StepKind::Instruction});

    if (lines.bytes_consumed() >= next_report) {
      next_report = lines.bytes_consumed() + kProgressBytes;
      if (progress && !progress(lines.bytes_consumed(), lines.file_size()))
        return make_error_line(path_, lines.line_number(), "reading cancelled");
    }
  }
  if (first) return make_error(path_, "no instruction lines: the file is empty or blank");
  if (!lines.line_terminated() && !is_blank_line(line)) {
    // The last line parsed, but a cut inside a value (rax=0x12 of
    // rax=0x1234) parses too: say so rather than pass it off as whole.
    TraceInfo info = this->info();
    if (!first_line_zeroed.empty()) info.properties.emplace_back("zero on the first line", first_line_zeroed);
    info.properties.emplace_back(
        "truncation", "line " + std::to_string(lines.line_number()) + " (the last, at byte " +
                          std::to_string(lines.line_offset()) +
                          ") has no final newline: the file may have been cut there, so its last value may be "
                          "incomplete");
    sink.revise(info);
  }
  if (progress) progress(lines.bytes_consumed(), lines.file_size());
  sink.end();
  return {};
}

}  // namespace ttd::fmt::tenet
