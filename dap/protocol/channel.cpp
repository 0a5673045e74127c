#include "dap/protocol/channel.h"

#include <signal.h>

namespace ttd::dap {

FdChannel::FdChannel(int in_fd, int out_fd, bool owns) : channel_(in_fd, out_fd, owns) {
  // A client that goes away must end the session, not kill the process
  // (the channel's own writes cannot raise SIGPIPE; this covers the rest).
  ::signal(SIGPIPE, SIG_IGN);
}

long FdChannel::read(void* buf, size_t n) {
  net::ReadResult r = channel_.read({static_cast<uint8_t*>(buf), n}, -1);
  return r.status == net::ReadStatus::Data ? long(r.bytes) : 0;
}

bool FdChannel::write_all(const void* buf, size_t n) {
  return channel_.write_all({static_cast<const char*>(buf), n});
}

}  // namespace ttd::dap
