#include <doctest/doctest.h>

#include "state/target_xml.h"

using namespace ttd;

TEST_CASE("x86-64 target.xml names every register with its regnum") {
  std::string x = target_xml(arch_desc(ArchId::X86_64));
  CHECK(x.find("<architecture>i386:x86-64</architecture>") != std::string::npos);
  CHECK(x.find("<reg name=\"rip\" bitsize=\"64\" regnum=\"16\" type=\"code_ptr\"") != std::string::npos);
  CHECK(x.find("<flags id=\"i386_eflags\"") != std::string::npos);
  CHECK(x.find("<union id=\"vec128\">") != std::string::npos);
}
