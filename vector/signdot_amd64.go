package vector

import "golang.org/x/sys/cpu"

// hasSignDotsAVX512 reports whether signDotsAVX512 may run: it needs
// AVX-512 F and the VPOPCNTQ instruction (Ice Lake and later, Zen 4).
var hasSignDotsAVX512 = cpu.X86.HasAVX512F && cpu.X86.HasAVX512VPOPCNTDQ

//go:noescape
func signDotsAVX512(codes *uint64, rows, words int, planes *uint64, mask uint8, out *uint64)
