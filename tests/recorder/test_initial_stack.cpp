// The initial process stack: argc, argv, envp, auxv as Linux lays them out.
#include <doctest/doctest.h>
#include <elf.h>

#include <cstring>
#include <map>

#include "tools/recorder/initial_stack.h"

using namespace ttd::rec;

namespace {

struct StackReader {
  uint64_t top;
  const InitialStack& st;
  uint64_t u64(uint64_t addr) const {
    REQUIRE(addr >= st.sp);
    REQUIRE(addr + 8 <= top);
    uint64_t v;
    std::memcpy(&v, st.bytes.data() + (addr - st.sp), 8);
    return v;
  }
  std::string str(uint64_t addr) const {
    REQUIRE(addr >= st.sp);
    REQUIRE(addr < top);
    return std::string(reinterpret_cast<const char*>(st.bytes.data() + (addr - st.sp)));
  }
};

}  // namespace

TEST_CASE("argc, argv, envp and auxv are where the ABI puts them") {
  const uint64_t top = 0x7ffffffff000ull;
  AuxInfo aux;
  aux.phdr = 0x400040;
  aux.phent = 56;
  aux.phnum = 6;
  aux.entry = 0x401000;
  aux.hwcap = 0x1234;
  aux.platform = "x86_64";
  aux.execfn = "/path/to/prog";
  for (int i = 0; i < 16; ++i) aux.random[i] = uint8_t(i * 3 + 1);
  InitialStack st = build_initial_stack(top, {"prog", "arg one", ""}, {"A=1", "B=two"}, aux);

  CHECK(st.sp % 16 == 0);
  CHECK(st.sp + st.bytes.size() == top);
  StackReader r{top, st};
  REQUIRE(r.u64(st.sp) == 3);
  CHECK(r.str(r.u64(st.sp + 8)) == "prog");
  CHECK(r.str(r.u64(st.sp + 16)) == "arg one");
  CHECK(r.str(r.u64(st.sp + 24)) == "");
  CHECK(r.u64(st.sp + 32) == 0);
  CHECK(r.str(r.u64(st.sp + 40)) == "A=1");
  CHECK(r.str(r.u64(st.sp + 48)) == "B=two");
  CHECK(r.u64(st.sp + 56) == 0);

  std::map<uint64_t, uint64_t> auxv;
  uint64_t at = st.sp + 64;
  for (;; at += 16) {
    uint64_t key = r.u64(at), value = r.u64(at + 8);
    if (key == AT_NULL) break;
    CHECK_MESSAGE(auxv.count(key) == 0, "auxv key " << key << " twice");
    auxv[key] = value;
  }
  CHECK(auxv[AT_PHDR] == 0x400040);
  CHECK(auxv[AT_PHENT] == 56);
  CHECK(auxv[AT_PHNUM] == 6);
  CHECK(auxv[AT_ENTRY] == 0x401000);
  CHECK(auxv[AT_PAGESZ] == 4096);
  CHECK(auxv[AT_HWCAP] == 0x1234);
  CHECK(auxv[AT_CLKTCK] == 100);
  CHECK(auxv[AT_SECURE] == 0);
  for (uint64_t k : {AT_UID, AT_EUID, AT_GID, AT_EGID}) CHECK(auxv.count(k) == 1);
  CHECK(r.str(auxv[AT_PLATFORM]) == "x86_64");
  CHECK(r.str(auxv[AT_EXECFN]) == "/path/to/prog");
  // As Linux lays it: 8 zero bytes end the stack, AT_EXECFN's string is
  // right below them (code reading a string a word at a time past its
  // NUL must not run off the mapping).
  CHECK(r.u64(top - 8) == 0);
  CHECK(auxv[AT_EXECFN] + std::strlen("/path/to/prog") + 1 == top - 8);
  REQUIRE(auxv.count(AT_RANDOM) == 1);
  REQUIRE(auxv[AT_RANDOM] + 16 <= top);
  CHECK(std::memcmp(st.bytes.data() + (auxv[AT_RANDOM] - st.sp), aux.random, 16) == 0);
}

TEST_CASE("an empty environment and a long argument list keep sp aligned") {
  AuxInfo aux;
  aux.platform = "aarch64";
  aux.execfn = "p";
  for (size_t n = 1; n < 6; ++n) {
    std::vector<std::string> argv(n, "x");
    InitialStack st = build_initial_stack(0x7ffffffff000ull, argv, {}, aux);
    CHECK(st.sp % 16 == 0);
    uint64_t argc;
    std::memcpy(&argc, st.bytes.data(), 8);
    CHECK(argc == n);
  }
}
