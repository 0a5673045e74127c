// Small UCIR traces used by several tests and as the fuzz seed corpus.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ttd::test {

// x86-64 via UcirWriter: keyframe (rax, rsp, two mappings), two blocks, a
// write syscall with kernel effects, exit_group. Returns the file path.
std::string write_sample_x86_64(const std::string& path);
// The same shape as usercorn lays it out, built from raw ops: keyframe
// with one zero-trimmed write per mapping, the exit syscall before the
// exit instruction's OP_STEP.
std::string write_usercorn_style_x86_64(const std::string& path);
std::vector<uint8_t> usercorn_style_x86_64_ops();  // the decompressed op stream of that file
// i386 trace with a little-endian version field.
std::string write_sample_i386_le_version(const std::string& path);
std::vector<uint8_t> i386_ops();

// Writes the seed files into dir; false on I/O failure.
bool write_seed_corpus(const std::string& dir);

}  // namespace ttd::test
