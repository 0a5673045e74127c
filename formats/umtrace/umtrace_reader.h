// The UMTracer indexed trace (a directory written by UMTIndex from a Pin
// tool's raw trace) as a step stream: one step per execution record, EID =
// record id, registers and memory from context dumps and each instruction
// record's local context. See docs/formats/umtrace.md for what is read and
// what cannot be reconstructed.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "formats/common/trace_reader.h"
#include "formats/umtrace/context_map.h"
#include "formats/umtrace/exec_table.h"
#include "formats/umtrace/instruction_table.h"
#include "formats/umtrace/module_table.h"
#include "formats/umtrace/register_resolver.h"
#include "formats/umtrace/syscall_table.h"
#include "formats/umtrace/thread_table.h"
#include "formats/umtrace/trace_xml.h"

namespace ttd::fmt::umtrace {

class UmtraceReader : public TraceReader {
 public:
  // Opens and checks every table's header (records are checked as read).
  static Result<std::unique_ptr<UmtraceReader>> open(const std::string& dir);
  Status read(TraceSink& sink, const Progress& progress) override;
  const TraceInfo& info() const { return info_; }

 private:
  UmtraceReader() = default;
  Status open_tables();
  void describe();
  Status stream(TraceSink& sink, const Progress& progress);

  std::string dir_;
  TraceInfo info_;
  uint64_t pid_ = 1;
  std::vector<uint64_t> tids_;
  std::unique_ptr<ExecTable> exec_;
  std::unique_ptr<ContextMap> map_;
  std::unique_ptr<RegisterResolver> regs_;
  std::unique_ptr<InstructionTable> instructions_;
  std::unique_ptr<SyscallTable> syscalls_;
  std::vector<ModuleRecord> modules_;
  std::vector<ThreadRecord> threads_;
  size_t address_ranges_ = 0;
  uint64_t address_pages_ = 0;
  TraceXml xml_;
};

}  // namespace ttd::fmt::umtrace
