// libFuzzer target for the index file, the one reader of ttd's own format:
// a .ttdidx beside a trace may be stale, damaged or crafted. The harness
// fixes up the header's two checksums (header, directory head) of every
// input (a crafted file can carry correct ones), so the fuzzer explores the
// head and the lazy table reader behind them. Blob and group checksums are
// not fixed up (version 9): inputs reach the decoders only through seeds
// that carry correct ones. Everything must fail cleanly: no crash, no huge allocation.
#include <xxhash.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "engine/page_cache.h"
#include "engine/step_codec.h"
#include "fuzz_support.h"

using namespace ttd;

namespace {

struct NullVisitor : EffectVisitor {
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
};

// Makes the header's checksums (and the source stamp the caller expects)
// agree with the input, where the header's offsets allow it.
SourceStamp fix_up(std::vector<uint8_t>& f) {
  IndexHeader h;
  std::memcpy(&h, f.data(), sizeof h);
  if (h.dir_offset >= kIndexHeaderSize && h.dir_offset <= f.size() && h.dir_size <= f.size() - h.dir_offset) {
    h.dir_checksum = XXH3_64bits(f.data() + h.dir_offset, h.dir_size);
  }
  std::memcpy(h.magic, kIndexMagic, 8);
  h.version = kIndexVersion;
  h.header_checksum = XXH3_64bits(&h, offsetof(IndexHeader, header_checksum));
  std::memcpy(f.data(), &h, sizeof h);
  return SourceStamp{h.source_size, h.source_mtime_ns, h.source_identity, h.source_content_hash};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static fuzz::InputFile file("fuzz_index");
  std::vector<uint8_t> f(data, data + size);
  SourceStamp stamp;
  if (f.size() >= kIndexHeaderSize) stamp = fix_up(f);
  auto idx = IndexFile::open(file.write(f.data(), f.size()), stamp);
  if (!idx) return 0;
  const IndexFile& index = **idx;
  const ArchDesc& arch = arch_desc(index.meta().info.arch);
  PageCache pages(index, 64);
  const SegmentById segments = pages.segment_source();
  std::string blob;
  NullVisitor v;
  std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs;
  const size_t chunks = std::min<size_t>(index.chunk_count(), 16);
  for (size_t c = 0; c < chunks; ++c) {
    const ChunkEntry ch = index.chunk(c);
    if (index.read_blob(ch.keyframe, blob)) {
      MachineState st(arch);
      (void)decode_keyframe(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(),
                            [&](uint64_t id) { return pages.get(id); }, &segments, st);
    }
    if (index.read_blob(ch.stream, blob)) {
      StepDecoder dec(arch, reinterpret_cast<const uint8_t*>(blob.data()), blob.size());
      DecodedStep s;
      for (int n = 0; n < 100000 && dec.next(s); ++n) {
        if (s.tidx >= index.thread_slots().size()) break;
        if (!dec.effects(s, v, index.thread_slots()[s.tidx].pid)) break;
        attrs.clear();
        (void)dec.attrs(s, attrs);
      }
    }
  }
  return 0;
}
