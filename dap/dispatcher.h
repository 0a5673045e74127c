// Routes DAP requests to their handlers. A handler gets the request's
// arguments and the session state and returns the response body or an
// Error; the dispatcher checks the message shape and the session phase
// first, answers every request exactly once, and turns anything a handler
// throws into an error response (the session never dies of a bad request).
#pragma once
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_map>

#include "dap/protocol/outbox.h"
#include "dap/session_state.h"
#include "state/error.h"

namespace ttd::dap {

using json = nlohmann::json;

struct RequestContext {
  SessionState& state;
  Outbox& out;
  const json& request;
  const json& args;  // request.arguments, or an empty object
  // Work to do after the response went out (a resume that ends with a
  // stopped event, the entry stop after configurationDone, ...).
  std::function<void()> after_response;
};

using HandlerFn = std::function<Result<json>(RequestContext&)>;

// When a command is accepted.
enum class Needs : uint8_t {
  Nothing,      // any time (initialize checks its own phase)
  Initialized,  // after initialize
  Launched,     // after a successful launch/attach
};

// Errors handlers return; the tag picks the DAP error id.
Error bad_request(std::string message);
Error wrong_state(std::string message);
Error not_found(std::string message);
Error failed(std::string message);

class Dispatcher {
 public:
  void add(const std::string& command, Needs needs, HandlerFn fn);
  // Answers one message from the client (a parsed JSON value of any shape).
  void dispatch(SessionState& state, Outbox& out, const json& msg) const;
  bool knows(const std::string& command) const { return handlers_.count(command) != 0; }

 private:
  struct Entry {
    Needs needs;
    HandlerFn fn;
  };
  std::unordered_map<std::string, Entry> handlers_;
};

// Every request family registers its handlers here (one file each).
void register_lifecycle_handlers(Dispatcher& d);
void register_thread_handlers(Dispatcher& d);
void register_variable_handlers(Dispatcher& d);
void register_breakpoint_handlers(Dispatcher& d);
void register_execution_handlers(Dispatcher& d);
void register_memory_handlers(Dispatcher& d);
void register_evaluate_handlers(Dispatcher& d);
void register_goto_handlers(Dispatcher& d);
void register_origin_handlers(Dispatcher& d);

// A dispatcher with every handler registered.
Dispatcher make_dispatcher();

}  // namespace ttd::dap
