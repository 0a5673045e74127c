// index_codec_probe INDEX [--every N] [--dict]: what other compressors
// would make of an index's blobs, per kind (step streams, keyframes, whole
// pages, page deltas, page-map segments). Reads every Nth blob of each
// kind, decompressed, and compresses it with snappy, lz4 (when built with
// it) and zstd at levels -5, -3, -1 and 1-3 (frames without content size, checksum and
// dictionary id, their magic number not counted: what the index stores), timing compression and decompression (this thread's CPU time).
// --dict also trains one zstd dictionary per kind on the first blobs read
// and compresses the rest with it. For docs/design.md's choice of codec;
// prints one line per kind and codec.
#include <fcntl.h>
#include <snappy.h>
#include <zdict.h>
#include <zstd.h>
#ifdef TTD_PROBE_LZ4
#include <lz4.h>
#endif

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "engine/index_file.h"
#include "state/paged_memory.h"

using namespace ttd;

namespace {
// This thread's CPU time: the machine is shared, wall time swings.
struct Clock {
  static double now() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
  }
};
double secs(double a, double b) { return b - a; }

struct Tally {
  uint64_t blobs = 0, raw = 0, stored = 0;
  double c_s = 0, d_s = 0;
};

constexpr int kSnappy = -1000, kLz4 = -1001;
struct Codec {
  std::string name;
  int level = 0;      // zstd level; kSnappy, kLz4: those
  bool dict = false;  // zstd with this kind's trained dictionary
};

class Kind {
 public:
  std::string name;
  uint64_t index_stored = 0;  // what the index holds today
  std::vector<Tally> tallies;
  std::vector<std::string> training;  // first blobs, for the dictionary
  size_t training_bytes = 0;
  ZSTD_CDict* cdict = nullptr;
  ZSTD_DDict* ddict = nullptr;
};

ZSTD_CCtx* cctx;
ZSTD_DCtx* dctx;

void zstd_params(int level) {
  ZSTD_CCtx_reset(cctx, ZSTD_reset_session_and_parameters);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 0);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
}

void measure(Kind& k, const std::vector<Codec>& codecs, const std::string& raw) {
  std::string c, d;
  d.resize(raw.size());
  for (size_t i = 0; i < codecs.size(); ++i) {
    const Codec& co = codecs[i];
    if (co.dict && !k.cdict) continue;
    Tally& t = k.tallies[i];
    size_t clen = 0, stripped = 0;
    auto t0 = Clock::now();
    if (co.level == kSnappy) {
      c.resize(snappy::MaxCompressedLength(raw.size()));
      snappy::RawCompress(raw.data(), raw.size(), c.data(), &clen);
    } else if (co.level == kLz4) {
#ifdef TTD_PROBE_LZ4
      c.resize(LZ4_compressBound(int(raw.size())));
      clen = size_t(LZ4_compress_default(raw.data(), c.data(), int(raw.size()), int(c.size())));
#endif
    } else {
      c.resize(ZSTD_compressBound(raw.size()));
      zstd_params(co.level);
      if (co.dict) ZSTD_CCtx_refCDict(cctx, k.cdict);
      clen = ZSTD_compress2(cctx, c.data(), c.size(), raw.data(), raw.size());
      if (ZSTD_isError(clen)) clen = raw.size();
      stripped = 4;  // the frame's magic number, which the index leaves out
    }
    auto t1 = Clock::now();
    bool ok = true;
    if (co.level == kSnappy) {
      ok = snappy::RawUncompress(c.data(), clen, d.data());
    } else if (co.level == kLz4) {
#ifdef TTD_PROBE_LZ4
      ok = LZ4_decompress_safe(c.data(), d.data(), int(clen), int(d.size())) == int(raw.size());
#endif
    } else {
      ZSTD_DCtx_reset(dctx, ZSTD_reset_session_and_parameters);
      if (co.dict) ZSTD_DCtx_refDDict(dctx, k.ddict);
      size_t got = ZSTD_decompressDCtx(dctx, d.data(), d.size(), c.data(), clen);
      ok = !ZSTD_isError(got) && got == raw.size();
    }
    auto t2 = Clock::now();
    if (!ok) std::fprintf(stderr, "%s: %s round trip failed\n", k.name.c_str(), co.name.c_str());
    ++t.blobs;
    t.raw += raw.size();
    t.stored += std::min(clen - stripped + 1, raw.size());  // +1: a codec byte, or stored raw
    t.c_s += secs(t0, t1);
    t.d_s += secs(t1, t2);
  }
}

