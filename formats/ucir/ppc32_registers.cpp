// ttd's ppc32 extension of UCIR (docs/formats/ucir.md, "ppc32"): usercorn
// never traced PowerPC and Unicorn 1.x has no PowerPC registers, so the
// numbers are Unicorn 2's (Debian's 2.0.1 include/unicorn/ppc.h,
// UC_PPC_REG_*), and the AltiVec registers, which Unicorn 2.0.1 does not
// expose, get ttd's own numbers from 512 on (well past the enum's end at
// 80, so a later Unicorn that adds registers cannot collide). usercorn
// itself does not read these files; ttd's reader does.
#include "formats/ucir/uc1_registers.h"

namespace ttd::fmt::ucir {

namespace {

// No register is "tracked": usercorn's zero fill from the keyframe is a
// property of its own traces, which never held ppc32; a register the
// keyframe leaves out stays unknown.
constexpr Uc1Register kPpc32[] = {
    {2, "r0", false},     {3, "r1", false},     {4, "r2", false},     {5, "r3", false},    // UC_PPC_REG_0..
    {6, "r4", false},     {7, "r5", false},     {8, "r6", false},     {9, "r7", false},
    {10, "r8", false},    {11, "r9", false},    {12, "r10", false},   {13, "r11", false},
    {14, "r12", false},   {15, "r13", false},   {16, "r14", false},   {17, "r15", false},
    {18, "r16", false},   {19, "r17", false},   {20, "r18", false},   {21, "r19", false},
    {22, "r20", false},   {23, "r21", false},   {24, "r22", false},   {25, "r23", false},
    {26, "r24", false},   {27, "r25", false},   {28, "r26", false},   {29, "r27", false},
    {30, "r28", false},   {31, "r29", false},   {32, "r30", false},   {33, "r31", false},  // ..UC_PPC_REG_31
    {1, "pc", false},                                                                       // UC_PPC_REG_PC
    {42, "f0", false},    {43, "f1", false},    {44, "f2", false},    {45, "f3", false},   // UC_PPC_REG_FPR0..
    {46, "f4", false},    {47, "f5", false},    {48, "f6", false},    {49, "f7", false},
    {50, "f8", false},    {51, "f9", false},    {52, "f10", false},   {53, "f11", false},
    {54, "f12", false},   {55, "f13", false},   {56, "f14", false},   {57, "f15", false},
    {58, "f16", false},   {59, "f17", false},   {60, "f18", false},   {61, "f19", false},
    {62, "f20", false},   {63, "f21", false},   {64, "f22", false},   {65, "f23", false},
    {66, "f24", false},   {67, "f25", false},   {68, "f26", false},   {69, "f27", false},
    {70, "f28", false},   {71, "f29", false},   {72, "f30", false},   {73, "f31", false},  // ..UC_PPC_REG_FPR31
    {74, "lr", false},    // UC_PPC_REG_LR
    {75, "xer", false},   // UC_PPC_REG_XER
    {76, "ctr", false},   // UC_PPC_REG_CTR
    {77, "msr", false},   // UC_PPC_REG_MSR
    {78, "fpscr", false}, // UC_PPC_REG_FPSCR
    {79, "cr", false},    // UC_PPC_REG_CR (the eight fields CR0..CR7, 34..41, are not used)
    // ttd's numbers: AltiVec (vr0..vr31 as 16-byte OP_SPREG, vscr, vrsave).
    {512, "vr0", false},  {513, "vr1", false},  {514, "vr2", false},  {515, "vr3", false},
    {516, "vr4", false},  {517, "vr5", false},  {518, "vr6", false},  {519, "vr7", false},
    {520, "vr8", false},  {521, "vr9", false},  {522, "vr10", false}, {523, "vr11", false},
    {524, "vr12", false}, {525, "vr13", false}, {526, "vr14", false}, {527, "vr15", false},
    {528, "vr16", false}, {529, "vr17", false}, {530, "vr18", false}, {531, "vr19", false},
    {532, "vr20", false}, {533, "vr21", false}, {534, "vr22", false}, {535, "vr23", false},
    {536, "vr24", false}, {537, "vr25", false}, {538, "vr26", false}, {539, "vr27", false},
    {540, "vr28", false}, {541, "vr29", false}, {542, "vr30", false}, {543, "vr31", false},
    {544, "vscr", false}, {545, "vrsave", false},
};

}  // namespace

std::span<const Uc1Register> ppc32_register_table() { return kPpc32; }

}  // namespace ttd::fmt::ucir
