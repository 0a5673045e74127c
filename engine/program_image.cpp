#include "engine/program_image.h"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "elf/elf_file.h"
#include "elf/elf_program.h"
#include "engine/index_file.h"

namespace ttd {

namespace {

// A program's file bytes beyond this are refused (a hostile header could
// otherwise ask for any size; real programs' loadable bytes are far below).
constexpr uint64_t kMaxImageBytes = 1ull << 30;

}  // namespace

uint16_t elf_machine_of(ArchId a) {
  switch (a) {
    case ArchId::X86_64: return EM_X86_64;
    case ArchId::I386: return EM_386;
    case ArchId::AArch64: return EM_AARCH64;
    case ArchId::Arm: return EM_ARM;
    case ArchId::Mips: return EM_MIPS;
    case ArchId::Ppc32: return EM_PPC;
  }
  return EM_NONE;
}

Result<std::shared_ptr<ProgramImage>> ProgramImage::open(const std::string& path) {
  auto file = elf::ElfFile::open(path, "the program");
  if (!file) return file.error();
  auto loads = elf::load_segments(*file);
  if (!loads) return loads.error();
  std::shared_ptr<ProgramImage> img(new ProgramImage());
  img->path_ = path;
  img->machine_ = file->machine();
  img->entry_ = file->header().e_entry;
  img->pie_ = file->header().e_type == ET_DYN;
  uint64_t total = 0;
  for (const elf::LoadSegment& load : *loads) {
    const GElf_Phdr& ph = load.header;
    if (ph.p_filesz == 0) continue;
    const std::string where = "program header " + std::to_string(load.index) + " (file offset " + std::to_string(ph.p_offset) + ")";
    total += ph.p_filesz;
    if (total > kMaxImageBytes) return make_error(path, where + ": loadable bytes exceed 1 GiB");
    auto bytes = file->read(ph.p_offset, ph.p_filesz, where + ": cannot read the segment");
    if (!bytes) return bytes.error();
    Segment s;
    s.vaddr = ph.p_vaddr;
    s.exec = ph.p_flags & PF_X;
    s.bytes = std::move(*bytes);
    img->segments_.push_back(std::move(s));
  }
  std::sort(img->segments_.begin(), img->segments_.end(), [](const Segment& a, const Segment& b) { return a.vaddr < b.vaddr; });
  if (img->segments_.empty()) return make_error(path, "the program has no loadable segments");
  return img;
}

const ProgramImage::Segment* ProgramImage::segment_at(uint64_t addr) const {
  addr -= bias_;  // to a link address (wraps below the image: no segment)
  auto it = std::upper_bound(segments_.begin(), segments_.end(), addr, [](uint64_t a, const Segment& s) { return a < s.vaddr; });
  if (it == segments_.begin()) return nullptr;
  --it;
  return addr - it->vaddr < it->bytes.size() ? &*it : nullptr;
}

size_t ProgramImage::read(uint64_t addr, uint8_t* dst, size_t len) const {
  size_t n = 0;
  while (n < len) {
    const Segment* s = segment_at(addr + n);
    if (!s) break;
    size_t off = size_t(addr + n - bias_ - s->vaddr);
    size_t k = std::min(len - n, s->bytes.size() - off);
    std::memcpy(dst + n, s->bytes.data() + off, k);
    n += k;
  }
  return n;
}

bool ProgramImage::executable(uint64_t addr) const {
  const Segment* s = segment_at(addr);
  return s && s->exec;
}

namespace {

// Whether the image's executable segments hold pcs the trace runs (the
// pcs of its first chunks: enough to tell a different program apart).
bool runs_in(const ProgramImage& img, const IndexFile& index) {
  size_t chunks = std::min<size_t>(index.chunk_count(), 64);
  for (size_t c = 0; c < chunks; ++c)
    for (uint64_t pc : index.summary(c)->pcs)
      if (img.executable(pc)) return true;
  return false;
}

// Kernels map an executable at page granularity; 4 KiB is the smallest
// page of every architecture we read, so a load bias is a multiple of it.
constexpr uint64_t kMinPage = 0x1000;

// Places a PIE whose link addresses hold no pc of the trace. Each pc of
// the first chunk with the entry's page offset is a candidate entry; the
// candidate under which most of the chunk's pcs lie in executable segments
// wins (another pc that merely shares the page offset lands most of them
// outside). A tie is a guess: the image stays where it was.
void place_pie(ProgramImage& img, const IndexFile& index) {
  if (!img.position_independent() || index.chunk_count() == 0) return;
  const auto summary = index.summary(0);  // held: pcs refers into it
  const std::vector<uint64_t>& pcs = summary->pcs;
  uint64_t best = 0;
  size_t best_inside = 0;
  bool tie = false;
  for (uint64_t pc : pcs) {
    const uint64_t bias = pc - img.entry();
    if (bias == 0 || bias % kMinPage != 0) continue;
    img.place(bias);
    const size_t inside = size_t(std::count_if(pcs.begin(), pcs.end(), [&](uint64_t p) { return img.executable(p); }));
    if (inside > best_inside) best = bias, best_inside = inside, tie = false;
    else if (inside == best_inside) tie = true;
  }
  img.place(tie ? 0 : best);
}

// Opens and checks a candidate; the error says why it does not fit.
Result<std::shared_ptr<const ProgramImage>> fitting(const std::string& path, ArchId arch, const IndexFile& index) {
  auto img = ProgramImage::open(path);
  if (!img) return img.error();
  if ((*img)->machine() != elf_machine_of(arch))
    return make_error(path, "the program is for ELF machine " + std::to_string((*img)->machine()) + ", the trace is " +
                                arch_desc(arch).name + " (machine " + std::to_string(elf_machine_of(arch)) + ")");
  if (!runs_in(**img, index)) place_pie(**img, index);
  if (!runs_in(**img, index))
    return make_error(path, "none of the pcs the trace runs lies in the program's executable segments "
                            "(a different program, or a position-independent one whose entry the trace's first "
                            "steps do not run, so its load address is not known)");
  return std::shared_ptr<const ProgramImage>(*img);
}

}  // namespace

Result<ProgramChoice> choose_program_image(const std::string& explicit_path, const std::string& exec_path, ArchId arch,
                                           const IndexFile& index, bool trace_has_code) {
  ProgramChoice c;
  const std::string trace_part = trace_has_code ? "trace memory, then " : "";
  if (!explicit_path.empty()) {
    auto img = fitting(explicit_path, arch, index);
    if (!img) return img.error();
    c.image = *img;
    c.source = trace_part + "program " + explicit_path;
    return c;
  }
  if (!exec_path.empty() && ::access(exec_path.c_str(), R_OK) == 0) {
    if (auto img = fitting(exec_path, arch, index)) {
      c.image = *img;
      c.source = trace_part + "program " + exec_path + " (named by the trace)";
      return c;
    }
  }
  c.source = trace_has_code ? "trace memory" : "none (the trace holds no code bytes; give --program ELF)";
  return c;
}

}  // namespace ttd
