// The guest programs the Unicorn tracer runs (assembled with GNU as from
// the listings in the comments). Each thread runs the same code on its own
// data block: loads, stores, read-modify-write, sub-registers (al, ah, bx,
// r8w, r9b), push/pop, call/ret, lea, cmovcc both ways, setcc, a loop (jcc
// taken and not), a system call, xchg with memory, SSE moves, rep movs and
// movs, pushf, rip-relative loads.
#include "guest_programs.h"

namespace ttd::test {

// x86-64; rdi = data block, rsi = iteration count; ends at `done`.
const std::vector<uint8_t> kGuest64 = {
    // start:
    0x48, 0x89, 0xf1,                        //   0: mov rcx,rsi
    0x31, 0xc0,                              //   3: xor eax,eax
    0x49, 0xbf, 0x88, 0x77, 0x66, 0x55, 0x44, //   5: movabs r15,0x1122334455667788
    0x33, 0x22, 0x11,                        //   c: (continued)
    // loop:
    0x48, 0x8b, 0x14, 0xcf,                  //   f: mov rdx,QWORD PTR [rdi+rcx*8]
    0x48, 0x01, 0xd0,                        //  13: add rax,rdx
    0x48, 0x89, 0x84, 0xcf, 0x00, 0x01, 0x00, //  16: mov QWORD PTR [rdi+rcx*8+0x100],rax
    0x00,                                    //  1d: (continued)
    0x88, 0xc3,                              //  1e: mov bl,al
    0x88, 0xe7,                              //  20: mov bh,ah
    0x44, 0x0f, 0xb7, 0xc3,                  //  22: movzx r8d,bx
    0x66, 0x41, 0x83, 0xc0, 0x03,            //  26: add r8w,0x3
    0x41, 0x88, 0xc9,                        //  2b: mov r9b,cl
    0x50,                                    //  2e: push rax
    0x53,                                    //  2f: push rbx
    0x5a,                                    //  30: pop rdx
    0x41, 0x59,                              //  31: pop r9
    0xfe, 0x87, 0x00, 0x02, 0x00, 0x00,      //  33: inc BYTE PTR [rdi+0x200]
    0x4c, 0x8d, 0x54, 0x8f, 0x08,            //  39: lea r10,[rdi+rcx*4+0x8]
    0x48, 0x83, 0xf9, 0x03,                  //  3e: cmp rcx,0x3
    0x4d, 0x0f, 0x44, 0xda,                  //  42: cmove r11,r10
    0x4c, 0x0f, 0x45, 0xda,                  //  46: cmovne r11,rdx
    0xe8, 0x5f, 0x00, 0x00, 0x00,            //  4a: call ae <sub>
    0x41, 0x0f, 0x94, 0xc4,                  //  4f: sete r12b
    0x48, 0xff, 0xc9,                        //  53: dec rcx
    0x75, 0xb7,                              //  56: jne f <loop>
    0xb8, 0x42, 0x00, 0x00, 0x00,            //  58: mov eax,0x42
    0x48, 0x8d, 0x97, 0x80, 0x02, 0x00, 0x00, //  5d: lea rdx,[rdi+0x280]
    0x49, 0x89, 0xf2,                        //  64: mov r10,rsi
    0x0f, 0x05,                              //  67: syscall
    0x48, 0x87, 0x87, 0x00, 0x03, 0x00, 0x00, //  69: xchg QWORD PTR [rdi+0x300],rax
    0xf3, 0x0f, 0x6f, 0x07,                  //  70: movdqu xmm0,XMMWORD PTR [rdi]
    0x66, 0x0f, 0xd4, 0xc0,                  //  74: paddq xmm0,xmm0
    0xf3, 0x0f, 0x7f, 0x87, 0x10, 0x03, 0x00, //  78: movdqu XMMWORD PTR [rdi+0x310],xmm0
    0x00,                                    //  7f: (continued)
    0x48, 0x89, 0xfe,                        //  80: mov rsi,rdi
    0x48, 0x8d, 0xbf, 0x20, 0x03, 0x00, 0x00, //  83: lea rdi,[rdi+0x320]
    0xb9, 0x03, 0x00, 0x00, 0x00,            //  8a: mov ecx,0x3
    0xf3, 0xa4,                              //  8f: rep movs BYTE PTR es:[rdi],BYTE PTR ds:[rsi]
    0x48, 0xa5,                              //  91: movs QWORD PTR es:[rdi],QWORD PTR ds:[rsi]
    0x48, 0x81, 0xef, 0x2b, 0x03, 0x00, 0x00, //  93: sub rdi,0x32b
    0x9c,                                    //  9a: pushf
    0x58,                                    //  9b: pop rax
    0x66, 0xb8, 0x34, 0x12,                  //  9c: mov ax,0x1234
    0x8a, 0x05, 0x14, 0x00, 0x00, 0x00,      //  a0: mov al,BYTE PTR [rip+0x14] # ba <table>
    0x39, 0xc0,                              //  a6: cmp eax,eax
    0x48, 0x0f, 0x45, 0xc2,                  //  a8: cmovne rax,rdx
    0xeb, 0x0d,                              //  ac: jmp bb <done>
    // sub:
    0x4c, 0x8b, 0x24, 0x24,                  //  ae: mov r12,QWORD PTR [rsp]
    0x49, 0xd1, 0xe4,                        //  b2: shl r12,1
    0x41, 0x0f, 0x92, 0xc5,                  //  b5: setb r13b
    0xc3,                                    //  b9: ret
    // table:
    0x5a,                                    //  ba: pop rdx
    // done:
    0x90,                                    //  bb: nop
};

// i386; edi = data block, esi = iteration count; ends at `done`.
const std::vector<uint8_t> kGuest32 = {
    // start:
    0x89, 0xf1,                              //   0: mov ecx,esi
    0x31, 0xc0,                              //   2: xor eax,eax
    // loop:
    0x8b, 0x14, 0x8f,                        //   4: mov edx,DWORD PTR [edi+ecx*4]
    0x01, 0xd0,                              //   7: add eax,edx
    0x89, 0x84, 0x8f, 0x00, 0x01, 0x00, 0x00, //   9: mov DWORD PTR [edi+ecx*4+0x100],eax
    0x88, 0xc3,                              //  10: mov bl,al
    0x88, 0xe7,                              //  12: mov bh,ah
    0x0f, 0xb7, 0xd3,                        //  14: movzx edx,bx
    0x66, 0x83, 0xc2, 0x03,                  //  17: add dx,0x3
    0x50,                                    //  1b: push eax
    0x53,                                    //  1c: push ebx
    0x5a,                                    //  1d: pop edx
    0x5b,                                    //  1e: pop ebx
    0xfe, 0x87, 0x00, 0x02, 0x00, 0x00,      //  1f: inc BYTE PTR [edi+0x200]
    0x8d, 0x54, 0x4f, 0x08,                  //  25: lea edx,[edi+ecx*2+0x8]
    0x83, 0xf9, 0x02,                        //  29: cmp ecx,0x2
    0x0f, 0x44, 0xda,                        //  2c: cmove ebx,edx
    0xe8, 0x3e, 0x00, 0x00, 0x00,            //  2f: call 72 <sub>
    0x49,                                    //  34: dec ecx
    0x75, 0xcd,                              //  35: jne 4 <loop>
    0xb8, 0x17, 0x00, 0x00, 0x00,            //  37: mov eax,0x17
    0x8d, 0x97, 0x40, 0x02, 0x00, 0x00,      //  3c: lea edx,[edi+0x240]
    0xc7, 0x02, 0x07, 0x00, 0x00, 0x00,      //  42: mov DWORD PTR [edx],0x7
    0x89, 0x72, 0x04,                        //  48: mov DWORD PTR [edx+0x4],esi
    0x8d, 0x8f, 0x80, 0x02, 0x00, 0x00,      //  4b: lea ecx,[edi+0x280]
    0xcd, 0x2e,                              //  51: int 0x2e
    0x87, 0x87, 0x00, 0x03, 0x00, 0x00,      //  53: xchg DWORD PTR [edi+0x300],eax
    0x89, 0xfe,                              //  59: mov esi,edi
    0x8d, 0xbf, 0x20, 0x03, 0x00, 0x00,      //  5b: lea edi,[edi+0x320]
    0xb9, 0x02, 0x00, 0x00, 0x00,            //  61: mov ecx,0x2
    0xf3, 0xa5,                              //  66: rep movs DWORD PTR es:[edi],DWORD PTR ds:[esi]
    0x81, 0xef, 0x28, 0x03, 0x00, 0x00,      //  68: sub edi,0x328
    0x9c,                                    //  6e: pushf
    0x58,                                    //  6f: pop eax
    0xeb, 0x06,                              //  70: jmp 78 <done>
    // sub:
    0x8b, 0x14, 0x24,                        //  72: mov edx,DWORD PTR [esp]
    0xd1, 0xe2,                              //  75: shl edx,1
    0xc3,                                    //  77: ret
    // done:
    0x90,                                    //  78: nop
};

}  // namespace ttd::test
