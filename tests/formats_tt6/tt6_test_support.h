// Helpers shared by the TT6 test files: the guest run (once per process),
// reading trace bytes through the readers, and the register values a
// PpcUserState stands for in the ppc32 table.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "formats/tt6/tt6_layout.h"
#include "ppc_guest_run.h"
#include "recording_sink.h"
#include "state/error.h"

namespace ttd::test {

const GuestRun& guest_run();

struct ReadOutcome {
  Status status;
  RecordingSink sink;
  std::string path;  // the (already removed) file the bytes were read from
};
// Writes bytes to a temp file with that suffix and reads it with the variant's reader.
std::unique_ptr<ReadOutcome> read_bytes(const std::vector<uint8_t>& bytes, fmt::tt6::Variant v,
                                        const std::string& suffix = "");

// The ppc32 register values (target byte order) that a FULL record's state
// gives; pc and invalid vector registers stay empty.
RegisterValues expected_registers(const fmt::tt6::PpcUserState& s);

// QEMU makes a load to check access for the cache-block instructions and
// for stwcx. (its compare-and-swap): Unicorn's hooks report those as reads,
// though the program reads no data.
bool hooked_read_is_probe(uint32_t opcode);

// Big-endian words -> bytes.
std::vector<uint8_t> be_words(std::initializer_list<uint32_t> words);

}  // namespace ttd::test
