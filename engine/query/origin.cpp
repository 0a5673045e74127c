#include "engine/query/origin.h"

#include <map>
#include <tuple>

#include "engine/query/memory_history.h"
#include "engine/query/origin_steps.h"
#include "engine/query/query_text.h"
#include "engine/query/register_history.h"
#include "state/target_value.h"

namespace ttd::query {

const char* origin_kind_name(OriginKind k) {
  switch (k) {
    case OriginKind::Write: return "write";
    case OriginKind::Split: return "split";
    case OriginKind::Constant: return "constant";
    case OriginKind::Syscall: return "syscall";
    case OriginKind::Initial: return "initial";
    case OriginKind::Unknown: return "unknown";
    case OriginKind::Limit: return "limit";
    case OriginKind::Repeat: return "repeat";
  }
  return "?";
}

std::string location_text(const Trace& t, const OriginLocation& l) {
  switch (l.kind) {
    case OriginLocation::Kind::Register: return l.reg < t.arch().regs.size() ? t.arch().regs[l.reg].name : "?";
    case OriginLocation::Kind::Memory: return "mem " + hex(l.range.addr) + ":" + std::to_string(l.range.len);
    case OriginLocation::Kind::Constant: return "constant";
  }
  return "?";
}

Result<OriginLocation> parse_origin_location(const Trace& t, const std::string& reg, const std::string& mem) {
  if (reg.empty() == mem.empty()) return make_error("origin", "give exactly one of a register or ADDR:LEN");
  OriginLocation l;
  if (!reg.empty()) {
    auto r = resolve_register(t, reg);
    if (!r) return make_error("reg", r.error().message);
    l.kind = OriginLocation::Kind::Register;
    l.reg = *r;
    return l;
  }
  auto r = parse_address_range(mem, "mem");
  if (!r) return r.error();
  l.kind = OriginLocation::Kind::Memory;
  l.range = *r;
  return l;
}

Status check_origin_query(const Trace& t, const OriginQuery& q) {
  if (auto s = check_position(t, q.at, "at"); !s) return s;
  if (t.step_count() == 0) return make_error("at", "the trace has no steps");
  if (q.depth < 1 || q.depth > kMaxOriginDepth)
    return make_error("depth", "must be 1.." + std::to_string(kMaxOriginDepth) + ", got " + std::to_string(q.depth));
  if (q.breadth < 1 || q.breadth > kMaxOriginBreadth)
    return make_error("breadth", "must be 1.." + std::to_string(kMaxOriginBreadth) + ", got " + std::to_string(q.breadth));
  if (q.max_nodes < 1 || q.max_nodes > kMaxOriginNodes)
    return make_error("nodes", "must be 1.." + std::to_string(kMaxOriginNodes) + ", got " + std::to_string(q.max_nodes));
  if (q.loc.kind == OriginLocation::Kind::Register &&
      (q.loc.reg >= t.arch().regs.size() || q.loc.reg == t.arch().pc_index))
    return make_error("reg", "register index " + std::to_string(q.loc.reg) + " is not a data register of " + t.arch().name);
  if (q.loc.kind == OriginLocation::Kind::Memory)
    if (auto r = make_range(q.loc.range.addr, q.loc.range.len, "mem"); !r) return r.error();
  if (q.loc.kind == OriginLocation::Kind::Constant) return make_error("origin", "a constant has no origin to trace");
  return {};
}

namespace {

std::optional<std::vector<uint8_t>> register_value(const MachineState& st, uint64_t tid, uint16_t reg) {
  const ThreadState* th = st.find_thread(tid);
  if (!th || !th->regs.valid(reg)) return std::nullopt;
  auto b = th->regs.bytes(reg);
  return std::vector<uint8_t>(b.begin(), b.end());
}

std::optional<std::vector<uint8_t>> memory_value(const MachineState& st, uint64_t pid, AddressRange r) {
  const ProcessState* p = st.find_process(pid);
  if (!p || r.len > 4096) return std::nullopt;
  std::vector<uint8_t> bytes(r.len), valid(r.len);
  if (p->memory.read(r.addr, bytes.data(), valid.data(), r.len) != r.len) return std::nullopt;
  return bytes;
}

class OriginWalk {
 public:
  OriginWalk(const Trace& t, const OriginQuery& q) : t_(t), q_(q), steps_(t, q.cancel) {
    g_.depth = q.depth;
    g_.breadth = q.breadth;
    g_.max_nodes = q.max_nodes;
  }

