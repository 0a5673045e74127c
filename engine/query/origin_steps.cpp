#include "engine/query/origin_steps.h"

#include "engine/query/pc_class_cache.h"

#include "engine/index_file.h"
#include "engine/program_image.h"
#include "engine/query/chunk_reader.h"
#include "engine/query/register_history.h"

namespace ttd::query {

namespace {

// Collects one step's reads and unknown registers while the reader
// decodes every step of the chunk (register deltas need them all).
struct StepCollector : EffectVisitor {
  StepFacts* out = nullptr;
  uint32_t tidx = 0;
  bool active = false;
  void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
  void reg_unknown(uint32_t t, uint16_t r) override {
    if (active && t == tidx) out->regs_unknown.push_back(r);
  }
  void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
  void mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t* bytes) override {
    if (!active) return;
    StepFacts::Read r;
    r.addr = addr;
    r.size = size;
    if (bytes) r.value.emplace(bytes, bytes + size);
    out->reads.push_back(std::move(r));
  }
};

std::shared_ptr<const Trace> borrowed(const Trace& t) { return std::shared_ptr<const Trace>(&t, [](const Trace*) {}); }

}  // namespace

OriginSteps::OriginSteps(const Trace& t, const CancelCheck& cancel)
    : t_(t), cancel_(cancel), decoder_(t.arch()), cursor_(borrowed(t)), code_cursor_(borrowed(t)) {
  ChunkReader r(t);
  key_syscall_ = r.attr_key("syscall");
  key_args_ = r.attr_key("args");
  key_ret_ = r.attr_key("ret");
}

OriginSteps::~OriginSteps() = default;

Result<StepFacts> OriginSteps::step(uint64_t eid) {
  if (eid >= t_.step_count()) return make_error("at", "EID " + std::to_string(eid) + " is past the last step");
  ChunkReader r(t_);
  if (auto s = r.load(r.chunk_of(eid)); !s) return s.error();
  StepFacts f;
  StepCollector col;
  col.out = &f;
  while (r.next()) {
    const StepView& s = r.step();
    col.active = s.eid == eid;
    col.tidx = s.tidx;
    if (!r.effects(col)) break;
    if (s.eid < eid) continue;
    f.eid = eid;
    f.pc = s.pc;
    f.tid = s.tid;
    f.pid = s.pid;
    f.kind = s.kind;
    std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs;
    if (key_syscall_ && r.attrs(attrs)) {
      for (auto& [k, v] : attrs) {
        if (k == *key_syscall_ && std::holds_alternative<uint64_t>(v)) {
          if (!f.syscall) f.syscall.emplace();
          f.syscall->number = std::get<uint64_t>(v);
          f.syscall->name = syscall_name(t_.arch().id, f.syscall->number);
        }
      }
      if (f.syscall)
        for (auto& [k, v] : attrs) {
          if (key_args_ && k == *key_args_ && std::holds_alternative<std::vector<uint64_t>>(v))
            f.syscall->args = std::get<std::vector<uint64_t>>(v);
          if (key_ret_ && k == *key_ret_ && std::holds_alternative<uint64_t>(v)) f.syscall->ret = std::get<uint64_t>(v);
        }
    }
    return f;
  }
  if (auto s = r.status(); !s) return s.error();
  return make_error("at", "EID " + std::to_string(eid) + " not found in its index chunk");
}

Result<const MachineState*> OriginSteps::state_at(uint64_t eid) {
  if (cursor_.eid() != eid)
    if (auto s = cursor_.seek(eid); !s) return s.error();
  return &cursor_.state();
}

std::vector<uint8_t> OriginSteps::code_bytes(const MachineState& st, uint64_t pc) const {
  return code_in_memory(st, pc, decoder_.max_insn_bytes());
}

Result<DecodedInstruction> OriginSteps::instruction_at(uint64_t eid, uint64_t pc) {
  auto st = state_at(eid);
  if (!st) return st.error();
  return decoder_.decode(pc, code_bytes(**st, pc));
}

const DecodedInstruction& OriginSteps::pc_instruction(size_t chunk, uint64_t pc) {
  auto it = by_pc_.find(pc);
  if (it != by_pc_.end()) return it->second;
  uint64_t first = t_.index().chunk(chunk).first_eid;
  std::vector<uint8_t> code;
  if (code_cursor_.eid() == first || code_cursor_.seek(first)) code = code_bytes(code_cursor_.state(), pc);
  return by_pc_.emplace(pc, decoder_.decode(pc, code)).first->second;
}

