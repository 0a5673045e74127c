// Reading a stored blob back from an index file: the one path the index
// file's reader (IndexFile::read_blob) and the builder's read-back of its
// own keyframes (mapped_files_at_build) share, so a change of how blobs
// are stored reaches both (the build-time copy once went stale: it read
// version-12 blobs as raw snappy).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/index_layout.h"

namespace ttd {

// Reads exactly n bytes at off (retrying short reads and EINTR); false on
// an error or the end of the file.
bool pread_all(int fd, void* dst, size_t n, uint64_t off);

// The blob `ref` names, as a reader gets it: its stored bytes read into
// `buffer` (behind the headroom decompress_blob wants; it may be left
// larger than the blob), the checksum
// checked, then copied or inflated into `out` (open_stored_blob). Returns
// nullptr, or what is wrong ("cannot read the blob", or open_stored_blob's
// reason). Bounds against the file are the caller's (it knows the size).
const char* read_stored_blob(int fd, const BlobRef& ref, std::string& buffer, std::string& out);

}  // namespace ttd
