// Register history: the steps that wrote a register, from an EID forwards
// or backwards ("where did rax get this value?"). Chunks whose summary
// bitmask shows no write to the register are never decoded, so a
// register written once long ago is found after a pass over summaries.
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

struct RegisterQuery {
  uint16_t reg = 0;             // index into the arch's register table
  QueryStart start;
  std::optional<uint64_t> tid;  // only this thread's register (default: any thread)
  CancelCheck cancel;
};

// One write. value holds the register's bytes in target order after the
// write, or nothing when the trace says the register became unknown.
struct RegisterWrite {
  uint64_t eid = 0;
  uint64_t tid = 0;       // the thread whose register was written
  uint64_t step_tid = 0;  // the thread of the step (differs on context switches)
  uint64_t pc = 0;        // pc of the step
  uint16_t reg = 0;
  std::optional<std::vector<uint8_t>> value;
  ResumeToken next;
};

// The register index for a name (gdb's names and the arch's aliases).
// The pc is not a query target: it changes at every step (use executions).
Result<uint16_t> resolve_register(const Trace& t, const std::string& name);

Status scan_register_writes(const Trace& t, const RegisterQuery& q, const std::function<bool(const RegisterWrite&)>& fn);
Result<std::vector<RegisterWrite>> find_register_writes(const Trace& t, const RegisterQuery& q, size_t limit);

// The last write strictly before position `at` / the first at or after it.
Result<std::optional<RegisterWrite>> previous_register_write(const Trace& t, uint16_t reg, uint64_t at,
                                                             std::optional<uint64_t> tid = std::nullopt, const CancelCheck& cancel = {});
Result<std::optional<RegisterWrite>> next_register_write(const Trace& t, uint16_t reg, uint64_t at,
                                                         std::optional<uint64_t> tid = std::nullopt, const CancelCheck& cancel = {});

using RegisterChanges = HitIterator<RegisterQuery, RegisterWrite>;
RegisterChanges register_changes(std::shared_ptr<const Trace> t, RegisterQuery q);

// The register value as an integer (target byte order, at most 8 bytes).
std::optional<uint64_t> register_value_u64(const Trace& t, const RegisterWrite& w);

}  // namespace ttd::query
