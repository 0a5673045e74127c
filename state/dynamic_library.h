// A shared library opened at run time (dlopen) instead of at process start.
// Unicorn and Capstone are most of the relocations ld.so performs; opening
// them on first use keeps them out of every process that never emulates or
// disassembles (docs/performance.md, "One-shot query start-up").
#pragma once
#include <atomic>
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

// A library's functions resolved into `Api`, a struct of pointers typed
// like the header's declarations, the first time the library is needed.
// The forwarding files (unicorn_library.cpp, capstone_library.cpp,
// sqlite_library.cpp) list their functions as an X-macro F(X) and write,
// inside their namespace's anonymous namespace,
//   TTD_DEFINE_LIBRARY_API(F)
// which defines `struct Api`, `Loaded`, `g_loaded` and `library()` (the
// library opened from `file()` once, with its status).
template <class Api>
struct LoadedLibrary {
  Status status;  // the error naming the file or the missing function
  Api api;
};

#define TTD_LIBRARY_MEMBER(name) decltype(&::name) name = nullptr;
#define TTD_LIBRARY_RESOLVE(name)                          \
  if (auto p = lib.symbol(#name); !p)                      \
    return p.error();                                      \
  else                                                     \
    api.name = reinterpret_cast<decltype(&::name)>(*p);

// Opens `file` and fills the pointers through `resolve`; sets `loaded`
// once every one is resolved.
template <class Api, class Resolve>
LoadedLibrary<Api> open_library_api(const std::string& file, Resolve&& resolve, std::atomic<bool>& loaded) {
  LoadedLibrary<Api> l;
  auto lib = DynamicLibrary::open(file);
  if (!lib) {
    l.status = lib.error();
    return l;
  }
  l.status = resolve(*lib, l.api);
  if (l.status.ok()) loaded = true;
  return l;
}

#define TTD_DEFINE_LIBRARY_API(FUNCTIONS)                                          \
  struct Api {                                                                     \
    FUNCTIONS(TTD_LIBRARY_MEMBER)                                                  \
  };                                                                               \
  using Loaded = LoadedLibrary<Api>;                                               \
  std::atomic<bool> g_loaded{false};                                               \
  const Loaded& library() {                                                        \
    static const Loaded l = open_library_api<Api>(                                 \
        file(),                                                                    \
        [](const DynamicLibrary& lib, Api& api) -> Status {                        \
          FUNCTIONS(TTD_LIBRARY_RESOLVE)                                           \
          return {};                                                               \
        },                                                                         \
        g_loaded);                                                                 \
    return l;                                                                      \
  }

}  // namespace ttd
