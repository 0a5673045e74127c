#include "formats/tt6/testing/tt6_writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "formats/tt6/full_record.h"
#include "formats/tt6/ppc_opcode.h"

namespace ttd::fmt::tt6 {

Status save_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return make_error(path, std::string("cannot create file: ") + std::strerror(errno));
  size_t wrote = std::fwrite(bytes.data(), 1, bytes.size(), f);
  int closed = std::fclose(f);
  if (wrote != bytes.size() || closed != 0) return make_error(path, std::string("write failed: ") + std::strerror(errno));
  return {};
}

Tt6Writer::Tt6Writer(Variant variant, uint32_t initial_pc) : variant_(variant) { word(initial_pc); }

void Tt6Writer::word(uint32_t w) {
  size_t at = out_.size();
  out_.resize(at + 4);
  store_be32(out_.data() + at, w);
}

void Tt6Writer::instruction(uint32_t op, uint32_t next_pc, uint32_t ea, uint32_t extra) {
  word(op);
  switch (classifier(variant_).classify(op)) {
    case RecordClass::Compute:
    case RecordClass::Escape: break;  // opcode 0 is illegal; Amber never writes it as an instruction
    case RecordClass::FlowAltering: word(next_pc); break;
    case RecordClass::Memory: word(ea); break;
    case RecordClass::MemoryExtended:
      word(ea);
      word(extra);
      break;
  }
}

void Tt6Writer::escape(uint32_t code, std::span<const uint32_t> words) {
  word(make_escape(code, uint32_t(words.size())));
  for (uint32_t w : words) word(w);
}

void Tt6Writer::sync(uint32_t type, uint32_t sync_point, uint32_t count) {
  const uint32_t words[2] = {sync_point, count};
  escape(type, words);
}

void Tt6Writer::trap_return(uint32_t resume_pc) {
  word(kSyntheticTrapBranch);
  word(kTrapVector);
  word(kRfi);
  word(resume_pc);
}

FullWriter::FullWriter() {
  out_.resize(4);
  store_be32(out_.data(), kFullCookie);
}

void FullWriter::record(uint32_t op, const PpcUserState& before) {
  size_t at = out_.size();
  out_.resize(at + full::kRecordBytes);
  encode_full_record(op, before, out_.data() + at);
}

}  // namespace ttd::fmt::tt6
