#include "engine/export/trace_export.h"

#include <array>
#include <map>

#include "engine/cursor.h"
#include "engine/query/calls.h"
#include "engine/query/query_types.h"

namespace ttd::exporting {

namespace {

constexpr ColumnType U = ColumnType::Unsigned, I = ColumnType::Signed, T = ColumnType::Text;

void append_hex_bytes(std::string& out, const uint8_t* p, size_t n) {
  static const char* kHex = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kHex[p[i] >> 4]);
    out.push_back(kHex[p[i] & 15]);
  }
}

// A register value as a number: 0x and the bytes most significant first.
void append_reg_hex(std::string& out, std::span<const uint8_t> b, Endian e) {
  static const char* kHex = "0123456789abcdef";
  out += "0x";
  for (size_t i = 0; i < b.size(); ++i) {
    uint8_t v = e == Endian::Little ? b[b.size() - 1 - i] : b[i];
    out.push_back(kHex[v >> 4]);
    out.push_back(kHex[v & 15]);
  }
}

void append_attr_json(std::string& out, const fmt::AttrValue& v) {
  if (auto* u = std::get_if<uint64_t>(&v)) {
    out += std::to_string(*u);
  } else if (auto* i = std::get_if<int64_t>(&v)) {
    out += std::to_string(*i);
  } else if (auto* s = std::get_if<std::string>(&v)) {
    out.push_back('"');
    append_json_escaped(out, *s);
    out.push_back('"');
  } else {
    out.push_back('[');
    const auto& l = std::get<std::vector<uint64_t>>(v);
    for (size_t k = 0; k < l.size(); ++k) out += (k ? "," : "") + std::to_string(l[k]);
    out.push_back(']');
  }
}

// Where a syscall's number, arguments and result live, per architecture
// (the Linux calling conventions); empty names: not known for this arch.
struct SyscallAbi {
  const char* number;
  std::array<const char*, 6> args;
  const char* result;
};
std::optional<SyscallAbi> syscall_abi(ArchId a) {
  switch (a) {
    case ArchId::X86_64: return SyscallAbi{"rax", {"rdi", "rsi", "rdx", "r10", "r8", "r9"}, "rax"};
    case ArchId::AArch64: return SyscallAbi{"x8", {"x0", "x1", "x2", "x3", "x4", "x5"}, "x0"};
    case ArchId::I386: return SyscallAbi{"eax", {"ebx", "ecx", "edx", "esi", "edi", "ebp"}, "eax"};
    default: return std::nullopt;
  }
}

struct Producer {
  std::shared_ptr<const Trace> t;
  query::EidWindow win;
  RowWriter& w;
  uint64_t rows = 0;
  std::string scratch;

  Status step_rows(ExportWhat what) {
    const ArchDesc& arch = t->arch();
    Status row_status;
    auto s = t->for_each_step(win.from, win.to, [&](const StepRecord& r) {
      if (what == ExportWhat::Steps) {
        w.u64(r.eid), w.u64(r.info.tid), w.u64(r.info.pid);
        w.text(fmt::step_kind_name(r.info.kind));
        w.u64(r.info.pc), w.u64(r.info.size);
        if (r.attrs.empty()) {
          w.null();
        } else {
          scratch = "{";
          for (size_t k = 0; k < r.attrs.size(); ++k) {
            scratch += k ? ",\"" : "\"";
            append_json_escaped(scratch, r.attrs[k].first);
            scratch += "\":";
            append_attr_json(scratch, r.attrs[k].second);
          }
          scratch += "}";
          w.text(scratch);
        }
        return end_row(row_status);
      }
      if (what == ExportWhat::Mem) {
        for (const auto& m : r.mem) {
          w.u64(r.eid), w.u64(r.info.tid), w.u64(r.info.pid);
          w.text(m.write ? "w" : "r");
          w.u64(m.addr), w.u64(m.size);
          if (m.value.empty()) {
            w.null();
          } else {
            scratch.clear();
            append_hex_bytes(scratch, m.value.data(), m.value.size());
            w.text(scratch);
          }
          if (!end_row(row_status)) return false;
        }
        return true;
      }
      for (const auto& g : r.regs) {
        w.u64(r.eid), w.u64(r.info.tid);
        w.text(g.reg < arch.regs.size() ? std::string_view(arch.regs[g.reg].name) : std::string_view("?"));
        scratch.clear();
        append_reg_hex(scratch, g.value, arch.endian);
        w.text(scratch);
        if (!end_row(row_status)) return false;
      }
      return true;
    });
    if (!row_status) return row_status;
    return s;
  }

