// Trimmed keyframe mappings recovered from their backing files: usercorn's
// Attach writes a mapping's contents with zero bytes trimmed at both ends
// but at the mapping's base, so the data's true place is unknown -- unless
// the backing file OP_MEM_MAP names shows it. Traces are made here in
// usercorn's shape with the raw op encoder (ttd's UcirWriter never writes
// the ambiguous case), backing files beside them.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_reader.h"
#include "ucir_test_support.h"

using namespace ttd;
using namespace ttd::fmt::ucir;
using ttd::test::RecordingSink;
using Lines = std::vector<std::string>;

namespace {

constexpr uint64_t kBase = 0x400000, kMapSize = 0x2000;

// A code page as a file holds it: `lead` zero bytes, code with non-zero
// ends, zeros to the end of the page.
std::vector<uint8_t> code_page(size_t lead) {
  std::vector<uint8_t> page(0x1000, 0);
  const uint8_t code[] = {0x55, 0x48, 0x89, 0xe5, 0x31, 0xc0, 0x00, 0x00, 0x5d, 0xc3};
  std::copy(std::begin(code), std::end(code), page.begin() + lead);
  return page;
}

std::vector<uint8_t> trim_zeros(std::vector<uint8_t> v) {
  auto first = std::find_if(v.begin(), v.end(), [](uint8_t b) { return b != 0; });
  v.erase(v.begin(), first);
  while (!v.empty() && v.back() == 0) v.pop_back();
  return v;
}

// usercorn's Attach for one file-backed mapping: OP_MEM_MAP naming the file
// (offset, length), then ONE write of the trimmed contents at the base.
std::string usercorn_trace(const std::string& file, uint64_t file_off, uint64_t file_len,
                           const std::vector<uint8_t>& contents) {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_KEYFRAME, 0, 2);
  e.mem_map(kBase, kMapSize, 5, file_off, file_len, "exe", file);
  e.mem_write(kBase, trim_zeros(contents));
  e.frame_header(OP_FRAME, 0, 2);
  e.jmp(kBase + 0x100, 1);
  e.step(1);
  return test::write_raw_ucir(ops);
}

struct Outcome {
  Lines mem;  // map / write / unknown lines before step 0
  std::string backing;
  std::string note;
};

Outcome read_with(const std::string& path, bool backing_files = true) {
  fmt::ReaderOptions o;
  o.backing_files = backing_files;
  auto r = fmt::UcirReader::open(path, o);
  REQUIRE(r.ok());
  RecordingSink sink;
  Status s = (*r)->read(sink, {});
  REQUIRE_MESSAGE(s.ok(), s.error().to_string());
  Outcome out;
  for (const auto& l : sink.before_first_step())
    if (l.rfind("map", 0) == 0 || l.rfind("write", 0) == 0 || l.rfind("unknown", 0) == 0) out.mem.push_back(l);
  out.backing = sink.property("backing files");
  out.note = sink.info.caps.note;
  return out;
}

const std::string kCode = "554889e531c000005dc3";

}  // namespace

TEST_CASE("backing file: a trimmed mapping whose file agrees is placed where the file puts it") {
  const auto page = code_page(0x100);
  const std::string file = test::write_bytes("exe.bin", page);
  const Outcome o = read_with(usercorn_trace(file, 0, page.size(), page));
  CHECK(test::join(o.mem) == test::join(Lines{"map 0x400000 0x2000 prot=5 " + file, "write 0x400100 " + kCode}));
  CHECK(o.backing.find("1 trimmed mapping(s) recovered") == 0);
  CHECK_MESSAGE(o.backing.find("0x400000 (" + file + "): recovered") != std::string::npos, o.backing);
  CHECK(o.backing.find("starts at +0x100") != std::string::npos);
  CHECK(o.note.find("1 trimmed keyframe mapping(s) recovered from their backing files") != std::string::npos);
  CHECK(o.note.find("unknown because usercorn trimmed") == std::string::npos);
}

