// Prints FDR records one per line in the text of `llvm-xray fdr-dump`
// (LLVM's RecordPrinter), so a dump can be compared with the reference tool
// line by line. Skipped regions, which llvm-xray has no record for, print as
// "<Skipped: ...>" lines.
#pragma once
#include <ostream>

#include "formats/xray/fdr_record.h"

namespace ttd::fmt::xray {

class RecordPrinter : public RecordVisitor {
 public:
  RecordPrinter(std::ostream& os, uint16_t version) : os_(os), version_(version) {}
  Status visit(const FdrRecord& r) override;

 private:
  std::ostream& os_;
  uint16_t version_;
};

}  // namespace ttd::fmt::xray