  bool end_row(Status& st) {
    ++rows;
    st = w.end_row();
    return bool(st);
  }

  Status syscall_rows() {
    const ArchDesc& arch = t->arch();
    auto abi = syscall_abi(arch.id);
    auto reg = [&](const char* n) -> std::optional<uint16_t> { return abi && n ? arch.find(n) : std::nullopt; };
    std::optional<uint16_t> num = abi ? reg(abi->number) : std::nullopt, res = abi ? reg(abi->result) : std::nullopt;
    std::array<std::optional<uint16_t>, 6> args{};
    if (abi)
      for (size_t k = 0; k < 6; ++k) args[k] = reg(abi->args[k]);
    // Registers are tracked from the state at the window's start, applying
    // each step's writes: one seek, then a sequential pass.
    Cursor c(t);
    if (auto s = c.seek(win.from); !s) return s;
    // Register files only: copying the state would copy its memory too.
    std::map<uint64_t, RegisterFile> regs;
    for (const auto& [tid, th] : c.state().threads()) regs.emplace(tid, th.regs);
    Status row_status;
    auto s = t->for_each_step(win.from, win.to, [&](const StepRecord& r) {
      auto it = regs.find(r.info.tid);
      if (it == regs.end()) it = regs.emplace(r.info.tid, RegisterFile(arch)).first;
      RegisterFile& rf = it->second;
      if (r.info.kind == fmt::StepKind::Syscall) {
        w.u64(r.eid), w.u64(r.info.tid), w.u64(r.info.pid), w.u64(r.info.pc);
        std::optional<uint64_t> number;
        for (const auto& [k, v] : r.attrs)
          if (k == "syscall")
            if (auto* u = std::get_if<uint64_t>(&v)) number = *u;
        if (!number && num) number = rf.get_u64(*num);
        number ? w.u64(*number) : w.null();
        for (auto a : args) {
          auto v = a ? rf.get_u64(*a) : std::nullopt;
          v ? w.u64(*v) : w.null();
        }
        std::optional<uint64_t> result;
        if (res)
          for (const auto& g : r.regs)
            if (g.reg == *res) {
              RegisterFile one(arch);
              one.set_bytes(g.reg, g.value);
              result = one.get_u64(g.reg);
            }
        if (result) {
          w.i64(int64_t(*result));
        } else {
          w.null();
        }
        if (!end_row(row_status)) return false;
      }
      for (const auto& g : r.regs) rf.set_bytes(g.reg, g.value);
      return true;
    });
    if (!row_status) return row_status;
    return s;
  }

