#include "formats/ucir/ucir_segments.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <vector>

#include "formats/ucir/snappy_frame_reader.h"
#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_header.h"
#include "formats/ucir/ucir_op_parser.h"
#include "formats/ucir/ucir_op_window.h"
#include "formats/ucir/ucir_ops.h"
#include "formats/ucir/ucir_reader.h"
#include "formats/ucir/ucir_step_assembler.h"
#include "state/byte_order.h"

namespace ttd::fmt {

using namespace ucir;

struct SegmentBufferPool {
  std::mutex mu;
  std::vector<ByteBuffer> spare;
  ByteBuffer take() {
    std::lock_guard<std::mutex> l(mu);
    if (spare.empty()) return {};
    ByteBuffer b = std::move(spare.back());
    spare.pop_back();
    return b;
  }
  void give(ByteBuffer b) {
    std::lock_guard<std::mutex> l(mu);
    if (spare.size() < 8) spare.push_back(std::move(b));
  }
};

namespace {

// Names the file for a window over a segment's bytes (which are all in
// memory already: it serves none).
class SegmentSource final : public ChunkSource {
 public:
  explicit SegmentSource(const std::string& path) : path_(path) {}
  Result<size_t> next(uint8_t*) override { return size_t(0); }
  uint64_t chunk_offset() const override { return 0; }
  uint64_t position() const override { return 0; }
  uint64_t chunks() const override { return 0; }
  uint64_t file_size() const override { return 0; }
  const std::string& path() const override { return path_; }

 private:
  const std::string& path_;
};

class UcirSegment final : public TraceSegment {
 public:
  UcirSegment(SegmentStart start, ByteBuffer bytes, size_t size, uint64_t pc, UcirReader& reader,
              std::shared_ptr<const Uc1RegisterMap> regs, std::shared_ptr<SegmentBufferPool> pool)
      : bytes_(std::move(bytes)), size_(size), pc_(pc), reader_(reader), regs_(std::move(regs)),
        pool_(std::move(pool)) {
    start_ = std::move(start);
  }
  ~UcirSegment() override { pool_->give(std::move(bytes_)); }
  Status read(TraceSink& sink) override {
    SegmentSource src(reader_.path());
    OpWindow window(src, bytes_.data(), size_);
    StepAssembler steps(sink, reader_.desc(), UcirReader::kTid, UcirReader::kPid);
    steps.set_pc(pc_);
    OpParser parser(window, reader_.desc(), *regs_, steps);
    return parser.run({}, start_.end_eid == SegmentStart::kToEnd);
  }

