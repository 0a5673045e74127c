// Handler entry points, one group per file in this folder. Each receives
// the packet with its routed name already removed (`args`) and replies
// through ctx. See dispatcher.cpp for which name maps to which handler.
#pragma once
#include <string_view>

#include "gdbstub/dispatcher.h"

namespace ttd::gdb::packets {

// negotiation.cpp
void q_supported(HandlerContext& ctx, std::string_view args);
void v_must_reply_empty(HandlerContext& ctx, std::string_view args);
void q_start_no_ack_mode(HandlerContext& ctx, std::string_view args);
void q_thread_suffix_supported(HandlerContext& ctx, std::string_view args);
void q_list_threads_in_stop_reply(HandlerContext& ctx, std::string_view args);
void q_enable_error_strings(HandlerContext& ctx, std::string_view args);
void q_non_stop(HandlerContext& ctx, std::string_view args);

// xfer.cpp
void qxfer_features(HandlerContext& ctx, std::string_view args);
void qxfer_threads(HandlerContext& ctx, std::string_view args);
void qxfer_exec_file(HandlerContext& ctx, std::string_view args);
void qxfer_auxv(HandlerContext& ctx, std::string_view args);

// registers.cpp
void read_all_registers(HandlerContext& ctx, std::string_view args);   // g
void read_register(HandlerContext& ctx, std::string_view args);        // p
void write_registers(HandlerContext& ctx, std::string_view args);      // G, P

// memory.cpp
void read_memory_hex(HandlerContext& ctx, std::string_view args);      // m
void read_memory_binary(HandlerContext& ctx, std::string_view args);   // x
void write_memory(HandlerContext& ctx, std::string_view args);         // M, X
// memory_region.cpp
void q_memory_region_info(HandlerContext& ctx, std::string_view args);

// breakpoints.cpp
void insert_breakpoint(HandlerContext& ctx, std::string_view args);    // Z
void remove_breakpoint(HandlerContext& ctx, std::string_view args);    // z

// resume.cpp
void v_cont_query(HandlerContext& ctx, std::string_view args);         // vCont?
void v_cont(HandlerContext& ctx, std::string_view args);               // vCont;...
void continue_legacy(HandlerContext& ctx, std::string_view args);      // c [addr]
void continue_with_signal(HandlerContext& ctx, std::string_view args); // C sig[;addr]
void step_legacy(HandlerContext& ctx, std::string_view args);          // s [addr]
void step_with_signal(HandlerContext& ctx, std::string_view args);     // S sig[;addr]
void reverse_continue(HandlerContext& ctx, std::string_view args);     // bc
void reverse_step(HandlerContext& ctx, std::string_view args);         // bs

// stop_queries.cpp
void stop_status(HandlerContext& ctx, std::string_view args);          // ?
void q_thread_stop_info(HandlerContext& ctx, std::string_view args);

// threads.cpp
void set_thread(HandlerContext& ctx, std::string_view args);           // H
void thread_alive(HandlerContext& ctx, std::string_view args);         // T
void q_current_thread(HandlerContext& ctx, std::string_view args);     // qC
void q_first_thread_info(HandlerContext& ctx, std::string_view args);  // qfThreadInfo
void q_next_thread_info(HandlerContext& ctx, std::string_view args);   // qsThreadInfo
void q_thread_extra_info(HandlerContext& ctx, std::string_view args);

// host_info.cpp
void q_host_info(HandlerContext& ctx, std::string_view args);
void q_process_info(HandlerContext& ctx, std::string_view args);
void q_watchpoint_support_info(HandlerContext& ctx, std::string_view args);
void q_attached(HandlerContext& ctx, std::string_view args);
void q_symbol(HandlerContext& ctx, std::string_view args);
void q_offsets(HandlerContext& ctx, std::string_view args);

// monitor.cpp
void q_rcmd(HandlerContext& ctx, std::string_view args);

// lifecycle.cpp
void v_kill(HandlerContext& ctx, std::string_view args);
void kill(HandlerContext& ctx, std::string_view args);
void detach(HandlerContext& ctx, std::string_view args);

}  // namespace ttd::gdb::packets
