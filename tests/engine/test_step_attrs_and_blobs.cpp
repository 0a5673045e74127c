// Step attributes in the chunk stream (unsigned values stored relative to
// the key's last value, so skipping some steps' attributes must not change
// the values of later ones) and the blob writer's stored-as-is blobs.
#include <doctest/doctest.h>

#include <cstdio>
#include <random>

#include "engine/blob_writer.h"
#include "engine/cursor.h"
#include "engine/index_file.h"
#include "engine/step_codec.h"
#include "temp_synthetic_trace.h"
#include "tests/support/one_cpu_affinity.h"

using namespace ttd;

namespace {
int sched_getaffinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
}
using Attrs = std::vector<std::pair<uint32_t, fmt::AttrValue>>;

// Steps with a tsc that grows, a cpu that stays, an id that jumps about,
// and other value kinds between them.
struct AttrStep {
  uint64_t tsc, cpu, id;
  bool extra;
};
std::vector<AttrStep> attr_steps() {
  std::vector<AttrStep> v;
  std::mt19937_64 rng(7);
  uint64_t tsc = 1'000'000'000'000;
  for (int i = 0; i < 500; ++i) {
    tsc += rng() % 300;
    v.push_back({tsc, 3, (i % 7 == 0) ? ~0ull - i : rng() % 1000, i % 5 == 0});
  }
  v[10].tsc = 0;  // far below the last value
  v[11].tsc = ~0ull;
  return v;
}

// tsc_key 0 keeps history; a key of kMaxDeltaAttrKeys or more stores
// every value as it is.
std::vector<uint8_t> encode(const std::vector<AttrStep>& steps, uint32_t tsc_key = 0) {
  StepEncoder enc(arch_desc(ArchId::X86_64));
  enc.reset();
  for (const AttrStep& s : steps) {
    enc.begin_step(0, 1, 0x1000, 0, fmt::StepKind::FunctionEnter);
    enc.attr_u64(tsc_key, s.tsc);
    enc.attr(1, fmt::AttrValue(s.cpu));  // the variant path stores the same way
    if (s.extra) {
      enc.attr(2, fmt::AttrValue(std::string("note")));
      enc.attr(3, fmt::AttrValue(int64_t(-5)));
      enc.attr(4, fmt::AttrValue(std::vector<uint64_t>{1, 2, 3}));
    }
    enc.attr_u64(300, s.id);  // beyond the keys kept relative
    enc.attr_u64(5, s.id);
  }
  enc.end_step();
  return {enc.out().data(), enc.out().data() + enc.out().size()};
}
}  // namespace

TEST_CASE("step attributes: unsigned values round-trip even when steps are skipped") {
  const auto steps = attr_steps();
  const auto bytes = encode(steps);
  // A tsc around 10^12 takes 6 bytes as it is, 1 or 2 as a difference.
  CHECK(bytes.size() + 500 * 3 < encode(steps, kMaxDeltaAttrKeys).size());

  for (int stride : {1, 3}) {
    CAPTURE(stride);
    StepDecoder dec(arch_desc(ArchId::X86_64), bytes.data(), bytes.size());
    DecodedStep ds;
    Attrs attrs;
    for (size_t i = 0; i < steps.size(); ++i) {
      REQUIRE(dec.next(ds));
      if (i % stride) continue;  // attributes of this step never asked for
      attrs.clear();
      REQUIRE(dec.attrs(ds, attrs));
      const AttrStep& s = steps[i];
      Attrs want = {{0, s.tsc}, {1, s.cpu}};
      if (s.extra) {
        want.emplace_back(2, std::string("note"));
        want.emplace_back(3, int64_t(-5));
        want.emplace_back(4, std::vector<uint64_t>{1, 2, 3});
      }
      want.emplace_back(300, s.id);
      want.emplace_back(5, s.id);
      CHECK(attrs == want);
    }
    CHECK(!dec.next(ds));
    CHECK(dec.ok());
  }
}