  Result<OriginGraph> run() {
    uint64_t probe = q_.at < t_.step_count() ? q_.at : t_.step_count() - 1;
    auto f = steps_.step(probe);
    if (!f) return f.error();
    OriginNode root;
    root.loc = q_.loc;
    root.at = q_.at;
    root.tid = f->tid;
    pid_ = f->pid;
    auto st = steps_.state_at(q_.at);
    if (!st) return st.error();
    root.value = value_of(**st, root.loc, root.tid);
    g_.nodes.push_back(std::move(root));
    if (auto s = resolve(0); !s) return s.error();
    return std::move(g_);
  }

 private:
  std::optional<std::vector<uint8_t>> value_of(const MachineState& st, const OriginLocation& l, uint64_t tid) const {
    if (l.kind == OriginLocation::Kind::Register) return register_value(st, tid, l.reg);
    return memory_value(st, pid_, l.range);
  }
  OriginNode& node(uint32_t id) { return g_.nodes[id]; }
  bool room() const { return g_.nodes.size() < q_.max_nodes; }

  uint32_t add_child(uint32_t parent, OriginNode c) {
    c.id = uint32_t(g_.nodes.size());
    g_.nodes.push_back(std::move(c));
    node(parent).inputs.push_back(g_.nodes.back().id);
    return g_.nodes.back().id;
  }

  void leaf(uint32_t id, OriginKind k, std::string note) {
    node(id).kind = k;
    node(id).note = std::move(note);
    if (k == OriginKind::Limit) g_.truncated = true;
  }

  // Finds the step that last wrote the node's location before its
  // position and fills the node in; returns the writer (none: a leaf).
  Result<std::optional<uint64_t>> writer_of(uint32_t id) {
    OriginNode& n = node(id);
    const std::string where = location_text(t_, n.loc);
    if (n.loc.kind == OriginLocation::Kind::Register) {
      auto w = steps_.last_register_writer(n.loc.reg, n.at, n.tid);
      if (!w) return w.error();
      if (!*w) {
        leaf(id, OriginKind::Initial, "no step before EID " + std::to_string(n.at) + " writes " + where +
                                          ": the value is the trace's initial state");
        return std::optional<uint64_t>();
      }
      if ((*w)->value_unknown) {
        n.step = OriginStep{(*w)->eid, 0, n.tid, ""};
        leaf(id, OriginKind::Unknown, "the trace says step " + std::to_string((*w)->eid) + " left " + where + " unknown");
        return std::optional<uint64_t>();
      }
      return std::optional<uint64_t>((*w)->eid);
    }
    MemoryQuery mq;
    mq.range = n.loc.range;
    mq.kind = AccessFilter::Write;
    mq.start.window = {0, n.at};
    mq.start.direction = Direction::Backward;
    mq.cancel = q_.cancel;
    if (n.at == 0) {
      leaf(id, OriginKind::Initial, "EID 0: the value is the trace's initial state");
      return std::optional<uint64_t>();
    }
    auto hits = find_memory_accesses(t_, mq, 1);
    if (!hits) return hits.error();
    if (hits->empty()) {
      leaf(id, OriginKind::Initial, "no step before EID " + std::to_string(n.at) + " writes " + where +
                                        ": the value is the trace's initial state");
      return std::optional<uint64_t>();
    }
    const MemoryAccess& a = hits->front();
    const AddressRange r = n.loc.range;
    if (a.addr > r.addr || a.addr + a.size < r.end()) {
      split(id, a);
      return std::optional<uint64_t>();
    }
    if (!a.value) {
      n.step = OriginStep{a.eid, a.pc, a.tid, ""};
      leaf(id, OriginKind::Unknown, "the trace says step " + std::to_string(a.eid) + " wrote unknown bytes to " + where);
      return std::optional<uint64_t>();
    }
    return std::optional<uint64_t>(a.eid);
  }

