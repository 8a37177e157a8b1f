package bm25

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestSmallFloatLucene compares the norm encoding with Lucene 8.7's
// SmallFloat, as dumped by bench/lucene/LuceneBench.java ("smallfloat").
func TestSmallFloatLucene(t *testing.T) {
	data, err := os.ReadFile("testdata/smallfloat-lucene.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Fields(line)
		a, err1 := strconv.ParseUint(f[1], 10, 32)
		b, err2 := strconv.ParseUint(f[2], 10, 32)
		if len(f) != 3 || err1 != nil || err2 != nil {
			t.Fatalf("bad line %q", line)
		}
		switch f[0] {
		case "b":
			if got := byte4ToInt(uint8(a)); uint64(got) != b {
				t.Errorf("byte4ToInt(%d) = %d, Lucene %d", a, got, b)
			}
		case "i":
			if got := intToByte4(uint32(a)); uint64(got) != b {
				t.Errorf("intToByte4(%d) = %d, Lucene %d", a, got, b)
			}
		}
		n++
	}
	if n < 3000 {
		t.Fatalf("only %d golden values", n)
	}
}