 private:
  ByteBuffer bytes_;
  size_t size_;
  uint64_t pc_;
  UcirReader& reader_;
  std::shared_ptr<const Uc1RegisterMap> regs_;
  std::shared_ptr<SegmentBufferPool> pool_;
};

}  // namespace

std::unique_ptr<SegmentedRead> UcirReader::segments(uint64_t segment_steps) {
  if (segment_steps <= UcirSegmentedRead::kLeadSteps) return nullptr;
  return std::make_unique<UcirSegmentedRead>(*this, segment_steps);
}

UcirSegmentedRead::UcirSegmentedRead(UcirReader& reader, uint64_t segment_steps)
    : reader_(reader), segment_steps_(segment_steps) {}

UcirSegmentedRead::~UcirSegmentedRead() = default;

Error UcirSegmentedRead::fail(const std::string& why) {
  return make_error_at(reader_.path(), base_ + pos_, "cannot read in segments: " + why);
}

Status UcirSegmentedRead::read_head(TraceSink& sink) {
  const std::string& path = reader_.path();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return make_error(path, std::string("cannot open file: ") + std::strerror(errno));
  struct stat st {};
  const uint64_t size = fstat(fileno(f), &st) == 0 ? uint64_t(st.st_size) : 0;
  if (std::fseek(f, long(kHeaderSize), SEEK_SET) != 0) {
    std::fclose(f);
    return make_error_at(path, kHeaderSize, "cannot seek past the header");
  }
  frames_ = std::make_unique<SnappyFrameReader>(f, path, kHeaderSize, size);
  regs_ = std::make_shared<const Uc1RegisterMap>(reader_.desc());
  pool_ = std::make_shared<SegmentBufferPool>();
  OpWindow window(*frames_);
  StepAssembler steps(sink, reader_.desc(), UcirReader::kTid, UcirReader::kPid);
  OpParser parser(window, reader_.desc(), *regs_, steps);
  if (Status s = reader_.read_head(sink, parser, steps, *regs_); !s) return s;
  // The ops the window holds unread start the first segment.
  pc_ = seg_pc_ = steps.pc();
  base_ = window.offset();
  len_ = window.avail();
  buf_.grow(std::max<size_t>(len_ + ChunkSource::kMaxBlock, size_t(1) << 20), 0);
  if (len_) std::memcpy(buf_.data(), window.cur(), len_);
  seg_ = SegmentStart{};
  seg_.end_eid = segment_steps_;
  return {};
}

bool UcirSegmentedRead::more() {
  if (eof_ || error_) return false;
  if (buf_.size() - len_ < ChunkSource::kMaxBlock) buf_.grow(std::max(buf_.size() * 2, len_ + ChunkSource::kMaxBlock), len_);
  auto got = frames_->next(buf_.data() + len_);
  if (!got) {
    error_ = got.error();
    return false;
  }
  if (*got == 0 && frames_->cut_at()) {  // the ordered read salvages what is whole, and says so
    error_ = fail("the file ends inside its last chunk");
    return false;
  }
  if (*got == 0) {
    eof_ = true;
    return false;
  }
  len_ += *got;
  return true;
}

std::unique_ptr<TraceSegment> UcirSegmentedRead::cut(bool last) {
  seg_.file_done = frames_->position();
  seg_.file_size = frames_->file_size();
  const size_t size = last ? len_ : pos_;
  SegmentStart start = seg_;
  if (last) start.end_eid = SegmentStart::kToEnd;
  const uint64_t pc = seg_pc_;
  // The next segment starts at the lead-in step before its first; those
  // bytes (and what was decoded beyond them) move to a new buffer.
  ByteBuffer rest = last ? ByteBuffer() : pool_->take();
  if (!last) {
    const uint64_t first = seg_.end_eid;
    const StepAt lead = recent_[(first - kLeadSteps) & 3];
    rest.grow(std::max<size_t>(len_ - lead.pos + ChunkSource::kMaxBlock, size_t(1) << 20), 0);
    std::memcpy(rest.data(), buf_.data() + lead.pos, len_ - lead.pos);
    for (StepAt& s : recent_) s.pos = s.pos >= lead.pos ? s.pos - lead.pos : 0;
    base_ += lead.pos;
    len_ -= lead.pos;
    pos_ -= lead.pos;
    seg_.lead_eid = first - kLeadSteps;
    seg_.eid = first;
    seg_.end_eid = first + segment_steps_;
    seg_pc_ = lead.pc;
    // UCIR's only attribute keys: a syscall step's three, and "note" on a
    // final marker step (after every other).
    if (first_syscall_ < base_ && seg_.attr_keys.empty()) seg_.attr_keys = {"syscall", "args", "ret"};
  }
  ByteBuffer bytes = std::move(buf_);
  buf_ = std::move(rest);
  return std::make_unique<UcirSegment>(std::move(start), std::move(bytes), size, pc, reader_, regs_, pool_);
}

Result<std::unique_ptr<TraceSegment>> UcirSegmentedRead::next() {
  if (done_) return std::unique_ptr<TraceSegment>();
  for (;;) {
    // The frequent ops, whole in the buffer and outside keyframes and
    // syscalls, in locals and without the checks below (which take any
    // other op, and every op near the buffer's end).
    if (nested_left_ == 0 && len_ >= kFastRoom) {
      const uint8_t* b = buf_.data();
      const size_t last = len_ - kFastRoom;
      const uint64_t cut_step = seg_.end_eid + 1;  // the OP_STEP that sends the segment's end step
      size_t pos = pos_;
      uint64_t pc = pc_, steps = steps_;
      uint32_t frame_left = frame_left_;
      bool cut_now = false;
      while (pos <= last) {
        const uint8_t* q = b + pos;
        const uint8_t op = *q;
        size_t n;
        if (op == OP_STEP) {
          if (steps + 3 >= cut_step) recent_[steps & 3] = {pos, pc};  // the next lead-in's
          frame_left -= frame_left > 0;
          pc += q[1];
          pos += 2;
          if (steps++ == cut_step) {
            cut_now = true;
            break;
          }
          continue;
        }
        if (op == OP_REG) {
          n = 1 + kFixedBody[OP_REG];
        } else if (op == OP_MEM_READ) {
          n = 1 + kFixedBody[OP_MEM_READ];
        } else if (op == OP_MEM_WRITE) {
          n = 1 + kFixedBody[OP_MEM_WRITE] + size_t(load_le32(q + 9));
          if (n > len_ - pos) break;
        } else if (op == OP_JMP) {
          pc = load_le64(q + 1);
          n = 1 + kFixedBody[OP_JMP];
        } else {
          break;
        }
        frame_left -= frame_left > 0;
        pos += n;
      }
      pos_ = pos;
      pc_ = pc;
      steps_ = steps;
      frame_left_ = frame_left;
      if (cut_now) return cut(false);
    }
    if (!have(1)) {
      if (error_) return *error_;
      if (frame_left_ || nested_left_) return fail("the stream ends inside a frame, keyframe or syscall");
      done_ = true;
      return cut(true);
    }
    const uint8_t op = buf_.data()[pos_];
    if (op >= kOpCount) return fail("unknown op " + std::to_string(op));
    size_t n = 1 + kFixedBody[op];
    if (!have(n)) return error_ ? *error_ : fail("truncated op");
    const uint8_t* p = buf_.data() + pos_ + 1;
    switch (op) {
      case OP_SPREG: n += load_le16(p + 2); break;
      case OP_MEM_WRITE: n += load_le32(p + 8); break;
      case OP_MEM_MAP: n += size_t(load_le16(p + 33)) + load_le16(p + 35); break;
      case OP_SYSCALL: n += size_t(8) * p[12]; break;
      default: break;
    }
    if (!have(n)) return error_ ? *error_ : fail("truncated op");
    p = buf_.data() + pos_ + 1;  // have() may have moved the buffer
    const bool framing = op == OP_FRAME || op == OP_KEYFRAME || op == OP_STEP || op == OP_SYSCALL;
    if (nested_left_ > 0) {  // inside a keyframe or syscall: what the parser allows there
      if (framing) return fail("misplaced op");
      --nested_left_;
    } else if (op == OP_FRAME || op == OP_KEYFRAME) {
      if (frame_left_ > 0) return fail("frame inside a frame");
      if (load_le64(p) != 0) return fail("a frame names another thread");
      (op == OP_FRAME ? frame_left_ : nested_left_) = load_le32(p + 8);
    } else {
      if (frame_left_ > 0) --frame_left_;
      if (op == OP_SYSCALL) {
        nested_left_ = load_le16(p + 13);
        if (first_syscall_ == ~0ull) first_syscall_ = base_ + pos_;
      }
    }
    if (op == OP_JMP) pc_ = load_le64(p);
    if (op == OP_STEP) {
      recent_[steps_ & 3] = {pos_, pc_};
      pc_ += p[0];
      pos_ += n;
      // This OP_STEP sends the step before it: the segment's end step.
      if (steps_++ == seg_.end_eid + 1) return cut(false);
      continue;
    }
    pos_ += n;
  }
}

}  // namespace ttd::fmt
