package bm25

import "math/bits"

// Lucene stores a document's field length in one byte (SmallFloat.intToByte4
// in org.apache.lucene.util): lengths below numFreeValues are exact, larger
// ones keep 4 significant bits. BM25Similarity decodes the byte with
// byte4ToInt into a 256-entry table, so the length a score sees is the
// decoded, lossy one. These functions reproduce Lucene 8 bit for bit
// (checked against liblucene8-java 8.7 in smallfloat_test.go).

// longToInt4 encodes a non-negative integer into 4 significant bits and a
// shift: a tiny float with 3 mantissa bits and an implicit leading one.
func longToInt4(i uint64) uint32 {
	numBits := 64 - bits.LeadingZeros64(i)
	if numBits < 4 {
		return uint32(i) // subnormal
	}
	shift := numBits - 4
	encoded := uint32(i>>uint(shift)) & 0x07 // drop the implicit leading bit
	encoded |= uint32(shift+1) << 3
	return encoded
}

func int4ToLong(i uint32) uint64 {
	b := uint64(i & 0x07)
	shift := int(i>>3) - 1
	if shift == -1 {
		return b // subnormal
	}
	return (b | 0x08) << uint(shift)
}

var (
	maxInt4       = longToInt4(1<<31 - 1) // Integer.MAX_VALUE
	numFreeValues = 255 - maxInt4
)

// intToByte4 is SmallFloat.intToByte4: the one-byte norm of a field length.
func intToByte4(i uint32) uint8 {
	if i > 1<<31-1 {
		i = 1<<31 - 1 // Lucene rejects longer fields; we saturate instead
	}
	if i < numFreeValues {
		return uint8(i)
	}
	return uint8(numFreeValues + longToInt4(uint64(i-numFreeValues)))
}

// byte4ToInt is SmallFloat.byte4ToInt: the decoded length of a norm byte.
func byte4ToInt(b uint8) uint32 {
	i := uint32(b)
	if i < numFreeValues {
		return i
	}
	return uint32(uint64(numFreeValues) + int4ToLong(i-numFreeValues))
}

// lengthTable is BM25Similarity.LENGTH_TABLE: the decoded length of every
// norm byte, as a float.
var lengthTable = func() (t [256]float32) {
	for i := range t {
		t[i] = float32(byte4ToInt(uint8(i)))
	}
	return t
}()
