package analysis

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestAnalyzeIntoIsAnalyze: every analyzer's AnalyzeInto, given a used
// token slice (small, large, full of other tokens), returns exactly what
// Analyze does, on real text in every script the analyzers handle.
func TestAnalyzeIntoIsAnalyze(t *testing.T) {
	texts := []string{
		"", "The lighthouse keeper's logs, 1887–1902: weather, ships and lamps.",
		"Die Donaudampfschifffahrtsgesellschaft hatte ihren Sitz in Wien.",
		"El informe anual de la compañía muestra un crecimiento del 3 %.",
		"Выручка компании выросла на три процента во втором квартале.",
		"公司第三季度的收入增长了百分之三，主要来自欧洲市场。",
		"func (z *Writer) writeBytes(b []byte) error { return z.w.Write(b) } // HTTPServer2 parseURL",
	}
	if b, err := os.ReadFile(filepath.Join(runtime.GOROOT(), "src", "net", "http", "server.go")); err == nil {
		texts = append(texts, string(b[:min(len(b), 20000)]))
	}
	checked := 0
	for _, name := range []string{Standard, English, German, Spanish, Russian, Chinese, Code} {
		a, err := New(name)
		if err != nil {
			t.Fatal(err)
		}
		ia, ok := a.(IntoAnalyzer)
		if !ok {
			t.Fatalf("%s is not an IntoAnalyzer", name)
		}
		dirty := a.Analyze(texts[len(texts)-1])
		for _, dst := range [][]Token{nil, make([]Token, 3, 3), slices.Clone(dirty), slices.Clone(dirty)[:5]} {
			for i, text := range texts {
				want := a.Analyze(text)
				got := ia.AnalyzeInto(dst, text)
				if !slices.Equal(got, want) {
					t.Errorf("%s text %d, dst of cap %d: AnalyzeInto differs from Analyze:\n%v\n%v", name, i, cap(dst), got, want)
				}
				if got2 := AnalyzeInto(a, dst, text); !slices.Equal(got2, want) {
					t.Errorf("%s text %d: AnalyzeInto(a, ...) differs", name, i)
				}
				checked++
			}
		}
	}
	if checked == 0 {
		t.Fatal(fmt.Sprint("nothing checked"))
	}
}
