#include "engine/index_meta_json.h"

#include <nlohmann/json.hpp>

namespace ttd {

using nlohmann::json;

std::string meta_to_json(const IndexMeta& m) {
  json j;
  j["format"] = m.info.format;
  j["arch"] = int(m.info.arch);
  j["os"] = m.info.os;
  j["exec_path"] = m.info.exec_path;
  j["caps"] = {{"registers", m.info.caps.registers},
               {"memory_values", m.info.caps.memory_values},
               {"memory_accesses", m.info.caps.memory_accesses},
               {"code_bytes", m.info.caps.code_bytes},
               {"note", m.info.caps.note}};
  j["properties"] = json::array();
  for (auto& [k, v] : m.info.properties) j["properties"].push_back({k, v});
  j["threads"] = json::array();
  for (auto& t : m.threads)
    j["threads"].push_back({t.tid, t.pid, t.first_eid, t.last_eid, t.steps});
  j["attr_keys"] = m.attr_keys;
  j["step_count"] = m.step_count;
  j["unique_pages"] = m.unique_pages;
  j["build_seconds"] = m.build_seconds;
  if (m.mapped_files) {
    j["mapped_files"] = json::array();
    for (auto& [path, start] : *m.mapped_files) j["mapped_files"].push_back({path, start});
  }
  // Text is valid UTF-8 already (IndexBuilder, engine/trace_text.h);
  // `replace` keeps a string that slipped past it from throwing here.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

bool meta_from_json(const std::string& text, IndexMeta& m) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return false;
  try {
    m.info.format = j.at("format").get<std::string>();
    int arch = j.at("arch").get<int>();
    if (arch < 0 || arch > int(ArchId::Ppc32)) return false;
    m.info.arch = ArchId(arch);
    m.info.os = j.at("os").get<std::string>();
    m.info.exec_path = j.at("exec_path").get<std::string>();
    const json& c = j.at("caps");
    m.info.caps.registers = c.at("registers").get<bool>();
    m.info.caps.memory_values = c.at("memory_values").get<bool>();
    m.info.caps.memory_accesses = c.at("memory_accesses").get<bool>();
    m.info.caps.code_bytes = c.at("code_bytes").get<bool>();
    m.info.caps.note = c.at("note").get<std::string>();
    for (auto& p : j.at("properties")) m.info.properties.emplace_back(p.at(0).get<std::string>(), p.at(1).get<std::string>());
    for (auto& t : j.at("threads"))
      m.threads.push_back(ThreadInfo{t.at(0).get<uint64_t>(), t.at(1).get<uint64_t>(), t.at(2).get<uint64_t>(),
                                     t.at(3).get<uint64_t>(), t.at(4).get<uint64_t>()});
    m.attr_keys = j.at("attr_keys").get<std::vector<std::string>>();
    m.step_count = j.at("step_count").get<uint64_t>();
    m.unique_pages = j.at("unique_pages").get<uint64_t>();
    m.build_seconds = j.at("build_seconds").get<double>();
  } catch (const json::exception&) {
    return false;  // contained here: malformed metadata means "rebuild"
  }
  m.mapped_files = mapped_files_from_json(j);
  return true;
}

std::optional<std::map<std::string, uint64_t>> mapped_files_from_json(const nlohmann::json& j) {
  auto it = j.find("mapped_files");
  if (it == j.end() || !it->is_array()) return std::nullopt;
  std::map<std::string, uint64_t> out;
  for (const json& e : *it) {
    // [absolute path, lowest start]: what discovery records, nothing else.
    if (!e.is_array() || e.size() != 2 || !e[0].is_string() || !e[1].is_number_unsigned()) return std::nullopt;
    const std::string& path = e[0].get_ref<const std::string&>();
    if (path.empty() || path[0] != '/' || !out.emplace(path, e[1].get<uint64_t>()).second) return std::nullopt;
  }
  return out;
}

}  // namespace ttd
