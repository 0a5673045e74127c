// The XRay instrumentation map of an instrumented binary: function ids ->
// function addresses (and symbol names). The runtime numbers functions in
// the order their sleds appear in the `xray_instr_map` section, starting at
// 1 and moving to the next id whenever the sled's function changes; the
// same numbering is redone here (as llvm-xray does).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "state/arch.h"
#include "state/error.h"

namespace ttd::fmt::xray {

struct SledEntry {
  uint64_t address = 0;   // the sled
  uint64_t function = 0;  // the function's entry
  uint8_t kind = 0;       // 0 entry, 1 exit, 2 tail, 3 log-args entry, 4 custom event, 5 typed event
  bool always_instrument = false;
  uint8_t version = 0;
};

class InstrMap {
 public:
  // Reads `path` (an ELF executable or shared object built with
  // -fxray-instrument). Errors name the file and what is missing.
  static Result<InstrMap> load(const std::string& path);

  std::optional<uint64_t> function_address(uint32_t func_id) const;
  // Demangled symbol of the function (empty if the binary has none).
  const std::string& function_name(uint32_t func_id) const;
  size_t function_count() const { return functions_.size(); }
  const std::vector<SledEntry>& sleds() const { return sleds_; }
  // The binary's architecture, when ttd knows it.
  std::optional<ArchId> arch() const { return arch_; }
  const std::string& path() const { return path_; }

 private:
  struct Function {
    uint64_t address = 0;
    std::string name;
  };
  std::string path_;
  std::optional<ArchId> arch_;
  std::vector<SledEntry> sleds_;
  std::vector<Function> functions_;  // index = id - 1
};

}  // namespace ttd::fmt::xray
