#include "engine/mapped_files.h"

#include <algorithm>

#include "engine/index_file.h"
#include "engine/keyframe_codec.h"

namespace ttd {

std::vector<size_t> mapped_file_sample_chunks(size_t n) {
  const size_t want = std::min(n, kMappedFileSamples);
  std::vector<size_t> out;
  out.reserve(want);
  for (size_t k = 0; k < want; ++k) out.push_back(want <= 1 ? n - 1 : k * (n - 1) / (want - 1));
  return out;
}

bool add_keyframe_mapped_files(const uint8_t* keyframe, size_t size, const ArchDesc& arch, MappedFiles& out) {
  thread_local KeyframeView view;  // capacity reused across samples
  if (!parse_keyframe(keyframe, size, arch, nullptr, view)) return false;
  for (const auto& p : view.processes)
    for (const auto& r : p.regions) {
      if (r.name.empty() || r.name[0] != '/') continue;
      auto [it, fresh] = out.emplace(r.name, r.start);
      if (!fresh) it->second = std::min(it->second, r.start);
    }
  return true;
}

MappedFiles sample_mapped_files(const IndexFile& index, ArchId arch) {
  MappedFiles out;
  std::string blob;
  for (size_t c : mapped_file_sample_chunks(index.chunk_count())) {
    if (!index.read_blob(index.chunk_passing(c).keyframe, blob)) continue;
    add_keyframe_mapped_files(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), arch_desc(arch), out);
  }
  return out;
}

MappedFiles mapped_files_of(const IndexFile& index, ArchId arch) {
  if (index.meta().mapped_files) return *index.meta().mapped_files;
  return sample_mapped_files(index, arch);
}

}  // namespace ttd
