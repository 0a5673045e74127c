#include "formats/umtrace/umtrace_format.h"

#include <sys/stat.h>

#include "formats/umtrace/mapped_file.h"
#include "formats/umtrace/umtrace_layout.h"
#include "formats/umtrace/umtrace_reader.h"

namespace ttd::fmt {

namespace {

// The trace is a directory (the registry hands us no header bytes for it):
// recognise it by the three files every indexed trace has.
bool sniff(const std::string& path, std::span<const uint8_t>) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
  using namespace umtrace;
  return file_exists(table_path(path, kExecVtable)) && file_exists(table_path(path, kInsTable)) &&
         file_exists(table_path(path, kTraceXml));
}

}  // namespace

FormatEntry umtrace_format() {
  FormatEntry e;
  e.name = "umtrace";
  e.description = "UMTracer indexed trace (Windows Pin tool; a directory of exec/ins/syscall/... tables)";
  e.sniff = sniff;
  e.open = [](const std::string& path, const ReaderOptions&) -> Result<std::unique_ptr<TraceReader>> {
    auto r = umtrace::UmtraceReader::open(path);
    if (!r) return r.error();
    return std::unique_ptr<TraceReader>(std::move(r.value()));
  };
  return e;
}

}  // namespace ttd::fmt
