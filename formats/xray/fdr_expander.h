// Turns the FDR record stream into expanded events (LLVM's TraceExpander):
// keeps, per thread, the CPU and the TSC base that function-record deltas
// are added to; attaches CallArgument records to the entry before them.
//
// An entry is held back until the next record shows whether arguments
// follow, so events reach the consumer in file order with their arguments.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>

#include "formats/xray/fdr_record.h"
#include "formats/xray/xray_event.h"

namespace ttd::fmt::xray {

class FdrExpander final : public RecordVisitor {
 public:
  FdrExpander(uint16_t version, EventConsumer& out, std::string where)
      : version_(version), out_(out), where_(std::move(where)) {}

  Status visit(const FdrRecord& r) override {
    if (accept(r)) return {};
    return error_;
  }
  // The same without a Status per record (a Status is 96 bytes to clear
  // on every return): false means error() says why.
  bool accept(const FdrRecord& r);
  const Error& error() const { return error_; }
  // Emits the held-back event; call at the end of the stream.
  Status flush();

  uint64_t events() const { return next_eid_; }
  uint64_t orphan_arguments() const { return orphan_args_; }

 private:
  struct ThreadClock {
    uint64_t base_tsc = 0;
    uint16_t cpu = 0;
    uint64_t pid = 0;
  };
  bool emit();
  bool emit_pending() { return !pending_ || (pending_ = false, emit()); }
  bool start_event(EventKind k, const FdrRecord& r);
  void switch_thread(uint64_t tid);

  uint16_t version_;
  EventConsumer& out_;
  std::string where_;
  bool have_thread_ = false;
  uint64_t tid_ = 0;
  ThreadClock cur_;                                  // the current buffer's thread
  std::unordered_map<uint64_t, ThreadClock> saved_;  // other threads, between their buffers
  bool pending_ = false;
  XrayEvent ev_;
  uint64_t next_eid_ = 0;
  uint64_t orphan_args_ = 0;
  Error error_;
};

}  // namespace ttd::fmt::xray
