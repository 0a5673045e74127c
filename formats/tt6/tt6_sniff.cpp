#include "formats/tt6/tt6_sniff.h"

#include <sys/stat.h>

#include <cctype>

#include "formats/tt6/ppc_opcode.h"

namespace ttd::fmt::tt6 {

namespace {

uint64_t size_of(const std::string& path, uint64_t fallback) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return uint64_t(st.st_size);
  return fallback;
}

}  // namespace

bool has_extension(const std::string& path, const char* ext) {
  const std::string e(ext);
  if (path.size() <= e.size()) return false;
  for (size_t i = 0; i < e.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(path[path.size() - e.size() + i])) != e[i]) return false;
  return true;
}

bool plausible_tt6(std::span<const uint8_t> head, uint64_t file_size, Variant variant) {
  if (file_size < 8 || file_size % 4 != 0 || head.size() < 8) return false;
  if (load_be32(head.data()) & 3) return false;  // INITIAL_PC
  const OpcodeClassifier& classes = classifier(variant);
  uint64_t at = 4;
  int instructions = 0;
  while (at + 4 <= head.size()) {
    const uint32_t op = load_be32(head.data() + at);
    const RecordClass c = classes.classify(op);
    if (c == RecordClass::Escape) {
      at += 4 + uint64_t(escape_count(op)) * 4;
      if (at > file_size) return false;
      continue;
    }
    const uint64_t bytes = record_words(c) * 4;
    if (at + bytes > file_size) return false;
    if (at + bytes > head.size()) break;
    if (c == RecordClass::FlowAltering && (load_be32(head.data() + at + 4) & 3)) return false;
    ++instructions;
    at += bytes;
  }
  return instructions > 0 || at >= file_size;
}

bool plausible_full(std::span<const uint8_t> head, uint64_t file_size, bool full_extension) {
  if (head.size() < 4 || load_be32(head.data()) != kFullCookie) return false;
  if (full_extension) return true;
  return file_size >= 4 + full::kRecordBytes && (file_size - 4) % full::kRecordBytes == 0;
}

bool sniff_variant(const std::string& path, std::span<const uint8_t> head, Variant variant) {
  switch (variant) {
    case Variant::Tt6:
      return has_extension(path, ".tt6") && plausible_tt6(head, size_of(path, head.size()), variant);
    case Variant::Tt6e:
      return has_extension(path, ".tt6e") && plausible_tt6(head, size_of(path, head.size()), variant);
    case Variant::Full:
      return plausible_full(head, size_of(path, head.size()), has_extension(path, ".full"));
  }
  return false;
}

}  // namespace ttd::fmt::tt6
