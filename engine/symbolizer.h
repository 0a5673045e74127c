// pc -> "function+offset" and "source:line", for every front end (CLI
// text and JSON, Python, monitor replies). One Symbolizer per Trace.
//
// Which ELF files it reads, each at a load bias:
//   1. the files given with --symbols FILE[@ADDR] (ADDR: where the file's
//      lowest loadable segment starts; without it, where the trace maps a
//      file of that name, else the file's own link addresses);
//   2. the traced program (--program, else the one the trace names);
//   3. every other file the trace's mappings name that exists here and is
//      an ELF of the trace's machine (the dynamic loader, shared libraries).
// Mapped files are the index's table of them, else found in its keyframes
// (their mapping names; engine/mapped_files.h).
//
// Lazy: creating one reads nothing; the first lookup finds the modules
// (keyframes, program headers), a module's symbols and DWARF lines are read
// when a pc first falls in it. Answers are cached. Thread-safe (a mutex):
// the Python module and `ttd dap --listen` share a Trace between threads.
// A file that cannot be read is skipped and named in warnings(); lookups
// never fail, they answer "nothing known".
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "state/arch.h"
#include "state/error.h"

namespace ttd {

class IndexFile;

struct SymbolFile {
  std::string path;
  std::optional<uint64_t> load_address;  // where the lowest PT_LOAD segment starts
};

// "FILE" or "FILE@ADDR" (ADDR decimal or 0x-hex). Errors name `what`.
Result<SymbolFile> parse_symbol_file(const std::string& text, const std::string& what = "--symbols");

struct PcSymbol {
  std::string function;  // "" when no symbol covers the pc
  uint64_t offset = 0;   // pc - function start
  std::string file;      // source file as DWARF records it ("" without line information)
  int line = 0;
  std::string module;    // the ELF file that answered

  // "push+0x1b" ("push" at offset 0); "" without a function.
  std::string sym() const;
  // "/src/list.c:42"; "" without line information.
  std::string src() const;
  // "push+0x1b list.c:42" (the source's last path component), for text output.
  std::string text() const;
};

class Symbolizer {
 public:
  // `index` must outlive the symbolizer (the Trace owns both).
  Symbolizer(const IndexFile* index, ArchId arch, std::vector<SymbolFile> explicit_files, std::string program);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // What is known about pc (nullopt: nothing).
  std::optional<PcSymbol> at(uint64_t pc) const;
  // Files that were skipped and why (after a lookup found the modules).
  std::vector<std::string> warnings() const;
  // The files that name pcs: "path @ 0xbias" (finds them, without reading
  // their symbols).
  std::vector<std::string> modules() const;

 private:
  struct Module;
  void discover_locked() const;
  const Module* module_at_locked(uint64_t pc) const;

  const IndexFile* index_;
  ArchId arch_;
  std::vector<SymbolFile> explicit_files_;
  std::string program_;

  mutable std::mutex mu_;
  mutable bool discovered_ = false;
  mutable std::vector<std::unique_ptr<Module>> modules_;
  mutable std::vector<std::string> warnings_;
  mutable std::unordered_map<uint64_t, std::optional<PcSymbol>> cache_;
};

}  // namespace ttd
