// Memory history: the reads and writes of a range [addr, addr+len), from
// an EID forwards or backwards, inside a window, with a limit and a resume
// token ("who wrote this last?", "every access to this buffer"). Chunks
// whose summaries show no access to the range's pages are never decoded.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/query/chunk_walk.h"
#include "engine/query/hit_iterator.h"
#include "engine/query/query_types.h"
#include "engine/trace.h"

namespace ttd::query {

enum class AccessKind : uint8_t { Read, Write };
enum class AccessFilter : uint8_t { Read, Write, Access };

const char* access_kind_name(AccessKind k);  // "read" / "write"
// "r", "w", "rw" (also "read", "write", "access").
Result<AccessFilter> parse_access_filter(const std::string& s);

struct MemoryQuery {
  AddressRange range;
  AccessFilter kind = AccessFilter::Access;
  QueryStart start;
  std::optional<uint64_t> tid;  // only accesses made by steps of this thread
  std::optional<uint64_t> pid;  // only accesses to this process's memory
  CancelCheck cancel;
};

// One access that overlaps the range. The access is reported whole (its
// own address and size); value is the bytes read or written when the trace
// records them. A write of unknown bytes (the trace only says they changed)
// is a Write with no value.
struct MemoryAccess {
  uint64_t eid = 0, tid = 0, pid = 0, pc = 0;
  AccessKind kind = AccessKind::Write;
  uint64_t addr = 0, size = 0;
  std::optional<std::vector<uint8_t>> value;
  ResumeToken next;  // resumes the query just after this hit
};

// The same, valid only during the callback (no copies; for fast scans).
struct MemoryAccessView {
  uint64_t eid = 0, tid = 0, pid = 0, pc = 0;
  AccessKind kind = AccessKind::Write;
  uint64_t addr = 0, size = 0;
  const uint8_t* value = nullptr;  // size bytes, or nullptr when unknown
  ResumeToken next;
};

// Calls fn for each hit in the query's direction until fn returns false.
Status scan_memory_accesses(const Trace& t, const MemoryQuery& q, const std::function<bool(const MemoryAccessView&)>& fn);
// Up to `limit` hits (0 = no limit).
Result<std::vector<MemoryAccess>> find_memory_accesses(const Trace& t, const MemoryQuery& q, size_t limit);

using MemoryHistory = HitIterator<MemoryQuery, MemoryAccess>;
MemoryHistory memory_history(std::shared_ptr<const Trace> t, MemoryQuery q);

}  // namespace ttd::query
