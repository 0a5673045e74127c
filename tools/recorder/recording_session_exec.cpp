// Where a recording goes on in another trace (docs/recording.md, "execve
// and --follow-fork"): the recorded process's execve ends its trace, and
// with --follow-fork a fork's child stops being the parent's recording to
// start its own. Both stop the emulator; record() (recording_chain.cpp)
// writes the next trace.
#include "tools/recorder/recording_session.h"

namespace ttd::rec {

void RecordingSession::end_for_exec(uint64_t number, const uint64_t args[6], ExecTarget target) {
  // As an exit ends a trace: the call, OP_EXIT as its effect. Its
  // arguments point at the path, argv and envp in the trace's memory, so
  // the trace alone says what was executed. Other threads end with it.
  emit_.begin_syscall(uint32_t(number), 0, {args, 6});
  emit_.kernel_effects(kernel_.effects());
  emit_.exit();
  emit_.end_syscall();
  res_.exec = std::move(target);
  stop();
}

void RecordingSession::become_recorded_child(const NewProcessChild& c, uint64_t next_pc) {
  // The fork's result in the child (0), the clobbers and the stack and TLS
  // clone asked for: the first state of the child's trace.
  pending_ = nullptr;
  const int64_t zero = 0;
  uc_reg_write(uc_, guest_.syscall_abi().ret, &zero);
  for (auto [reg, value] : guest_.syscall_clobbers(uc_, next_pc)) uc_reg_write(uc_, reg, &value);
  contexts_.set_stack_and_tls(c.stack, c.tls);
  slice_left_ = 0;
  res_.forked_child_pc = next_pc;
  stop();
}

}  // namespace ttd::rec
