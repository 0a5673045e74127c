#include "tests/recorder/trace_digest.h"

#include <unistd.h>

#include <filesystem>
#include <variant>

#include "formats/ucir/ucir_format.h"

namespace ttd::rec::test {

namespace {

class DigestSink final : public fmt::TraceSink {
 public:
  explicit DigestSink(TraceDigest& d) : d_(d) {}
  void begin(const fmt::TraceInfo& info) override {
    d_.arch = arch_desc(info.arch).name;
    d_.exec_path = info.exec_path;
    pc_index_ = arch_desc(info.arch).pc_index;
  }
  void step(const fmt::StepInfo& s) override {
    d_.pcs.push_back(s.pc);
    d_.tids.push_back(s.tid);
    in_syscall_ = s.kind == fmt::StepKind::Syscall;
    if (in_syscall_) {
      SyscallRecord r;
      r.eid = d_.steps;
      d_.syscalls.push_back(std::move(r));
    }
    ++d_.steps;
  }
  void attr(std::string_view key, const fmt::AttrValue& v) override {
    if (!in_syscall_) return;
    SyscallRecord& r = d_.syscalls.back();
    if (key == "syscall") r.number = std::get<uint64_t>(v);
    if (key == "ret") r.ret = std::get<uint64_t>(v);
    if (key == "args") r.args = std::get<std::vector<uint64_t>>(v);
  }
  void reg(uint64_t tid, uint16_t r, std::span<const uint8_t>) override {
    if (r == pc_index_) d_.pc_registers.push_back(tid);
  }
  void thread_begin(uint64_t tid, uint64_t) override { d_.thread_begins.push_back(tid); }
  void mem_write(uint64_t, uint64_t, std::span<const uint8_t>) override {
    if (in_syscall_) ++d_.syscalls.back().mem_writes;
  }
  void mem_map(uint64_t, uint64_t, uint64_t, uint8_t, std::string_view name) override {
    d_.map_names.emplace_back(name);
  }
  void thread_end(uint64_t tid) override {
    d_.thread_ended = true;
    d_.thread_ends.push_back(tid);
  }

 private:
  TraceDigest& d_;
  bool in_syscall_ = false;
  uint16_t pc_index_ = 0xffff;
};

}  // namespace

Result<TraceDigest> read_trace(const std::string& path) {
  auto reader = fmt::ucir_format().open(path, {});
  if (!reader) return reader.error();
  TraceDigest d;
  DigestSink sink(d);
  if (auto st = (*reader)->read(sink, nullptr); !st) return st.error();
  return d;
}

std::string example_path(const std::string& arch, const std::string& name) {
  std::string p = std::string(TTD_EXAMPLES_DIR) + "/" + arch + "/" + name;
  return std::filesystem::exists(p) ? p : std::string();
}

std::string probe_path(const std::string& arch) {
  std::string p = std::string(TTD_TEST_PROGRAMS_DIR) + "/" + arch + "/probe";
  return std::filesystem::exists(p) ? p : std::string();
}

std::string program_path(const std::string& variant, const std::string& name) {
  std::string p = std::string(TTD_TEST_PROGRAMS_DIR) + "/" + variant + "/" + name;
  return std::filesystem::exists(p) ? p : std::string();
}

std::string temp_trace(const std::string& tag) {
  static int n = 0;
  return (std::filesystem::temp_directory_path() /
          ("ttd-rec-" + std::to_string(::getpid()) + "-" + std::to_string(n++) + "-" + tag + ".ucir"))
      .string();
}

}  // namespace ttd::rec::test
