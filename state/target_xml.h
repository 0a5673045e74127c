// gdb target descriptions generated from the architecture tables.
#pragma once
#include <map>
#include <string>

#include "state/arch.h"

namespace ttd {

// The complete target.xml for an architecture: <architecture>, <osabi>
// GNU/Linux, and one <feature> per feature the registers name, with the
// type definitions gdb and lldb need. Self-contained (no xi:include).
std::string target_xml(const ArchDesc& arch);

}  // namespace ttd
