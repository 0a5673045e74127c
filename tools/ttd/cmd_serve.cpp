// ttd serve TRACE: the trace as a GDB remote target for gdb and lldb.
// Listens on 127.0.0.1 and a free port by default, prints the commands that
// attach, and serves any number of clients at once, each with its own
// position (its own Cursor) over the one shared, immutable Trace. A client
// that detaches or kills leaves the server running; --once exits after the
// first client, --stdio talks RSP on stdin/stdout (`target remote | ttd
// serve --stdio TRACE`).
//
// Each client costs a thread and a cursor, so their number is bounded
// (--max-clients): a connection past the limit is closed at once with a
// message on stderr, and a connection that sends no packet within
// --idle-timeout seconds is closed, so idle sockets cannot hold the slots.
#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string_view>
#include <unistd.h>
#include <mutex>
#include <thread>

#include "gdbstub/session.h"
#include "gdbstub/transport.h"
#include "net/host_port.h"
#include "net/tcp_listener.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/engine_target.h"
#include "tools/ttd/trace_options.h"

namespace ttd::cli {

namespace {

struct ServeOptions {
  TraceOptions trace;
  std::string listen = "127.0.0.1:0";
  bool stdio = false;
  bool once = false;
  bool log_packets = false;
  unsigned max_clients = 8;
  unsigned idle_timeout_s = 30;  // 0: none
};

const char* end_name(gdb::SessionEnd e) {
  switch (e) {
    case gdb::SessionEnd::Detached: return "detached";
    case gdb::SessionEnd::Killed: return "killed the session";
    case gdb::SessionEnd::Disconnected: return "disconnected";
    case gdb::SessionEnd::IdleTimeout: return "sent no packet in time (--idle-timeout), closed";
    case gdb::SessionEnd::None: break;
  }
  return "ended";
}

std::mutex g_log_mutex;

gdb::SessionOptions session_options(bool log_packets, int client, unsigned idle_timeout_s = 0) {
  gdb::SessionOptions opts;
  if (idle_timeout_s) opts.first_packet_timeout_ms = int(std::min(idle_timeout_s, 86400u) * 1000);
  if (log_packets) {
    opts.log = [client](char direction, std::string_view text) {
      std::lock_guard lock(g_log_mutex);
      std::cerr << "[client " << client << "] " << direction << " " << text << "\n";
    };
  }
  return opts;
}

std::atomic<unsigned> g_active_clients{0};

void serve_client(std::shared_ptr<const Trace> trace, int fd, int client, bool log_packets, unsigned idle_timeout_s) {
  gdb::SessionEnd end;
  uint64_t eid = 0;
  {
    EngineTarget target(std::move(trace));
    gdb::FdTransport transport(fd, fd, true);
    gdb::GdbSession session(target, transport, session_options(log_packets, client, idle_timeout_s));
    end = session.run();
    eid = target.cursor().eid();
  }
  // The slot is free (socket closed) before the line saying so.
  --g_active_clients;
  std::lock_guard lock(g_log_mutex);
  std::cerr << "ttd serve: client " << client << " " << end_name(end) << " at eid " << eid << "\n";
}

// The lldb a user can run here: `lldb` when it is on PATH, else the newest
// `lldb-NN` (Debian 12 installs lldb-16 without the plain name); "lldb" when
// none is found, so the line still says what to install.
std::string lldb_on_path() {
  const char* path = std::getenv("PATH");
  std::string best = "lldb";
  int best_version = -1;
  std::string_view rest = path ? path : "";
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator(dir.empty() ? "." : dir, ec)) {
      std::string name = entry.path().filename().string();
      int version = -1;
      if (name == "lldb")
        version = 1 << 20;  // the plain name wins
      else if (name.rfind("lldb-", 0) == 0 && name.size() > 5 &&
               name.find_first_not_of("0123456789", 5) == std::string::npos && name.size() < 9)
        version = std::stoi(name.substr(5));
      if (version > best_version && ::access(entry.path().c_str(), X_OK) == 0) {
        best_version = version;
        best = name;
      }
    }
  }
  return best;
}

