#include "state/dynamic_library.h"

#include <dlfcn.h>

#include <cstdlib>

namespace ttd {

Result<DynamicLibrary> DynamicLibrary::open(const std::string& file) {
  dlerror();
  void* h = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* why = dlerror();
    return make_error(file, std::string("cannot load the shared library: ") + (why ? why : "unknown reason"));
  }
  return DynamicLibrary(h, file);
}

Result<void*> DynamicLibrary::symbol(const char* name) const {
  dlerror();
  void* p = dlsym(handle_, name);
  if (!p) return make_error(file_, std::string("the library has no function ") + name + " (too old a version?)");
  return p;
}

std::string library_file_from_env(const char* env, const char* built_in) {
  const char* v = std::getenv(env);
  return v && *v ? std::string(v) : std::string(built_in);
}

}  // namespace ttd
