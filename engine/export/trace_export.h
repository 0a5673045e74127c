// `ttd export`: a trace's steps, memory accesses, register writes, calls or
// syscalls as rows (engine/export/row_writer.h), streamed in EID order
// (calls: in the order they return) in constant memory whatever the
// trace's length. Built on the engine's public API only (Trace, Cursor,
// CallWalker): it knows no trace format. The schema of each table is
// docs/export.md; table_of() is its single source.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/export/row_writer.h"
#include "engine/trace.h"

namespace ttd::exporting {

enum class ExportWhat : uint8_t { Steps, Mem, Regs, Calls, Syscalls };
bool parse_export_what(std::string_view s, ExportWhat& out);  // "steps", "mem", "regs", "calls", "syscalls"
const char* export_what_name(ExportWhat w);

// The table (name, columns, indexes) an export of `w` writes.
Table table_of(ExportWhat w);

struct ExportRequest {
  ExportWhat what = ExportWhat::Steps;
  std::optional<uint64_t> from, to;  // EID window [from, to); calls: entered in it
};

struct ExportResult {
  uint64_t rows = 0;
  std::string warning;  // e.g. calls found without code bytes may be too few ("" = none)
};

// Writes every row, then finishes the writer (renaming the file into
// place). An error leaves no output file behind.
Result<ExportResult> export_trace(std::shared_ptr<const Trace> t, const ExportRequest& req, RowWriter& w);

}  // namespace ttd::exporting
