#include "dap/protocol/outbox.h"

#include "dap/protocol/framing.h"

namespace ttd::dap {

namespace {
nlohmann::json request_seq(const nlohmann::json& req) {
  auto it = req.find("seq");
  return it != req.end() && it->is_number_integer() ? *it : nlohmann::json(0);
}
std::string command_of(const nlohmann::json& req) {
  auto it = req.find("command");
  return it != req.end() && it->is_string() ? it->get<std::string>() : std::string();
}
}  // namespace

void Outbox::send(nlohmann::json msg) {
  std::lock_guard<std::mutex> lock(mu_);
  msg["seq"] = seq_++;
  // Invalid UTF-8 from a trace (a string in memory) is replaced, not fatal.
  std::string text = msg.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string framed = frame_message(text);
  if (alive_ && !ch_.write_all(framed.data(), framed.size())) alive_ = false;
}

void Outbox::response(const nlohmann::json& request, const nlohmann::json& body) {
  nlohmann::json m = {{"type", "response"}, {"request_seq", request_seq(request)}, {"success", true},
                      {"command", command_of(request)}};
  if (!body.is_null()) m["body"] = body;
  send(std::move(m));
}

void Outbox::error(const nlohmann::json& request, ErrorId id, const std::string& message) {
  nlohmann::json m = {{"type", "response"},
                      {"request_seq", request_seq(request)},
                      {"success", false},
                      {"command", command_of(request)},
                      {"message", message},
                      {"body", {{"error", {{"id", int(id)}, {"format", message}, {"showUser", id != ErrorId::NotFound}}}}}};
  send(std::move(m));
}

void Outbox::event(const std::string& name, const nlohmann::json& body) {
  nlohmann::json m = {{"type", "event"}, {"event", name}};
  if (!body.is_null()) m["body"] = body;
  send(std::move(m));
}

void Outbox::output(const std::string& text, const std::string& category) {
  event("output", {{"category", category}, {"output", text.empty() || text.back() == '\n' ? text : text + "\n"}});
}

}  // namespace ttd::dap
