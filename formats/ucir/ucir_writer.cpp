// UcirWriter implementation: buffers one frame of ops, then writes it as
// OP_FRAME/OP_KEYFRAME with its op count through the snappy framing
// encoder (the count comes first, so a frame cannot be streamed).
#include "formats/ucir/ucir_writer.h"
#include "state/byte_order.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <vector>

#include "formats/ucir/snappy_frame_writer.h"
#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_header.h"
#include "formats/ucir/ucir_op_encoder.h"

namespace ttd::fmt {

namespace {

using namespace ucir;

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMaxWrite = 1 << 24;       // keeps single ops small for readers' buffers
constexpr uint16_t kMaxSyscallOps = 0xffff;

class UcirFileWriter final : public UcirWriter {
 public:
  UcirFileWriter(std::FILE* f, std::string path, const ArchDesc& arch, bool background)
      : file_(f), path_(path), out_(f, path, background), arch_(arch), regs_(arch) {
    out_.promise_end_record();
    // reg() runs for most instructions a recorder writes: its number and
    // width per register index, looked up once here.
    codes_.resize(arch.regs.size());
    for (uint16_t i = 0; i < arch.regs.size(); ++i) {
      const auto num = i == arch.pc_index ? std::nullopt : regs_.number_of(i);
      codes_[i] = {num ? int32_t(*num) : -1, arch.regs[i].bytes()};
    }
  }
  // Destroyed unclosed (an error path): no end record, so the file reads
  // as a recording that did not finish.
  ~UcirFileWriter() override {
    if (file_) (void)finish(std::nullopt);
  }

  void begin_keyframe() override {
    finish_frame();
    open(OP_KEYFRAME);
    kf_maps_.clear();
  }
  void end_keyframe() override {
    if (kind_ == OP_KEYFRAME) finish_frame();
  }
  void begin_frame() override {
    finish_frame();
    open(OP_FRAME);
  }
  void set_thread(uint32_t thread) override {
    const uint64_t field = thread ? thread - 1 : 0;
    if (field == thread_field_) return;
    finish_frame();  // the open frame is the old thread's
    thread_field_ = field;
  }
  void begin_thread_keyframe(uint32_t thread) override {
    finish_frame();
    open(OP_KEYFRAME, thread ? thread - 1 : 0);
    kf_maps_.clear();
  }
  void jmp(uint64_t addr, uint32_t block_size) override {
    end_syscall();
    ensure_frame();
    enc().jmp(addr, block_size);
    count_op();
  }
  void block(uint64_t addr, uint32_t block_size) override {
    if (kind_ != OP_FRAME || frame_.size() >= kBlockFrameBytes) begin_frame();
    jmp(addr, block_size);
  }
  void step(uint8_t size) override {
    end_syscall();
    if (kind_ == OP_FRAME && frame_.size() >= kFrameSplitBytes) begin_frame();
    ensure_frame();
    enc().step(size);
    count_op();
  }
  void reg(uint16_t reg_index, std::span<const uint8_t> value_le) override {
    if (reg_index == arch_.pc_index) return;  // UCIR's pc lives in OP_JMP / OP_STEP
    if (reg_index >= codes_.size()) return void(++dropped_);
    const RegCode code = codes_[reg_index];
    if (code.number < 0) return void(++dropped_);
    ensure_frame();
    const uint16_t num = uint16_t(code.number);
    if (code.width <= 8) {
      const uint64_t v = value_le.size() >= 8 ? load_le64(value_le.data())
                                              : load_le(value_le.data(), value_le.size());
      enc().reg(num, v);
    } else {
      uint8_t buf[ucir::kMaxSpRegBytes] = {};
      const size_t n = std::min<size_t>(code.width, sizeof buf);
      if (!value_le.empty()) std::memcpy(buf, value_le.data(), std::min(n, value_le.size()));
      enc().spreg(num, {buf, n});
    }
    count_op();
  }
  void reg_u64(uint16_t reg_index, uint64_t value) override {
    uint8_t le[8];
    store_le64(le, value);
    reg(reg_index, le);
  }
  void mem_read(uint64_t addr, uint32_t size) override {
    ensure_frame();
    enc().mem_read(addr, size);
    count_op();
  }
  void mem_write(uint64_t addr, std::span<const uint8_t> bytes) override {
    ensure_frame();
    while (!bytes.empty()) {
      uint64_t take = std::min<uint64_t>(bytes.size(), kMaxWrite);
      if (kind_ == OP_KEYFRAME) take = std::min(take, kPage - (addr % kPage));
      if (kind_ == OP_KEYFRAME) note_keyframe_write(addr, take);
      enc().mem_write(addr, bytes.first(take));
      count_op();
      addr += take;
      bytes = bytes.subspan(take);
    }
  }
  void mem_map(uint64_t addr, uint64_t size, uint8_t prot, std::string_view desc, std::string_view file,
               uint64_t file_off, uint64_t file_size) override {
    ensure_frame();
    desc = desc.substr(0, 0xffff);
    file = file.substr(0, 0xffff);
    enc().mem_map(addr, size, prot, file_off, file_size, desc, file);
    count_op();
    if (kind_ == OP_KEYFRAME) kf_maps_.push_back({addr, size});
  }
  void mem_unmap(uint64_t addr, uint64_t size) override {
    ensure_frame();
    enc().mem_unmap(addr, size);
    count_op();
  }
  void mem_protect(uint64_t addr, uint64_t size, uint8_t prot) override {
    ensure_frame();
    enc().mem_prot(addr, size, prot);
    count_op();
  }
  void begin_syscall(uint32_t num, uint64_t ret, std::span<const uint64_t> args) override {
    end_syscall();
    ensure_frame();
    sys_num_ = num;
    sys_ret_ = ret;
    sys_args_.assign(args.begin(), args.begin() + std::min<size_t>(args.size(), 255));
    start_syscall_op();
  }
  void end_syscall() override {
    if (!in_syscall_) return;
    patch_syscall_count();
    in_syscall_ = false;
  }
  void exit() override {
    ensure_frame();
    enc().exit();
    count_op();
  }
  Status close(std::string_view ending = {}) override {
    return finish(ending.empty() ? std::string_view("complete") : ending);
  }
  Status finish(std::optional<std::string_view> ending) {
    if (!file_) return status_;
    end_syscall();
    finish_frame();
    Status s = out_.finish(ending);
    if (std::fclose(file_) != 0 && s.ok()) s = make_error(path_, "write error on close");
    file_ = nullptr;
    if (status_.ok()) status_ = s;
    return status_;
  }
  uint64_t dropped_registers() const override { return dropped_; }

