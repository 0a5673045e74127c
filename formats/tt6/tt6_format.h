// Registry entries for Amber's PowerPC traces: "tt6", "tt6e" (by file
// extension, since the files carry no magic) and "tt6-full" (by cookie).
#pragma once
#include "formats/common/trace_reader.h"

namespace ttd::fmt {
FormatEntry tt6_format();
FormatEntry tt6e_format();
FormatEntry tt6_full_format();
}  // namespace ttd::fmt
