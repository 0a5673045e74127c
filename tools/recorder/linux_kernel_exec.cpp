// execve/execveat of the recorded process (and of a --follow-fork child):
// the checks Linux makes before the point of no return (guest_execve.h);
// a failure is the call's result and the program goes on. A success is
// not answered here: the session ends this image's trace at the call, and
// the next image's kernel inherits what execve keeps (ExecCarry).
// docs/recording.md, "execve and --follow-fork".
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

#include "tools/recorder/linux_kernel.h"

namespace ttd::rec {

int64_t LinuxKernel::exec_recorded(int dirfd, const std::string& path, std::vector<std::string> argv,
                                   std::vector<std::string> envp, uint64_t flags) {
  ExecRequest req;
  req.path = path;
  // The guest's own /proc/self/exe and fd/N are its program and files,
  // not the recorder's (fexecve, programs that run themselves again).
  int64_t link_err = 0;
  if (auto link = proc_self_.link(path, link_err)) {
    if (link_err < 0) return link_err;
    req.path = *link;
  }
  req.argv = std::move(argv);
  req.envp = std::move(envp);
  req.sysroot = cfg_.sysroot;
  const bool absolute = !req.path.empty() && req.path[0] == '/';
  if (flags & ~uint64_t(AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW)) return -EINVAL;
  if ((flags & AT_EMPTY_PATH) && req.path.empty()) {
    const GuestFd* f = fds_.get(dirfd);
    if (!f) return -EBADF;
    if (f->kind != GuestFd::Kind::Host) return -EACCES;
    req.empty_path_fd = f->host;
  } else if (!absolute) {
    req.dirfd = fds_.host_dir(dirfd);
    if (req.dirfd < 0) return req.dirfd;
  }
  ExecTarget target;
  if (int64_t e = resolve_exec(req, target); e < 0) return e;
  target.requested = path.empty() ? target.program : path;
  exec_ = std::move(target);
  return 0;
}

std::unique_ptr<ExecCarry> LinuxKernel::hand_over_for_exec() {
  auto c = std::make_unique<ExecCarry>();
  write_back_shared_mappings();  // execve unmaps them
  fds_.close_on_exec();
  c->fds.swap(fds_);
  c->umask = umask_;
  c->sigmask = signals_.mask(threads_.current().number);  // the calling thread's, as Linux keeps it
  // Handlers go back to SIG_DFL (their code is gone); SIG_IGN stays.
  for (const auto& [sig, act] : sigactions_) {
    uint64_t handler = 0;
    if (act.size() >= 8) std::memcpy(&handler, act.data(), 8);
    if (handler == 1 /*SIG_IGN*/) c->ignored_actions[sig] = act;
  }
  c->pid = pid_;
  c->has_children = has_children_;
  c->children = std::move(children_);
  children_.clear();
  c->stdin_pos = stdin_pos_;
  c->out[0] = std::move(out_[0]);
  c->out[1] = std::move(out_[1]);
  c->next_pipe_id = next_pipe_id_;
  c->pipe_changes = std::move(pipe_changes_);
  c->capture_output = cfg_.capture_output;
  c->random_state = random_state_;
  c->rlimits = rlimits_;
  c->clock_ahead = clock_ahead_;
  timers_.save_itimers(c->itimers);
  // A vfork parent waits until its child execs: that is now.
  return_vfork_memory(true);
  return c;
}

void LinuxKernel::inherit(std::unique_ptr<ExecCarry> c) {
  if (!c) return;
  fds_.swap(c->fds);
  umask_ = c->umask;
  signals_.mask(threads_.current().number) = c->sigmask;
  sigactions_ = std::move(c->ignored_actions);
  pid_ = c->pid;
  if (pid_ != cfg_.pid) threads_.keep_only_current(pid_);
  has_children_ = c->has_children;
  children_ = std::move(c->children);
  stdin_pos_ = c->stdin_pos;
  out_[0] = std::move(c->out[0]);
  out_[1] = std::move(c->out[1]);
  next_pipe_id_ = c->next_pipe_id;
  pipe_changes_ = std::move(c->pipe_changes);
  cfg_.capture_output = c->capture_output;
  random_state_ = c->random_state;
  rlimits_ = c->rlimits;  // (the descriptor table carried its bound)
  clock_ahead_ = c->clock_ahead;
  timers_.restore_itimers(c->itimers);
  update_timer_due();
  show_name_on_host();
}

}  // namespace ttd::rec
