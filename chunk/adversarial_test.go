package chunk

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// adversarialShape is an input built to make a chunker or tokenizer slow:
// each generates about n bytes.
type adversarialShape struct {
	name   string
	format string
	gen    func(n int) string
}

var adversarialShapes = []adversarialShape{
	// Lines of 1,000 spaces and a word (issue 14: 85 s for 400 KB).
	{"whitespace-lines", FormatText, func(n int) string {
		return repeatTo(n, strings.Repeat(" ", 1000)+"word\n")
	}},
	{"whitespace-lines-md", FormatMarkdown, func(n int) string {
		return repeatTo(n, strings.Repeat(" ", 1000)+"word\n")
	}},
	{"whitespace-lines-code", FormatCode, func(n int) string {
		return repeatTo(n, strings.Repeat(" ", 1000)+"x := 1\n")
	}},
	// One run of white space of every kind between two words.
	{"whitespace-run", FormatText, func(n int) string {
		var sb strings.Builder
		sb.WriteString("start")
		ws := []string{"\t", "\u3000", "\u00a0", "\r\n", "\n"}
		for i := 0; sb.Len() < n-3; i++ {
			if i%5000 == 4999 {
				sb.WriteString(ws[i/5000%len(ws)]) // mostly spaces, now and then another kind
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString("end")
		return sb.String()
	}},
	// Spaces and tabs alternating: the vocabulary has tokens mixing them,
	// so the run goes to the tokenizer's own merge (O(n log n)).
	{"whitespace-mixed", FormatText, func(n int) string {
		return repeatTo(n, strings.Repeat(" \t", 50000)+"word\n")
	}},
	// Markdown lists nested ever deeper, 600 levels (21.7 s before).
	{"nested-list-md", FormatMarkdown, func(n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			for d := 0; d < 600 && sb.Len() < n; d++ {
				sb.WriteString(strings.Repeat("  ", d))
				sb.WriteString("- item ")
				sb.WriteString(strconv.Itoa(d))
				sb.WriteString("\n")
			}
			sb.WriteString("\n")
		}
		return sb.String()
	}},
	// Block quotes nested ever deeper: "> > > > text".
	{"nested-quote-md", FormatMarkdown, func(n int) string {
		var sb strings.Builder
		for sb.Len() < n {
			for d := 1; d <= 600 && sb.Len() < n; d++ {
				sb.WriteString(strings.Repeat("> ", d))
				sb.WriteString("quoted\n")
			}
			sb.WriteString("\n")
		}
		return sb.String()
	}},
	// Code indented ever deeper (generated code, minified then reformatted).
	{"nested-code", FormatCode, func(n int) string {
		var sb strings.Builder
		sb.WriteString("func f() {\n")
		for d := 1; sb.Len() < n; d++ {
			sb.WriteString(strings.Repeat("\t", d%2000))
			sb.WriteString("if x {\n")
		}
		return sb.String()
	}},
	// One word of n random letters, and one of a single repeated letter.
	{"huge-word", FormatText, func(n int) string {
		r := rand.New(rand.NewPCG(1, 2))
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}},
	{"huge-word-repeated", FormatText, func(n int) string {
		return strings.Repeat("a", n)
	}},
	// One line of words with no sentence end (minified text).
	{"long-line", FormatText, func(n int) string {
		return repeatTo(n, "alpha beta gamma delta ")
	}},
	{"long-line-code", FormatCode, func(n int) string {
		return repeatTo(n, "a=b+c;d(e,f);")
	}},
	// One line of punctuation: a single pre-token for the tokenizer.
	{"long-punct", FormatText, func(n int) string {
		return repeatTo(n, "-=")
	}},
	// Many paragraphs of one short word.
	{"tiny-paragraphs", FormatText, func(n int) string {
		return repeatTo(n, "a\n\n")
	}},
	{"tiny-paragraphs-md", FormatMarkdown, func(n int) string {
		return repeatTo(n, "a\n\n")
	}},
	// CJK without punctuation.
	{"cjk-run", FormatText, func(n int) string {
		return repeatTo(n, "公司在第三季度的收入增长了百分之三新的仓库位于河边每天处理大量货物")
	}},
}

// cpuTime is the CPU time (user + system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func repeatTo(n int, s string) string {
	return strings.Repeat(s, max(1, n/len(s)))
}

// BenchmarkAdversarial splits each adversarial shape and reports the time
// per MB of input: wall (s/MB) and the process's CPU time (cpu-s/MB), which
// is what to compare on a machine shared with other jobs. The input size is SITUATE_CHUNK_ADV_BYTES
// (default 1 MiB).
//
//	go test ./chunk -run XXX -bench Adversarial -benchtime 1x
func BenchmarkAdversarial(b *testing.B) {
	n := 1 << 20
	if v, err := strconv.Atoi(os.Getenv("SITUATE_CHUNK_ADV_BYTES")); err == nil && v > 0 {
		n = v
	}
	CountTokens("warm up")
	for _, sh := range adversarialShapes {
		text := sh.gen(n)
		b.Run(fmt.Sprintf("%s/bytes=%d", sh.name, n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(text)))
			var spans []Span
			start, cpu0 := time.Now(), cpuTime()
			iters := 0
			for b.Loop() {
				spans, _ = Split(text, Options{Size: DefaultSize, Overlap: DefaultOverlap, Format: sh.format, Path: "x.go"})
				iters++
			}
			el, cpu := time.Since(start), cpuTime()-cpu0
			mb := float64(iters) * float64(len(text)) / (1 << 20)
			b.ReportMetric(el.Seconds()/mb, "s/MB")
			b.ReportMetric(cpu.Seconds()/mb, "cpu-s/MB")
			b.ReportMetric(float64(len(spans)), "chunks")
		})
	}
}

// TestAdversarialWork bounds Split's cost on every adversarial shape
// without timing it: the bytes handed to the tokenizer (CountTokens's work,
// linear in its input) and the number of tokenizer calls, per input byte,
// at two sizes, so that a super-linear blow-up (issue 14: lines of 1,000
// spaces took 85 s for 400 KB, counted 37 times over) fails the test on
// any machine.
func TestAdversarialWork(t *testing.T) {
	sizes := []int{64 << 10, 256 << 10}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, sh := range adversarialShapes {
		var perByte []float64
		for _, n := range sizes {
			text := sh.gen(n)
			w0, c0 := tokenizerWork.Load(), tokenizerCalls.Load()
			spans, err := Split(text, Options{Size: DefaultSize, Overlap: DefaultOverlap, Format: sh.format, Path: "x.go"})
			if err != nil {
				t.Fatal(err)
			}
			work := float64(tokenizerWork.Load()-w0) / float64(len(text))
			calls := float64(tokenizerCalls.Load()-c0) / float64(len(text))
			t.Logf("%-22s %7d bytes: %3d chunks, tokenizer work %.2f bytes and %.3f calls per byte", sh.name, len(text), len(spans), work, calls)
			if work > 6 {
				t.Errorf("%s, %d bytes: the tokenizer read %.1f bytes per input byte (want <= 6)", sh.name, len(text), work)
			}
			if calls > 0.5 {
				t.Errorf("%s, %d bytes: %.2f tokenizer calls per input byte (want <= 0.5)", sh.name, len(text), calls)
			}
			perByte = append(perByte, work)
		}
		if len(perByte) == 2 && perByte[1] > 1.25*perByte[0]+0.1 {
			t.Errorf("%s: tokenizer work per byte grows with the input: %.2f at %d bytes, %.2f at %d", sh.name, perByte[0], sizes[0], perByte[1], sizes[1])
		}
	}
}
