#include "engine/mapped_files_at_build.h"

#include <unistd.h>

#include <string>

#include "engine/blob_codec.h"
#include "engine/index_layout.h"
#include "engine/trace_text.h"

namespace ttd {

namespace {

// A blob as IndexFile::read_blob gives it (open_stored_blob: checksum
// checked, inflated by its codec).
bool read_back(int fd, const BlobRef& ref, std::string& buf, std::string& out) {
  buf.resize(kBlobHeadroom + ref.size);
  char* stored = buf.data() + kBlobHeadroom;
  for (size_t done = 0; done < ref.size;) {
    ssize_t n = ::pread(fd, stored + done, ref.size - done, off_t(ref.offset + done));
    if (n <= 0) return false;
    done += size_t(n);
  }
  return open_stored_blob(stored, ref.size, ref.raw_size, ref.checksum, ref.offset, out) == nullptr;
}

}  // namespace

std::optional<MappedFiles> mapped_files_at_build(std::FILE* out, int fd, const std::vector<ChunkBlobs>& chunks,
                                                 ArchId arch) {
  if (!out || fd < 0 || std::fflush(out) != 0) return std::nullopt;
  MappedFiles files;
  std::string stored, blob;
  for (size_t c : mapped_file_sample_chunks(chunks.size())) {
    if (!read_back(fd, chunks[c].keyframe, stored, blob)) return std::nullopt;
    if (!add_keyframe_mapped_files(reinterpret_cast<const uint8_t*>(blob.data()), blob.size(), arch_desc(arch), files))
      return std::nullopt;
  }
  for (const auto& [path, start] : files)
    if (!is_valid_utf8(path)) return std::nullopt;
  return files;
}

}  // namespace ttd
