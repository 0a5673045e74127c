// Reads a usercorn UCIR trace into a TraceSink: header, then the snappy
// framed op stream, one chunk at a time. See docs/formats/ucir.md for how
// ops become steps and effects.
#pragma once
#include <memory>
#include <string>

#include "formats/common/trace_reader.h"
#include "formats/ucir/ucir_header.h"

namespace ttd::fmt {

class UcirReader final : public TraceReader {
 public:
  // Checks the header and the architecture; the op stream is read by read().
  static Result<std::unique_ptr<UcirReader>> open(const std::string& path);

  Status read(TraceSink& sink, const Progress& progress) override;
  const ucir::Header& header() const { return header_; }
  ArchId arch() const { return arch_; }

  // UCIR frames carry pid 0 and no thread ids: every step and effect is
  // reported on thread 1 of process 1.
  static constexpr uint64_t kTid = 1, kPid = 1;

 private:
  UcirReader(std::string path, ucir::Header h, ArchId arch, const ArchDesc& desc)
      : path_(std::move(path)), header_(std::move(h)), arch_(arch), desc_(desc) {}

  std::string path_;
  ucir::Header header_;
  ArchId arch_;
  const ArchDesc& desc_;
};

}  // namespace ttd::fmt
