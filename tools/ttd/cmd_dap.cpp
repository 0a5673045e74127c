// ttd dap: a Debug Adapter Protocol server for IDEs (VS Code, nvim-dap,
// vimspector, ...). Speaks DAP on stdin/stdout, or on a TCP port with
// --listen; the trace to debug comes in the client's launch request.
#include <unistd.h>

#include <iostream>
#include <mutex>

#include "dap/model/engine_debuggee.h"
#include "dap/protocol/channel.h"
#include "dap/session.h"
#include "dap/session_server.h"
#include "net/host_port.h"
#include "net/tcp_listener.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct DapOptions {
  std::string listen;
  bool once = false;
  size_t max_clients = dap::kDefaultMaxClients;
};

// Sessions open their traces one at a time: the first open of a trace
// builds its index, and two builds of the same index in one process would
// share a temporary file.
Result<std::unique_ptr<dap::Debuggee>> open_serialised(const dap::LaunchConfig& config,
                                                       const std::function<void(const std::string&)>& log) {
  static std::mutex opening;
  std::lock_guard<std::mutex> lock(opening);
  return dap::open_engine_debuggee(config, log);
}

dap::SessionOptions session_options() {
  dap::SessionOptions o;
  o.factory = open_serialised;
  o.log = [](const std::string& line) { std::cerr << "ttd dap: " << line << "\n"; };
  return o;
}

int serve_stdio() {
  // Someone typed `ttd dap` at a shell: say what it expects instead of
  // waiting in silence.
  bool terminal = ::isatty(0);
  if (terminal)
    std::cerr << "ttd dap: speaks the Debug Adapter Protocol on stdin/stdout, for an IDE to start it; "
                 "to serve IDEs over TCP run `ttd dap --listen 127.0.0.1:4711` (Ctrl-D quits)"
              << std::endl;
  // The protocol owns stdout: keep a private copy of it for the channel
  // and point fd 1 at stderr, so stray output cannot corrupt a message.
  int out = ::dup(1);
  if (out < 0 || ::dup2(2, 1) < 0) {
    std::cerr << "ttd dap: cannot set up stdout\n";
    return 1;
  }
  dap::FdChannel ch(0, out);
  int rc = dap::run_session(ch, session_options());
  ::close(out);
  return terminal ? 0 : rc;  // end of input at a terminal is the user quitting
}

int serve_tcp(const DapOptions& o) {
  auto where = net::parse_host_port(o.listen);
  if (!where) {
    return usage_error("dap", where.error().to_string());
  }
  auto l = net::TcpListener::listen(*where);
  if (!l) {
    std::cerr << "ttd dap: " << l.error().to_string() << "\n";
    return 1;
  }
  std::cerr << "ttd dap: listening on " << l->address() << " (VS Code: \"debugServer\": " << l->port() << ")"
            << std::endl;
  dap::ServerLimits limits;
  limits.max_clients = o.max_clients;
  limits.once = o.once;
  return dap::serve_sessions(*l, session_options(), limits);
}

}  // namespace

void add_dap_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<DapOptions>();
  auto* sub = app.add_subcommand("dap", "Debug Adapter Protocol server for IDEs (stdio, or --listen): step back, reverse continue");
  sub->add_option("--listen", o->listen, "serve on HOST:PORT instead of stdio (e.g. 127.0.0.1:4711; port 0 picks one)");
  sub->add_flag("--once", o->once, "with --listen: exit after the first session");
  sub->add_option("--max-clients", o->max_clients, "with --listen: sessions served at once; more are refused")
      ->check(CLI::Range(size_t(1), size_t(1024)))
      ->capture_default_str();
  sub->callback([o, &run] { run = [o] { return o->listen.empty() ? serve_stdio() : serve_tcp(*o); }; });
}

}  // namespace ttd::cli
