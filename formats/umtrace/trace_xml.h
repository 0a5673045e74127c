// trace.xml: small metadata (CPU, OS, Pin, XED and UMTracer versions, the
// traced application). A purpose-built reader: elements, attributes, text,
// comments, CDATA and the five predefined entities plus character
// references; no DTDs or namespaces, which the file does not use. The
// result is a flat list of leaf paths below <Data><TraceMetaData>.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state/error.h"

namespace ttd::fmt::umtrace {

struct TraceXml {
  // ("App/ProcessID", "4242"), ("Xed/Version", "20150121"), attributes as "Elem@attr".
  std::vector<std::pair<std::string, std::string>> values;
  std::optional<std::string> get(std::string_view path) const;
};

// Parses text (from file path, for errors, which name a line).
Result<TraceXml> parse_trace_xml(std::string_view text, const std::string& path);
Result<TraceXml> read_trace_xml(const std::string& path);

}  // namespace ttd::fmt::umtrace
