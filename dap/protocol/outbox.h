// Sends DAP messages (responses and events) over a channel, numbering them
// with the adapter's own sequence numbers. Safe to call from several
// threads: the request reader answers some requests while the session
// thread is busy running.
#pragma once
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "dap/protocol/channel.h"

namespace ttd::dap {

// DAP error ids: stable numbers a client may match on.
enum class ErrorId : int {
  BadRequest = 1001,      // malformed message or missing/invalid argument
  WrongState = 1002,      // request not valid now (before initialize/launch, ...)
  UnknownCommand = 1003,
  LaunchFailed = 1004,
  NotFound = 1005,        // unknown thread, frame, reference
  Failed = 1006,          // the debuggee could not do it
  Internal = 1099,
};

class Outbox {
 public:
  explicit Outbox(Channel& ch) : ch_(ch) {}
  void response(const nlohmann::json& request, const nlohmann::json& body);
  void error(const nlohmann::json& request, ErrorId id, const std::string& message);
  void event(const std::string& name, const nlohmann::json& body = nlohmann::json::object());
  // An "output" event (category console unless given).
  void output(const std::string& text, const std::string& category = "console");
  // False once a write failed (the client went away).
  bool alive() const { return alive_; }

 private:
  void send(nlohmann::json msg);
  Channel& ch_;
  std::mutex mu_;
  int64_t seq_ = 1;
  bool alive_ = true;
};

}  // namespace ttd::dap