TEST_CASE("backing file: the mapping's bytes start at the file offset") {
  std::vector<uint8_t> file_bytes(0x40, 0xee);  // what precedes the mapped part (an ELF header, say)
  const auto page = code_page(0x20);
  file_bytes.insert(file_bytes.end(), page.begin(), page.end());
  const std::string file = test::write_bytes("exe_off.bin", file_bytes);
  const Outcome o = read_with(usercorn_trace(file, 0x40, page.size(), page));
  CHECK(test::join(o.mem) == test::join(Lines{"map 0x400000 0x2000 prot=5 " + file, "write 0x400020 " + kCode}));
}

TEST_CASE("backing file: anything short of agreement leaves the mapping unknown, and says why") {
  const auto page = code_page(0x100);
  auto expect_unknown = [&](const Outcome& o, const std::string& file, const std::string& why) {
    CHECK(test::join(o.mem) == test::join(Lines{"map 0x400000 0x2000 prot=5 " + file, "unknown 0x400000 0x2000"}));
    CHECK(o.backing.find("0 trimmed mapping(s) recovered") == 0);
    CHECK_MESSAGE(o.backing.find("0x400000 (" + file + "): unknown: " + why) != std::string::npos, o.backing);
    CHECK(o.note.find("1 keyframe mapping(s) unknown because usercorn trimmed") != std::string::npos);
  };
  SUBCASE("one byte differs") {
    auto changed = page;
    changed[0x104] = 0x32;
    const std::string file = test::write_bytes("differs.bin", changed);
    expect_unknown(read_with(usercorn_trace(file, 0, page.size(), page)), file,
                   "differs from the trace's data at file offset 260");
  }
  SUBCASE("more non-zero bytes after the data") {
    auto more = page;
    more[0x800] = 1;
    const std::string file = test::write_bytes("more.bin", more);
    expect_unknown(read_with(usercorn_trace(file, 0, page.size(), page)), file,
                   "holds non-zero bytes after the trace's data, at file offset 2048");
  }
  SUBCASE("the file is shorter than the trace says") {
    const std::string file = test::write_bytes("short.bin", std::vector<uint8_t>(page.begin(), page.begin() + 0x200));
    expect_unknown(read_with(usercorn_trace(file, 0, page.size(), page)), file, "the file has 512 bytes");
  }
  SUBCASE("missing file") {
    const std::string file = test::temp_path("never-written.bin");
    expect_unknown(read_with(usercorn_trace(file, 0, page.size(), page)), file, "cannot stat");
  }
  SUBCASE("not a regular file") {
    expect_unknown(read_with(usercorn_trace("/dev/zero", 0, page.size(), page)), "/dev/zero", "not a regular file");
    const std::string dir = test::temp_path("a-dir");
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
    expect_unknown(read_with(usercorn_trace(dir, 0, page.size(), page)), dir, "not a regular file");
    ::rmdir(dir.c_str());
  }
  SUBCASE("procfs files report no size") {
    expect_unknown(read_with(usercorn_trace("/proc/self/mem", kBase, page.size(), page)), "/proc/self/mem",
                   "the file has 0 bytes");
  }
  SUBCASE("a name with a NUL byte (the system would open the name before it)") {
    const std::string file = test::write_bytes("nul.bin", page) + std::string(1, '\0') + "x";
    expect_unknown(read_with(usercorn_trace(file, 0, page.size(), page)), file, "the name holds a NUL byte");
  }
  SUBCASE("turned off") {
    const std::string file = test::write_bytes("off.bin", page);
    expect_unknown(read_with(usercorn_trace(file, 0, page.size(), page), false), file,
                   "backing files not read (--no-backing-files)");
  }
}

TEST_CASE("backing file: a mapping without a file, or not trimmed, is as before") {
  // No file named: unknown, no backing-file property.
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  e.frame_header(OP_KEYFRAME, 0, 2);
  e.mem_map(kBase, kMapSize, 3, 0, 0, "heap", "");
  const uint8_t d[3] = {1, 2, 3};
  e.mem_write(kBase, d);
  e.frame_header(OP_FRAME, 0, 2);
  e.jmp(0x1000, 1);
  e.step(1);
  const Outcome o = read_with(test::write_raw_ucir(ops));
  CHECK(test::join(o.mem) == test::join(Lines{"map 0x400000 0x2000 prot=3 heap", "unknown 0x400000 0x2000"}));
  CHECK(o.backing.empty());
}
