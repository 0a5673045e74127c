// libFuzzer target for the XRay reader: the input is written to a memfd
// and read through every path that takes a file (the TraceReader with its
// survey, the raw record producer and printer, and the
// instrumentation-map reader when the input is an ELF). Any crash, hang or
// sanitizer report is a bug; errors are expected and fine.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <streambuf>
#include <string>

#include "formats/xray/instr_map.h"
#include "formats/xray/record_printer.h"
#include "formats/xray/xray_format.h"
#include "formats/xray/xray_pipeline.h"

namespace {

struct NullSink : ttd::fmt::TraceSink {
  void begin(const ttd::fmt::TraceInfo&) override {}
  void step(const ttd::fmt::StepInfo&) override {}
  void attr(std::string_view, const ttd::fmt::AttrValue&) override {}
  void reg(uint64_t, uint16_t, std::span<const uint8_t>) override {}
  void mem_write(uint64_t, uint64_t, std::span<const uint8_t>) override {}
};

struct NullBuf : std::streambuf {
  int overflow(int c) override { return c; }
};

std::string input_path(const uint8_t* data, size_t size) {
  static int fd = memfd_create("fuzz_xray", MFD_CLOEXEC);
  if (fd < 0) return "";
  if (ftruncate(fd, 0) != 0) return "";
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, data + done, size - done, off_t(done));
    if (n <= 0) return "";
    done += size_t(n);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string path = input_path(data, size);
  if (path.empty()) return 0;
  using namespace ttd::fmt;

  if (size >= 4 && data[0] == 0x7f && data[1] == 'E' && data[2] == 'L' && data[3] == 'F') {
    auto m = xray::InstrMap::load(path);
    if (m) (void)m->function_name(1);
    return 0;
  }

  FormatEntry fmt = xray_format();
  if (fmt.sniff(path, std::span<const uint8_t>(data, size < 4096 ? size : 4096))) {
    auto reader = fmt.open(path, {});
    if (reader) {
      NullSink sink;
      (void)(*reader)->read(sink, {});
    }
  }

  NullBuf nb;
  std::ostream null_out(&nb);
  xray::XrayReport rep;
  xray::RecordPrinter printer(null_out, size >= 2 ? uint16_t(data[0] | (data[1] << 8)) : 5);
  (void)xray::read_fdr_records(path, printer, &rep);
  for (const auto& r : rep.recoveries) (void)xray::describe(r);
  (void)xray::report_properties(rep);

  return 0;
}
