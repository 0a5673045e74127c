// ttd search TRACE --bytes HEX: where a byte pattern is in memory at an
// EID (--at), or the first position at which it appears (--first).
#include <iostream>

#include "engine/query/query_json.h"
#include "engine/query/query_text.h"
#include "engine/query/value_search.h"
#include "tools/ttd/commands.h"
#include "tools/ttd/trace_options.h"
#include "tools/ttd/usage_error.h"

namespace ttd::cli {

namespace {

struct SearchOptions {
  TraceOptions trace;
  std::string bytes, at, in, from, to;
  bool first = false, json = false;
  size_t limit = 0;
  size_t max_pattern = query::kDefaultMaxPattern;
  bool bytes_given = false;
};

int run_search(const SearchOptions& o) {
  auto pattern = query::parse_hex_bytes(o.bytes);
  if (!pattern) return usage_error("search", "--bytes: " + pattern.error().message);
  if (auto s = query::check_pattern_size(pattern->size(), o.max_pattern); !s)
    return usage_error("search", "--bytes: " + s.error().message);
  std::optional<query::AddressRange> within;
  if (!o.in.empty()) {
    auto r = query::parse_address_range(o.in, "--in");
    if (!r) return usage_error("search", r.error().to_string());
    within = *r;
  }
  if (o.first == !o.at.empty()) return usage_error("search", "give --at EID (search in space) or --first (search in time)");
  auto t = open_trace_or_report(o.trace);
  if (!t) return 1;
  if (!o.first) {
    auto at = query::parse_number(o.at, "--at");
    if (!at) return usage_error("search", "--at: expected an EID (decimal or 0x-hex), got '" + o.at + "'");
    if (auto s = query::check_position(*t, *at, "--at"); !s) return usage_error("search", s.error().to_string());
    query::SpaceSearch q{*pattern, *at, within, std::nullopt, o.limit};
    query::SearchControl control;
    control.max_pattern = o.max_pattern;
    // Printed as found: a pattern matching everywhere must not pile up matches.
    uint64_t found = 0;
    Status s = query::scan_memory(t, q, [&](const query::ValueMatch& m) {
      ++found;
      std::cout << (o.json ? query::to_json(m) : query::hex(m.addr) + "  (pid " + std::to_string(m.pid) + ")") << "\n";
      return bool(std::cout);
    }, control);
    if (!s) return usage_error("search", s.error().to_string());
    if (!o.json && found == 0) std::cout << "not found at EID " << *at << "\n";
    return 0;
  }
  query::WindowArgs wa;
  wa.from = o.from;
  wa.to = o.to;
  auto start = query::resolve_window_args(*t, wa);
  if (!start) return usage_error("search", start.error().to_string());
  query::TimeSearch q;
  q.pattern = *pattern;
  // Positions from..to inclusive: the state after the window's last step counts.
  q.window = start->window;
  q.within = within;
  q.max_pattern = o.max_pattern;
  auto r = query::first_appearance(t, q);
  if (!r) {
    std::cerr << "ttd search: " << r.error().to_string() << "\n";
    return 1;
  }
  if (o.json) {
    std::cout << (*r ? query::to_json(**r) : std::string("null")) << "\n";
  } else if (!*r) {
    std::cout << "never present in EIDs " << q.window.from << ".." << q.window.to << "\n";
  } else {
    const auto& a = **r;
    std::cout << "first appears at EID " << a.eid << " at " << query::hex(a.addr) << " (pid " << a.pid << ")";
    if (a.writer_eid) std::cout << ", completed by step " << *a.writer_eid;
    else std::cout << ", already present at the start of the window";
    std::cout << "\n";
  }
  return 0;
}

}  // namespace

void add_search_command(CLI::App& app, CommandRunner& run) {
  auto o = std::make_shared<SearchOptions>();
  auto* sub = app.add_subcommand("search", "find a byte pattern in memory at an EID, or when it first appears");
  add_trace_options(*sub, o->trace);
  sub->add_option("--bytes", o->bytes, "pattern as hex bytes in memory order (e.g. deadbeef)")->required();
  sub->add_option("--at", o->at, "search the memory at this EID");
  sub->add_flag("--first", o->first, "find the first EID at which the pattern is in memory");
  sub->add_option("--from", o->from, "--first: start of the window (default 0)");
  sub->add_option("--to", o->to, "--first: end of the window (default: the step count)");
  sub->add_option("--in", o->in, "only matches inside ADDR:LEN");
  sub->add_option("--limit", o->limit, "--at: stop after N matches");
  sub->add_option("--max-pattern", o->max_pattern,
                  "longest pattern accepted, in bytes (default " + std::to_string(query::kDefaultMaxPattern) + ")");
  sub->add_flag("--json", o->json, "JSON Lines: one object per match");
  sub->callback([o, &run] { run = [o] { return run_search(*o); }; });
}

}  // namespace ttd::cli
