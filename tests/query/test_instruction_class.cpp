// The one call/return/jump classifier, per architecture, on real
// encodings: x86-64 and aarch64 and ppc32 bytes from the Debian cross
// assemblers (x86_64-/aarch64-/powerpc-linux-gnu-as, objdump -d); arm and
// mips words written from the ISA manuals and checked against Capstone 4's
// decoding. Calls that Capstone 4 leaves in the jump group only (RISC bl,
// jal, bctrl...) and returns that are not `ret` (bx lr, pop {pc}, jr $ra,
// blr) are the cases the DAP stepper used to miss.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "engine/query/instruction_class.h"

using namespace ttd;
using namespace ttd::query;

namespace {

struct Case {
  uint32_t word;  // one 32-bit instruction, written in the arch's byte order
  InsnClass cls;
  const char* text;
};

std::vector<uint8_t> bytes_of(uint32_t w, Endian e) {
  std::vector<uint8_t> b(4);
  for (int k = 0; k < 4; ++k) b[k] = uint8_t(e == Endian::Big ? w >> (24 - 8 * k) : w >> (8 * k));
  return b;
}

void check_words(ArchId arch, const std::vector<Case>& cases) {
  const ArchDesc& a = arch_desc(arch);
  InstructionClassifier cls(a);
  for (const Case& c : cases) {
    auto code = bytes_of(c.word, a.endian);
    CAPTURE(c.text);
    CHECK(insn_class_name(cls.classify(0x1000, code)) == std::string(insn_class_name(c.cls)));
  }
}

}  // namespace

TEST_CASE("classifier: ppc32 calls are every branch with LK=1, returns bclr with LK=0") {
  check_words(ArchId::Ppc32, {
                                 {0x48000009, InsnClass::Call, "bl .+8"},
                                 {0x48000103, InsnClass::Call, "bla 0x100"},
                                 {0x429f0005, InsnClass::Call, "bcl 20,31,.+4"},
                                 {0x41820009, InsnClass::Call, "beql .+8"},
                                 {0x4e800421, InsnClass::Call, "bctrl"},
                                 {0x4e800021, InsnClass::Call, "blrl"},
                                 {0x4d820421, InsnClass::Call, "beqctrl"},
                                 {0x4e800020, InsnClass::Return, "blr"},
                                 {0x4d820020, InsnClass::Return, "beqlr"},
                                 {0x4e000020, InsnClass::Return, "bdnzlr"},
                                 {0x4e800420, InsnClass::Jump, "bctr"},
                                 {0x48000008, InsnClass::Jump, "b .+8"},
                                 {0x41820008, InsnClass::Jump, "beq .+8"},
                                 {0x38630001, InsnClass::Other, "addi r3,r3,1"},
                             });
}

TEST_CASE("classifier: arm bl/blx calls, bx lr, pop {pc}, ldm sp!/fp {pc}, mov pc, lr returns") {
  check_words(ArchId::Arm, {
                               {0xeb000000, InsnClass::Call, "bl .+8"},
                               {0x0bfffffe, InsnClass::Call, "bleq ."},
                               {0xe12fff33, InsnClass::Call, "blx r3"},
                               {0xe12fff1e, InsnClass::Return, "bx lr"},
                               {0x012fff1e, InsnClass::Return, "bxeq lr"},
                               {0xe8bd8010, InsnClass::Return, "pop {r4, pc} (ldm sp!, {r4, pc})"},
                               {0xe49df004, InsnClass::Return, "pop {pc} (ldr pc, [sp], #4)"},
                               {0xe91ba830, InsnClass::Return, "ldmdb fp, {r4, r5, fp, sp, pc}"},
                               {0xe1a0f00e, InsnClass::Return, "mov pc, lr"},
                               {0xe12fff13, InsnClass::Jump, "bx r3"},
                               {0xe891800f, InsnClass::Jump, "ldm r1, {r0-r3, pc}"},
                               {0xeafffffe, InsnClass::Jump, "b ."},
                               {0xe8bd0030, InsnClass::Other, "pop {r4, r5}"},
                               {0xe1a0e00f, InsnClass::Other, "mov lr, pc"},
                           });
}

TEST_CASE("classifier: mips jal/jalr/bal calls, jr $ra returns") {
  check_words(ArchId::Mips, {
                                {0x0c100000, InsnClass::Call, "jal 0x400000"},
                                {0x0320f809, InsnClass::Call, "jalr $t9"},
                                {0x04110004, InsnClass::Call, "bal .+20"},
                                {0x04100004, InsnClass::Call, "bltzal $zero, .+20"},
                                {0x03e00008, InsnClass::Return, "jr $ra"},
                                {0x03200008, InsnClass::Jump, "jr $t9"},
                                {0x10000004, InsnClass::Jump, "b .+20"},
                                {0x24420001, InsnClass::Other, "addiu $v0, $v0, 1"},
                            });
}

TEST_CASE("classifier: aarch64 bl/blr calls, ret returns") {
  check_words(ArchId::AArch64, {
                                   {0x94000002, InsnClass::Call, "bl .+8"},
                                   {0xd63f0020, InsnClass::Call, "blr x1"},
                                   {0xd65f03c0, InsnClass::Return, "ret"},
                                   {0xd61f0020, InsnClass::Jump, "br x1"},
                                   {0x14000001, InsnClass::Jump, "b .+4"},
                                   {0xb4000040, InsnClass::Jump, "cbz x0, .+8"},
                                   {0x91000400, InsnClass::Other, "add x0, x0, #1"},
                               });
}

TEST_CASE("classifier: x86-64 and x86 call/ret/jumps, no bytes is Unknown") {
  for (ArchId arch : {ArchId::X86_64, ArchId::I386}) {
    InstructionClassifier cls(arch_desc(arch));
    auto at = [&](std::vector<uint8_t> b) { return cls.classify(0x1000, b); };
    CHECK(at({0xe8, 0, 0, 0, 0}) == InsnClass::Call);
    CHECK(at({0xff, 0xd0}) == InsnClass::Call);  // call *%rax / *%eax
    CHECK(at({0xc3}) == InsnClass::Return);
    CHECK(at({0xeb, 0x00}) == InsnClass::Jump);
    CHECK(at({0x75, 0x00}) == InsnClass::Jump);
    CHECK(at({0x83, 0xc0, 0x01}) == InsnClass::Other);  // add $1, %eax
    CHECK(at({}) == InsnClass::Unknown);
    CHECK(at({0xe8, 0x00}) == InsnClass::Unknown);  // truncated: does not decode
  }
  InstructionClassifier ppc(arch_desc(ArchId::Ppc32));
  CHECK(ppc.classify(0x1000, {}) == InsnClass::Unknown);
}
