// Text that comes from a trace (OS name, program path, properties,
// attribute keys and string values, mapping names) is bytes chosen by
// whoever wrote the trace. The index builder passes every such string
// through text_from_trace() once, where trace text enters the engine, so
// every consumer (JSON output, `ttd info`, Python str, DAP, monitor
// replies) receives valid UTF-8.
//
// Escape form: valid UTF-8 passes unchanged; each byte that is not part of
// a well-formed UTF-8 sequence (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF) becomes the four characters \xHH
// (lower-case hex), as Python's "backslashreplace" does. A literal
// backslash is left as it is (Windows paths), so the form is readable,
// not reversible.
#pragma once
#include <string>
#include <string_view>

#include "formats/common/trace_sink.h"

namespace ttd {

bool is_valid_utf8(std::string_view s);
// s unchanged when it is valid UTF-8, else with its invalid bytes escaped.
std::string text_from_trace(std::string_view s);
// Every string of a TraceInfo through text_from_trace().
void make_text_valid(fmt::TraceInfo& info);

}  // namespace ttd
