// ttd dap: a Debug Adapter Protocol server for IDEs (VS Code, nvim-dap,
// vimspector, ...). Speaks DAP on stdin/stdout, or on a TCP port with
// --listen; the trace to debug comes in the client's launch request.
#include <unistd.h>

#include <iostream>

#include "dap/model/engine_debuggee.h"
#include "dap/protocol/channel.h"
#include "dap/protocol/tcp_listener.h"
#include "dap/session.h"
#include "tools/ttd/commands.h"

namespace ttd::cli {

namespace {

struct DapOptions {
  std::string listen;
  bool once = false;
};

dap::SessionOptions session_options() {
  dap::SessionOptions o;
  o.factory = dap::open_engine_debuggee;
  o.log = [](const std::string& line) { std::cerr << "ttd dap: " << line << "\n"; };
  return o;
}

int serve_stdio() {
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
  return rc;
}

int serve_tcp(const DapOptions& o) {
  auto l = dap::TcpListener::listen(o.listen);
  if (!l) {
    std::cerr << "ttd dap: " << l.error().to_string() << "\n";
    return 2;
  }
  std::cerr << "ttd dap: listening on 127.0.0.1:" << l->port() << " (VS Code: \"debugServer\": " << l->port() << ")"
            << std::endl;
  for (;;) {
    auto c = l->accept();
    if (!c) {
      std::cerr << "ttd dap: " << c.error().to_string() << "\n";
      return 1;
    }
    dap::FdChannel ch(*c, *c, /*owns=*/true);
    int rc = dap::run_session(ch, session_options());
    if (o.once) return rc;
  }
}

}  // namespace

void add_dap_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<DapOptions>();
  auto* sub = app.add_subcommand("dap", "Debug Adapter Protocol server for IDEs (stdio, or --listen): step back, reverse continue");
  sub->add_option("--listen", o->listen, "serve on HOST:PORT instead of stdio (e.g. 127.0.0.1:4711; port 0 picks one)");
  sub->add_flag("--once", o->once, "with --listen: exit after the first session");
  sub->callback([o, &run] { run = [o] { return o->listen.empty() ? serve_stdio() : serve_tcp(*o); }; });
}

}  // namespace ttd::cli
