// Restores keyframes into one cursor's state incrementally. A seek used to
// rebuild the whole page map (thousands of entries for a mapped stack, most
// of them the shared zero page); this keeps every page that the previous
// restore installed, that the new keyframe still has under the same id, and
// that the replay since has not replaced (PagedMemory's change log says
// which), so a seek costs in proportion to what differs.
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
  bool valid_ = false;
};

}  // namespace ttd
