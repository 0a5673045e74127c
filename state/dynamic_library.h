// A shared library opened at run time (dlopen) instead of at process start.
// Unicorn and Capstone are most of the relocations ld.so performs; opening
// them on first use keeps them out of every process that never emulates or
// disassembles (docs/performance.md, "One-shot query start-up").
#pragma once
#include <string>

#include "state/error.h"

namespace ttd {

class DynamicLibrary {
 public:
  // Opens `file` (a soname searched like DT_NEEDED, or a path) with
  // RTLD_NOW | RTLD_LOCAL: every symbol is bound now, none leaks into the
  // global scope. The error names the file and says why (dlerror).
  static Result<DynamicLibrary> open(const std::string& file);

  // The address of `name` in this library (or its dependencies); an error
  // naming the library and the symbol when it has none.
  Result<void*> symbol(const char* name) const;

  const std::string& file() const { return file_; }

  // The handle is never closed: the functions it provides are called
  // through pointers kept for the process's lifetime.
 private:
  DynamicLibrary(void* handle, std::string file) : handle_(handle), file_(std::move(file)) {}
  void* handle_;
  std::string file_;
};

// `env` when that environment variable is set and not empty, else
// `built_in` (the soname the build linked against).
std::string library_file_from_env(const char* env, const char* built_in);

}  // namespace ttd
