#include "tools/recorder/initial_stack.h"

#include <elf.h>

#include <cstring>

namespace ttd::rec {

namespace {

// Grows downwards from `top`: push() returns the guest address of what it placed.
class StackWriter {
 public:
  explicit StackWriter(uint64_t top) : top_(top) {}
  uint64_t push(const void* data, size_t n) {
    below_.insert(below_.begin(), static_cast<const uint8_t*>(data), static_cast<const uint8_t*>(data) + n);
    return top_ - below_.size();
  }
  uint64_t push_string(const std::string& s) { return push(s.c_str(), s.size() + 1); }
  uint64_t sp() const { return top_ - below_.size(); }
  void pad_to(uint64_t sp_wanted) { below_.insert(below_.begin(), sp() - sp_wanted, 0); }
  std::vector<uint8_t> take() { return std::move(below_); }

 private:
  uint64_t top_;
  std::vector<uint8_t> below_;
};

void put_u64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(uint8_t(v >> (8 * i)));
}

}  // namespace

InitialStack build_initial_stack(uint64_t top, const std::vector<std::string>& argv,
                                 const std::vector<std::string>& env, const AuxInfo& aux) {
  StackWriter w(top);
  // Linux (fs/exec.c) keeps the top 8 bytes zero as an end marker, puts the
  // exec file name right below them, then the environment and argument
  // strings, then the platform string and random bytes. Without the marker
  // the last string ends at the end of the mapping, and code that reads
  // strings a word at a time past their end (static glibc's tunables
  // parser) faults.
  const uint64_t end_marker = 0;
  w.push(&end_marker, sizeof end_marker);
  uint64_t execfn = w.push_string(aux.execfn);
  std::vector<uint64_t> env_ptrs, arg_ptrs;
  for (auto it = env.rbegin(); it != env.rend(); ++it) env_ptrs.insert(env_ptrs.begin(), w.push_string(*it));
  for (auto it = argv.rbegin(); it != argv.rend(); ++it) arg_ptrs.insert(arg_ptrs.begin(), w.push_string(*it));
  uint64_t platform = w.push_string(aux.platform);
  w.pad_to(w.sp() & ~uint64_t(15));
  uint64_t random = w.push(aux.random, sizeof aux.random);

  std::vector<std::pair<uint64_t, uint64_t>> auxv = {
      {AT_PHDR, aux.phdr},     {AT_PHENT, aux.phent},   {AT_PHNUM, aux.phnum},
      {AT_PAGESZ, aux.pagesz}, {AT_BASE, aux.base},            {AT_FLAGS, 0},
      {AT_ENTRY, aux.entry},   {AT_UID, aux.uid},       {AT_EUID, aux.euid},
      {AT_GID, aux.gid},       {AT_EGID, aux.egid},     {AT_SECURE, 0},
      {AT_HWCAP, aux.hwcap},   {AT_HWCAP2, aux.hwcap2}, {AT_CLKTCK, aux.clktck},
      {AT_RANDOM, random},     {AT_EXECFN, execfn},     {AT_PLATFORM, platform},
      {AT_NULL, 0},
  };
  InitialStack st;
  // The strings are contiguous: arguments, then the environment, then the
  // exec file name.
  st.env_end = execfn;
  st.env_start = env_ptrs.empty() ? execfn : env_ptrs.front();
  st.arg_end = st.env_start;
  st.arg_start = arg_ptrs.empty() ? st.arg_end : arg_ptrs.front();
  for (auto [k, v] : auxv) {
    put_u64(st.auxv, k);
    put_u64(st.auxv, v);
  }
  std::vector<uint8_t> table;
  put_u64(table, arg_ptrs.size());
  for (uint64_t p : arg_ptrs) put_u64(table, p);
  put_u64(table, 0);
  for (uint64_t p : env_ptrs) put_u64(table, p);
  put_u64(table, 0);
  table.insert(table.end(), st.auxv.begin(), st.auxv.end());
  // argc must land on a 16-byte boundary.
  uint64_t argc_at = (w.sp() - table.size()) & ~uint64_t(15);
  w.pad_to(argc_at + table.size());
  w.push(table.data(), table.size());

  st.sp = w.sp();
  st.bytes = w.take();
  return st;
}

}  // namespace ttd::rec
