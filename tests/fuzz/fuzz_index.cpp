// libFuzzer target for the index file, the one reader of ttd's own format:
// a .ttdidx beside a trace may be stale, damaged or crafted. The harness
// makes every checksum of each input agree with its bytes (header,
// directory head, group records, table groups and the blob references in
// them: index_checksum_fixup.h), as a crafted file can, so mutations reach
// the head, the lazy table reader, and the keyframe, segment, page-delta,
// step (whole, and inflated block by block as a seek reads it) and
// summary-filter decoders behind the checksums. Everything must fail cleanly: no
// crash, no huge allocation.
#include <xxhash.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "engine/blob_prefix.h"
#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "engine/page_cache.h"
#include "engine/step_codec.h"
#include "fuzz_support.h"
#include "index_checksum_fixup.h"

using namespace ttd;

namespace {

struct NullVisitor : EffectVisitor {
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
};

// Makes every checksum (and the source stamp the caller expects) agree
// with the input, where its offsets allow it.
SourceStamp fix_up(std::vector<uint8_t>& f) {
  IndexHeader h;
  std::memcpy(&h, f.data(), sizeof h);
  std::memcpy(h.magic, kIndexMagic, 8);
  h.version = kIndexVersion;
  std::memcpy(f.data(), &h, sizeof h);
  fuzz::fix_up_index_checksums(f);
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
  static BlobPrefixSource prefix;  // reused, as a cursor's
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
    // The seek's path: the stream inflated block by block as the decoder
    // asks (engine/blob_prefix.h, a cursor's reader).
    if (index.read_blob_prefix(ch.stream, prefix.blob)) {
      StepDecoder dec(arch, prefix.blob.data(), 0);
      dec.reset(prefix.blob.data(), prefix.blob.available(), &prefix);
      DecodedStep s;
      for (int n = 0; n < 100000 && dec.next(s); ++n) {
        if (s.tidx >= index.thread_slots().size()) break;
        if (!dec.effects(s, v, index.thread_slots()[s.tidx].pid)) break;
      }
    }
  }
  // Summary filters (version 11): sizes and key counts come from the file.
  const uint64_t filters = std::min<uint64_t>(index.table(IndexTable::PcFilters).entries, 16);
  for (uint64_t g = 0; g < filters; ++g) {
    if (auto f = index.pc_filter(g)) (void)f->may_run(0x401000 + g * 4);
    if (auto f = index.access_filter(g)) (void)(f->may_write(g * 64, 8) || f->may_read(0x7ff000, 4096));
  }
  // Pages directly: whole, delta chains, bad bases.
  const uint64_t n_pages = std::min<uint64_t>(index.page_count(), 64);
  for (uint64_t id = 0; id < n_pages; ++id) (void)pages.get(n_pages - 1 - id);
  // Small heads only: verify reads every entry the head claims.
  if (index.chunk_count() + index.page_count() + index.segment_count() < 4096) (void)index.verify();
  return 0;
}