  Result<std::string> call_rows() {
    query::CallQuery q;
    q.window = win;
    q.order = query::CallOrder::Exit;  // bounded memory: a call is written when it returns
    auto walker = query::CallWalker::create(t, q);
    if (!walker) return walker.error();
    for (;;) {
      auto c = (*walker)->next();
      if (!c) return c.error();
      if (!*c) break;
      const query::Call& k = **c;
      w.u64(k.index), w.u64(k.tid), w.u64(k.depth);
      k.function ? w.u64(*k.function) : w.null();
      w.u64(k.function_pc), w.u64(k.call_site), w.u64(k.entry_eid);
      k.exit_eid ? w.u64(*k.exit_eid) : w.null();
      w.text(query::call_exit_name(k.exit));
      if (k.return_value) {
        w.u64(*k.return_value);
        w.i64(int32_t(uint32_t(*k.return_value)));
      } else {
        w.null(), w.null();
      }
      if (k.args.empty()) {
        w.null();
      } else {
        scratch = "[";
        for (size_t i = 0; i < k.args.size(); ++i) scratch += (i ? "," : "") + std::to_string(k.args[i]);
        w.text(scratch += "]");
      }
      k.symbol.empty() ? w.null() : w.text(k.symbol);
      ++rows;
      if (auto s = w.end_row(); !s) return s.error();
    }
    auto why = query::incomplete_reason(*t, (*walker)->stats());
    return why ? *why : std::string();
  }
};

}  // namespace

bool parse_export_what(std::string_view s, ExportWhat& out) {
  for (auto w : {ExportWhat::Steps, ExportWhat::Mem, ExportWhat::Regs, ExportWhat::Calls, ExportWhat::Syscalls})
    if (s == export_what_name(w)) return out = w, true;
  return false;
}

const char* export_what_name(ExportWhat w) {
  switch (w) {
    case ExportWhat::Steps: return "steps";
    case ExportWhat::Mem: return "mem";
    case ExportWhat::Regs: return "regs";
    case ExportWhat::Calls: return "calls";
    case ExportWhat::Syscalls: return "syscalls";
  }
  return "?";
}

Table table_of(ExportWhat w) {
  switch (w) {
    case ExportWhat::Steps:
      return {"steps", {{"eid", U}, {"thread", U}, {"pid", U}, {"kind", T}, {"pc", U}, {"size", U}, {"attrs", T}}, {"pc"}, "eid"};
    case ExportWhat::Mem:
      return {"mem", {{"eid", U}, {"thread", U}, {"pid", U}, {"op", T}, {"addr", U}, {"size", U}, {"value", T}}, {"eid", "addr"}, "", {"eid"}};
    case ExportWhat::Regs:
      return {"regs", {{"eid", U}, {"thread", U}, {"reg", T}, {"value", T}}, {"eid", "reg"}, "", {"eid"}};
    case ExportWhat::Calls:
      return {"calls",
              {{"call", U}, {"thread", U}, {"depth", U}, {"function", U}, {"function_pc", U}, {"call_site", U},
               {"entry_eid", U}, {"exit_eid", U}, {"exit", T}, {"return_value", U}, {"return_i32", I}, {"args", T},
               {"symbol", T}},
              {"function", "entry_eid"}};
    case ExportWhat::Syscalls:
      return {"syscalls",
              {{"eid", U}, {"thread", U}, {"pid", U}, {"pc", U}, {"number", U}, {"arg0", U}, {"arg1", U}, {"arg2", U},
               {"arg3", U}, {"arg4", U}, {"arg5", U}, {"result", I}},
              {"number"},
              "eid"};
  }
  return {};
}

Result<ExportResult> export_trace(std::shared_ptr<const Trace> t, const ExportRequest& req, RowWriter& w) {
  auto win = query::make_window(*t, req.from, req.to);
  if (!win) return win.error();
  if (auto s = w.begin(table_of(req.what)); !s) return s.error();
  Producer p{t, *win, w, 0, {}};
  ExportResult r;
  if (req.what == ExportWhat::Calls) {
    auto warn = p.call_rows();
    if (!warn) return warn.error();
    r.warning = *warn;
  } else if (req.what == ExportWhat::Syscalls) {
    if (auto s = p.syscall_rows(); !s) return s.error();
  } else {
    if (auto s = p.step_rows(req.what); !s) return s.error();
  }
  r.rows = p.rows;
  ExportSummary sum{t->path(), t->info().format, t->arch().name, export_what_name(req.what), win->from, win->to, p.rows};
  if (auto s = w.finish(sum); !s) return s.error();
  return r;
}

}  // namespace ttd::exporting
