// What the format fuzz targets share: a trap that libFuzzer reports as a
// crash, the input as a file (the readers take paths), and the part of the
// TraceSink contract every reader keeps (begin once before anything, end
// once, and only on success).
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "formats/common/trace_reader.h"
#include "state/arch.h"

namespace ttd::fuzz {

// The message is for whoever reads the source at the trapping line.
[[noreturn]] inline void fail(const char* what) {
  (void)what;
  __builtin_trap();
}

// A memfd rewritten with every input; the path readers open is /proc/self/fd/N.
class InputFile {
 public:
  explicit InputFile(const char* name) : fd_(memfd_create(name, MFD_CLOEXEC)) {
    if (fd_ < 0) std::abort();
  }
  std::string write(const uint8_t* data, size_t size) const {
    if (ftruncate(fd_, 0) != 0 || pwrite(fd_, data, size, 0) != ssize_t(size)) std::abort();
    return "/proc/self/fd/" + std::to_string(fd_);
  }

 private:
  int fd_;
};

class ContractSink : public fmt::TraceSink {
 public:
  // require_steps: end() is only legal after at least one step.
  explicit ContractSink(bool require_steps = false) : require_steps_(require_steps) {}
  void begin(const fmt::TraceInfo& info) override {
    if (began_) fail("begin twice");
    began_ = true;
    arch_ = &arch_desc(info.arch);
  }
  void end() override {
    if (ended_ || !began_ || (require_steps_ && steps_ == 0)) fail("bad end");
    ended_ = true;
  }
  bool ended() const { return ended_; }

 protected:
  // For step(): counts it, and checks it comes between begin and end.
  void note_step() {
    if (!began_ || ended_) fail("step outside begin/end");
    ++steps_;
  }
  const ArchDesc* arch_ = nullptr;
  bool began_ = false, ended_ = false;
  uint64_t steps_ = 0;

 private:
  bool require_steps_;
};

}  // namespace ttd::fuzz
