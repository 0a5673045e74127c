#include "formats/umtrace/syscall_table.h"

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<std::unique_ptr<SyscallTable>> SyscallTable::open(const std::string& vtable_path,
                                                         const std::string& offsets_path) {
  using L = SyscallLayout;
  std::unique_ptr<SyscallTable> t(new SyscallTable());
  auto v = MappedFile::open(vtable_path);
  if (!v) return v.error();
  auto o = MappedFile::open(offsets_path);
  if (!o) return o.error();
  t->vtable_ = std::move(*v);
  t->offsets_ = std::move(*o);
  const MappedFile& f = *t->vtable_;
  if (!f.contains(0, L::kHeaderSize))
    return f.error_at(f.size(), "file is " + std::to_string(f.size()) + " bytes, shorter than its 16-byte header");
  const int32_t version = load_le_i32(f.data() + L::kVersion);
  if (version != 0) return f.error_at(L::kVersion, "system call table version " + std::to_string(version) + " (only 0 is known)");
  t->unified_version_ = load_le32(f.data() + L::kUnifiedIDsVer);
  const int64_t count = load_le_i64(f.data() + L::kRecordCount);
  if (count < 0 || uint64_t(count) > t->offsets_->size() / L::kOffsetsEntry)
    return f.error_at(L::kRecordCount, std::to_string(count) + " system call records, but " +
                                           t->offsets_->path() + " holds " +
                                           std::to_string(t->offsets_->size() / L::kOffsetsEntry) + " entries");
  t->count_ = uint64_t(count);
  return t;
}

Result<SyscallRecord> SyscallTable::get(uint64_t id) const {
  using L = SyscallLayout;
  if (id >= count_)
    return make_error(vtable_->path(), "system call " + std::to_string(id) + " does not exist (the table has " +
                                           std::to_string(count_) + ")");
  const uint64_t entry = id * L::kOffsetsEntry;
  const int64_t off = load_le_i64(offsets_->data() + entry), size = load_le_i64(offsets_->data() + entry + 8);
  const MappedFile& f = *vtable_;
  if (off < int64_t(L::kHeaderSize) || size < int64_t(L::kFixedSize) || !f.contains(uint64_t(off), uint64_t(size)))
    return offsets_->error_at(entry, "system call " + std::to_string(id) + ": record of " + std::to_string(size) +
                                         " bytes at byte " + std::to_string(off) + " is not inside the " +
                                         std::to_string(f.size()) + "-byte " + f.path());
  const uint8_t* p = f.data() + off;
  SyscallRecord r;
  r.id = id;
  r.raw_id = load_le16(p + L::kRawID);
  r.uniform_id = load_le16(p + L::kUniformID);
  r.convention = p[L::kConvention];
  r.completed = p[L::kCompleted] != 0;
  const int8_t argc = int8_t(p[L::kArgCount]);
  r.extra_count = p[L::kExtraCount];
  r.begin_eid = load_le_i64(p + L::kBeginEID);
  r.end_eid = load_le_i64(p + L::kEndEID);
  r.before_sp = load_le64(p + L::kBeforeSP);
  r.result = load_le64(p + L::kResult);
  const int64_t args_fp = load_le_i64(p + L::kArgsFP);
  if (argc < 0) return f.error_at(uint64_t(off) + L::kArgCount, "system call " + std::to_string(id) + ": negative argument count");
  if (argc > 0) {
    if (args_fp < 0 || uint64_t(args_fp) > uint64_t(size) || (uint64_t(size) - uint64_t(args_fp)) / 8 < uint64_t(argc))
      return f.error_at(uint64_t(off) + L::kArgsFP, "system call " + std::to_string(id) + ": " +
                                                        std::to_string(argc) + " arguments at record offset " +
                                                        std::to_string(args_fp) + " run past its " +
                                                        std::to_string(size) + "-byte record");
    r.args.resize(size_t(argc));
    for (int i = 0; i < argc; ++i) r.args[size_t(i)] = load_le64(p + args_fp + 8 * i);
  }
  return r;
}

}  // namespace ttd::fmt::umtrace
