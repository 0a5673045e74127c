// The index builder's spill file: pages evicted from its live state under
// the page budget (engine/keyframe_page_lists.h) wait here, one fixed-size
// slot each, until a later step touches them. The file is created in the
// index's directory (or TTD_BUILD_SPILL_DIR) on the first spill and
// unlinked at once, so nothing is left behind whatever ends the build;
// freed slots are reused, so the file is as large as the most pages
// spilled at one time.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "state/error.h"
#include "state/paged_memory.h"

namespace ttd {

class PageSpillFile {
 public:
  // `dir`: where the file goes when first needed.
  explicit PageSpillFile(std::string dir) : dir_(std::move(dir)) {}
  // Spills to an open descriptor instead, named `name` in errors (tests:
  // /dev/full). Takes the descriptor.
  PageSpillFile(int fd, std::string name) : fd_(fd), name_(std::move(name)) {}
  ~PageSpillFile();
  PageSpillFile(const PageSpillFile&) = delete;
  PageSpillFile& operator=(const PageSpillFile&) = delete;

  // Writes the page to a free slot and returns the slot, or an error
  // naming the file (the page is then not spilled).
  Result<uint32_t> write(const Page& page);
  // Reads slot's page back and frees the slot.
  Result<std::shared_ptr<Page>> take(uint32_t slot);
  // Frees a slot without reading it.
  void free(uint32_t slot) { free_.push_back(slot); }

  size_t slots_used() const { return slots_ - free_.size(); }
  size_t slots() const { return slots_; }  // the file's size in pages
  // The file's path (unlinked), once created.
  const std::string& name() const { return name_; }

 private:
  Status open_file();
  int fd_ = -1;
  std::string dir_, name_;
  uint32_t slots_ = 0;
  std::vector<uint32_t> free_;
};

// The directory for a build's spill file: TTD_BUILD_SPILL_DIR if set, else
// the index's own directory.
std::string spill_dir_for(const std::string& index_path);

}  // namespace ttd
