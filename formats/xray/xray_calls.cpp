#include "formats/xray/xray_calls.h"

#include <algorithm>

#include "formats/xray/xray_pipeline.h"

namespace ttd::fmt::xray {

Status for_each_xray_call(const std::string& path, const CallStackTracker::CallFn& fn, XrayReport* report) {
  CallStackTracker tracker(fn);
  Status s = read_xray_events(path, tracker, report);
  if (!s) return s;
  tracker.finish();
  return {};
}

Result<std::vector<Call>> collect_xray_calls(const std::string& path, XrayReport* report) {
  std::vector<Call> calls;
  Status s = for_each_xray_call(
      path, [&](const Call& c) { calls.push_back(c); }, report);
  if (!s) return s.error();
  auto key = [](const Call& c) { return c.entry_eid ? *c.entry_eid : *c.exit_eid; };
  std::stable_sort(calls.begin(), calls.end(), [&](const Call& a, const Call& b) { return key(a) < key(b); });
  return calls;
}

}  // namespace ttd::fmt::xray