Result<std::optional<RegisterWriter>> OriginSteps::last_register_writer(uint16_t reg, uint64_t at, uint64_t tid) {
  auto change = previous_register_write(t_, reg, at, tid, cancel_);
  if (!change) return change.error();
  const uint64_t lo = *change ? (*change)->eid + 1 : 0;
  // Instructions after the last recorded change that write the register
  // (leaving its value as it was): the latest one is the writer.
  if (lo < at) {
    std::optional<ChunkReader> reader;
    for (size_t c = t_.index().chunk_of(at - 1);; --c) {
      if (cancel_ && cancel_()) return make_error("origin", "interrupted");
      const ChunkEntry ch = t_.index().chunk(c);
      const auto summary = t_.index().summary(c);
      bool may = false;
      for (uint64_t pc : summary->pcs)
        if (pc_instruction(c, pc).writes_reg(reg)) {
          may = true;
          break;
        }
      if (may) {
        if (!reader) reader.emplace(t_);
        if (auto s = reader->load(c); !s) return s.error();
        std::optional<uint64_t> found;
        while (reader->next()) {
          const StepView& s = reader->step();
          if (s.eid >= at) break;
          if (s.eid >= lo && s.tid == tid && s.kind == fmt::StepKind::Instruction &&
              pc_instruction(c, s.pc).writes_reg(reg))
            found = s.eid;
        }
        if (auto s = reader->status(); !s) return s.error();
        if (found) return std::optional<RegisterWriter>(RegisterWriter{*found, false});
      }
      if (c == 0 || ch.first_eid <= lo) break;
    }
  }
  if (*change) return std::optional<RegisterWriter>(RegisterWriter{(*change)->eid, !(*change)->value.has_value()});
  return std::optional<RegisterWriter>();
}

std::string syscall_name(ArchId arch, uint64_t n) {
  struct Entry {
    uint64_t number;
    const char* name;
  };
  // The calls programs commonly make (numbers from the kernel's tables);
  // others are named by number.
  static const Entry x86_64[] = {
      {0, "read"},           {1, "write"},         {2, "open"},          {3, "close"},          {4, "stat"},
      {5, "fstat"},          {6, "lstat"},         {7, "poll"},          {8, "lseek"},          {9, "mmap"},
      {10, "mprotect"},      {11, "munmap"},       {12, "brk"},          {13, "rt_sigaction"},  {14, "rt_sigprocmask"},
      {16, "ioctl"},         {17, "pread64"},      {18, "pwrite64"},     {19, "readv"},         {20, "writev"},
      {21, "access"},        {22, "pipe"},         {24, "sched_yield"},  {28, "madvise"},       {32, "dup"},
      {33, "dup2"},          {35, "nanosleep"},    {39, "getpid"},       {60, "exit"},          {63, "uname"},
      {72, "fcntl"},         {78, "getdents"},     {79, "getcwd"},       {89, "readlink"},      {96, "gettimeofday"},
      {102, "getuid"},       {158, "arch_prctl"},  {186, "gettid"},      {201, "time"},         {218, "set_tid_address"},
      {228, "clock_gettime"}, {231, "exit_group"}, {257, "openat"},      {262, "newfstatat"},   {273, "set_robust_list"},
      {293, "pipe2"},        {302, "prlimit64"},   {318, "getrandom"},   {332, "statx"},        {334, "rseq"}};
  static const Entry aarch64[] = {
      {17, "getcwd"},        {23, "dup"},          {24, "dup3"},         {25, "fcntl"},         {29, "ioctl"},
      {48, "faccessat"},     {56, "openat"},       {57, "close"},        {59, "pipe2"},         {61, "getdents64"},
      {62, "lseek"},         {63, "read"},         {64, "write"},        {65, "readv"},         {66, "writev"},
      {67, "pread64"},       {68, "pwrite64"},     {78, "readlinkat"},   {79, "newfstatat"},    {80, "fstat"},
      {93, "exit"},          {94, "exit_group"},   {96, "set_tid_address"}, {99, "set_robust_list"},
      {101, "nanosleep"},    {113, "clock_gettime"}, {124, "sched_yield"}, {134, "rt_sigaction"},
      {135, "rt_sigprocmask"}, {160, "uname"},     {169, "gettimeofday"}, {172, "getpid"},     {174, "getuid"},
      {178, "gettid"},       {214, "brk"},         {215, "munmap"},      {222, "mmap"},         {226, "mprotect"},
      {233, "madvise"},      {261, "prlimit64"},   {278, "getrandom"},   {291, "statx"},        {293, "rseq"}};
  auto find = [&](const auto& table) -> std::string {
    for (const Entry& e : table)
      if (e.number == n) return e.name;
    return "";
  };
  if (arch == ArchId::X86_64) return find(x86_64);
  if (arch == ArchId::AArch64) return find(aarch64);
  return "";
}

}  // namespace ttd::query
