// Writes a UMTracer indexed trace directory: the execution table streamed
// to disk as records are appended (so generators can write gigabytes), the
// other tables kept in memory and written by finish(). EIDs are assigned in
// append order. Thread rows (first/last EID, record count), the prev/next
// column and the address space table are derived from the records.
//
// The writer checks what it is given against the context map and the
// instruction's decoded form (local context size, dump size) so that a
// producer bug shows up here and not as a puzzling read error.
#pragma once
#include <cstdio>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "formats/umtrace/testing/table_encoder.h"
#include "state/error.h"

namespace ttd::fmt::umtrace {

class UmtraceWriter {
 public:
  // Creates dir (if needed) and its exec files.
  static Result<std::unique_ptr<UmtraceWriter>> create(const std::string& dir, ContextMapSpec map,
                                                       WriterOptions options = {});
  ~UmtraceWriter();
  UmtraceWriter(const UmtraceWriter&) = delete;
  UmtraceWriter& operator=(const UmtraceWriter&) = delete;

  uint32_t add_thread(const ThreadSpec& t);  // -> thread row
  int32_t add_module(const ModuleSpec& m);   // -> module id
  uint64_t add_instruction(const InstructionSpec& ins);  // -> instruction id (identical ones share)
  const InstructionSpec& instruction_spec(uint64_t id) const { return ins_.get(id); }
  uint64_t add_syscall(const SyscallSpec& s);  // -> system call id
  SyscallSpec& syscall(uint64_t id) { return syscalls_[id]; }
  const ContextMapSpec& context_map() const { return map_; }

  // Execution records; each returns its EID.
  Result<uint64_t> instruction(uint32_t thread, uint8_t flags, uint64_t ins_id, std::span<const uint8_t> lc);
  Result<uint64_t> thread_begin(uint32_t thread, uint8_t flags, const ContextSpec& ctx);
  Result<uint64_t> thread_end(uint32_t thread, uint8_t flags, int32_t exit_code);
  Result<uint64_t> app_end(uint32_t thread, uint8_t flags, int32_t exit_code);
  Result<uint64_t> syscall_entry(uint32_t thread, uint8_t flags, uint64_t syscall_id, const ContextSpec& ctx);
  Result<uint64_t> syscall_exit(uint32_t thread, uint8_t flags, int64_t syscall_id, const ContextSpec& ctx);
  Result<uint64_t> skipped_syscall_exit(uint32_t thread, uint8_t flags, uint64_t syscall_id);
  Result<uint64_t> context_change(uint32_t thread, uint8_t flags, ExecType reason, const ContextSpec& ctx);
  // Any record, its data as given (tests of unknown or damaged records).
  Result<uint64_t> raw_record(uint32_t thread, uint8_t type, uint8_t flags, std::span<const uint8_t> data);

  uint64_t record_count() const { return records_; }
  uint64_t exec_bytes() const { return vtable_pos_; }
  // Writes the remaining tables and closes the files.
  Status finish();

 private:
  UmtraceWriter() = default;
  Result<uint64_t> append(uint32_t thread, uint8_t type, uint8_t flags, std::span<const uint8_t> head,
                          const ContextSpec* ctx);
  Status write_file(const char* name, const void* data, size_t size) const;
  void note_pages(uint64_t addr, uint64_t size);
  Status flush_prev_next();

  std::string dir_;
  ContextMapSpec map_;
  WriterOptions opt_;
  std::FILE* vtable_ = nullptr;
  std::FILE* offsets_ = nullptr;
  int prev_next_fd_ = -1;
  uint64_t vtable_pos_ = 0, records_ = 0;
  std::vector<uint8_t> scratch_, scratch_lc_;
  // prev/next pairs not yet on disk, for records [pn_first_, records_).
  std::vector<int64_t> pn_buffer_;
  uint64_t pn_first_ = 0;
  std::vector<ThreadRow> threads_;
  std::vector<int64_t> thread_last_;  // last EID of each thread so far
  std::vector<bool> thread_ended_;
  std::vector<ModuleSpec> modules_;
  InstructionTableEncoder ins_{1};
  std::vector<SyscallSpec> syscalls_;
  std::set<uint64_t> pages_;
  uint64_t last_page_ = ~0ull;
  struct MemorySlot {
    uint16_t lc_offset;
    uint16_t size;
    uint64_t mask;
  };
  // Per instruction id, its memory slots (for the address space table).
  std::vector<std::vector<MemorySlot>> memory_slots_;
  std::string error_;
  bool finished_ = false;
};

}  // namespace ttd::fmt::umtrace
