// What the request handlers of one DAP session share: the phase of the
// session, what the client said about itself, the debuggee, the client's
// breakpoints as resolved against it, and the integer handles (frame ids,
// variable references) DAP hands out, which are valid until the position
// changes.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "dap/debuggee.h"

namespace ttd::dap {

enum class Phase : uint8_t {
  New,          // before initialize
  Initialized,  // initialize answered; waiting for launch/attach
  Launched,     // a debuggee is open
  Ended,        // disconnect/terminate answered
};

struct ClientInfo {
  std::string id;  // clientID ("vscode", "neovim", ...)
  bool lines_start_at1 = true;
  bool columns_start_at1 = true;
  bool supports_memory_references = false;
  bool supports_invalidated_event = false;
};

// A breakpoint's hitCondition: stop on the hits whose count (hits with
// the condition true, in either direction) satisfies `count op n`.
struct HitCondition {
  enum class Op : uint8_t { AtLeast, Equal, Greater, Less, LessEqual, Multiple } op = Op::AtLeast;
  uint64_t n = 0;
};

// One breakpoint the client set, as the session tracks it.
struct BreakpointRecord {
  int id = 0;
  std::vector<uint64_t> addrs;  // resolved pcs (empty: not verified)
  std::optional<SourceRef> source;  // where it really is
  std::string message;          // why it is unverified
  std::optional<uint64_t> instruction_addr;
  // What the client attached (dap/handlers/breakpoint_conditions.h).
  std::string condition;                      // C expression; "" = always
  std::optional<HitCondition> hit_condition;
  std::string log_message;                    // a logpoint: prints, never stops
  uint64_t hits = 0;                          // times reached with the condition true
  // Plain: stops whenever reached (no condition, hit condition or message).
  bool plain() const { return condition.empty() && !hit_condition && log_message.empty(); }
};

struct DataBreakpointRecord {
  int id = 0;
  std::string data_id;
  Watchpoint range;
  std::string description;
};

// Maps small positive integers to values; cleared when the position moves.
template <class T>
class HandleTable {
 public:
  int add(T v) {
    values_.push_back(std::move(v));
    return int(values_.size());
  }
  const T* find(int64_t handle) const {
    if (handle < 1 || handle > int64_t(values_.size())) return nullptr;
    return &values_[size_t(handle - 1)];
  }
  void clear() { values_.clear(); }

 private:
  std::vector<T> values_;
};

struct FrameRef {
  uint64_t tid = 0;
  size_t index = 0;
};

struct SessionState {
  Phase phase = Phase::New;
  ClientInfo client;
  DebuggeeFactory factory;
  std::unique_ptr<Debuggee> debuggee;
  LaunchConfig config;
  bool stop_on_entry = true;
  bool configured = false;  // configurationDone received

  // Breakpoints by kind; source breakpoints by the client's path.
  std::map<std::string, std::vector<BreakpointRecord>> source_breakpoints;
  std::vector<BreakpointRecord> function_breakpoints;
  std::vector<BreakpointRecord> instruction_breakpoints;
  std::vector<DataBreakpointRecord> data_breakpoints;
  // What dataBreakpointInfo said about each data id (for stop messages).
  std::map<std::string, std::string> data_descriptions;
  int next_breakpoint_id = 1;

  HandleTable<FrameRef> frames;
  HandleTable<std::string> variables;  // variablesReference -> container key
  // Container keys already handed out, so a repeated scopes request
  // returns the same reference.
  std::unordered_map<std::string, int> variable_refs;

  std::vector<GotoTarget> goto_targets;  // of the last gotoTargets (id = index + 1)

  uint64_t stopped_tid = 0;  // the thread of the last stop
  // Set by the request reader when pause/disconnect arrives during a run.
  std::atomic<bool> interrupt{false};

  // Drops every handle: call whenever the position changes.
  void forget_handles() {
    frames.clear();
    variables.clear();
    variable_refs.clear();
  }
  int variable_ref(const std::string& key) {
    if (key.empty()) return 0;
    auto it = variable_refs.find(key);
    if (it != variable_refs.end()) return it->second;
    int ref = variables.add(key);
    variable_refs.emplace(key, ref);
    return ref;
  }
};

}  // namespace ttd::dap
