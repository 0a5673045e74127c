#include "debuginfo/line_table.h"

#include <algorithm>
#include <filesystem>
#include <unordered_map>

#include "debuginfo/dwarf_file.h"

namespace ttd::dbg {

LineTable LineTable::build(const DwarfFile& f, uint64_t bias) {
  LineTable t;
  Dwarf* dw = f.dwarf();
  if (!dw) return t;
  std::unordered_map<std::string, uint32_t> file_ids;
  Dwarf_Off off = 0, next = 0;
  size_t hsize = 0;
  while (dwarf_nextcu(dw, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
    Dwarf_Die cu;
    Dwarf_Lines* lines = nullptr;
    size_t n = 0;
    if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
      for (size_t i = 0; i < n; ++i) {
        Dwarf_Line* ln = dwarf_onesrcline(lines, i);
        Row r;
        Dwarf_Addr a = 0;
        int line = 0, col = 0;
        bool stmt = false, end = false;
        if (!ln || dwarf_lineaddr(ln, &a) != 0) continue;
        dwarf_lineno(ln, &line);
        dwarf_linecol(ln, &col);
        dwarf_linebeginstatement(ln, &stmt);
        dwarf_lineendsequence(ln, &end);
        const char* src = dwarf_linesrc(ln, nullptr, nullptr);
        std::string name = src ? std::filesystem::path(src).lexically_normal().string() : std::string();
        auto [it, fresh] = file_ids.emplace(name, uint32_t(t.files_.size()));
        if (fresh) t.files_.push_back(name);
        r.addr = a + bias;
        r.file = it->second;
        r.line = line;
        r.column = uint16_t(std::clamp(col, 0, 65535));
        r.stmt = stmt;
        r.end_sequence = end;
        t.rows_.push_back(r);
      }
    }
    off = next;
  }
  std::stable_sort(t.rows_.begin(), t.rows_.end(), [](const Row& a, const Row& b) { return a.addr < b.addr; });
  return t;
}

std::optional<size_t> LineTable::row_index(uint64_t pc) const {
  auto it = std::upper_bound(rows_.begin(), rows_.end(), pc, [](uint64_t v, const Row& r) { return v < r.addr; });
  if (it == rows_.begin()) return std::nullopt;
  size_t i = size_t(it - rows_.begin()) - 1;
  // An end-of-sequence row at pc ends the previous sequence; a sequence
  // starting at the same address sorts after it only if it came later.
  // Prefer a real row at this address.
  size_t j = i;
  while (rows_[j].end_sequence && j > 0 && rows_[j - 1].addr == rows_[i].addr) --j;
  if (rows_[j].end_sequence) return std::nullopt;
  return j;
}

std::optional<LineInfo> LineTable::line_at(uint64_t pc) const {
  auto i = row_index(pc);
  if (!i) return std::nullopt;
  const Row& r = rows_[*i];
  if (r.line <= 0) return std::nullopt;
  LineInfo li;
  li.file = files_[r.file];
  li.line = r.line;
  li.column = r.column;
  li.row_start = r.addr;
  li.row_end = r.addr + 1;
  for (size_t k = *i + 1; k < rows_.size(); ++k)
    if (rows_[k].addr > r.addr) {
      li.row_end = rows_[k].addr;
      break;
    }
  return li;
}

bool LineTable::is_statement_start(uint64_t pc) const {
  auto i = row_index(pc);
  if (!i) return false;
  const Row& r = rows_[*i];
  return r.addr == pc && r.stmt && r.line > 0;
}

std::vector<uint32_t> LineTable::matching_files(std::string_view file) const {
  namespace fs = std::filesystem;
  std::vector<uint32_t> exact, tail;
  size_t best_same = 0;
  fs::path want = fs::path(std::string(file)).lexically_normal();
  for (uint32_t i = 0; i < files_.size(); ++i) {
    fs::path have(files_[i]);
    if (have == want) {
      exact.push_back(i);
      continue;
    }
    // Trailing components equal: "examples/loop.c" matches "/src/examples/loop.c"
    // and a client path from another checkout matches by its file name.
    auto h = have.end(), w = want.end();
    size_t same = 0;
    while (h != have.begin() && w != want.begin()) {
      --h;
      --w;
      if (*h != *w) break;
      ++same;
    }
    // Keep the files sharing the longest tail with the request.
    if (same == 0 || same < best_same) continue;
    if (same > best_same) tail.clear();
    best_same = same;
    tail.push_back(i);
  }
  return exact.empty() ? tail : exact;
}

std::vector<LineLocation> LineTable::resolve(std::string_view file, int line) const {
  std::vector<LineLocation> out;
  auto ids = matching_files(file);
  if (ids.empty() || line <= 0) return out;
  auto in_files = [&](const Row& r) { return std::find(ids.begin(), ids.end(), r.file) != ids.end(); };
  // The requested line, else the nearest later line with a statement.
  int best = 0;
  for (const Row& r : rows_) {
    if (!r.stmt || r.end_sequence || r.line < line || !in_files(r)) continue;
    if (best == 0 || r.line < best) best = r.line;
  }
  if (best == 0) return out;
  for (const Row& r : rows_)
    if (r.stmt && !r.end_sequence && r.line == best && in_files(r)) out.push_back({r.addr, files_[r.file], r.line});
  return out;
}

std::optional<uint64_t> LineTable::after_prologue(uint64_t func_start, uint64_t func_end) const {
  auto first = line_at(func_start);
  if (!first) return std::nullopt;
  auto it = std::lower_bound(rows_.begin(), rows_.end(), func_start, [](const Row& r, uint64_t v) { return r.addr < v; });
  for (; it != rows_.end() && it->addr < func_end; ++it)
    if (!it->end_sequence && it->line > 0 && it->line != first->line && it->addr > func_start) return it->addr;
  return std::nullopt;
}

}  // namespace ttd::dbg
