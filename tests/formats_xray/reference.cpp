#include "reference.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

namespace xray_test {

namespace {

// Parses "{ key: value, key: 'quoted', key: [ 1, 2 ], ... }".
bool parse_flow_map(const std::string& s, std::map<std::string, std::string>& kv,
                    std::map<std::string, std::vector<uint64_t>>& lists) {
  size_t i = s.find('{');
  if (i == std::string::npos) return false;
  ++i;
  auto skip = [&] {
    while (i < s.size() && s[i] == ' ') ++i;
  };
  while (true) {
    skip();
    if (i >= s.size()) return false;
    if (s[i] == '}') return true;
    size_t colon = s.find(':', i);
    if (colon == std::string::npos) return false;
    std::string key = s.substr(i, colon - i);
    i = colon + 1;
    skip();
    if (i < s.size() && s[i] == '"') {
      // Double-quoted: llvm-xray uses it for payloads with control bytes.
      std::string v;
      ++i;
      while (i < s.size() && s[i] != '"') {
        if (s[i] != '\\' || i + 1 >= s.size()) {
          v += s[i++];
          continue;
        }
        char c = s[i + 1];
        i += 2;
        switch (c) {
          case 'x':
            v += char(std::stoi(s.substr(i, 2), nullptr, 16));
            i += 2;
            break;
          case 'n':
            v += '\n';
            break;
          case 't':
            v += '\t';
            break;
          case 'r':
            v += '\r';
            break;
          case '0':
            v += '\0';
            break;
          case 'e':
            v += '\x1b';
            break;
          default:
            v += c;
            break;
        }
      }
      ++i;
      kv[key] = v;
    } else if (i < s.size() && s[i] == '\'') {
      std::string v;
      ++i;
      while (i < s.size()) {
        if (s[i] == '\'') {
          if (i + 1 < s.size() && s[i + 1] == '\'') {
            v += '\'';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        v += s[i++];
      }
      kv[key] = v;
    } else if (i < s.size() && s[i] == '[') {
      size_t close = s.find(']', i);
      if (close == std::string::npos) return false;
      std::vector<uint64_t> vals;
      std::stringstream items(s.substr(i + 1, close - i - 1));
      std::string item;
      while (std::getline(items, item, ',')) {
        item.erase(0, item.find_first_not_of(' '));
        if (!item.empty()) vals.push_back(std::stoull(item));
      }
      lists[key] = vals;
      i = close + 1;
    } else {
      size_t end = i;
      while (end < s.size() && s[end] != ',' && s[end] != '}') ++end;
      std::string v = s.substr(i, end - i);
      while (!v.empty() && v.back() == ' ') v.pop_back();
      kv[key] = v;
      i = end;
    }
    skip();
    if (i < s.size() && s[i] == ',') ++i;
  }
}

uint64_t num(const std::map<std::string, std::string>& kv, const std::string& k) {
  auto it = kv.find(k);
  return it == kv.end() || it->second.empty() ? 0 : std::stoull(it->second);
}

// YAML text is UTF-8: llvm-xray writes each byte that does not start a
// valid UTF-8 sequence as U+FFFD. Applied to our payloads before comparing.
std::string as_yaml_text(const std::vector<uint8_t>& b) {
  std::string out;
  for (size_t i = 0; i < b.size();) {
    uint8_t c = b[i];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= b.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (b[i + k] >> 6) == 2;
    if (!ok) {
      out += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    out.append(reinterpret_cast<const char*>(&b[i]), n);
    i += n;
  }
  return out;
}

}  // namespace

std::optional<RefTrace> parse_llvm_yaml(const std::string& text, std::string* err) {
  RefTrace t;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    auto value = [&](const char* key) -> std::optional<std::string> {
      std::string k = std::string("  ") + key + ":";
      if (line.rfind(k, 0) != 0) return std::nullopt;
      std::string v = line.substr(k.size());
      v.erase(0, v.find_first_not_of(' '));
      return v;
    };
    if (auto v = value("version"))
      t.version = std::stoull(*v);
    else if (auto v = value("type"))
      t.type = std::stoull(*v);
    else if (auto v = value("constant-tsc"))
      t.constant_tsc = *v == "true";
    else if (auto v = value("nonstop-tsc"))
      t.nonstop_tsc = *v == "true";
    else if (auto v = value("cycle-frequency"))
      t.cycle_frequency = std::stoull(*v);
    else if (line.rfind("  - {", 0) == 0) {
      std::map<std::string, std::string> kv;
      std::map<std::string, std::vector<uint64_t>> lists;
      if (!parse_flow_map(line, kv, lists)) {
        if (err) *err = "line " + std::to_string(n) + ": " + line;
        return std::nullopt;
      }
      RefRecord r;
      r.kind = kv["kind"];
      r.type = num(kv, "type");
      r.func_id = num(kv, "func-id");
      r.function = kv["function"];
      r.args = lists["args"];
      r.cpu = num(kv, "cpu");
      r.thread = num(kv, "thread");
      r.process = num(kv, "process");
      r.tsc = num(kv, "tsc");
      r.data = kv["data"];
      t.records.push_back(r);
    }
  }
  return t;
}

RefRecord to_ref(const ttd::fmt::xray::XrayEvent& e) {
  using ttd::fmt::xray::EventKind;
  RefRecord r;
  switch (e.kind) {
    case EventKind::Enter:
      r.kind = "function-enter";
      break;
    case EventKind::EnterArgs:
      r.kind = "function-enter-arg";
      break;
    case EventKind::Exit:
      r.kind = "function-exit";
      break;
    case EventKind::TailExit:
      r.kind = "function-tail-exit";
      break;
    case EventKind::Custom:
      r.kind = "custom-event";
      break;
    case EventKind::Typed:
      r.kind = "typed-event";
      break;
  }
  r.type = e.kind == EventKind::Typed ? e.event_type : 0;
  r.func_id = ttd::fmt::xray::is_function_event(e.kind) ? e.func_id : 0;
  r.args = e.args;
  r.cpu = e.cpu;
  r.thread = e.tid;
  r.process = e.pid;
  r.tsc = e.tsc;
  r.data = as_yaml_text(e.payload);
  return r;
}

RefRecord normalise(RefRecord r) {
  r.function.clear();
  bool event = r.kind == "custom-event" || r.kind == "typed-event";
  if (event) r.func_id = 0;                 // llvm repeats the previous record's id
  if (r.kind != "typed-event") r.type = 0;  // llvm keeps the last event type on later records
  return r;
}

std::map<uint64_t, std::vector<RefRecord>> by_thread_sorted(const std::vector<RefRecord>& recs) {
  std::map<uint64_t, std::vector<RefRecord>> out;
  for (const auto& r : recs) out[r.thread].push_back(r);
  for (auto& [tid, v] : out)
    std::stable_sort(v.begin(), v.end(), [](const RefRecord& a, const RefRecord& b) { return a.tsc < b.tsc; });
  return out;
}

std::string strip_llvm_errors(const std::string& dump) {
  std::string s = dump;
  for (size_t at; (at = s.find("llvm-xray: ")) != std::string::npos;) {
    size_t nl = s.find('\n', at);
    s.erase(at, nl == std::string::npos ? std::string::npos : nl - at + 1);
  }
  return s;
}

std::string read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::string> find_logs(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".xray") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::optional<std::string> reference_for(const std::string& log, const std::string& suffix) {
  fs::path p(log);
  std::string stem = p.stem().string();
  for (const fs::path& c : {p.parent_path() / (stem + suffix), p.parent_path() / "expected" / (stem + suffix)})
    if (fs::exists(c)) return c.string();
  return std::nullopt;
}

}  // namespace xray_test
