#include "engine/query/program_code_fill.h"

#include <vector>

#include "engine/program_image.h"
#include "engine/query/memory_history.h"
#include "engine/trace.h"

namespace ttd::query {

namespace {

// Whether some traced step of process pid wrote [addr, addr + n) before
// eid. An error of the scan (a corrupt chunk) counts as a write: the file's
// bytes are then not vouched for.
bool written_before(const Trace& t, uint64_t eid, uint64_t pid, uint64_t addr, uint64_t n) {
  if (eid == 0) return false;
  MemoryQuery q;
  q.range = {addr, n};
  q.kind = AccessFilter::Write;
  q.start.window = {0, eid};
  q.start.direction = Direction::Backward;
  q.pid = pid;
  bool hit = false;
  Status st = scan_memory_accesses(t, q, [&](const MemoryAccessView&) {
    hit = true;
    return false;
  });
  return hit || !st;
}

}  // namespace

size_t fill_code_from_program(const Trace& t, uint64_t eid, uint64_t pid, uint64_t addr, uint8_t* data,
                              uint8_t* known, size_t len) {
  const ProgramImage* image = t.program();
  if (!image) return 0;
  size_t filled = 0;
  std::vector<uint8_t> file;
  for (size_t i = 0; i < len;) {
    if (known[i] || !image->executable(addr + i)) {
      ++i;
      continue;
    }
    // A run of unknown bytes in executable file bytes.
    size_t j = i;
    while (j < len && !known[j] && image->executable(addr + j)) ++j;
    file.resize(j - i);
    size_t n = image->read(addr + i, file.data(), file.size());
    if (n > 0 && !written_before(t, eid, pid, addr + i, n)) {
      for (size_t k = 0; k < n; ++k) {
        data[i + k] = file[k];
        known[i + k] = 1;
      }
      filled += n;
    }
    i = j;
  }
  return filled;
}

}  // namespace ttd::query
