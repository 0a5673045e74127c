#include "engine/build_effect_log.h"

namespace ttd {

namespace {
// Reads fixed-width fields written by BuildEffectLog; ok() turns false at
// the first read past the end.
class LogReader {
 public:
  LogReader(const uint8_t* p, size_t n) : p_(p), end_(p + n) {}
  bool at_end() const { return p_ == end_; }
  bool ok() const { return ok_; }
  template <class T>
  T get() {
    T v{};
    if (size_t(end_ - p_) < sizeof v) {
      ok_ = false;
      p_ = end_;
      return v;
    }
    std::memcpy(&v, p_, sizeof v);
    p_ += sizeof v;
    return v;
  }
  const uint8_t* take(uint64_t n) {
    if (uint64_t(end_ - p_) < n) {
      ok_ = false;
      p_ = end_;
      return nullptr;
    }
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  bool ok_ = true;
};
}  // namespace

bool BuildEffectLog::replay(const uint8_t* data, size_t size, StateApplier& a) {
  LogReader r(data, size);
  while (!r.at_end()) {
    const Op op = Op(r.get<uint8_t>());
    switch (op) {
      case Op::BeginStep: {
        auto tidx = r.get<uint32_t>();
        auto pc = r.get<uint64_t>();
        auto n = r.get<uint32_t>();
        if (!r.ok()) return false;
        a.begin_step(tidx, pc, n);
        break;
      }
      case Op::Position: {
        auto tidx = r.get<uint32_t>();
        auto pc = r.get<uint64_t>();
        if (!r.ok()) return false;
        a.position(tidx, pc);
        break;
      }
      case Op::Reg: {
        auto tidx = r.get<uint32_t>();
        auto reg = r.get<uint16_t>();
        auto len = r.get<uint32_t>();
        const uint8_t* v = r.take(len);
        if (!r.ok()) return false;
        a.reg(tidx, reg, v, len);
        break;
      }
      case Op::RegUnknown: {
        auto tidx = r.get<uint32_t>();
        auto reg = r.get<uint16_t>();
        if (!r.ok()) return false;
        a.reg_unknown(tidx, reg);
        break;
      }
      case Op::MemWrite: {
        auto pid = r.get<uint64_t>();
        auto addr = r.get<uint64_t>();
        auto len = r.get<uint64_t>();
        const uint8_t* v = r.take(len);
        if (!r.ok()) return false;
        a.mem_write(pid, addr, v, len);
        break;
      }
      case Op::MemUnknown:
      case Op::MemUnmap:
      case Op::MemProtect:
      case Op::MemMap: {
        auto pid = r.get<uint64_t>();
        auto addr = r.get<uint64_t>();
        auto n = r.get<uint64_t>();
        if (op == Op::MemUnknown) {
          if (!r.ok()) return false;
          a.mem_unknown(pid, addr, n);
          break;
        }
        if (op == Op::MemUnmap) {
          if (!r.ok()) return false;
          a.mem_unmap(pid, addr, n);
          break;
        }
        auto prot = r.get<uint8_t>();
        if (op == Op::MemProtect) {
          if (!r.ok()) return false;
          a.mem_protect(pid, addr, n, prot);
          break;
        }
        auto name_len = r.get<uint32_t>();
        const uint8_t* name = r.take(name_len);
        if (!r.ok()) return false;
        a.mem_map(pid, addr, n, prot, std::string_view(reinterpret_cast<const char*>(name), name_len));
        break;
      }
      case Op::ThreadBegin:
      case Op::ThreadEnd: {
        auto tidx = r.get<uint32_t>();
        if (!r.ok()) return false;
        if (op == Op::ThreadBegin)
          a.thread_begin(tidx);
        else
          a.thread_end(tidx);
        break;
      }
      default:
        return false;
    }
  }
  return r.ok();
}

}  // namespace ttd