void train(Kind& k, int level) {
  if (k.training.size() < 16) return;
  std::string all;
  std::vector<size_t> sizes;
  for (auto& s : k.training) {
    all += s;
    sizes.push_back(s.size());
  }
  std::string dict(110 * 1024, '\0');
  size_t n = ZDICT_trainFromBuffer(dict.data(), dict.size(), all.data(), sizes.data(), unsigned(sizes.size()));
  if (ZDICT_isError(n)) {
    std::fprintf(stderr, "%s: no dictionary (%s)\n", k.name.c_str(), ZDICT_getErrorName(n));
    return;
  }
  k.cdict = ZSTD_createCDict(dict.data(), n, level);
  k.ddict = ZSTD_createDDict(dict.data(), n);
  std::fprintf(stderr, "%s: dictionary of %zu bytes from %zu blobs\n", k.name.c_str(), n, sizes.size());
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: index_codec_probe INDEX [--every N] [--dict]\n");
    return 2;
  }
  uint64_t every = 1;
  bool dict = false;
  for (int i = 2; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--every") && i + 1 < argc) every = std::max(1ul, std::strtoul(argv[++i], nullptr, 10));
    if (!std::strcmp(argv[i], "--dict")) dict = true;
  }
  int fd = ::open(argv[1], O_RDONLY | O_CLOEXEC);
  auto index = fd < 0 ? Result<std::unique_ptr<IndexFile>>(make_error(argv[1], "cannot open"))
                      : IndexFile::adopt(fd, argv[1]);
  if (!index) {
    std::fprintf(stderr, "%s\n", index.error().message.c_str());
    return 1;
  }
  const IndexFile& f = **index;
  cctx = ZSTD_createCCtx();
  dctx = ZSTD_createDCtx();
  std::vector<Codec> codecs{{"snappy", kSnappy}, {"zstd--5", -5}, {"zstd--3", -3}, {"zstd--1", -1},
                            {"zstd-1", 1},       {"zstd-2", 2},   {"zstd-3", 3}};
#ifdef TTD_PROBE_LZ4
  codecs.insert(codecs.begin() + 1, Codec{"lz4", kLz4});
#endif
  if (dict) codecs.push_back({"zstd-1+dict", 1, true});
  Kind kinds[5];
  const char* names[5] = {"step streams", "keyframes", "pages whole", "page deltas", "page-map segments"};
  for (int i = 0; i < 5; ++i) {
    kinds[i].name = names[i];
    kinds[i].tallies.resize(codecs.size());
  }
  constexpr size_t kTrainBlobs = 2000, kTrainBytes = size_t(16) << 20;
  std::string raw;
  auto visit = [&](Kind& k, const BlobRef& ref) {
    if (!f.read_blob(ref, raw)) {
      std::fprintf(stderr, "blob at %llu unreadable\n", (unsigned long long)ref.offset);
      return;
    }
    k.index_stored += ref.size;
    if (dict && !k.cdict && k.training.size() < kTrainBlobs && k.training_bytes < kTrainBytes) {
      k.training.push_back(raw);
      k.training_bytes += raw.size();
      if (k.training.size() == kTrainBlobs || k.training_bytes >= kTrainBytes) train(k, 1);
    }
    measure(k, codecs, raw);
  };
  for (size_t c = 0; c < f.chunk_count(); c += every) {
    ChunkEntry e = f.chunk(c);
    visit(kinds[0], e.stream);
    visit(kinds[1], e.keyframe);
  }
  BlobRef r;
  for (uint64_t id = 0; id < f.page_count(); id += every)
    if (f.page_ref(id, r)) visit(kinds[r.raw_size == sizeof(Page) ? 2 : 3], r);
  for (uint64_t id = 0; id < f.segment_count(); id += every)
    if (f.segment_ref(id, r)) visit(kinds[4], r);
  std::printf("%-18s %-12s %8s %12s %12s %7s %9s %9s\n", "kind", "codec", "blobs", "raw", "stored", "ratio",
              "c MB/s", "d MB/s");
  for (Kind& k : kinds) {
    for (size_t i = 0; i < codecs.size(); ++i) {
      const Tally& t = k.tallies[i];
      if (!t.blobs) continue;
      std::printf("%-18s %-12s %8llu %12llu %12llu %7.3f %9.0f %9.0f\n", k.name.c_str(), codecs[i].name.c_str(),
                  (unsigned long long)t.blobs, (unsigned long long)t.raw, (unsigned long long)t.stored,
                  double(t.stored) / double(t.raw), t.raw / 1e6 / t.c_s, t.raw / 1e6 / t.d_s);
    }
    std::printf("%-18s %-12s %8s %12s %12llu (these blobs as the index stores them)\n", k.name.c_str(), "index", "", "",
                (unsigned long long)k.index_stored);
  }
  return 0;
}
