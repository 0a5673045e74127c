#include "dap/session.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "dap/dispatcher.h"
#include "dap/protocol/framing.h"
#include "dap/protocol/outbox.h"

namespace ttd::dap {

namespace {

struct Incoming {
  enum class Kind : uint8_t { Message, Garbage, End } kind = Kind::End;
  json msg;
  std::string problem;
};

class IncomingQueue {
 public:
  void push(Incoming m) {
    {
      std::lock_guard<std::mutex> l(mu_);
      q_.push_back(std::move(m));
    }
    cv_.notify_one();
  }
  Incoming pop() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [&] { return !q_.empty(); });
    Incoming m = std::move(q_.front());
    q_.pop_front();
    return m;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Incoming> q_;
};

// Commands that must cut a running resume short. `cancel` stops whatever
// runs (DAP allows cancelling any request; the only long ones are runs).
bool interrupts(const json& msg) {
  if (!msg.is_object()) return false;
  auto c = msg.find("command");
  return c != msg.end() && c->is_string() && (*c == "pause" || *c == "disconnect" || *c == "terminate" || *c == "cancel");
}

void read_loop(Channel& ch, IncomingQueue& q, std::atomic<bool>& interrupt) {
  MessageReader reader(ch);
  for (;;) {
    Frame f = reader.next();
    if (f.kind == Frame::Kind::End) break;
    if (f.kind == Frame::Kind::BadHeader) {
      q.push({Incoming::Kind::Garbage, {}, f.reason});
      continue;
    }
    json msg = json::parse(f.body, nullptr, /*allow_exceptions=*/false);
    if (msg.is_discarded()) {
      // Often a wrong Content-Length: rescan the body for the next header
      // so a request glued behind it is still answered.
      reader.reject_last_body();
      q.push({Incoming::Kind::Garbage, {},
              "message body at byte " + std::to_string(f.offset) + " is not valid JSON: " + f.body.substr(0, 80)});
      continue;
    }
    if (interrupts(msg)) interrupt = true;
    q.push({Incoming::Kind::Message, std::move(msg), {}});
  }
  // The client is gone: cut short whatever the session thread is running.
  interrupt = true;
  q.push({Incoming::Kind::End, {}, {}});
}

}  // namespace

int run_session(Channel& channel, const SessionOptions& options) {
  Outbox out(channel);
  SessionState state;
  state.factory = options.factory;
  Dispatcher dispatcher = make_dispatcher();
  IncomingQueue queue;
  std::thread reader([&] { read_loop(channel, queue, state.interrupt); });
  int rc = 1;
  for (;;) {
    Incoming in = queue.pop();
    if (in.kind == Incoming::Kind::End) break;
    if (in.kind == Incoming::Kind::Garbage) {
      // No request to answer: say so where the user can see it.
      out.output("ttd dap: malformed message ignored: " + in.problem + "\n", "stderr");
      if (options.log) options.log("malformed message: " + in.problem);
      continue;
    }
    dispatcher.dispatch(state, out, in.msg);
    if (state.phase == Phase::Ended) {
      rc = 0;
      break;
    }
    if (!out.alive()) break;
  }
  // Unblock the reader if the client keeps the channel open, then wait.
  channel.shutdown();
  reader.join();
  return rc;
}

}  // namespace ttd::dap
