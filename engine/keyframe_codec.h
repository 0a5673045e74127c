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

// Returns the page-store id for a page of a process.
using PageIdOf = std::function<uint64_t(uint64_t pid, uint64_t page_no, const std::shared_ptr<Page>& page)>;
// Returns the page for a page-store id (nullptr if the id is bad).
using PageById = std::function<std::shared_ptr<Page>(uint64_t id)>;

void encode_keyframe(const MachineState& st, const PageIdOf& id_of, ByteWriter& out);
// Rebuilds the state; false on corrupt data.
bool decode_keyframe(const uint8_t* data, size_t size, const PageById& page, MachineState& out);

}  // namespace ttd
