// Shared helpers for the XRay tests: data paths, collecting consumers and
// sinks, temporary files.
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "formats/common/trace_sink.h"
#include "formats/xray/xray_event.h"

namespace xray_test {

// tests/data/xray (set by CMake).
std::string data_dir();
std::string data(const std::string& relative);
// A fresh path in the build's temporary directory.
std::string temp_path(const std::string& name);

struct CollectEvents : ttd::fmt::xray::EventConsumer {
  std::vector<ttd::fmt::xray::XrayEvent> events;
  std::vector<std::pair<uint64_t, uint64_t>> gaps;  // (tid, offset)
  ttd::Status on_event(const ttd::fmt::xray::XrayEvent& e) override {
    events.push_back(e);
    return {};
  }
  void on_gap(uint64_t tid, uint64_t offset) override { gaps.emplace_back(tid, offset); }
};

struct RecordedStep {
  ttd::fmt::StepInfo info;
  std::vector<std::pair<std::string, ttd::fmt::AttrValue>> attrs;
  const ttd::fmt::AttrValue* attr(const std::string& key) const {
    for (const auto& [k, v] : attrs)
      if (k == key) return &v;
    return nullptr;
  }
  uint64_t u64(const std::string& key) const;
};

struct RecordingSink : ttd::fmt::TraceSink {
  ttd::fmt::TraceInfo info;
  std::vector<RecordedStep> steps;
  int begins = 0, ends = 0, effects = 0;
  void begin(const ttd::fmt::TraceInfo& i) override {
    info = i;
    ++begins;
  }
  void step(const ttd::fmt::StepInfo& s) override { steps.push_back({s, {}}); }
  void attr(std::string_view key, const ttd::fmt::AttrValue& v) override {
    if (!steps.empty()) steps.back().attrs.emplace_back(std::string(key), v);
  }
  void reg(uint64_t, uint16_t, std::span<const uint8_t>) override { ++effects; }
  void mem_write(uint64_t, uint64_t, std::span<const uint8_t>) override { ++effects; }
  void revise(const ttd::fmt::TraceInfo& i) override { info.properties = i.properties; }
  void end() override { ++ends; }
  std::string property(const std::string& key) const {
    for (const auto& [k, v] : info.properties)
      if (k == key) return v;
    return "";
  }
};

}  // namespace xray_test
