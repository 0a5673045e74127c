#include "engine/mapped_files_at_build.h"

#include <string>

#include "engine/blob_reader.h"
#include "engine/index_layout.h"
#include "engine/trace_text.h"

namespace ttd {

std::optional<MappedFiles> mapped_files_at_build(std::FILE* out, int fd, const std::vector<ChunkBlobs>& chunks,
                                                 ArchId arch) {
  if (!out || fd < 0 || std::fflush(out) != 0) return std::nullopt;
  MappedFiles files;
  std::string stored, blob;
  for (size_t c : mapped_file_sample_chunks(chunks.size())) {
    // As IndexFile::read_blob reads it (engine/blob_reader.h).
    if (read_stored_blob(fd, chunks[c].keyframe, stored, blob)) return std::nullopt;
    if (!add_keyframe_mapped_files(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), arch_desc(arch), files))
      return std::nullopt;
  }
  for (const auto& [path, start] : files)
    if (!is_valid_utf8(path)) return std::nullopt;
  return files;
}

}  // namespace ttd
