#include "textflag.h"

// ACCUMULATE adds the counts of the code block in Z0 to the lanes of Z5:
// popcount(block) in the low 32 bits, Σ_p 2^p·popcount(plane_p AND block)
// in the high 32 bits; R13 points at plane 0's block, R10 is the distance
// between planes in bytes. Clobbers Z6, Z7, R15.
#define ACCUMULATE \
	VPOPCNTQ Z0, Z6 \
	VPADDQ Z6, Z5, Z5 \
	VPANDQ (R13), Z0, Z7 \
	VPOPCNTQ Z7, Z7 \
	VPSLLQ $32, Z7, Z7 \
	VPADDQ Z7, Z5, Z5 \
	VPANDQ (R13)(R10*1), Z0, Z7 \
	VPOPCNTQ Z7, Z7 \
	VPSLLQ $33, Z7, Z7 \
	VPADDQ Z7, Z5, Z5 \
	VPANDQ (R13)(R10*2), Z0, Z7 \
	VPOPCNTQ Z7, Z7 \
	VPSLLQ $34, Z7, Z7 \
	VPADDQ Z7, Z5, Z5 \
	LEAQ (R10)(R10*2), R15 \
	VPANDQ (R13)(R15*1), Z0, Z7 \
	VPOPCNTQ Z7, Z7 \
	VPSLLQ $35, Z7, Z7 \
	VPADDQ Z7, Z5, Z5

// func signDotsAVX512(codes *uint64, rows, words int, planes *uint64, mask uint8, out *uint64)
//
// For each of rows sign codes of words uint64 each (contiguous), writes
// out[r] = popcount(code) + Σ_p 2^p·popcount(plane_p AND code) << 32.
// planes holds four planes of blocks*8 words each (zero padded), blocks =
// ceil(words/8); mask selects the words of the last block (0xFF when
// words is a multiple of 8).
TEXT ·signDotsAVX512(SB), NOSPLIT, $0-48
	MOVQ codes+0(FP), SI
	MOVQ rows+8(FP), CX
	MOVQ words+16(FP), DX
	MOVQ planes+24(FP), R8
	MOVBQZX mask+32(FP), AX
	MOVQ out+40(FP), DI
	KMOVW AX, K1
	// R9 = full blocks = (words-1)/8 (the last block always goes through the mask)
	MOVQ DX, R9
	DECQ R9
	SHRQ $3, R9
	// R10 = bytes per plane = (R9+1)*64
	MOVQ R9, R10
	INCQ R10
	SHLQ $6, R10
	// R11 = bytes per code row = words*8
	MOVQ DX, R11
	SHLQ $3, R11
	TESTQ CX, CX
	JZ done

row:
	VPXORQ Z5, Z5, Z5
	MOVQ SI, R12 // code block pointer
	MOVQ R8, R13 // plane 0 block pointer
	MOVQ R9, R14
	TESTQ R14, R14
	JZ last

block:
	VMOVDQU64 (R12), Z0
	ACCUMULATE
	ADDQ $64, R12
	ADDQ $64, R13
	DECQ R14
	JNZ block

last:
	VMOVDQU64.Z (R12), K1, Z0
	ACCUMULATE

	// Horizontal sum of the eight lanes.
	VEXTRACTI64X4 $1, Z5, Y6
	VPADDQ Y6, Y5, Y5
	VEXTRACTI128 $1, Y5, X6
	VPADDQ X6, X5, X5
	VPSHUFD $0x4e, X5, X6
	VPADDQ X6, X5, X5
	VMOVQ X5, AX
	MOVQ AX, (DI)

	ADDQ R11, SI
	ADDQ $8, DI
	DECQ CX
	JNZ row

done:
	VZEROUPPER
	RET
