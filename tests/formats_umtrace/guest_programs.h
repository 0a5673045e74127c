// Machine code of the guest programs the tests trace (see guest_programs.cpp).
#pragma once
#include <cstdint>
#include <vector>

namespace ttd::test {

extern const std::vector<uint8_t> kGuest64;
constexpr uint64_t kGuest64Done = 0xbb;  // offset of `done`: threads end there
extern const std::vector<uint8_t> kGuest32;
constexpr uint64_t kGuest32Done = 0x78;

}  // namespace ttd::test
