// The reference outputs of llvm-xray kept beside the test logs:
// `convert --output-format=yaml` (parsed by a small purpose-built parser
// for exactly the shape llvm-xray writes) and `fdr-dump` text.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "formats/xray/xray_event.h"

namespace xray_test {

struct RefRecord {
  std::string kind;  // function-enter, function-enter-arg, function-exit, function-tail-exit, custom-event, typed-event
  uint64_t type = 0;  // llvm's record type; the event type for typed events
  uint64_t func_id = 0;
  std::string function;
  std::vector<uint64_t> args;
  uint64_t cpu = 0, thread = 0, process = 0, tsc = 0;
  std::string data;
  bool operator==(const RefRecord&) const = default;
};

struct RefTrace {
  uint64_t version = 0, type = 0, cycle_frequency = 0;
  bool constant_tsc = false, nonstop_tsc = false;
  std::vector<RefRecord> records;
};

// Parses llvm-xray's YAML; nullopt (and *err) when a line does not parse.
std::optional<RefTrace> parse_llvm_yaml(const std::string& text, std::string* err);

// An expanded event in llvm-xray's terms (function name left empty; llvm's
// stale fields for events -- function id, type on later records -- cleared).
RefRecord to_ref(const ttd::fmt::xray::XrayEvent& e);
// The same clearing applied to a parsed reference record.
RefRecord normalise(RefRecord r);

// Records per thread, each thread's list in the order llvm-xray gives
// them after sorting by TSC (a stable sort, as `convert -sort` does).
std::map<uint64_t, std::vector<RefRecord>> by_thread_sorted(const std::vector<RefRecord>& recs);

// fdr-dump text with llvm-xray's own error line (which it interleaves
// with stdout on failure) taken out.
std::string strip_llvm_errors(const std::string& dump);

std::string read_text(const std::string& path);
// Every *.xray file under dir, recursively, sorted.
std::vector<std::string> find_logs(const std::string& dir);
// The reference file for a log: <dir>/<stem><suffix> or <dir>/expected/<stem><suffix>.
std::optional<std::string> reference_for(const std::string& log, const std::string& suffix);

}  // namespace xray_test
