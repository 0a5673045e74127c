// Restores keyframes into one cursor's state incrementally. A seek used to
// rebuild the whole page map (thousands of entries for a mapped stack, most
// of them the shared zero page); this keeps every page that the previous
// restore installed, that the new keyframe still has under the same id, and
// that the replay since has not replaced (PagedMemory's change log says
// which), so a seek costs in proportion to what differs.
//
// restore_lazy() reads no page at all: each process's page map goes in as
// lazy groups (one per page-map segment, PagedMemory::install_lazy), whose
// pages the PageSource supplies when a read or a replay write first touches
// them. It rebuilds the state whole, which costs in proportion to the
// segments listed (about two thousand for Tenet's 195,000 pages) plus the
// pages the previous position had read or written, and keeps no page across
// seeks (it keeps allocations: each process's group list is reused).
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/keyframe_codec.h"

namespace ttd {

class KeyframeRestorer {
 public:
  // Makes st equal to the keyframe's state. False on corrupt data or a bad
  // page id; st is then unspecified and the next restore rebuilds it whole.
  bool restore(const uint8_t* data, size_t size, const PageById& page, const SegmentById& segments,
               MachineState& st);
  // Makes st equal to the keyframe's state with every page lazy, served by
  // `source`. False on a corrupt keyframe (segment and page blobs are not
  // read here: their corruption is reported by the access that needs them).
  bool restore_lazy(const uint8_t* data, size_t size, const std::shared_ptr<PageSource>& source, MachineState& st);
  // Forget what was installed: the next restore rebuilds the whole state.
  void reset() { installed_.clear(); valid_ = false; }

 private:
  struct Installed {
    uint64_t no, id;
    std::shared_ptr<Page> page;  // also keeps it shared, so writes copy it
  };
  struct ProcessPages {
    uint64_t pid = 0;
    std::vector<Installed> pages;  // sorted by no
  };
  bool restore_whole(const PageById& page, MachineState& st);
  bool restore_process(const KeyframeProcess& kp, const PageById& page, PagedMemory& mem, ProcessPages& done);
  bool same_processes(const MachineState& st) const;

  KeyframeView view_;
  std::vector<ProcessPages> installed_;  // parallel to view_.processes after a restore
  std::vector<Installed> scratch_;
  std::vector<uint64_t> changed_;
  std::vector<LazyGroupRef> groups_;
  bool valid_ = false;
};

}  // namespace ttd
