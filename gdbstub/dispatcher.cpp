#include "gdbstub/dispatcher.h"

#include <algorithm>
#include <vector>

#include "gdbstub/packets/handlers.h"

namespace ttd::gdb {

namespace {

using Handler = void (*)(HandlerContext&, std::string_view);

// `exact` routes match the whole packet; the others match a prefix and pass
// the rest as args. Longer names are tried first, so "vCont?" wins over
// "vCont;" and "qC" (exact) does not swallow "qCRC:".
struct Route {
  std::string_view name;
  bool exact;
  Handler handler;
};

std::vector<Route> make_routes() {
  using namespace packets;
  std::vector<Route> routes = {
      {"qSupported", false, q_supported},
      {"vMustReplyEmpty", true, v_must_reply_empty},
      {"QStartNoAckMode", true, q_start_no_ack_mode},
      {"QThreadSuffixSupported", true, q_thread_suffix_supported},
      {"QListThreadsInStopReply", true, q_list_threads_in_stop_reply},
      {"QEnableErrorStrings", true, q_enable_error_strings},
      {"QNonStop:", false, q_non_stop},
      {"qXfer:features:read:", false, qxfer_features},
      {"qXfer:threads:read:", false, qxfer_threads},
      {"qXfer:exec-file:read:", false, qxfer_exec_file},
      {"qXfer:auxv:read:", false, qxfer_auxv},
      {"g", false, read_all_registers},
      {"p", false, read_register},
      {"G", false, write_registers},
      {"P", false, write_registers},
      {"m", false, read_memory_hex},
      {"x", false, read_memory_binary},
      {"M", false, write_memory},
      {"X", false, write_memory},
      {"qMemoryRegionInfo:", false, q_memory_region_info},
      {"Z", false, insert_breakpoint},
      {"z", false, remove_breakpoint},
      {"vCont?", true, v_cont_query},
      {"vCont;", false, v_cont},
      {"c", false, continue_legacy},
      {"C", false, continue_with_signal},
      {"s", false, step_legacy},
      {"S", false, step_with_signal},
      {"bc", true, reverse_continue},
      {"bs", true, reverse_step},
      {"?", true, stop_status},
      {"qThreadStopInfo", false, q_thread_stop_info},
      {"H", false, set_thread},
      {"T", false, thread_alive},
      {"qC", true, q_current_thread},
      {"qfThreadInfo", true, q_first_thread_info},
      {"qsThreadInfo", true, q_next_thread_info},
      {"qThreadExtraInfo,", false, q_thread_extra_info},
      {"qHostInfo", true, q_host_info},
      {"qProcessInfo", true, q_process_info},
      {"qOffsets", true, q_offsets},
      {"qWatchpointSupportInfo", false, q_watchpoint_support_info},
      {"qAttached", false, q_attached},
      {"qSymbol:", false, q_symbol},
      {"qRcmd,", false, q_rcmd},
      {"vKill", false, v_kill},
      {"k", true, kill},
      {"D", false, detach},
      // qTStatus is answered empty on purpose (a "T0" would make gdb poll
      // trace state), like any packet not listed here.
  };
  std::stable_sort(routes.begin(), routes.end(),
                   [](const Route& a, const Route& b) { return a.name.size() > b.name.size(); });
  return routes;
}

}  // namespace

void dispatch(HandlerContext& ctx, std::string_view packet) {
  static const std::vector<Route> routes = make_routes();
  for (const Route& r : routes) {
    bool match = r.exact ? packet == r.name : packet.starts_with(r.name);
    if (match) {
      r.handler(ctx, packet.substr(r.name.size()));
      return;
    }
  }
  ctx.unsupported();
}

}  // namespace ttd::gdb