// What a user types to attach; printed on start.
void print_attach_help(const Trace& trace, const net::TcpListener& listener) {
  const std::string where = listener.address();
  const ArchDesc& arch = trace.arch();
  bool x86 = arch.id == ArchId::X86_64 || arch.id == ArchId::I386;
  std::string gdb = x86 ? "gdb" : "gdb-multiarch";
  const std::string& exe = trace.info().exec_path;
  std::string gdb_cmd = gdb + " -q";
  const std::string lldb = lldb_on_path();
  if (!exe.empty()) gdb_cmd += " " + exe;
  if (arch.endian == Endian::Big) gdb_cmd += " -ex 'set endian big'";
  gdb_cmd += " -ex 'target remote " + where + "'";
  std::cout << "ttd serve: " << trace.path() << " (" << arch.name << ", " << trace.step_count()
            << " steps) listening on " << where << "\n"
            << "  gdb:  " << gdb_cmd << "\n"
            << "  lldb: " << lldb << (exe.empty() ? "" : " " + exe) << " -o 'gdb-remote " << where
            << "'\n";
  if (exe.empty()) std::cout << "  (the trace does not name its program: put its path after gdb / lldb for symbols)\n";
  // lldb fills a 512-byte cache line per read; the server answers it all
  // or nothing (docs/debugging.md), so a half-known line hides known bytes.
  std::cout << "  (for a trace that knows memory only in part, such as a Tenet, REVEN or TT6 one, add\n"
            << "   -O 'settings set target.process.disable-memory-cache true' to lldb; ttd record's need not)\n";
  std::cout << "Reverse: gdb reverse-stepi / reverse-continue; LLDB 21+ process continue --reverse;\n"
            << "  lldb-16: process plugin packet monitor reverse on (continue/step then run backwards).\n"
            << "Position commands: monitor help (gdb), process plugin packet monitor help (lldb)." << std::endl;
}

int run_serve(const ServeOptions& o) {
  // A client that vanishes mid-reply must not kill the server.
  std::signal(SIGPIPE, SIG_IGN);
  std::shared_ptr<const Trace> trace = open_trace_or_report(o.trace);
  if (!trace) return 1;

  if (o.stdio) {
    EngineTarget target(trace);
    gdb::FdTransport transport(0, 1, false);
    gdb::GdbSession session(target, transport, session_options(o.log_packets, 1));
    session.run();
    return 0;
  }

  auto where = net::parse_host_port(o.listen);
  if (!where) {
    std::cerr << "ttd: " << where.error().to_string() << "\n";
    return 2;
  }
  auto listener = net::TcpListener::listen(*where);
  if (!listener) {
    std::cerr << "ttd: " << listener.error().to_string() << "\n";
    return 1;
  }
  print_attach_help(*trace, *listener);

  for (int client = 1;; ++client) {
    auto fd = listener->accept();
    if (!fd) {
      std::cerr << "ttd: " << fd.error().to_string() << "\n";
      return 1;
    }
    if (g_active_clients >= o.max_clients) {
      // Closed before reading anything: the debugger sees the connection
      // closed ("Remote connection closed" in gdb).
      ::close(*fd);
      std::lock_guard lock(g_log_mutex);
      std::cerr << "ttd serve: refused client " << client << ": already serving " << o.max_clients
                << " clients (--max-clients " << o.max_clients << ")\n";
      continue;
    }
    ++g_active_clients;
    {
      std::lock_guard lock(g_log_mutex);
      std::cerr << "ttd serve: client " << client << " connected\n";
    }
    if (o.once) {
      serve_client(trace, *fd, client, o.log_packets, o.idle_timeout_s);
      return 0;
    }
    // Each client runs on its own thread with its own cursor; the Trace is
    // immutable and shared.
    std::thread(serve_client, trace, *fd, client, o.log_packets, o.idle_timeout_s).detach();
  }
}

}  // namespace

void add_serve_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<ServeOptions>();
  o->trace.progress = true;
  CLI::App* sub = app.add_subcommand("serve", "serve the trace to gdb / lldb (GDB remote protocol), forwards and backwards");
  add_trace_options(*sub, o->trace);
  sub->add_option("--listen", o->listen, "HOST:PORT to listen on (default 127.0.0.1:0 = a free port)");
  sub->add_flag("--stdio", o->stdio, "speak the protocol on stdin/stdout (gdb: target remote | ttd serve --stdio TRACE)");
  sub->add_flag("--once", o->once, "exit after the first client leaves");
  sub->add_flag("--log-packets", o->log_packets, "log every packet to stderr");
  sub->add_option("--max-clients", o->max_clients, "clients served at once; more are refused (default 8)")
      ->check(CLI::Range(1u, 1024u));
  sub->add_option("--idle-timeout", o->idle_timeout_s,
                  "close a connection that sends no packet within this many seconds (default 30, 0 = never)")
      ->check(CLI::Range(0u, 86400u));
  sub->callback([&run, o] { run = [o] { return run_serve(*o); }; });
}

}  // namespace ttd::cli
