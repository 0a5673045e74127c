#include "dap/protocol/json_args.h"

#include <charconv>
#include <cstdio>

namespace ttd::dap {

namespace {
Error wrong(const char* key, const char* what) { return make_error(std::string("arguments.") + key, std::string("must be ") + what); }
Error missing(const char* key) { return make_error(std::string("arguments.") + key, "is required"); }
const json* field(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}
}  // namespace

Result<std::string> req_string(const json& obj, const char* key) {
  const json* f = field(obj, key);
  if (!f) return missing(key);
  if (!f->is_string()) return wrong(key, "a string");
  return f->get<std::string>();
}

Result<int64_t> req_int(const json& obj, const char* key) {
  const json* f = field(obj, key);
  if (!f) return missing(key);
  if (f->is_number_integer()) return f->get<int64_t>();
  if (f->is_number_float()) {
    double d = f->get<double>();
    if (d == double(int64_t(d))) return int64_t(d);
  }
  return wrong(key, "an integer");
}

Result<std::optional<std::string>> opt_string(const json& obj, const char* key) {
  const json* f = field(obj, key);
  if (!f) return std::optional<std::string>();
  if (!f->is_string()) return wrong(key, "a string");
  return std::optional<std::string>(f->get<std::string>());
}

Result<std::optional<int64_t>> opt_int(const json& obj, const char* key) {
  if (!field(obj, key)) return std::optional<int64_t>();
  auto v = req_int(obj, key);
  if (!v) return v.error();
  return std::optional<int64_t>(*v);
}

Result<bool> opt_bool(const json& obj, const char* key, bool fallback) {
  const json* f = field(obj, key);
  if (!f) return fallback;
  if (!f->is_boolean()) return wrong(key, "true or false");
  return f->get<bool>();
}

Result<json> opt_array(const json& obj, const char* key) {
  const json* f = field(obj, key);
  if (!f) return json::array();
  if (!f->is_array()) return wrong(key, "an array");
  return *f;
}

Result<const json*> opt_object(const json& obj, const char* key) {
  const json* f = field(obj, key);
  if (!f) return static_cast<const json*>(nullptr);
  if (!f->is_object()) return wrong(key, "an object");
  return f;
}

std::optional<uint64_t> parse_address(const std::string& text) {
  std::string s = text;
  while (!s.empty() && s.front() == ' ') s.erase(0, 1);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (s.empty()) return std::nullopt;
  int base = 10;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    b += 2;
  }
  uint64_t v = 0;
  auto r = std::from_chars(b, e, v, base);
  if (r.ec != std::errc() || r.ptr != e) return std::nullopt;
  return v;
}

std::string hex_address(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace ttd::dap
