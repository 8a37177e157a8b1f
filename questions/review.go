package questions

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Review lists each item on out and reads y (keep) or n (drop) per line;
// an empty line keeps too; q or the end of input keeps the rest unreviewed.
func Review(in io.Reader, out io.Writer, items []Item) ([]Item, error) {
	sc := bufio.NewScanner(in)
	var kept []Item
	for i, it := range items {
		fmt.Fprintf(out, "\n[%d/%d] %s  (%s, bytes %d-%d%s)\n  Q: %s\n  A: %s\nkeep? [y/n/q] ",
			i+1, len(items), it.ID, it.Doc, it.Start, it.End, headingNote(it.Heading), it.Question, it.Answer)
		if !sc.Scan() {
			if err := sc.Err(); err != nil {
				return nil, fmt.Errorf("review: %w", err)
			}
			return append(kept, items[i:]...), nil
		}
		switch strings.ToLower(strings.TrimSpace(sc.Text())) {
		case "n", "no":
		case "q", "quit":
			return append(kept, items[i:]...), nil
		default:
			kept = append(kept, it)
		}
	}
	return kept, nil
}

func headingNote(h string) string {
	if h == "" {
		return ""
	}
	return ", " + h
}
