// Keyframes: a full machine state (every thread's registers, every
// process's mappings and page map) where pages are referenced by id in the
// index's deduplicated page store rather than stored inline.
//
// A page map is cut into segments of 2^kSegmentShift consecutive page
// numbers. Each segment (engine/segment_codec.h: whole, or since version
// 14 a delta against its previous version) is a blob of its own,
// deduplicated by content like pages, and a keyframe
// lists only (segment key, segment id) pairs: consecutive keyframes share
// every segment nothing was written in, so a keyframe costs in proportion
// to the pages dirtied since the last one, not to the memory mapped (a
// trace touching 190 000 pages made every keyframe 1 MB).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/byte_codec.h"
#include "engine/segment_codec.h"
#include "state/machine_state.h"

namespace ttd {

// Returns the page for a page-store id (nullptr if the id is bad).
using PageById = std::function<std::shared_ptr<Page>(uint64_t id)>;


// A keyframe parsed but not installed: register bytes point into the
// decoded blob, pages are (page number, page-store id) sorted by number.
struct KeyframeThread {
  uint64_t tid = 0, pid = 0;
  bool alive = true;
  const uint8_t* reg_bytes = nullptr;
  uint64_t valid[4] = {};
};
struct KeyframeSegment {
  uint64_t key = 0, id = 0;  // key: page number >> kSegmentShift
};
// Returns a segment by id (nullptr if the id or the stored segment is bad).
using SegmentById = std::function<std::shared_ptr<const SegmentPages>(uint64_t id)>;

// Rebuilds the state; false on corrupt data. Without `segments` (nullptr)
// only threads and mappings are restored and memory stays empty.
bool decode_keyframe(const uint8_t* data, size_t size, const PageById& page, const SegmentById* segments,
                     MachineState& out);
struct KeyframeProcess {
  uint64_t pid = 0;
  std::vector<MemoryRegion> regions;
  std::vector<KeyframePage> pages;
  // The page map as stored, (segment key, segment id) by key: a lazy
  // restore needs only these, not the segments' pages.
  std::vector<KeyframeSegment> segments;
};
struct KeyframeView {
  std::vector<KeyframeThread> threads;
  std::vector<KeyframeProcess> processes;
};
// The segments of a process's page map, sorted by key.
using SegmentListOf = std::function<const std::vector<KeyframeSegment>&(uint64_t pid)>;
// Writes st as a keyframe, each process's page map taken from segments_of
// (the index builder keeps those up to date incrementally instead of
// hashing every page of every process at every keyframe).
void encode_keyframe(const MachineState& st, const SegmentListOf& segments_of, ByteWriter& out);

// Parses into out (reusing its capacity), each process's page list put
// together from its segments; false on corrupt data. Without `segments`
// (nullptr) the page lists are left empty and no segment is read; the
// segment lists are filled either way.
bool parse_keyframe(const uint8_t* data, size_t size, const ArchDesc& arch, const SegmentById* segments,
                    KeyframeView& out);
// Installs the parsed threads (all other threads are dropped) and each
// process's mappings into st; pages are left to the caller.
void install_keyframe_threads_and_regions(const KeyframeView& kf, MachineState& st);
// Sees each page install_keyframe puts in: the index of its process in
// the keyframe, the page-map entry, the page.
using InstalledPage = std::function<void(size_t process, const KeyframePage& entry, const std::shared_ptr<Page>& page)>;
// Installs a parsed keyframe into st, which holds no memory yet: threads,
// mappings and every page. False if a page id is bad.
bool install_keyframe(const KeyframeView& kf, const PageById& page, MachineState& st,
                      const InstalledPage& installed = {});

}  // namespace ttd
