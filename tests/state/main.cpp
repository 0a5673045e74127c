// doctest runner. "test_state --dump-target-xml ARCH [xml|layout|triple]"
// prints an arch's target.xml, its register layout ("name regnum offset
// bytes" per line) or its lldb triple and endianness, so that
// xml_accept_check.py can serve exactly what the library generates to the
// real gdb and lldb without a separate tool.
// doctest itself: ttd_doctest (tests/doctest_runner/doctest_impl.cpp).
#include <doctest/doctest.h>

#include <cstdio>
#include <cstring>

#include "state/target_xml.h"

namespace {
int dump(const char* arch_name, const char* what) {
  auto id = ttd::arch_from_name(arch_name);
  if (!id) {
    std::fprintf(stderr, "unknown arch %s\n", arch_name);
    return 2;
  }
  const ttd::ArchDesc& a = ttd::arch_desc(*id);
  if (!std::strcmp(what, "layout")) {
    for (const auto& r : a.regs)
      std::printf("%s %u %u %u\n", r.name.c_str(), r.gdb_regnum, r.offset, r.bytes());
  } else if (!std::strcmp(what, "triple")) {
    std::printf("%s %s %u %s\n", a.lldb_triple.c_str(), a.endian == ttd::Endian::Big ? "big" : "little",
                unsigned(a.ptr_size), a.pc().name.c_str());
  } else {
    std::fputs(ttd::target_xml(a).c_str(), stdout);
  }
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && !std::strcmp(argv[1], "--dump-target-xml")) return dump(argv[2], argc >= 4 ? argv[3] : "xml");
  doctest::Context ctx(argc, argv);
  return ctx.run();
}
