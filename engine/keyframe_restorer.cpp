#include "engine/keyframe_restorer.h"

#include <algorithm>
#include <iterator>

namespace ttd {

bool KeyframeRestorer::restore(const uint8_t* data, size_t size, const PageById& page, const SegmentById& segments,
                               MachineState& st) {
  if (!parse_keyframe(data, size, st.arch(), &segments, view_)) {
    reset();
    return false;
  }
  if (!valid_ || !same_processes(st)) return restore_whole(page, st);
  install_keyframe_threads_and_regions(view_, st);
  for (size_t i = 0; i < view_.processes.size(); ++i) {
    PagedMemory& mem = st.process(view_.processes[i].pid).memory;
    if (mem.change_log_overflowed() || !mem.change_log_on()) return restore_whole(page, st);
    if (!restore_process(view_.processes[i], page, mem, installed_[i])) {
      reset();
      return false;
    }
  }
  return true;
}

bool KeyframeRestorer::restore_lazy(const uint8_t* data, size_t size, const std::shared_ptr<PageSource>& source,
                                    MachineState& st) {
  reset();  // the eager bookkeeping no longer describes st
  // Only the (segment key, segment id) lists are needed: no segment is read.
  if (!parse_keyframe(data, size, st.arch(), nullptr, view_)) return false;
  // The state is rebuilt in place, not from an empty one: a process the
  // keyframe has keeps its memory's group list allocated (thousands of
  // groups on a page-heavy trace; allocating and clearing them anew was a
  // sixth of a Tenet seek's instructions); any other process goes.
  auto& procs = st.processes();
  for (auto it = procs.begin(); it != procs.end();) {
    const uint64_t pid = it->first;
    const bool kept = std::any_of(view_.processes.begin(), view_.processes.end(),
                                  [pid](const KeyframeProcess& kp) { return kp.pid == pid; });
    it = kept ? std::next(it) : procs.erase(it);
  }
  install_keyframe_threads_and_regions(view_, st);
  for (const KeyframeProcess& kp : view_.processes) {
    groups_.clear();
    for (const KeyframeSegment& seg : kp.segments) groups_.push_back(LazyGroupRef{seg.key, seg.id});
    PagedMemory& mem = st.process(kp.pid).memory;
    // install_lazy drops pages, overlays and the write cache; the rest of
    // what a new PagedMemory would not have is the fault and a change log
    // (only an eager restore starts one: then start afresh).
    if (mem.change_log_on()) mem = PagedMemory();
    mem.clear_fault();
    mem.set_page_source(source);
    mem.install_lazy(groups_.data(), groups_.size());
  }
  return true;
}

// The state's processes are exactly the last restore's, which are exactly
// the new keyframe's (same pids, same order): only then can pages be diffed.
bool KeyframeRestorer::same_processes(const MachineState& st) const {
  if (st.processes().size() != view_.processes.size() || installed_.size() != view_.processes.size()) return false;
  size_t i = 0;
  for (const auto& [pid, p] : st.processes()) {
    if (pid != view_.processes[i].pid || installed_[i].pid != pid) return false;
    ++i;
  }
  return true;
}

bool KeyframeRestorer::restore_whole(const PageById& page, MachineState& st) {
  st = MachineState(st.arch());
  installed_.assign(view_.processes.size(), ProcessPages{});
  for (size_t i = 0; i < view_.processes.size(); ++i) {
    installed_[i].pid = view_.processes[i].pid;
    installed_[i].pages.reserve(view_.processes[i].pages.size());
  }
  const bool ok = install_keyframe(view_, page, st, [&](size_t i, const KeyframePage& pg, const std::shared_ptr<Page>& p) {
    installed_[i].pages.push_back(Installed{pg.no, pg.id, p});
  });
  if (!ok) {
    reset();
    return false;
  }
  for (const auto& kp : view_.processes) st.process(kp.pid).memory.start_change_log();
  // A keyframe lists processes in pid order, as MachineState keeps them.
  valid_ = std::is_sorted(view_.processes.begin(), view_.processes.end(),
                          [](const KeyframeProcess& a, const KeyframeProcess& b) { return a.pid < b.pid; });
  return true;
}

bool KeyframeRestorer::restore_process(const KeyframeProcess& kp, const PageById& page, PagedMemory& mem,
                                       ProcessPages& done) {
  // Pages the replay since the last restore created, copied or dropped.
  changed_.assign(mem.changed_pages().begin(), mem.changed_pages().end());
  std::sort(changed_.begin(), changed_.end());
  changed_.erase(std::unique(changed_.begin(), changed_.end()), changed_.end());
  auto is_changed = [&](uint64_t no) { return std::binary_search(changed_.begin(), changed_.end(), no); };

  // Merge the old installed list with the new keyframe's, both sorted by no.
  scratch_.clear();
  scratch_.reserve(kp.pages.size());
  auto old = done.pages.begin();
  for (const auto& pg : kp.pages) {
    while (old != done.pages.end() && old->no < pg.no) {
      mem.set_page(old->no, nullptr);  // gone from the new keyframe
      ++old;
    }
    bool had = old != done.pages.end() && old->no == pg.no;
    if (had && old->id == pg.id) {
      if (is_changed(pg.no)) mem.set_page(pg.no, old->page);
      scratch_.push_back(Installed{pg.no, pg.id, std::move(old->page)});
    } else {
      auto ptr = page(pg.id);
      if (!ptr) return false;
      mem.set_page(pg.no, ptr);
      scratch_.push_back(Installed{pg.no, pg.id, std::move(ptr)});
    }
    if (had) ++old;
  }
  for (; old != done.pages.end(); ++old) mem.set_page(old->no, nullptr);
  // Pages the replay created that neither keyframe has.
  for (uint64_t no : changed_) {
    auto it = std::lower_bound(kp.pages.begin(), kp.pages.end(), no,
                               [](const KeyframePage& p, uint64_t n) { return p.no < n; });
    if (it == kp.pages.end() || it->no != no) mem.set_page(no, nullptr);
  }
  done.pages.swap(scratch_);
  mem.start_change_log();
  return true;
}

}  // namespace ttd
