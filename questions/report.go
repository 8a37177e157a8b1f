package questions

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// WriteReport writes the generation's report in Markdown: what was sampled,
// the share of generated items dropped by each check (with an example
// output of each), the tokens and cost of the run.
func WriteReport(w io.Writer, r *Result) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Generated reference questions\n\n")
	fmt.Fprintf(&b, "Model `%s`: %d chunks considered, %d skipped as unusable, %d sampled, %d answered, **%d kept**.\n\n",
		r.Model, r.Chunks, sum(r.Skipped), r.Sampled, len(r.All), len(r.Items))
	if len(r.Skipped) > 0 {
		b.WriteString("Unusable chunks (not sampled): ")
		keys := sortedKeys(r.Skipped)
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "%s %d", k, r.Skipped[k])
		}
		b.WriteString(".\n\n")
	}
	b.WriteString("| check | dropped | share of generated |\n|---|---:|---:|\n")
	for _, why := range Reasons {
		n := r.Dropped[why]
		fmt.Fprintf(&b, "| %s | %d | %s |\n", why, n, pct(n, len(r.All)))
	}
	fmt.Fprintf(&b, "| **kept** | %d | %s |\n\n", len(r.Items), pct(len(r.Items), len(r.All)))
	fmt.Fprintf(&b, "Calls: %d; tokens: %d input, %d cache write, %d cache read, %d output; cost $%.4f", r.Calls,
		r.Usage.InputTokens, r.Usage.CacheWriteTokens, r.Usage.CacheReadTokens, r.Usage.OutputTokens, r.CostUSD)
	if r.CostUSD == 0 {
		b.WriteString(" (no price known for the model)")
	}
	fmt.Fprintf(&b, "; %s.\n", r.Elapsed.Round(1e6))
	examples := map[string]Item{}
	for _, it := range r.All {
		if _, ok := examples[it.Dropped]; it.Dropped != "" && !ok {
			examples[it.Dropped] = it
		}
	}
	if len(examples) > 0 {
		b.WriteString("\nFirst dropped item per check:\n\n")
		for _, why := range Reasons {
			if it, ok := examples[why]; ok {
				raw := strings.Join(strings.Fields(it.Raw), " ")
				if r := []rune(raw); len(r) > 160 {
					raw = string(r[:160]) + "…"
				}
				fmt.Fprintf(&b, "- %s (%s chunk %d): `%s`\n", why, it.Doc, it.Chunk, strings.ReplaceAll(raw, "`", "'"))
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func pct(n, of int) string {
	if of == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}
