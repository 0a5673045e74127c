#include "engine/query/pc_class_cache.h"

#include <vector>

#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "engine/page_cache.h"
#include "engine/program_image.h"
#include "engine/query/chunk_reader.h"

namespace ttd::query {

PcClassCache::PcClassCache(const Trace& t) : t_(t), cls_(t.arch()) {}

std::vector<uint8_t> code_in_memory(const MachineState& st, uint64_t pc, size_t n) {
  std::vector<uint8_t> bytes(n), valid(n);
  for (const auto& [pid, p] : st.processes()) {
    p.memory.read(pc, bytes.data(), valid.data(), n);
    size_t k = 0;
    while (k < n && valid[k]) ++k;
    if (k) {
      bytes.resize(k);
      return bytes;
    }
  }
  return {};
}

Status PcClassCache::prepare(size_t chunk) {
  const ChunkEntry ch = t_.index().chunk(chunk);
  const auto summary = t_.index().summary(chunk);
  // Its pcs decide whether the chunk is skipped: unknown, it cannot be.
  if (summary->corrupt) return corrupt_chunk(t_, chunk);
  std::vector<uint64_t> fresh;
  for (uint64_t pc : summary->pcs)
    if (!classes_.count(pc)) fresh.push_back(pc);
  if (fresh.empty()) return {};
  std::string kf;
  MachineState st(t_.arch());
  const SegmentById segments = t_.pages().segment_source();
  if (!t_.index().read_blob(ch.keyframe, kf) ||
      !decode_keyframe(reinterpret_cast<const uint8_t*>(kf.data()), kf.size(),
                       [this](uint64_t id) { return t_.pages().get(id); }, &segments, st))
    return corrupt_chunk(t_, chunk);
  const size_t want = cls_.max_insn_bytes();
  for (uint64_t pc : fresh) {
    auto code = code_in_memory(st, pc, want);
    InsnClass c = cls_.classify(pc, code);
    // The trace's bytes first; the program's where the trace has none (or
    // too few to decode).
    if (c == InsnClass::Unknown && t_.program()) {
      std::vector<uint8_t> file(want);
      file.resize(t_.program()->read(pc, file.data(), want));
      c = cls_.classify(pc, file);
      if (c != InsnClass::Unknown) ++from_program_;
    }
    if (c == InsnClass::Unknown) ++unknown_;
    classes_.emplace(pc, c);
  }
  front_.fill(Front{});
  return {};
}

Result<InsnClass> PcClassCache::at_step(uint64_t eid, uint64_t pc) {
  if (!classes_.count(pc)) {
    if (eid >= t_.step_count()) return make_error("classify", "EID " + std::to_string(eid) + " is past the end of the trace");
    if (auto s = prepare(t_.index().chunk_of(eid)); !s) return s.error();
  }
  return get(pc);
}

bool PcClassCache::may_call_or_return(size_t chunk) {
  for (uint64_t pc : t_.index().summary(chunk)->pcs) {
    InsnClass c = get(pc);
    if (c == InsnClass::Call || c == InsnClass::Return || c == InsnClass::Unknown) return true;
  }
  return false;
}

}  // namespace ttd::query
