#include "engine/query/pc_class_cache.h"

#include <vector>

#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "engine/page_cache.h"
#include "engine/query/chunk_reader.h"

namespace ttd::query {

PcClassCache::PcClassCache(const Trace& t) : t_(t), cls_(t.arch()) {}

namespace {
// The known prefix of the code bytes at pc in any process of the state.
std::vector<uint8_t> code_at(const MachineState& st, uint64_t pc, size_t n) {
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
}  // namespace

Status PcClassCache::prepare(size_t chunk) {
  const ChunkEntry& ch = t_.index().chunks()[chunk];
  std::vector<uint64_t> fresh;
  for (uint64_t pc : ch.summary.pcs)
    if (!classes_.count(pc)) fresh.push_back(pc);
  if (fresh.empty()) return {};
  std::string kf;
  MachineState st(t_.arch());
  const SegmentById segments = t_.pages().segment_source();
  if (!t_.index().read_blob(ch.keyframe, kf) ||
      !decode_keyframe(reinterpret_cast<const uint8_t*>(kf.data()), kf.size(),
                       [this](uint64_t id) { return t_.pages().get(id); }, &segments, st))
    return corrupt_chunk(t_, chunk);
  for (uint64_t pc : fresh) {
    auto code = code_at(st, pc, cls_.max_insn_bytes());
    InsnClass c = cls_.classify(pc, code);
    if (c == InsnClass::Unknown) ++unknown_;
    classes_.emplace(pc, c);
  }
  front_.fill(Front{});
  return {};
}

bool PcClassCache::may_call_or_return(size_t chunk) {
  for (uint64_t pc : t_.index().chunks()[chunk].summary.pcs)
    if (get(pc) != InsnClass::Other) return true;
  return false;
}

}  // namespace ttd::query
