// Recognising TT6-family files. TT6 and TT6E carry no magic, so they are
// told by extension (.tt6, .tt6e) and then checked for plausibility: a
// whole number of longwords, a word-aligned INITIAL_PC, and records in the
// first 4 KiB that parse (word-aligned branch targets, escape records that
// fit). FULL has its cookie; its extension (.full) or a size of a whole
// number of records backs it up.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "formats/tt6/tt6_layout.h"

namespace ttd::fmt::tt6 {

bool has_extension(const std::string& path, const char* ext);  // ext like ".tt6", any case
bool plausible_tt6(std::span<const uint8_t> head, uint64_t file_size, Variant variant);
bool plausible_full(std::span<const uint8_t> head, uint64_t file_size, bool full_extension);
bool sniff_variant(const std::string& path, std::span<const uint8_t> head, Variant variant);

}  // namespace ttd::fmt::tt6
