// Keyframes: a full machine state (every thread's registers, every
// process's mappings and page map) where pages are referenced by id in the
// index's deduplicated page store rather than stored inline.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/byte_codec.h"
#include "state/machine_state.h"

namespace ttd {

// Returns the page for a page-store id (nullptr if the id is bad).
using PageById = std::function<std::shared_ptr<Page>(uint64_t id)>;

// Rebuilds the state; false on corrupt data.
bool decode_keyframe(const uint8_t* data, size_t size, const PageById& page, MachineState& out);

// A keyframe parsed but not installed: register bytes point into the
// decoded blob, pages are (page number, page-store id) sorted by number.
struct KeyframeThread {
  uint64_t tid = 0, pid = 0;
  bool alive = true;
  const uint8_t* reg_bytes = nullptr;
  uint64_t valid[4] = {};
};
struct KeyframePage {
  uint64_t no = 0, id = 0;
};
struct KeyframeProcess {
  uint64_t pid = 0;
  std::vector<MemoryRegion> regions;
  std::vector<KeyframePage> pages;
};
struct KeyframeView {
  std::vector<KeyframeThread> threads;
  std::vector<KeyframeProcess> processes;
};
// The sorted (page number, id) list of a process's pages.
using PageListOf = std::function<const std::vector<KeyframePage>&(uint64_t pid)>;
// Writes st as a keyframe, each process's page map taken from pages_of (the
// index builder keeps those lists up to date incrementally instead of
// hashing every page of every process at every keyframe).
void encode_keyframe(const MachineState& st, const PageListOf& pages_of, ByteWriter& out);

// Parses into out (reusing its capacity); false on corrupt data.
bool parse_keyframe(const uint8_t* data, size_t size, const ArchDesc& arch, KeyframeView& out);
// Installs the parsed threads (all other threads are dropped) and each
// process's mappings into st; pages are left to the caller.
void install_keyframe_threads_and_regions(const KeyframeView& kf, MachineState& st);

}  // namespace ttd
