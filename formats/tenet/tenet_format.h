// Tenet text traces: registry entry (sniff + open).
#pragma once
#include "formats/common/trace_reader.h"

namespace ttd::fmt {
FormatEntry tenet_format();
}
