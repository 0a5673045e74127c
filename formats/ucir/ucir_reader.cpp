#include "formats/ucir/ucir_reader.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "formats/ucir/chunk_prefetcher.h"
#include "formats/ucir/snappy_frame_reader.h"
#include "formats/ucir/ucir_keyframe.h"
#include "formats/ucir/ucir_op_parser.h"
#include "formats/ucir/ucir_op_window.h"
#include "formats/ucir/ucir_step_assembler.h"

namespace ttd::fmt {

using namespace ucir;

namespace {

std::string reg_names(const ArchDesc& arch, const std::vector<uint16_t>& regs) {
  std::string s;
  for (uint16_t r : regs) s += (s.empty() ? "" : " ") + arch.regs[r].name;
  return s.empty() ? "none" : s;
}

}  // namespace

Result<std::unique_ptr<UcirReader>> UcirReader::open(const std::string& path, const ReaderOptions& opts) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return make_error(path, std::string("cannot open file: ") + std::strerror(errno));
  uint8_t head[kHeaderSize];
  const size_t got = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  auto h = parse_header({head, got}, path);
  if (!h) return h.error();
  const auto arch = arch_from_usercorn(h->arch);
  if (!arch) return make_error_at(path, 8, "unsupported architecture '" + h->arch + "' in the UCIR header");
  const ArchDesc* desc = nullptr;
  try {
    desc = &arch_desc(*arch);
  } catch (const std::exception& e) {
    return make_error(path, "no architecture table for '" + h->arch + "': " + e.what());
  }
  return std::unique_ptr<UcirReader>(new UcirReader(path, std::move(*h), *arch, *desc, opts.backing_files));
}

Status UcirReader::read(TraceSink& sink, const Progress& progress) {
  std::FILE* f = std::fopen(path_.c_str(), "rb");
  if (!f) return make_error(path_, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  const uint64_t size = fstat(fileno(f), &st) == 0 ? uint64_t(st.st_size) : 0;
  if (std::fseek(f, long(kHeaderSize), SEEK_SET) != 0) {
    std::fclose(f);
    return make_error_at(path_, kHeaderSize, "cannot seek past the header");
  }
  SnappyFrameReader frames(f, path_, kHeaderSize, size);
  ChunkPrefetcher prefetch(frames);
  OpWindow window(prefetch);
  const Uc1RegisterMap regs(desc_);
  StepAssembler steps(sink, desc_, kTid, kPid);
  OpParser parser(window, desc_, regs, steps);
  if (Status s = read_head(sink, parser, steps, regs); !s) return s;
  // A recording killed (SIGKILL, power loss, a full disk) leaves its last
  // chunk cut short: the steps before it are read, and the trace says so.
  parser.on_cut([&](uint64_t at) {
    TraceInfo revised = head_info_;
    revised.properties.emplace_back(std::string(kCutShortProperty), std::to_string(at));
    sink.revise(revised);
  });
  // ttd's end record: how the recording ended, for `ttd info`.
  parser.on_end([&] {
    if (auto ending = prefetch.end_record()) {
      TraceInfo revised = head_info_;
      revised.properties.emplace_back(std::string(kEndedProperty), *ending);
      sink.revise(revised);
    }
  });
  return parser.run(progress);
}

Status UcirReader::read_head(TraceSink& sink, OpParser& parser, StepAssembler& steps, const Uc1RegisterMap& regs) {
  // The keyframe comes first; parse it before begin() so TraceInfo can
  // name the traced program.
  EffectGroup kf;
  auto has_kf = parser.read_keyframe(kf);
  if (!has_kf) return has_kf.error();
  KeyframeSummary summary;
  std::vector<uint16_t> zeroed;
  if (*has_kf) {
    summary = apply_keyframe_policy(kf, backing_files_);
    zeroed = registers_left_zero(kf, regs);
  }

  TraceInfo info;
  info.format = "ucir";
  info.arch = arch_;
  info.os = header_.os;
  info.exec_path = summary.exec_path;
  info.caps.registers = true;
  info.caps.memory_values = true;
  info.caps.memory_accesses = true;
  info.caps.code_bytes = true;
  info.caps.note =
      "registers outside usercorn's integer list are unknown until written; memory is what the keyframe "
      "and the traced writes say (code bytes only where written)";
  if (summary.untrusted_mappings)
    info.caps.note += "; " + std::to_string(summary.untrusted_mappings) +
                      " keyframe mapping(s) unknown because usercorn trimmed their zero bytes";
  if (summary.recovered_mappings)
    info.caps.note += "; " + std::to_string(summary.recovered_mappings) +
                      " trimmed keyframe mapping(s) recovered from their backing files";
  info.properties = {
      {"version", header_.version_big_endian ? "1 (big-endian, as usercorn writes it)" : "1 (little-endian)"},
      {"arch", header_.arch},
      {"code order", header_.code_order ? "big" : "little"},
      {"data order", header_.data_order ? "big" : "little"},
      {"keyframe", *has_kf ? std::to_string(summary.mappings) + " mappings, " + std::to_string(summary.writes) +
                                 " writes, " + std::to_string(summary.untrusted_mappings) +
                                 " mappings unknown (zero-trimmed data)"
                           : "absent: registers and memory unknown until written"},
      {"registers zero from the keyframe", *has_kf ? reg_names(desc_, zeroed) : "none"},
  };
  if (summary.recovered_mappings || !summary.backing_notes.empty()) {
    std::string notes = std::to_string(summary.recovered_mappings) + " trimmed mapping(s) recovered";
    for (const std::string& n : summary.backing_notes) notes += "; " + n;
    info.properties.emplace_back("backing files", std::move(notes));
  }
  head_info_ = info;
  sink.begin(info);
  sink.thread_begin(kTid, kPid);
  if (*has_kf) {
    (void)steps.emitter().emit(kf);  // an OP_EXIT in a keyframe means nothing
    for (uint16_t r : zeroed) steps.emitter().emit_reg_value(r, 0);
  }
  return {};
}

}  // namespace ttd::fmt
