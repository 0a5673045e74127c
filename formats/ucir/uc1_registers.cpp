#include "formats/ucir/uc1_registers.h"

#include <algorithm>
#include <string_view>

namespace ttd::fmt::ucir {

namespace {

// Numbers taken from unicorn-engine/unicorn tag 1.0.3 include/unicorn/*.h
// (identical in 1.0.2; 1.0 and 1.0.1 lack only the entries appended at the
// end of each enum, e.g. x86 MSR/MXCSR/FS_BASE/GS_BASE). The first row
// naming a register is the number the writer uses.
// X86_64
constexpr Uc1Register kX86_64[] = {
    {35, "rax", true},  // UC_X86_REG_RAX
    {37, "rbx", true},  // UC_X86_REG_RBX
    {38, "rcx", true},  // UC_X86_REG_RCX
    {40, "rdx", true},  // UC_X86_REG_RDX
    {43, "rsi", true},  // UC_X86_REG_RSI
    {39, "rdi", true},  // UC_X86_REG_RDI
    {36, "rbp", true},  // UC_X86_REG_RBP
    {44, "rsp", true},  // UC_X86_REG_RSP
    {106, "r8", true},  // UC_X86_REG_R8
    {107, "r9", true},  // UC_X86_REG_R9
    {108, "r10", true},  // UC_X86_REG_R10
    {109, "r11", true},  // UC_X86_REG_R11
    {110, "r12", true},  // UC_X86_REG_R12
    {111, "r13", true},  // UC_X86_REG_R13
    {112, "r14", true},  // UC_X86_REG_R14
    {113, "r15", true},  // UC_X86_REG_R15
    {41, "rip", false},  // UC_X86_REG_RIP
    {25, "eflags", false},  // UC_X86_REG_EFLAGS
    {11, "cs", false},  // UC_X86_REG_CS
    {49, "ss", false},  // UC_X86_REG_SS
    {17, "ds", false},  // UC_X86_REG_DS
    {28, "es", false},  // UC_X86_REG_ES
    {32, "fs", false},  // UC_X86_REG_FS
    {33, "gs", false},  // UC_X86_REG_GS
    {114, "st0", false},  // UC_X86_REG_ST0
    {115, "st1", false},  // UC_X86_REG_ST1
    {116, "st2", false},  // UC_X86_REG_ST2
    {117, "st3", false},  // UC_X86_REG_ST3
    {118, "st4", false},  // UC_X86_REG_ST4
    {119, "st5", false},  // UC_X86_REG_ST5
    {120, "st6", false},  // UC_X86_REG_ST6
    {121, "st7", false},  // UC_X86_REG_ST7
    {246, "fctrl", false},  // UC_X86_REG_FPCW
    {31, "fstat", false},  // UC_X86_REG_FPSW
    {247, "ftag", false},  // UC_X86_REG_FPTAG
    {122, "xmm0", false},  // UC_X86_REG_XMM0
    {123, "xmm1", false},  // UC_X86_REG_XMM1
    {124, "xmm2", false},  // UC_X86_REG_XMM2
    {125, "xmm3", false},  // UC_X86_REG_XMM3
    {126, "xmm4", false},  // UC_X86_REG_XMM4
    {127, "xmm5", false},  // UC_X86_REG_XMM5
    {128, "xmm6", false},  // UC_X86_REG_XMM6
    {129, "xmm7", false},  // UC_X86_REG_XMM7
    {130, "xmm8", false},  // UC_X86_REG_XMM8
    {131, "xmm9", false},  // UC_X86_REG_XMM9
    {132, "xmm10", false},  // UC_X86_REG_XMM10
    {133, "xmm11", false},  // UC_X86_REG_XMM11
    {134, "xmm12", false},  // UC_X86_REG_XMM12
    {135, "xmm13", false},  // UC_X86_REG_XMM13
    {136, "xmm14", false},  // UC_X86_REG_XMM14
    {137, "xmm15", false},  // UC_X86_REG_XMM15
    {249, "mxcsr", false},  // UC_X86_REG_MXCSR
    {250, "fs_base", false},  // UC_X86_REG_FS_BASE
    {251, "gs_base", false},  // UC_X86_REG_GS_BASE
};

// I386
constexpr Uc1Register kI386[] = {
    {19, "eax", true},  // UC_X86_REG_EAX
    {22, "ecx", true},  // UC_X86_REG_ECX
    {24, "edx", true},  // UC_X86_REG_EDX
    {21, "ebx", true},  // UC_X86_REG_EBX
    {30, "esp", true},  // UC_X86_REG_ESP
    {20, "ebp", true},  // UC_X86_REG_EBP
    {29, "esi", true},  // UC_X86_REG_ESI
    {23, "edi", true},  // UC_X86_REG_EDI
    {26, "eip", false},  // UC_X86_REG_EIP
    {25, "eflags", true},  // UC_X86_REG_EFLAGS
    {11, "cs", true},  // UC_X86_REG_CS
    {49, "ss", true},  // UC_X86_REG_SS
    {17, "ds", true},  // UC_X86_REG_DS
    {28, "es", true},  // UC_X86_REG_ES
    {32, "fs", true},  // UC_X86_REG_FS
    {33, "gs", true},  // UC_X86_REG_GS
    {114, "st0", false},  // UC_X86_REG_ST0
    {115, "st1", false},  // UC_X86_REG_ST1
    {116, "st2", false},  // UC_X86_REG_ST2
    {117, "st3", false},  // UC_X86_REG_ST3
    {118, "st4", false},  // UC_X86_REG_ST4
    {119, "st5", false},  // UC_X86_REG_ST5
    {120, "st6", false},  // UC_X86_REG_ST6
    {121, "st7", false},  // UC_X86_REG_ST7
    {246, "fctrl", false},  // UC_X86_REG_FPCW
    {31, "fstat", false},  // UC_X86_REG_FPSW
    {247, "ftag", false},  // UC_X86_REG_FPTAG
    {122, "xmm0", false},  // UC_X86_REG_XMM0
    {123, "xmm1", false},  // UC_X86_REG_XMM1
    {124, "xmm2", false},  // UC_X86_REG_XMM2
    {125, "xmm3", false},  // UC_X86_REG_XMM3
    {126, "xmm4", false},  // UC_X86_REG_XMM4
    {127, "xmm5", false},  // UC_X86_REG_XMM5
    {128, "xmm6", false},  // UC_X86_REG_XMM6
    {129, "xmm7", false},  // UC_X86_REG_XMM7
    {249, "mxcsr", false},  // UC_X86_REG_MXCSR
};

// AArch64
constexpr Uc1Register kAArch64[] = {
    {199, "x0", true},  // UC_ARM64_REG_X0
    {200, "x1", true},  // UC_ARM64_REG_X1
    {201, "x2", true},  // UC_ARM64_REG_X2
    {202, "x3", true},  // UC_ARM64_REG_X3
    {203, "x4", true},  // UC_ARM64_REG_X4
    {204, "x5", true},  // UC_ARM64_REG_X5
    {205, "x6", true},  // UC_ARM64_REG_X6
    {206, "x7", true},  // UC_ARM64_REG_X7
    {207, "x8", true},  // UC_ARM64_REG_X8
    {208, "x9", true},  // UC_ARM64_REG_X9
    {209, "x10", true},  // UC_ARM64_REG_X10
    {210, "x11", true},  // UC_ARM64_REG_X11
    {211, "x12", true},  // UC_ARM64_REG_X12
    {212, "x13", true},  // UC_ARM64_REG_X13
    {213, "x14", true},  // UC_ARM64_REG_X14
    {214, "x15", true},  // UC_ARM64_REG_X15
    {215, "x16", true},  // UC_ARM64_REG_X16
    {216, "x17", true},  // UC_ARM64_REG_X17
    {217, "x18", true},  // UC_ARM64_REG_X18
    {218, "x19", true},  // UC_ARM64_REG_X19
    {219, "x20", true},  // UC_ARM64_REG_X20
    {220, "x21", true},  // UC_ARM64_REG_X21
    {221, "x22", true},  // UC_ARM64_REG_X22
    {222, "x23", true},  // UC_ARM64_REG_X23
    {223, "x24", true},  // UC_ARM64_REG_X24
    {224, "x25", true},  // UC_ARM64_REG_X25
    {225, "x26", true},  // UC_ARM64_REG_X26
    {226, "x27", true},  // UC_ARM64_REG_X27
    {227, "x28", true},  // UC_ARM64_REG_X28
    {1, "x29|fp", true},  // UC_ARM64_REG_X29
    {2, "x30|lr", true},  // UC_ARM64_REG_X30
    {4, "sp", true},  // UC_ARM64_REG_SP
    {260, "pc", false},  // UC_ARM64_REG_PC
    {265, "cpsr|pstate", false},  // UC_ARM64_REG_PSTATE
    {3, "cpsr|nzcv", false},  // UC_ARM64_REG_NZCV
    {104, "v0|q0", false},  // UC_ARM64_REG_Q0
    {105, "v1|q1", false},  // UC_ARM64_REG_Q1
    {106, "v2|q2", false},  // UC_ARM64_REG_Q2
    {107, "v3|q3", false},  // UC_ARM64_REG_Q3
    {108, "v4|q4", false},  // UC_ARM64_REG_Q4
    {109, "v5|q5", false},  // UC_ARM64_REG_Q5
    {110, "v6|q6", false},  // UC_ARM64_REG_Q6
    {111, "v7|q7", false},  // UC_ARM64_REG_Q7
    {112, "v8|q8", false},  // UC_ARM64_REG_Q8
    {113, "v9|q9", false},  // UC_ARM64_REG_Q9
    {114, "v10|q10", false},  // UC_ARM64_REG_Q10
    {115, "v11|q11", false},  // UC_ARM64_REG_Q11
    {116, "v12|q12", false},  // UC_ARM64_REG_Q12
    {117, "v13|q13", false},  // UC_ARM64_REG_Q13
    {118, "v14|q14", false},  // UC_ARM64_REG_Q14
    {119, "v15|q15", false},  // UC_ARM64_REG_Q15
    {120, "v16|q16", false},  // UC_ARM64_REG_Q16
    {121, "v17|q17", false},  // UC_ARM64_REG_Q17
    {122, "v18|q18", false},  // UC_ARM64_REG_Q18
    {123, "v19|q19", false},  // UC_ARM64_REG_Q19
    {124, "v20|q20", false},  // UC_ARM64_REG_Q20
    {125, "v21|q21", false},  // UC_ARM64_REG_Q21
    {126, "v22|q22", false},  // UC_ARM64_REG_Q22
    {127, "v23|q23", false},  // UC_ARM64_REG_Q23
    {128, "v24|q24", false},  // UC_ARM64_REG_Q24
    {129, "v25|q25", false},  // UC_ARM64_REG_Q25
    {130, "v26|q26", false},  // UC_ARM64_REG_Q26
    {131, "v27|q27", false},  // UC_ARM64_REG_Q27
    {132, "v28|q28", false},  // UC_ARM64_REG_Q28
    {133, "v29|q29", false},  // UC_ARM64_REG_Q29
    {134, "v30|q30", false},  // UC_ARM64_REG_Q30
    {135, "v31|q31", false},  // UC_ARM64_REG_Q31
    {228, "v0|q0", false},  // UC_ARM64_REG_V0
    {229, "v1|q1", false},  // UC_ARM64_REG_V1
    {230, "v2|q2", false},  // UC_ARM64_REG_V2
    {231, "v3|q3", false},  // UC_ARM64_REG_V3
    {232, "v4|q4", false},  // UC_ARM64_REG_V4
    {233, "v5|q5", false},  // UC_ARM64_REG_V5
    {234, "v6|q6", false},  // UC_ARM64_REG_V6
    {235, "v7|q7", false},  // UC_ARM64_REG_V7
    {236, "v8|q8", false},  // UC_ARM64_REG_V8
    {237, "v9|q9", false},  // UC_ARM64_REG_V9
    {238, "v10|q10", false},  // UC_ARM64_REG_V10
    {239, "v11|q11", false},  // UC_ARM64_REG_V11
    {240, "v12|q12", false},  // UC_ARM64_REG_V12
    {241, "v13|q13", false},  // UC_ARM64_REG_V13
    {242, "v14|q14", false},  // UC_ARM64_REG_V14
    {243, "v15|q15", false},  // UC_ARM64_REG_V15
    {244, "v16|q16", false},  // UC_ARM64_REG_V16
    {245, "v17|q17", false},  // UC_ARM64_REG_V17
    {246, "v18|q18", false},  // UC_ARM64_REG_V18
    {247, "v19|q19", false},  // UC_ARM64_REG_V19
    {248, "v20|q20", false},  // UC_ARM64_REG_V20
    {249, "v21|q21", false},  // UC_ARM64_REG_V21
    {250, "v22|q22", false},  // UC_ARM64_REG_V22
    {251, "v23|q23", false},  // UC_ARM64_REG_V23
    {252, "v24|q24", false},  // UC_ARM64_REG_V24
    {253, "v25|q25", false},  // UC_ARM64_REG_V25
    {254, "v26|q26", false},  // UC_ARM64_REG_V26
    {255, "v27|q27", false},  // UC_ARM64_REG_V27
    {256, "v28|q28", false},  // UC_ARM64_REG_V28
    {257, "v29|q29", false},  // UC_ARM64_REG_V29
    {258, "v30|q30", false},  // UC_ARM64_REG_V30
    {259, "v31|q31", false},  // UC_ARM64_REG_V31
    {262, "tpidr|tpidr_el0", false},  // UC_ARM64_REG_TPIDR_EL0
};

// Arm
constexpr Uc1Register kArm[] = {
    {66, "r0", true},  // UC_ARM_REG_R0
    {67, "r1", true},  // UC_ARM_REG_R1
    {68, "r2", true},  // UC_ARM_REG_R2
    {69, "r3", true},  // UC_ARM_REG_R3
    {70, "r4", true},  // UC_ARM_REG_R4
    {71, "r5", true},  // UC_ARM_REG_R5
    {72, "r6", true},  // UC_ARM_REG_R6
    {73, "r7", true},  // UC_ARM_REG_R7
    {74, "r8", true},  // UC_ARM_REG_R8
    {75, "r9", true},  // UC_ARM_REG_R9
    {76, "r10", true},  // UC_ARM_REG_R10
    {77, "r11", true},  // UC_ARM_REG_R11
    {78, "r12", true},  // UC_ARM_REG_R12
    {12, "sp|r13", true},  // UC_ARM_REG_SP
    {10, "lr|r14", true},  // UC_ARM_REG_LR
    {11, "pc|r15", false},  // UC_ARM_REG_PC
    {3, "cpsr", false},  // UC_ARM_REG_CPSR
    {14, "d0", false},  // UC_ARM_REG_D0
    {15, "d1", false},  // UC_ARM_REG_D1
    {16, "d2", false},  // UC_ARM_REG_D2
    {17, "d3", false},  // UC_ARM_REG_D3
    {18, "d4", false},  // UC_ARM_REG_D4
    {19, "d5", false},  // UC_ARM_REG_D5
    {20, "d6", false},  // UC_ARM_REG_D6
    {21, "d7", false},  // UC_ARM_REG_D7
    {22, "d8", false},  // UC_ARM_REG_D8
    {23, "d9", false},  // UC_ARM_REG_D9
    {24, "d10", false},  // UC_ARM_REG_D10
    {25, "d11", false},  // UC_ARM_REG_D11
    {26, "d12", false},  // UC_ARM_REG_D12
    {27, "d13", false},  // UC_ARM_REG_D13
    {28, "d14", false},  // UC_ARM_REG_D14
    {29, "d15", false},  // UC_ARM_REG_D15
    {30, "d16", false},  // UC_ARM_REG_D16
    {31, "d17", false},  // UC_ARM_REG_D17
    {32, "d18", false},  // UC_ARM_REG_D18
    {33, "d19", false},  // UC_ARM_REG_D19
    {34, "d20", false},  // UC_ARM_REG_D20
    {35, "d21", false},  // UC_ARM_REG_D21
    {36, "d22", false},  // UC_ARM_REG_D22
    {37, "d23", false},  // UC_ARM_REG_D23
    {38, "d24", false},  // UC_ARM_REG_D24
    {39, "d25", false},  // UC_ARM_REG_D25
    {40, "d26", false},  // UC_ARM_REG_D26
    {41, "d27", false},  // UC_ARM_REG_D27
    {42, "d28", false},  // UC_ARM_REG_D28
    {43, "d29", false},  // UC_ARM_REG_D29
    {44, "d30", false},  // UC_ARM_REG_D30
    {45, "d31", false},  // UC_ARM_REG_D31
    {6, "fpscr", false},  // UC_ARM_REG_FPSCR
    {50, "q0", false},  // UC_ARM_REG_Q0
    {51, "q1", false},  // UC_ARM_REG_Q1
    {52, "q2", false},  // UC_ARM_REG_Q2
    {53, "q3", false},  // UC_ARM_REG_Q3
    {54, "q4", false},  // UC_ARM_REG_Q4
    {55, "q5", false},  // UC_ARM_REG_Q5
    {56, "q6", false},  // UC_ARM_REG_Q6
    {57, "q7", false},  // UC_ARM_REG_Q7
    {58, "q8", false},  // UC_ARM_REG_Q8
    {59, "q9", false},  // UC_ARM_REG_Q9
    {60, "q10", false},  // UC_ARM_REG_Q10
    {61, "q11", false},  // UC_ARM_REG_Q11
    {62, "q12", false},  // UC_ARM_REG_Q12
    {63, "q13", false},  // UC_ARM_REG_Q13
    {64, "q14", false},  // UC_ARM_REG_Q14
    {65, "q15", false},  // UC_ARM_REG_Q15
    {113, "tpidruro|tls", false},  // UC_ARM_REG_C13_C0_3
};

// Mips
constexpr Uc1Register kMips[] = {
    {2, "r0|zero", false},  // UC_MIPS_REG_0
    {3, "r1|at", true},  // UC_MIPS_REG_1
    {4, "r2|v0", true},  // UC_MIPS_REG_2
    {5, "r3|v1", true},  // UC_MIPS_REG_3
    {6, "r4|a0", true},  // UC_MIPS_REG_4
    {7, "r5|a1", true},  // UC_MIPS_REG_5
    {8, "r6|a2", true},  // UC_MIPS_REG_6
    {9, "r7|a3", true},  // UC_MIPS_REG_7
    {10, "r8|t0", true},  // UC_MIPS_REG_8
    {11, "r9|t1", true},  // UC_MIPS_REG_9
    {12, "r10|t2", true},  // UC_MIPS_REG_10
    {13, "r11|t3", true},  // UC_MIPS_REG_11
    {14, "r12|t4", true},  // UC_MIPS_REG_12
    {15, "r13|t5", true},  // UC_MIPS_REG_13
    {16, "r14|t6", true},  // UC_MIPS_REG_14
    {17, "r15|t7", true},  // UC_MIPS_REG_15
    {18, "r16|s0", true},  // UC_MIPS_REG_16
    {19, "r17|s1", true},  // UC_MIPS_REG_17
    {20, "r18|s2", true},  // UC_MIPS_REG_18
    {21, "r19|s3", true},  // UC_MIPS_REG_19
    {22, "r20|s4", true},  // UC_MIPS_REG_20
    {23, "r21|s5", true},  // UC_MIPS_REG_21
    {24, "r22|s6", true},  // UC_MIPS_REG_22
    {25, "r23|s7", true},  // UC_MIPS_REG_23
    {26, "r24|t8", true},  // UC_MIPS_REG_24
    {27, "r25|t9", true},  // UC_MIPS_REG_25
    {28, "r26|k0", true},  // UC_MIPS_REG_26
    {29, "r27|k1", true},  // UC_MIPS_REG_27
    {30, "r28|gp", true},  // UC_MIPS_REG_28
    {31, "r29|sp", true},  // UC_MIPS_REG_29
    {32, "r30|s8|fp", true},  // UC_MIPS_REG_30
    {33, "r31|ra", true},  // UC_MIPS_REG_31
    {1, "pc", false},  // UC_MIPS_REG_PC
    {129, "hi", false},  // UC_MIPS_REG_HI
    {130, "lo", false},  // UC_MIPS_REG_LO
    {57, "f0", false},  // UC_MIPS_REG_F0
    {58, "f1", false},  // UC_MIPS_REG_F1
    {59, "f2", false},  // UC_MIPS_REG_F2
    {60, "f3", false},  // UC_MIPS_REG_F3
    {61, "f4", false},  // UC_MIPS_REG_F4
    {62, "f5", false},  // UC_MIPS_REG_F5
    {63, "f6", false},  // UC_MIPS_REG_F6
    {64, "f7", false},  // UC_MIPS_REG_F7
    {65, "f8", false},  // UC_MIPS_REG_F8
    {66, "f9", false},  // UC_MIPS_REG_F9
    {67, "f10", false},  // UC_MIPS_REG_F10
    {68, "f11", false},  // UC_MIPS_REG_F11
    {69, "f12", false},  // UC_MIPS_REG_F12
    {70, "f13", false},  // UC_MIPS_REG_F13
    {71, "f14", false},  // UC_MIPS_REG_F14
    {72, "f15", false},  // UC_MIPS_REG_F15
    {73, "f16", false},  // UC_MIPS_REG_F16
    {74, "f17", false},  // UC_MIPS_REG_F17
    {75, "f18", false},  // UC_MIPS_REG_F18
    {76, "f19", false},  // UC_MIPS_REG_F19
    {77, "f20", false},  // UC_MIPS_REG_F20
    {78, "f21", false},  // UC_MIPS_REG_F21
    {79, "f22", false},  // UC_MIPS_REG_F22
    {80, "f23", false},  // UC_MIPS_REG_F23
    {81, "f24", false},  // UC_MIPS_REG_F24
    {82, "f25", false},  // UC_MIPS_REG_F25
    {83, "f26", false},  // UC_MIPS_REG_F26
    {84, "f27", false},  // UC_MIPS_REG_F27
    {85, "f28", false},  // UC_MIPS_REG_F28
    {86, "f29", false},  // UC_MIPS_REG_F29
    {87, "f30", false},  // UC_MIPS_REG_F30
    {88, "f31", false},  // UC_MIPS_REG_F31
    {138, "userlocal|ulr", false},  // UC_MIPS_REG_CP0_USERLOCAL
};

}  // namespace

std::span<const Uc1Register> uc1_register_table(ArchId arch) {
  switch (arch) {
    case ArchId::X86_64: return kX86_64;
    case ArchId::I386: return kI386;
    case ArchId::AArch64: return kAArch64;
    case ArchId::Arm: return kArm;
    case ArchId::Mips: return kMips;
    case ArchId::Ppc32: return ppc32_register_table();  // ttd's extension
  }
  return {};
}

Uc1RegisterMap::Uc1RegisterMap(const ArchDesc& arch) {
  const auto table = uc1_register_table(arch.id);
  uint16_t max_number = 0;
  for (const auto& r : table) max_number = std::max(max_number, r.number);
  by_number_.assign(table.empty() ? 0 : max_number + 1u, kUnknown);
  by_index_.assign(arch.regs.size(), -1);
  for (const auto& r : table) {
    std::optional<uint16_t> index;
    std::string_view names = r.names;
    while (!index && !names.empty()) {
      const size_t bar = names.find('|');
      index = arch.find(names.substr(0, bar));
      names = bar == std::string_view::npos ? std::string_view() : names.substr(bar + 1);
    }
    // The pc is never a register effect: UCIR carries it in OP_JMP and
    // OP_STEP (usercorn leaves it out of OP_REG), and the sink takes it
    // from StepInfo::pc.
    if (!index || *index == arch.pc_index) {
      by_number_[r.number] = kNoSlot;
      continue;
    }
    by_number_[r.number] = *index;
    // The first row naming a register is the number the writer uses.
    if (by_index_[*index] < 0) by_index_[*index] = r.number;
    if (r.tracked && std::find(tracked_.begin(), tracked_.end(), *index) == tracked_.end())
      tracked_.push_back(*index);
  }
}

std::optional<uint16_t> Uc1RegisterMap::number_of(uint16_t index) const {
  if (index >= by_index_.size() || by_index_[index] < 0) return std::nullopt;
  return uint16_t(by_index_[index]);
}

}  // namespace ttd::fmt::ucir
