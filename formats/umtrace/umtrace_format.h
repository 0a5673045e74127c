// UMTracer indexed traces (Windows Pin tool): registry entry (sniff + open).
#pragma once
#include "formats/common/trace_reader.h"

namespace ttd::fmt {
FormatEntry umtrace_format();
}