TEST_CASE("step attributes: effects after attributes, and long attribute blocks") {
  // Attributes are written in place until an effect comes; then they move
  // behind the effects. Both orders, and a block of 200 bytes (a length
  // that needs two varint bytes), decode to the same steps.
  const ArchDesc& a = arch_desc(ArchId::X86_64);
  StepEncoder enc(a);
  enc.reset();
  const uint8_t rax[8] = {42};
  const std::string text(200, 'x');
  enc.begin_step(0, 1, 0x1000, 4, fmt::StepKind::Instruction);  // attribute, then an effect
  enc.attr_u64(0, 7);
  enc.reg(0, 0, rax);
  enc.attr_u64(1, 9);
  enc.begin_step(0, 1, 0x1004, 4, fmt::StepKind::Instruction);  // effect, then an attribute
  enc.reg(0, 0, rax);
  enc.attr_u64(0, 8);
  enc.begin_step(0, 1, 0x1008, 4, fmt::StepKind::Instruction);  // a long block, no effects
  enc.attr(2, fmt::AttrValue(text));
  enc.begin_step(0, 1, 0x100c, 4, fmt::StepKind::Instruction);  // nothing
  enc.end_step();

  struct Regs : EffectVisitor {
    int n = 0;
    void reg(uint32_t, uint16_t r, const uint8_t* v, uint32_t) override { n += (r == 0 && v[0] == 42); }
    void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
  } regs;
  StepDecoder dec(a, enc.out().data(), enc.out().size());
  DecodedStep ds;
  std::vector<Attrs> got;
  while (dec.next(ds)) {
    REQUIRE(dec.effects(ds, regs, 1));
    got.emplace_back();
    REQUIRE(dec.attrs(ds, got.back()));
  }
  CHECK(dec.ok());
  CHECK(regs.n == 2);
  REQUIRE(got.size() == 4);
  CHECK(got[0] == Attrs{{0, uint64_t(7)}, {1, uint64_t(9)}});
  CHECK(got[1] == Attrs{{0, uint64_t(8)}});
  CHECK(got[2] == Attrs{{2, text}});
  CHECK(got[3].empty());
}

TEST_CASE("step attributes: relative values for keys beyond the history are refused") {
  // One step, kind FunctionEnter, an attribute block holding key 300 as
  // "same as last": no decoder keeps history that far, so it is corrupt.
  ByteWriter w;
  w.u8(1 << 4);  // kHasAttrs; thread, pc, size and kind follow
  w.var(0);      // thread
  w.svar(0x10);  // pc
  w.var(0);      // size
  w.u8(uint8_t(fmt::StepKind::FunctionEnter));
  ByteWriter block;
  block.var((uint64_t(300) << 3) | 4);
  w.var(block.size());
  w.bytes(block.data(), block.size());
  StepDecoder dec(arch_desc(ArchId::X86_64), w.data(), w.size());
  DecodedStep ds;
  CHECK(!dec.next(ds));
  CHECK(!dec.ok());
}

TEST_CASE("blob writer: blobs snappy cannot shrink are stored as they are") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  std::mt19937_64 rng(11);
  std::vector<std::vector<uint8_t>> blobs;
  for (int i = 0; i < 80; ++i) {  // random: incompressible
    std::vector<uint8_t> b(4096);
    for (auto& x : b) x = uint8_t(rng());
    blobs.push_back(b);
  }
  blobs.push_back(std::vector<uint8_t>(4096, 'a'));  // compressible, of a kind of its own
  blobs.push_back({});                               // empty

  BlobWriter w(f, 0);
  for (size_t i = 0; i < blobs.size(); ++i) {
    const auto kind = i == 80 ? BlobKind::Keyframe : BlobKind::Steps;
    w.put(ByteBlock::copy_of(blobs[i].data(), blobs[i].size()), kind);
  }
  w.finish();
  REQUIRE(w.error().empty());
  const auto& refs = w.refs();
  REQUIRE(refs.size() == blobs.size());
  std::fflush(f);
  for (size_t i = 0; i < 80; ++i) {
    CAPTURE(i);
    REQUIRE(refs[i].size == refs[i].raw_size);  // stored size == raw size: as it is
    std::vector<uint8_t> back(refs[i].size);
    REQUIRE(std::fseek(f, long(refs[i].offset), SEEK_SET) == 0);
    REQUIRE(std::fread(back.data(), 1, back.size(), f) == back.size());
    CHECK(back == blobs[i]);
  }
  CHECK(refs[80].size < refs[80].raw_size / 10);  // compressed
  CHECK(refs[81].size == 0);
  CHECK(w.end_offset() == refs[81].offset);
  std::fclose(f);
}

