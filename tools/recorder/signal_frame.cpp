#include "tools/recorder/signal_frame.h"

namespace ttd::rec {

std::optional<uint64_t> push_signal_frame(ArchId arch, uc_engine* uc, FrameMemory& mem, const FrameRequest& req) {
  return arch == ArchId::X86_64 ? frame_detail::push_x86_64(uc, mem, req) : frame_detail::push_aarch64(uc, mem, req);
}

std::optional<FrameRestore> pop_signal_frame(ArchId arch, uc_engine* uc, FrameMemory& mem) {
  return arch == ArchId::X86_64 ? frame_detail::pop_x86_64(uc, mem) : frame_detail::pop_aarch64(uc, mem);
}

}  // namespace ttd::rec