  // A range written piecewise: the piece the last write covers, and the
  // bytes on either side of it, each traced on its own.
  void split(uint32_t id, const MemoryAccess& a) {
    const AddressRange r = node(id).loc.range;
    const uint64_t lo = std::max(a.addr, r.addr), hi = std::min(a.addr + a.size, r.end());
    node(id).kind = OriginKind::Split;
    node(id).note = "bytes written by different steps";
    std::vector<AddressRange> pieces;
    if (r.addr < lo) pieces.push_back({r.addr, lo - r.addr});
    pieces.push_back({lo, hi - lo});
    if (hi < r.end()) pieces.push_back({hi, r.end() - hi});
    for (const AddressRange& p : pieces) {
      if (!room()) {
        g_.truncated = true;
        node(id).note += "; node limit " + std::to_string(q_.max_nodes) + " reached";
        break;
      }
      OriginNode c;
      c.depth = node(id).depth;
      c.loc.kind = OriginLocation::Kind::Memory;
      c.loc.range = p;
      c.at = node(id).at;
      c.tid = node(id).tid;
      c.role = node(id).role;
      if (node(id).value) c.value.emplace(node(id).value->begin() + (p.addr - r.addr), node(id).value->begin() + (p.end() - r.addr));
      pending_.push_back(add_child(id, std::move(c)));
    }
  }

  Status resolve(uint32_t id) {
    if (q_.cancel && q_.cancel()) return make_error("origin", "interrupted");
    auto w = writer_of(id);
    if (!w) return w.error();
    if (node(id).kind == OriginKind::Split) {
      std::vector<uint32_t> pieces;
      pieces.swap(pending_);
      for (uint32_t p : pieces)
        if (auto s = resolve(p); !s) return s;
      return {};
    }
    if (!*w) return {};
    const uint64_t eid = **w;
    auto key = std::make_tuple(int(node(id).loc.kind), node(id).loc.reg, node(id).loc.range.addr, node(id).loc.range.len, eid);
    if (auto it = seen_.find(key); it != seen_.end()) {
      node(id).kind = OriginKind::Repeat;
      node(id).same_as = it->second;
      node(id).step = node(it->second).step;
      return {};
    }
    seen_.emplace(key, id);
    auto f = steps_.step(eid);
    if (!f) return f.error();
    node(id).step = OriginStep{eid, f->pc, f->tid, ""};
    if (f->kind == fmt::StepKind::Syscall) {
      node(id).kind = OriginKind::Syscall;
      node(id).syscall = f->syscall ? *f->syscall : OriginSyscall{};
      if (!f->syscall) node(id).note = "the trace does not name the syscall";
      return {};
    }
    if (f->kind != fmt::StepKind::Instruction) {
      leaf(id, OriginKind::Unknown, "written by a " + std::string(fmt::step_kind_name(f->kind)) + " event, not an instruction");
      return {};
    }
    auto insn = steps_.instruction_at(eid, f->pc);
    if (!insn) return insn.error();
    node(id).step->insn = insn->text;
    if (insn->status != DecodedInstruction::Status::Ok) {
      leaf(id, OriginKind::Unknown, insn->note);
      return {};
    }
    node(id).kind = OriginKind::Write;
    std::vector<OriginNode> inputs;
    if (auto s = collect_inputs(id, *f, *insn, inputs); !s) return s;
    return follow(id, std::move(inputs));
  }