// Both ways of writing: a thread of its own when the process has two CPUs
// or more, the caller's thread when it has one (then nothing overlaps).
TEST_CASE("blob writer: one CPU writes in the caller's thread, blocks still come back") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  test::OneCpuAffinity one;
  REQUIRE(one.pinned());
  BlobWriter w(f, 0);
  CHECK(!w.threaded());
  std::vector<uint8_t> b(100000, 'x');
  w.put(ByteBlock::copy_of(b.data(), b.size()), BlobKind::Steps);
  CHECK(w.refs().size() == 1);  // written at once, before finish()
  ByteBlock again = w.spare(b.size());
  CHECK(again.capacity >= b.size());
  w.finish();
  REQUIRE(w.error().empty());
  CHECK(w.refs()[0].size < w.refs()[0].raw_size);
  std::fclose(f);
}

TEST_CASE("blob writer: written blocks come back for reuse, within a bound") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f);
  BlobWriter w(f, 0);
  if (sched_getaffinity_count() > 1) CHECK(w.threaded());
  // 40 blocks of 1 MiB: more than the 16 MiB the writer keeps.
  const size_t mib = size_t(1) << 20;
  for (int i = 0; i < 40; ++i) {
    std::vector<uint8_t> b(mib, uint8_t(i));
    w.put(ByteBlock::copy_of(b.data(), b.size()), BlobKind::Steps);
  }
  w.finish();  // every block written: the kept ones wait as spares
  REQUIRE(w.error().empty());
  CHECK(w.spare(2 * mib).bytes == nullptr);  // none that large
  size_t kept = 0;
  for (ByteBlock b = w.spare(mib); b.bytes; b = w.spare(mib)) {
    CHECK(b.capacity >= mib);
    ++kept;
  }
  CHECK(kept >= 8);   // reused, not freed...
  CHECK(kept <= 16);  // ...but no more than the bound
  // A ByteWriter continues in a spare's storage.
  ByteWriter bw;
  bw.bytes("abc", 3);
  ByteBlock big{std::make_unique_for_overwrite<uint8_t[]>(4096), 0, 4096};
  const uint8_t* storage = big.bytes.get();
  ByteBlock out = bw.take(std::move(big));
  CHECK(out.size == 3);
  CHECK(bw.capacity() == 4096);
  bw.u8(7);
  CHECK(bw.data() == storage);
  std::fclose(f);
}

TEST_CASE("blob writer: an index whose pages and steps do not compress still seeks right") {
  // Random page contents and random register values: the writer gives up
  // compressing them, and read_blob must return them as they were stored.
  auto synth = test::make_synthetic(3000, 2, 5);
  std::mt19937_64 rng(3);
  std::vector<uint8_t> noise(0x4000);
  for (auto& x : noise) x = uint8_t(rng());
  synth.initial.push_back({test::SynthEffect::Write, 100, 0, 0x10000, noise});
  for (size_t i = 0; i < synth.steps.size(); i += 3) {
    std::vector<uint8_t> block(64);
    for (auto& x : block) x = uint8_t(rng());
    synth.steps[i].effects.push_back({test::SynthEffect::Write, synth.steps[i].info.tid, 0, 0x10000 + (rng() % 0x3f00), block});
  }
  test::TempSynthTrace tt(std::move(synth));
  auto t = Trace::open(tt.path, tt.options(64));
  REQUIRE(t.ok());
  size_t raw = 0, blobs = 0;
  for (const auto& c : (*t)->index().load_all_chunks()) {
    blobs += 1;
    raw += c.stream.size == c.stream.raw_size;
  }
  CHECK(raw > blobs / 2);  // most chunk streams were stored as they are
  const auto ref = test::reference_digests(*tt.synth);
  Cursor c(*t);
  std::mt19937 pick(9);
  for (int i = 0; i < 200; ++i) {
    const uint64_t e = pick() % ref.size();
    REQUIRE(c.seek(e).ok());
    CHECK_MESSAGE(c.state().digest() == ref[e], "EID ", e);
  }
}
