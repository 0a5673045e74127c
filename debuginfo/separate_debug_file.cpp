#include "debuginfo/separate_debug_file.h"

#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf_sections.h"

namespace ttd::dbg {

namespace {

std::vector<std::string> debug_directories() {
  const char* env = std::getenv("TTD_DEBUG_FILE_DIRECTORY");
  std::string_view list = env ? env : "/usr/lib/debug";
  std::vector<std::string> out;
  while (!list.empty()) {
    const size_t colon = list.find(':');
    if (colon != 0) out.emplace_back(list.substr(0, colon));
    if (colon == std::string_view::npos) break;
    list.remove_prefix(colon + 1);
  }
  return out;
}

}  // namespace

std::optional<elf::ElfFile> open_separate_debug_file(const elf::ElfFile& file) {
  const std::string id = elf::build_id_hex(file);
  if (id.size() < 4) return std::nullopt;
  for (const std::string& dir : debug_directories()) {
    const std::string path = dir + "/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug";
    auto candidate = elf::ElfFile::open(path, "the separate debug file");
    if (candidate && elf::build_id_hex(*candidate) == id) return std::move(*candidate);
  }
  return std::nullopt;
}

}  // namespace ttd::dbg
