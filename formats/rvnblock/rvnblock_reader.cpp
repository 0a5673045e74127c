#include "formats/rvnblock/rvnblock_reader.h"

#include <sys/stat.h>

#include <ctime>

#include "formats/common/step_limit.h"

namespace ttd::fmt::rvnblock {

namespace {

// Report progress (and allow cancelling) this often, in transitions.
constexpr uint64_t kProgressInterval = 1u << 16;

std::string utc_date(uint64_t seconds) {
  std::time_t t = std::time_t(seconds);
  std::tm tm{};
  if (!gmtime_r(&t, &tm)) return std::to_string(seconds);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace

Result<std::unique_ptr<RvnblockReader>> RvnblockReader::open(const std::string& path, const ReaderOptions& opts) {
  auto trace = BlockTrace::open(path);
  if (!trace) return trace.error();
  // Every execution row names where its run ends, so the last one alone
  // sets how many steps read() emits: bound it by what the file can hold.
  struct stat st {};
  uint64_t file_bytes = ::stat(path.c_str(), &st) == 0 ? uint64_t(st.st_size) : 0;
  if (Status s = check_step_count(path, trace.value()->transition_count(),
                                  "the execution table (its last row's transition_id)", opts, file_bytes);
      !s)
    return s.error();
  return std::unique_ptr<RvnblockReader>(new RvnblockReader(std::move(trace.value())));
}

TraceInfo RvnblockReader::info() const {
  const RvnMetadata& md = trace_->metadata();
  TraceInfo info;
  info.format = "rvnblock";
  info.arch = trace_->arch();
  info.caps.code_bytes = true;
  info.caps.note = "pc sequence and code only: registers and data memory unknown";
  info.properties = {
      {"format version", md.format_version},
      {"tool", md.tool_name + " " + md.tool_version},
      {"tool info", md.tool_info},
      {"generated", utc_date(md.generation_date)},
      {"transitions", std::to_string(trace_->transition_count())},
      {"blocks", std::to_string(trace_->block_count() ? trace_->block_count() - 1 : 0)},
  };
  return info;
}

Status RvnblockReader::read(TraceSink& sink, const Progress& progress) {
  auto runs = trace_->runs();
  if (!runs) return runs.error();
  auto interrupts = trace_->interrupts();
  if (!interrupts) return interrupts.error();
  sink.begin(info());

  const uint64_t total = trace_->transition_count();
  uint64_t next_report = 0;  // report after the first run, then every interval
  BlockRun run;
  for (;;) {
    auto more = runs->next(run);
    if (!more) return more.error();
    if (!more.value()) break;

    if (run.block_id == kInterruptBlockId) {
      // An interrupt or fault takes one transition; a longer run of the
      // interrupt block is several of them in a row.
      for (uint64_t t = run.begin; t < run.end; ++t) {
        auto irq = interrupts->at(t);
        if (!irq) return irq.error();
        StepInfo s{kThreadId, kProcessId, irq.value() ? irq.value()->pc : 0, 0, StepKind::Interrupt};
        sink.step(s);
        if (const auto& rec = irq.value()) {
          sink.attr("interrupt", AttrValue(rec->number));
          sink.attr("hardware", AttrValue(uint64_t(rec->is_hw)));
          if (rec->related_block_id > 0)
            sink.attr("related block", AttrValue(uint64_t(rec->related_block_id)));
        }
      }
    } else {
      if (run.count() > 0xffff)
        return make_error(trace_->path(), "execution row ending at transition " + std::to_string(run.end) +
                                              " runs " + std::to_string(run.count()) +
                                              " transitions, longer than any block");
      auto got = trace_->block(run.block_id, uint32_t(run.count()));
      if (!got) return got.error();
      Block& b = *got.value();
      if (run.count() > b.instruction_count)
        return make_error(trace_->path(), "execution row ending at transition " + std::to_string(run.end) +
                                              " runs " + std::to_string(run.count()) + " instructions of block " +
                                              std::to_string(b.id) + ", which has only " +
                                              std::to_string(b.instruction_count));
      // Code becomes known right before it first runs: it is an effect of
      // the previous step (or initial state), so that the state at the
      // block's first EID can be disassembled.
      if (!b.code_emitted) {
        sink.mem_write(kProcessId, b.pc, b.code);
        b.code_emitted = true;
      }
      for (uint64_t i = 0; i < run.count(); ++i)
        sink.step(StepInfo{kThreadId, kProcessId, b.pc + b.offsets[i], b.sizes[i], StepKind::Instruction});
    }

    if (run.end >= next_report) {
      next_report = run.end + kProgressInterval;
      if (progress && !progress(run.end, total))
        return make_error(trace_->path(), "reading cancelled at transition " + std::to_string(run.end));
    }
  }
  if (progress) progress(total, total);
  sink.end();
  return {};
}

}  // namespace ttd::fmt::rvnblock
