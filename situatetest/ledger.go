package situatetest

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// CheckNoKeyOnDisk fails t if Key appears in any file under dir (a store
// a contextualizer recorded its usage and cached its contexts into, after
// a run against an echoing server), in any form a server might have
// echoed it: as is, JSON-escaped or after "Bearer ".
func CheckNoKeyOnDisk(t testing.TB, dir string) {
	t.Helper()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files++
		for _, form := range []string{Key, strings.ToUpper(Key)} {
			if i := bytes.Index(data, []byte(form)); i >= 0 {
				t.Errorf("%s holds the key at byte %d: %q", path, i, data[max(0, i-60):min(len(data), i+len(form)+20)])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 {
		t.Fatalf("no files under %s: nothing was checked", dir)
	}
}
