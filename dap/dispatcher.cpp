#include "dap/dispatcher.h"

#include <exception>

namespace ttd::dap {

namespace {
constexpr const char* kBadRequest = "bad request";
constexpr const char* kWrongState = "not now";
constexpr const char* kNotFound = "not found";
constexpr const char* kFailed = "failed";

ErrorId id_of(const Error& e) {
  if (e.where == kWrongState) return ErrorId::WrongState;
  if (e.where == kNotFound) return ErrorId::NotFound;
  if (e.where == kFailed) return ErrorId::Failed;
  return ErrorId::BadRequest;  // bad_request() and argument errors
}

// Tagged errors show only their message; argument errors keep the field.
std::string text_of(const Error& e) {
  if (e.where == kBadRequest || e.where == kWrongState || e.where == kNotFound || e.where == kFailed) return e.message;
  return e.to_string();
}
}  // namespace

Error bad_request(std::string message) { return make_error(kBadRequest, std::move(message)); }
Error wrong_state(std::string message) { return make_error(kWrongState, std::move(message)); }
Error not_found(std::string message) { return make_error(kNotFound, std::move(message)); }
Error failed(std::string message) { return make_error(kFailed, std::move(message)); }

void Dispatcher::add(const std::string& command, Needs needs, HandlerFn fn) {
  handlers_[command] = Entry{needs, std::move(fn)};
}

void Dispatcher::dispatch(SessionState& state, Outbox& out, const json& msg) const {
  if (!msg.is_object()) {
    out.output("ttd dap: ignored a message that is not a JSON object\n", "stderr");
    return;
  }
  auto type = msg.find("type");
  if (type == msg.end() || !type->is_string()) {
    out.error(msg, ErrorId::BadRequest, "message has no \"type\"");
    return;
  }
  if (*type != "request") {
    // Responses to reverse requests and stray events need no answer.
    if (*type != "response" && *type != "event") out.error(msg, ErrorId::BadRequest, "unknown message type " + type->dump());
    return;
  }
  auto seq = msg.find("seq");
  auto cmd = msg.find("command");
  if (seq == msg.end() || !seq->is_number_integer()) {
    out.error(msg, ErrorId::BadRequest, "request has no integer \"seq\"");
    return;
  }
  if (cmd == msg.end() || !cmd->is_string()) {
    out.error(msg, ErrorId::BadRequest, "request has no \"command\"");
    return;
  }
  std::string command = cmd->get<std::string>();
  auto it = handlers_.find(command);
  if (it == handlers_.end()) {
    out.error(msg, ErrorId::UnknownCommand, "unsupported request '" + command + "'");
    return;
  }
  const Entry& e = it->second;
  if (e.needs != Needs::Nothing && state.phase == Phase::New) {
    out.error(msg, ErrorId::WrongState, "'" + command + "' before 'initialize'");
    return;
  }
  if (e.needs == Needs::Launched && state.phase != Phase::Launched) {
    out.error(msg, ErrorId::WrongState,
              state.phase == Phase::Ended ? "'" + command + "' after the session ended"
                                          : "'" + command + "' before 'launch' or 'attach' opened a trace");
    return;
  }
  static const json empty = json::object();
  auto a = msg.find("arguments");
  if (a != msg.end() && !a->is_object() && !a->is_null()) {
    out.error(msg, ErrorId::BadRequest, "\"arguments\" must be an object");
    return;
  }
  const json& args = a != msg.end() && a->is_object() ? *a : empty;
  RequestContext ctx{state, out, msg, args, {}};
  try {
    Result<json> body = e.fn(ctx);
    if (!body) {
      out.error(msg, id_of(body.error()), text_of(body.error()));
      return;
    }
    out.response(msg, *body);
  } catch (const std::exception& ex) {
    // A handler bug or an unexpected JSON shape: answer, stay alive.
    out.error(msg, ErrorId::Internal, std::string("internal error handling '") + command + "': " + ex.what());
    return;
  }
  if (!ctx.after_response) return;
  try {
    ctx.after_response();
  } catch (const std::exception& ex) {
    out.output(std::string("ttd dap: internal error after '") + command + "': " + ex.what() + "\n", "stderr");
  }
}

Dispatcher make_dispatcher() {
  Dispatcher d;
  register_lifecycle_handlers(d);
  register_thread_handlers(d);
  register_variable_handlers(d);
  register_breakpoint_handlers(d);
  register_execution_handlers(d);
  register_memory_handlers(d);
  register_evaluate_handlers(d);
  register_goto_handlers(d);
  register_origin_handlers(d);
  return d;
}

}  // namespace ttd::dap
