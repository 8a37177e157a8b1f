package questions

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteDataset writes items as JSONL, one question per line, in the
// "answers" format of eval.LoadAnswers ({"id","query","doc","answer",
// "lang"}) plus the golden chunk's "start", "end", "chunk", "heading" and the
// question's "overlap", which that loader ignores. The output depends only
// on the items, so the same items give the same bytes.
func WriteDataset(w io.Writer, items []Item) error {
	bw := bufio.NewWriter(w)
	for _, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return fmt.Errorf("write dataset: %s: %w", it.ID, err)
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write dataset: %w", err)
	}
	return nil
}

// WriteDatasetFile writes the dataset to path through a temporary file in
// the same folder, renamed into place, so a crash never leaves half a file.
func WriteDatasetFile(path string, items []Item) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write dataset %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	if err := WriteDataset(f, items); err != nil {
		f.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write dataset %s: %w", path, err)
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return fmt.Errorf("write dataset %s: %w", path, err)
	}
	return nil
}

// ReadDataset reads a file written by WriteDataset (possibly edited by a
// person); a line that is not a JSON object is an error naming the line.
func ReadDataset(r io.Reader, name string) ([]Item, error) {
	var items []Item
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" {
			continue
		}
		var it Item
		if err := json.Unmarshal([]byte(t), &it); err != nil {
			return nil, fmt.Errorf("read dataset %s:%d: %w", name, line, err)
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read dataset %s: %w", name, err)
	}
	return items, nil
}
