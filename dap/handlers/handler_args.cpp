#include "dap/handlers/handler_args.h"

#include <filesystem>

namespace ttd::dap {

Result<uint64_t> thread_arg(RequestContext& c, bool required) {
  auto t = opt_int(c.args, "threadId");
  if (!t) return t.error();
  if (!*t) {
    if (required) return make_error("arguments.threadId", "is required");
    return c.state.stopped_tid;
  }
  for (const auto& th : c.state.debuggee->threads())
    if (int64_t(th.id) == **t) return th.id;
  return not_found("thread " + std::to_string(**t) + " does not exist at EID " + std::to_string(c.state.debuggee->position()));
}

Result<FrameRef> frame_arg(RequestContext& c) {
  auto f = opt_int(c.args, "frameId");
  if (!f) return f.error();
  if (!*f) return FrameRef{c.state.stopped_tid, 0};
  const FrameRef* r = c.state.frames.find(**f);
  if (!r) return not_found("frameId " + std::to_string(**f) + " is not valid (the position changed since the stack was read)");
  return *r;
}

json source_json(const std::string& path) {
  return {{"name", std::filesystem::path(path).filename().string()}, {"path", path}};
}

}  // namespace ttd::dap
