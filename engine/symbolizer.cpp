#include "engine/symbolizer.h"

#include <elf.h>

#include <algorithm>
#include <charconv>
#include <cstdio>

#include "debuginfo/debug_info.h"
#include "elf/elf_file.h"
#include "elf/elf_program.h"
#include "elf/elf_sections.h"
#include "engine/index_file.h"
#include "engine/mapped_files.h"
#include "engine/program_image.h"

namespace ttd {

namespace {

// Answers cached per symbolizer; past this the cache starts over (a
// `ttd steps` of a long loop prints few distinct pcs, a whole-trace dump
// of a big program many).
constexpr size_t kMaxCachedPcs = 1 << 20;
// How far past an untyped code label (musl's _start) a pc is still named
// after it.
constexpr uint64_t kMaxLabelReach = 4096;

std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

std::string base_name(const std::string& p) {
  size_t s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

struct LoadRange {
  uint64_t lo = 0, hi = 0;  // link addresses [lo, hi)
};

// The file's machine and PT_LOAD ranges at link addresses; error: not a
// readable ELF file.
struct ElfLayout {
  uint16_t machine = 0;
  std::vector<LoadRange> loads;
  uint64_t lowest = 0;  // page-aligned start of the lowest PT_LOAD
};

Result<ElfLayout> read_layout(const std::string& path) {
  auto file = elf::ElfFile::open(path, path);
  if (!file) return file.error();
  auto loads = elf::load_segments(*file);
  if (!loads) return loads.error();
  ElfLayout out;
  out.machine = file->machine();
  for (const elf::LoadSegment& l : *loads)
    if (l.header.p_memsz != 0) out.loads.push_back({l.header.p_vaddr, l.header.p_vaddr + l.header.p_memsz});
  if (out.loads.empty()) return make_error(path, "no loadable segments");
  uint64_t lo = out.loads[0].lo;
  for (const auto& l : out.loads) lo = std::min(lo, l.lo);
  out.lowest = lo & ~uint64_t(0xfff);
  return out;
}

// Code labels without a function type (musl's _start, hand-written
// assembly): STT_NOTYPE symbols defined in executable sections, with the
// end of their section, from .symtab or, in a stripped file, .dynsym (as
// elf::symbols reads them). Not mapping symbols ($x, $d on Arm) or local
// labels (.L...).
struct CodeLabel {
  std::string name;
  uint64_t addr = 0, section_end = 0;
};

std::vector<CodeLabel> read_code_labels(const std::string& path, uint64_t bias) {
  std::vector<CodeLabel> out;
  auto file = elf::ElfFile::open(path, path);
  if (!file) return out;
  elf::for_each_symbol(*file, [&](const elf::SymbolView& sym) {
    if (sym.type != STT_NOTYPE || sym.shndx == SHN_UNDEF || sym.shndx >= SHN_LORESERVE || sym.value == 0) return;
    if (sym.name[0] == '$' || sym.name[0] == '.') return;
    auto section = elf::section_place(*file, sym.shndx);
    if (!section || !section->executable) return;
    out.push_back({std::string(sym.name), sym.value + bias, section->address + section->size + bias});
  });
  std::sort(out.begin(), out.end(), [](const CodeLabel& a, const CodeLabel& b) { return a.addr < b.addr; });
  return out;
}

}  // namespace

Result<SymbolFile> parse_symbol_file(const std::string& text, const std::string& what) {
  SymbolFile f;
  size_t at = text.rfind('@');
  f.path = text.substr(0, at);
  if (at != std::string::npos) {
    std::string num = text.substr(at + 1);
    int base = 10;
    size_t skip = 0;
    if (num.size() > 2 && num[0] == '0' && (num[1] == 'x' || num[1] == 'X')) base = 16, skip = 2;
    uint64_t v = 0;
    auto r = std::from_chars(num.data() + skip, num.data() + num.size(), v, base);
    if (num.size() == skip || r.ec != std::errc() || r.ptr != num.data() + num.size()) return make_error(what, "expected FILE or FILE@ADDR (load address, decimal or 0x-hex), got '" + text + "'");
    f.load_address = v;
  }
  if (f.path.empty()) return make_error(what, "expected FILE or FILE@ADDR, got '" + text + "'");
  if (::access(f.path.c_str(), R_OK) != 0) return make_error(what, "cannot read '" + f.path + "'");
  return f;
}

std::string PcSymbol::sym() const {
  if (function.empty()) return "";
  return offset ? function + "+" + hex(offset) : function;
}

std::string PcSymbol::src() const { return file.empty() ? "" : file + ":" + std::to_string(line); }

std::string PcSymbol::text() const {
  std::string s = sym();
  if (!file.empty()) s += (s.empty() ? "" : " ") + base_name(file) + ":" + std::to_string(line);
  return s;
}

struct Symbolizer::Module {
  std::string path;
  uint64_t bias = 0;
  std::vector<LoadRange> ranges;  // runtime addresses
  bool opened = false;
  std::unique_ptr<dbg::DebugInfo> debug;  // null when it could not be read
  std::vector<CodeLabel> labels;          // where no function symbol covers a pc
};

Symbolizer::Symbolizer(const IndexFile* index, ArchId arch, std::vector<SymbolFile> explicit_files, std::string program)
    : index_(index), arch_(arch), explicit_files_(std::move(explicit_files)), program_(std::move(program)) {}

Symbolizer::~Symbolizer() = default;

void Symbolizer::discover_locked() const {
  discovered_ = true;
  // Lowest start of every file-named mapping in the sampled keyframes:
  // the index's table, else sampled now (engine/mapped_files.h).
  const MappedFiles mapped = index_ ? mapped_files_of(*index_, arch_) : MappedFiles{};
  auto mapped_at = [&](const std::string& path) -> std::optional<uint64_t> {
    if (auto it = mapped.find(path); it != mapped.end()) return it->second;
    for (const auto& [name, lo] : mapped)
      if (base_name(name) == base_name(path)) return lo;
    return std::nullopt;
  };
  std::vector<std::string> seen;
  auto add = [&](const std::string& path, std::optional<uint64_t> load, bool quiet) {
    if (std::find(seen.begin(), seen.end(), path) != seen.end()) return;
    seen.push_back(path);
    auto layout = read_layout(path);
    if (!layout) {
      if (!quiet) warnings_.push_back(layout.error().to_string());
      return;
    }
    if (layout->machine != elf_machine_of(arch_)) {
      if (!quiet) warnings_.push_back(path + ": not a " + arch_desc(arch_).name + " ELF file");
      return;
    }
    auto m = std::make_unique<Module>();
    m->path = path;
    if (!load) load = mapped_at(path);
    m->bias = load ? *load - layout->lowest : 0;
    for (const auto& r : layout->loads) m->ranges.push_back({r.lo + m->bias, r.hi + m->bias});
    modules_.push_back(std::move(m));
  };
  for (const auto& f : explicit_files_) add(f.path, f.load_address, false);
  if (!program_.empty()) add(program_, std::nullopt, true);
  for (const auto& [name, lo] : mapped)
    if (::access(name.c_str(), R_OK) == 0) add(name, lo, true);
}

const Symbolizer::Module* Symbolizer::module_at_locked(uint64_t pc) const {
  for (const auto& m : modules_)
    for (const auto& r : m->ranges)
      if (pc >= r.lo && pc < r.hi) return m.get();
  return nullptr;
}

std::optional<PcSymbol> Symbolizer::at(uint64_t pc) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = cache_.find(pc); it != cache_.end()) return it->second;
  if (!discovered_) discover_locked();
  std::optional<PcSymbol> out;
  if (Module* m = const_cast<Module*>(module_at_locked(pc))) {
    if (!m->opened) {
      m->opened = true;
      auto d = dbg::DebugInfo::open(m->path, m->bias);
      if (d) m->debug = std::move(*d);
      else warnings_.push_back(d.error().to_string());
      m->labels = read_code_labels(m->path, m->bias);
    }
    if (m->debug) {
      PcSymbol s;
      s.module = m->path;
      if (auto f = m->debug->function_at(pc)) {
        s.function = f->name;
        s.offset = pc - f->addr;
      } else {
        // The nearest label below pc in the same section, at most
        // kMaxLabelReach bytes away and with no function starting between.
        auto it = std::upper_bound(m->labels.begin(), m->labels.end(), pc,
                                   [](uint64_t v, const CodeLabel& l) { return v < l.addr; });
        if (it != m->labels.begin() && pc < (it - 1)->section_end && pc - (it - 1)->addr <= kMaxLabelReach) {
          const CodeLabel& l = *(it - 1);
          bool function_between = false;
          for (uint64_t a = l.addr; a < pc && !function_between; ++a) function_between = m->debug->is_function_entry(a);
          if (!function_between) {
            s.function = l.name;
            s.offset = pc - l.addr;
          }
        }
      }
      if (auto l = m->debug->line_at(pc)) {
        s.file = l->file;
        s.line = l->line;
      }
      if (!s.function.empty() || !s.file.empty()) out = std::move(s);
    }
  }
  if (cache_.size() >= kMaxCachedPcs) cache_.clear();
  cache_.emplace(pc, out);
  return out;
}

std::vector<std::string> Symbolizer::warnings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return warnings_;
}

std::vector<std::string> Symbolizer::modules() const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!discovered_) discover_locked();
  std::vector<std::string> out;
  for (const auto& m : modules_) out.push_back(m->path + " @ " + hex(m->bias));
  return out;
}

}  // namespace ttd
