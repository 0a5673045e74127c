// Reads a usercorn UCIR trace into a TraceSink: header, then the snappy
// framed op stream, one chunk at a time (decoded on a second thread).
// docs/formats/ucir.md has the details; what a consumer must know:
//  - Before step 0: begin(), thread_begin(1, 1), the keyframe's effects,
//    then reg(r, 0) for usercorn's registers the keyframe left out.
//  - Every step is tid 1 / pid 1; EID n is the n-th OP_STEP. StepInfo::pc
//    is the only pc information (no pc register effects are sent).
//  - mem_map(...) means the range is mapped AND known to hold zeros; no
//    zero writes follow. Its size comes from the trace: do not
//    materialise pages for it.
//  - mem_unknown(base, size) right after a keyframe mapping: usercorn
//    trimmed that mapping's data, so its bytes are unknown (unless its
//    backing file showed where the data sits: then it is a mem_write).
//  - Syscall steps have kind Syscall and attrs "syscall", "args", "ret";
//    the kernel's effects follow the instruction's own.
//  - OP_EXIT becomes thread_end(1) after its step's last effect.
//  - A final Marker step (attr "note") holds effects that no OP_STEP
//    followed.
#pragma once
#include <memory>
#include <string>

#include "formats/common/trace_reader.h"
#include "formats/ucir/ucir_header.h"

namespace ttd::fmt {

namespace ucir {
class OpParser;
class StepAssembler;
class Uc1RegisterMap;
}  // namespace ucir

class UcirReader final : public TraceReader {
 public:
  // Checks the header and the architecture; the op stream is read by read().
  // opts.backing_files: recover trimmed keyframe mappings from their
  // backing files (ucir/backing_file.h); the `backing files` property says
  // which were recovered and why others were not.
  static Result<std::unique_ptr<UcirReader>> open(const std::string& path, const ReaderOptions& opts = {});

  Status read(TraceSink& sink, const Progress& progress) override;
  // Single-thread traces in segments (ucir_segments.h); null otherwise.
  std::unique_ptr<SegmentedRead> segments(uint64_t segment_steps) override;
  // What read() sends before the op stream's first step: begin(), thread
  // 1, the keyframe. `parser` reads from the stream's start.
  Status read_head(TraceSink& sink, ucir::OpParser& parser, ucir::StepAssembler& steps,
                   const ucir::Uc1RegisterMap& regs);
  const std::string& path() const { return path_; }
  const ArchDesc& desc() const { return desc_; }
  const ucir::Header& header() const { return header_; }
  ArchId arch() const { return arch_; }

  // UCIR frames carry pid 0 and no thread ids: every step and effect is
  // reported on thread 1 of process 1.
  static constexpr uint64_t kTid = 1, kPid = 1;
  // TraceInfo property of a trace whose file ends inside its last chunk:
  // the file offset where the whole chunks end (the steps before are read).
  static constexpr std::string_view kCutShortProperty = "cut short at byte";
  // The end record of a file ttd wrote (ucir_end_record.h): how the
  // recording ended ("exited with status 0").
  static constexpr std::string_view kEndedProperty = "recording ended";

 private:
  UcirReader(std::string path, ucir::Header h, ArchId arch, const ArchDesc& desc, bool backing_files)
      : path_(std::move(path)), header_(std::move(h)), arch_(arch), desc_(desc), backing_files_(backing_files) {}

  std::string path_;
  ucir::Header header_;
  ArchId arch_;
  const ArchDesc& desc_;
  bool backing_files_;
  TraceInfo head_info_;  // what read_head told the sink (revised for a cut-short trace)
};

}  // namespace ttd::fmt
