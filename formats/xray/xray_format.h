// LLVM XRay logs: registry entry (sniff + open).
#pragma once
#include "formats/common/trace_reader.h"

namespace ttd::fmt {
FormatEntry xray_format();
}
