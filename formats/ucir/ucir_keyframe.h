// What the reader does with usercorn's one OP_KEYFRAME (the state at
// attach, before step 0).
//
// usercorn writes each mapping as OP_MEM_MAP plus ONE OP_MEM_WRITE of its
// contents with zero bytes trimmed at both ends, yet still at the mapping's
// base address (bytes.Trim in trace.go Attach). So when a mapping's only
// keyframe write starts at its base and is shorter than the mapping, the
// data's true offset is unknown: the reader marks the whole mapping
// unknown instead of trusting it. Trusted: writes covering the mapping,
// empty writes (the mapping was all zeros), writes not at the base, and
// mappings with several writes (as ttd's own writer produces). A trimmed
// mapping is recovered when its backing file shows where the data sits.
#pragma once
#include <string>
#include <vector>

#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_effects.h"

namespace ttd::fmt::ucir {

struct KeyframeSummary {
  uint32_t mappings = 0;
  uint32_t writes = 0;
  uint32_t untrusted_mappings = 0;  // marked unknown because of trimming
  uint32_t recovered_mappings = 0;  // trimmed, but placed by their backing file
  std::vector<std::string> backing_notes;  // per trimmed mapping with a file: recovered or why not (first 16)
  std::string exec_path;            // first mapping backed by a file
};

// Rewrites untrusted writes in `kf` into kEffectMemUnknown records over
// their mapping and summarises the keyframe. With `backing_files`, a
// trimmed mapping whose backing file agrees with the trimmed data keeps its
// write, moved to where the file puts it (backing_file.h).
KeyframeSummary apply_keyframe_policy(EffectGroup& kf, bool backing_files = false);

// Tracked registers (see Uc1Register::tracked) the keyframe does not set:
// usercorn left them out because they were zero.
std::vector<uint16_t> registers_left_zero(const EffectGroup& kf, const Uc1RegisterMap& regs);

}  // namespace ttd::fmt::ucir
