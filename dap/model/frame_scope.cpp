#include "dap/model/frame_scope.h"

#include "debuginfo/dwarf_expr.h"

namespace ttd::dap {

FrameScope::FrameScope(EngineDebuggee& d, uint64_t tid, size_t index, FrameData frame)
    : d_(d), tid_(tid), index_(index), frame_(std::move(frame)) {}

uint8_t FrameScope::ptr_size() const { return d_.trace().arch().ptr_size; }

void FrameScope::read(uint64_t addr, uint8_t* dst, uint8_t* known, size_t len) { d_.read_process(tid_, addr, dst, known, len); }

std::optional<uint64_t> FrameScope::dwarf_reg(int regno) const {
  auto it = frame_.unwound.regs.find(regno);
  if (it == frame_.unwound.regs.end()) return std::nullopt;
  return it->second;
}

NamedValue FrameScope::resolve(const dbg::VariableDesc& v) {
  NamedValue out;
  out.name = v.name;
  out.type_name = v.type ? v.type->name : "";
  if (v.const_value) {
    TypedValue t;
    t.type = v.type;
    t.bytes = *v.const_value;
    t.known.assign(t.bytes.size(), 1);
    out.value = std::move(t);
    return out;
  }
  if (v.location.empty()) {
    out.problem = v.has_location_list_gap ? "<not available here>" : "<optimized out>";
    return out;
  }
  dbg::ExprContext ctx;
  ctx.regs = [this](int r) { return dwarf_reg(r); };
  ctx.mem = [this](uint64_t addr, uint8_t* dst, size_t len) {
    std::vector<uint8_t> known(len);
    read(addr, dst, known.data(), len);
    for (uint8_t k : known)
      if (!k) return false;
    return true;
  };
  if (frame_.unwound.cfa_known) ctx.cfa = frame_.unwound.cfa;
  ctx.frame_base = &v.frame_base;
  ctx.ptr_size = ptr_size();
  auto loc = dbg::evaluate_location(v.location, ctx);
  if (!loc) {
    out.problem = "<" + loc.error().message + ">";
    return out;
  }
  TypedValue t;
  t.type = v.type;
  switch (loc->kind) {
    case dbg::ExprLocation::Kind::Memory:
      t.where = TypedValue::Where::Memory;
      t.addr = loc->value;
      break;
    case dbg::ExprLocation::Kind::Register: {
      auto r = dwarf_reg(int(loc->value));
      if (!r) {
        out.problem = "<in a register that is unknown here>";
        return out;
      }
      t = immediate(v.type, *r);
      break;
    }
    case dbg::ExprLocation::Kind::Value:
      t = immediate(v.type, loc->value);
      break;
    case dbg::ExprLocation::Kind::Bytes:
      t.bytes = loc->bytes;
      t.known.assign(t.bytes.size(), 1);
      break;
  }
  out.value = std::move(t);
  return out;
}

std::vector<NamedValue> FrameScope::locals() {
  std::vector<NamedValue> out;
  if (!d_.debug()) return out;
  for (const auto& v : d_.debug()->locals_at(frame_.lookup_pc)) out.push_back(resolve(v));
  return out;
}

std::vector<NamedValue> FrameScope::globals() {
  std::vector<NamedValue> out;
  if (!d_.debug()) return out;
  for (const auto& v : d_.debug()->globals_at(frame_.lookup_pc)) out.push_back(resolve(v));
  return out;
}

std::optional<TypedValue> FrameScope::variable(const std::string& name) {
  if (!d_.debug()) return std::nullopt;
  for (const auto& v : d_.debug()->locals_at(frame_.lookup_pc))
    if (v.name == name) {
      NamedValue nv = resolve(v);
      if (nv.value) return nv.value;
    }
  if (auto g = d_.debug()->global_named(frame_.lookup_pc, name)) {
    NamedValue nv = resolve(*g);
    if (nv.value) return nv.value;
  }
  return std::nullopt;
}

std::vector<FrameScope::RegisterValue> FrameScope::registers(const std::string& group) {
  std::vector<RegisterValue> out;
  const ArchDesc& arch = d_.trace().arch();
  if (index_ == 0) {
    const ThreadState* th = d_.thread_state(tid_);
    for (uint16_t i = 0; i < arch.regs.size(); ++i) {
      if (arch.regs[i].group != group) continue;
      RegisterValue r;
      r.index = i;
      if (th && th->regs.valid(i)) {
        auto b = th->regs.bytes(i);
        r.bytes.assign(b.begin(), b.end());
        r.known = true;
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  // A caller frame: only what the unwinder recovered, plus its pc.
  if (!d_.debug()) return out;
  for (const auto& [regno, value] : frame_.unwound.regs) {
    auto idx = arch.find(d_.debug()->dwarf_register_name(regno));
    if (!idx || arch.regs[*idx].group != group) continue;
    RegisterValue r;
    r.index = *idx;
    r.known = true;
    for (uint32_t b = 0; b < arch.regs[*idx].bytes() && b < 8; ++b) r.bytes.push_back(uint8_t(value >> (8 * b)));
    out.push_back(std::move(r));
  }
  if (group == "general" && std::none_of(out.begin(), out.end(), [&](const RegisterValue& r) { return r.index == arch.pc_index; })) {
    RegisterValue r;
    r.index = arch.pc_index;
    r.known = true;
    for (uint32_t b = 0; b < arch.pc().bytes() && b < 8; ++b) r.bytes.push_back(uint8_t(frame_.unwound.pc >> (8 * b)));
    out.insert(out.begin(), std::move(r));
  }
  return out;
}

std::optional<TypedValue> FrameScope::reg(const std::string& name) {
  const ArchDesc& arch = d_.trace().arch();
  auto idx = arch.find(name);
  if (!idx) return std::nullopt;
  const RegisterDesc& desc = arch.regs[*idx];
  TypedValue t;
  t.type = unsigned_type(desc.bytes());
  t.hex = true;
  if (index_ == 0) {
    const ThreadState* th = d_.thread_state(tid_);
    t.bytes.assign(desc.bytes(), 0);
    t.known.assign(desc.bytes(), 0);
    if (th && th->regs.valid(*idx)) {
      auto b = th->regs.bytes(*idx);
      t.bytes.assign(b.begin(), b.end());
      t.known.assign(b.size(), 1);
    }
    return t;
  }
  for (const auto& r : registers(desc.group))
    if (r.index == *idx) {
      t.bytes = r.bytes;
      t.known.assign(r.bytes.size(), 1);
      return t;
    }
  t.bytes.assign(desc.bytes(), 0);
  t.known.assign(desc.bytes(), 0);  // not recovered in this frame
  return t;
}

}  // namespace ttd::dap
