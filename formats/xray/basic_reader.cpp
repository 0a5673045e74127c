#include "formats/xray/basic_reader.h"

#include "state/byte_order.h"

namespace ttd::fmt::xray {

namespace {

class BasicReader {
 public:
  BasicReader(FileWindow& in, const FileHeader& h, EventConsumer& out) : in_(in), h_(h), out_(out) {}

  Status run(const std::function<bool(uint64_t)>& tick) {
    uint64_t n = 0;
    while (in_.remaining() >= kBasicRecordSize) {
      uint64_t off = in_.offset();
      auto p = in_.view(off, kBasicRecordSize);
      if (!p) return p.error();
      if (auto s = record(*p, off); !s) return s;
      in_.skip(kBasicRecordSize);
      if ((++n & 0xffff) == 0 && tick && !tick(in_.offset()))
        return make_error_at(in_.path(), in_.offset(), "reading cancelled");
    }
    if (auto s = flush(); !s) return s;
    if (in_.remaining() != 0)
      return make_error_at(
          in_.path(), in_.offset(),
          "the last " + std::to_string(in_.remaining()) + " bytes are not a whole 32-byte record (file truncated?)");
    return {};
  }

 private:
  Status flush() {
    if (!pending_) return {};
    pending_ = false;
    ev_.eid = next_eid_++;
    return out_.on_event(ev_);
  }

  Status record(const uint8_t* p, uint64_t off) {
    uint16_t type = load_le16(p);
    if (type == 0) {
      if (auto s = flush(); !s) return s;
      uint8_t action = p[3];
      if (action > 3)
        return make_error_at(in_.path(), off,
                             "unknown function record action " + std::to_string(action) +
                                 " (0 enter, 1 exit, 2 tail exit, 3 enter with args)");
      static constexpr EventKind kinds[] = {EventKind::Enter, EventKind::Exit, EventKind::TailExit,
                                            EventKind::EnterArgs};
      ev_.kind = kinds[action];
      ev_.offset = off;
      ev_.cpu = p[2];
      ev_.func_id = uint32_t(load_le_i32(p + 4));
      ev_.tsc = load_le64(p + 8);
      ev_.tid = load_le32(p + 16);
      ev_.pid = load_le32(p + 20);
      ev_.args.clear();
      if (is_entry(ev_.kind)) {
        pending_ = true;  // argument records may follow
        return {};
      }
      ev_.eid = next_eid_++;
      return out_.on_event(ev_);
    }
    if (type == 1) {
      uint32_t func = uint32_t(load_le_i32(p + 4));
      uint32_t tid = load_le32(p + 8), pid = load_le32(p + 12);
      if (!pending_ || func != ev_.func_id || tid != ev_.tid || (h_.version >= 3 && pid != ev_.pid))
        return make_error_at(in_.path(), off,
                             "argument record for function " + std::to_string(func) + ", thread " +
                                 std::to_string(tid) + " does not follow an entry of that function and thread");
      ev_.args.push_back(load_le64(p + 16));
      ev_.kind = EventKind::EnterArgs;
      return {};
    }
    return make_error_at(in_.path(), off,
                         "unknown basic-mode record type " + std::to_string(type) + " (0 function, 1 argument)");
  }

  FileWindow& in_;
  const FileHeader& h_;
  EventConsumer& out_;
  XrayEvent ev_;
  bool pending_ = false;
  uint64_t next_eid_ = 0;
};

}  // namespace

Status read_basic_log(FileWindow& in, const FileHeader& h, EventConsumer& out,
                      const std::function<bool(uint64_t)>& tick) {
  BasicReader r(in, h, out);
  return r.run(tick);
}

}  // namespace ttd::fmt::xray
