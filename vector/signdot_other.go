//go:build !amd64

package vector

const hasSignDotsAVX512 = false

func signDotsAVX512(codes *uint64, rows, words int, planes *uint64, mask uint8, out *uint64) {
	panic("vector: signDotsAVX512 needs amd64")
}