  // The step's inputs with their values before it ran: recorded memory
  // reads first (the data most instructions move), then the operands.
  Status collect_inputs(uint32_t id, const StepFacts& f, const DecodedInstruction& insn, std::vector<OriginNode>& out) {
    auto st = steps_.state_at(f.eid);
    if (!st) return st.error();
    const uint32_t depth = node(id).depth + 1;
    auto base = [&](OriginLocation::Kind k, InputRole role) {
      OriginNode c;
      c.depth = depth;
      c.loc.kind = k;
      c.role = role;
      c.at = f.eid;
      c.tid = f.tid;
      return c;
    };
    if (!insn.constant_result) {
      for (const auto& r : f.reads) {
        OriginNode c = base(OriginLocation::Kind::Memory, InputRole::Data);
        c.loc.range = {r.addr, r.size};
        c.value = r.value ? r.value : memory_value(**st, f.pid, c.loc.range);
        out.push_back(std::move(c));
      }
      if (insn.reads_memory && f.reads.empty()) {
        OriginNode c = base(OriginLocation::Kind::Memory, InputRole::Data);
        c.kind = OriginKind::Unknown;
        c.note = "the instruction reads memory, but the trace records no read access for this step";
        out.push_back(std::move(c));
      }
    }
    const size_t bytes = t_.arch().ptr_size;
    for (const auto& in : insn.inputs) {
      if (in.kind == InstructionInput::Kind::Constant) {
        OriginNode c = base(OriginLocation::Kind::Constant, in.role);
        c.kind = OriginKind::Constant;
        c.constant = in.name;
        std::vector<uint8_t> v(bytes);
        store_target_value(t_.arch().endian, v.data(), bytes, in.value);
        c.value = std::move(v);
        out.push_back(std::move(c));
      } else if (in.kind == InstructionInput::Kind::Unmapped) {
        OriginNode c = base(OriginLocation::Kind::Constant, in.role);
        c.kind = OriginKind::Unknown;
        c.note = "register " + in.name + " is not in the " + t_.arch().name + " register table";
        out.push_back(std::move(c));
      } else {
        OriginNode c = base(OriginLocation::Kind::Register, in.role);
        c.loc.reg = in.reg;
        c.value = register_value(**st, f.tid, in.reg);
        out.push_back(std::move(c));
      }
    }
    return {};
  }

  // Adds the inputs under the node (up to the breadth and node limits) and
  // follows those the depth limit allows.
  Status follow(uint32_t id, std::vector<OriginNode> inputs) {
    std::vector<uint32_t> to_follow;
    std::vector<const OriginNode*> dropped;
    size_t followed = 0;
    bool by_nodes = false;
    for (auto& c : inputs) {
      // Constants and leaves made here (an unmapped register, a read the
      // trace does not record) end at once: only inputs to follow count
      // against the breadth.
      const bool open = c.loc.kind != OriginLocation::Kind::Constant && c.note.empty();
      if (!room()) by_nodes = true;
      if (!room() || (open && followed == q_.breadth)) {
        dropped.push_back(&c);
        continue;
      }
      followed += open;
      OriginNode copy = c;
      uint32_t cid = add_child(id, std::move(copy));
      if (open) to_follow.push_back(cid);
    }
    if (!dropped.empty()) {
      std::string names;
      for (const OriginNode* d : dropped)
        names += (names.empty() ? "" : ", ") + (d->loc.kind == OriginLocation::Kind::Constant
                                                    ? (d->constant.empty() ? "?" : d->constant)
                                                    : location_text(t_, d->loc));
      g_.truncated = true;
      node(id).note = std::to_string(dropped.size()) + " more input(s) not followed (" +
                      (by_nodes ? "node limit " + std::to_string(q_.max_nodes) : "breadth limit " + std::to_string(q_.breadth)) +
                      "): " + names;
    }
    for (uint32_t cid : to_follow) {
      if (node(cid).depth >= q_.depth) {
        leaf(cid, OriginKind::Limit, "depth limit " + std::to_string(q_.depth));
        continue;
      }
      if (auto s = resolve(cid); !s) return s;
    }
    return {};
  }

  const Trace& t_;
  const OriginQuery& q_;
  OriginSteps steps_;
  OriginGraph g_;
  uint64_t pid_ = 0;
  std::vector<uint32_t> pending_;
  std::map<std::tuple<int, uint16_t, uint64_t, uint64_t, uint64_t>, uint32_t> seen_;
};

}  // namespace

Result<OriginGraph> trace_origin(const Trace& t, const OriginQuery& q) {
  if (auto s = check_origin_query(t, q); !s) return s.error();
  OriginWalk w(t, q);
  return w.run();
}

}  // namespace ttd::query