  Status write_header(std::string_view os) {
    Header h;
    h.version_big_endian = true;
    h.arch = usercorn_arch_name(arch_.id);
    h.os = std::string(os);
    h.code_order = h.data_order = arch_.endian == Endian::Big ? 1 : 0;
    const auto bytes = encode_header(h);
    if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) return make_error(path_, "write error");
    return {};
  }

 private:
  struct KeyframeMap {
    uint64_t addr, size;
    uint32_t writes = 0;
    uint64_t first_addr = 0, first_len = 0;
  };

  BasicOpEncoder<OpBuffer> enc() { return BasicOpEncoder<OpBuffer>(frame_); }

  // Frames carry the current thread; the process keyframe says 0.
  void open(uint8_t kind) { open(kind, kind == OP_FRAME ? thread_field_ : 0); }
  void open(uint8_t kind, uint64_t pid_field) {
    kind_ = kind;
    open_pid_ = pid_field;
    frame_.clear();
    frame_ops_ = 0;
  }
  void ensure_frame() {
    if (kind_ == 0) open(OP_FRAME);
  }
  // Every op goes either into the open syscall (counted there) or into the
  // frame.
  void count_op() {
    if (in_syscall_) {
      if (++sys_ops_ == kMaxSyscallOps) {
        // The count is a u16: continue in another OP_SYSCALL with the same
        // number, which readers attach to the same step.
        patch_syscall_count();
        start_syscall_op();
      }
      return;
    }
    ++frame_ops_;
  }
  void start_syscall_op() {
    in_syscall_ = true;
    sys_pos_ = frame_.size();
    sys_ops_ = 0;
    enc().syscall_header(sys_num_, sys_ret_, sys_args_, 0);
    ++frame_ops_;
  }
  void patch_syscall_count() {
    // op u8, num u32, ret u64, argc u8, then the u16 count.
    const size_t at = sys_pos_ + 1 + 4 + 8 + 1;
    frame_.data()[at] = uint8_t(sys_ops_);
    frame_.data()[at + 1] = uint8_t(sys_ops_ >> 8);
  }
  void note_keyframe_write(uint64_t addr, uint64_t len) {
    for (auto it = kf_maps_.rbegin(); it != kf_maps_.rend(); ++it) {
      if (addr >= it->addr && addr - it->addr < it->size) {
        if (it->writes++ == 0) it->first_addr = addr, it->first_len = len;
        return;
      }
    }
  }
  // Disambiguates mappings whose only keyframe write sits at their base
  // and is shorter than the mapping (see the header comment).
  void fix_keyframe_writes() {
    for (const KeyframeMap& m : kf_maps_) {
      if (m.writes == 1 && m.first_addr == m.addr && m.first_len > 0 && m.first_len < m.size) {
        static const uint8_t zero = 0;
        enc().mem_write(m.addr + m.first_len, {&zero, 1});
        count_op();
      }
    }
    kf_maps_.clear();
  }
  void finish_frame() {
    end_syscall();
    if (kind_ == 0) return;
    if (kind_ == OP_KEYFRAME) fix_keyframe_writes();
    // Many frames when recording: the header buffer is reused rather than
    // allocated each time.
    head_.clear();
    BasicOpEncoder<OpBuffer>(head_).frame_header(kind_, open_pid_, frame_ops_);
    out_.write(head_.bytes());
    out_.write(frame_.bytes());
    kind_ = 0;
    frame_.clear();
    frame_ops_ = 0;
  }

  std::FILE* file_;
  std::string path_;
  SnappyFrameWriter out_;
  const ArchDesc& arch_;
  Uc1RegisterMap regs_;
  Status status_;
  uint64_t open_pid_ = 0;      // pid field of the open frame
  uint64_t thread_field_ = 0;  // pid field of the frames to come (set_thread)
  OpBuffer head_;  // the frame header being written (finish_frame)
  size_t sys_pos_ = 0;
  uint32_t sys_ops_ = 0;
  uint32_t sys_num_ = 0;
  uint64_t sys_ret_ = 0;
  std::vector<uint64_t> sys_args_;
  std::vector<KeyframeMap> kf_maps_;
  uint64_t dropped_ = 0;
};

}  // namespace

Result<std::unique_ptr<UcirWriter>> UcirWriter::create(const std::string& path, ArchId arch, std::string_view os,
                                                       bool compress_in_background) {
  const ArchDesc* desc = nullptr;
  try {
    desc = &arch_desc(arch);
  } catch (const std::exception& e) {
    return make_error(path, std::string("no architecture table: ") + e.what());
  }
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return make_error(path, std::string("cannot create file: ") + std::strerror(errno));
  auto w = std::make_unique<UcirFileWriter>(f, path, *desc, compress_in_background);
  if (Status s = w->write_header(os); !s) return s.error();
  return std::unique_ptr<UcirWriter>(std::move(w));
}

}  // namespace ttd::fmt
