package rank

import (
	"math/rand"
	"path"
	"strings"
	"testing"
)

// TestDirHas checks dirHas against the string it avoids building, on random
// paths of directory names that contain, start or end like the ones it
// looks for.
func TestDirHas(t *testing.T) {
	parts := []string{"a", "src", "test", "__tests__", "src/test", "x__tests__", "__tests__y", "tests", "", ".", ".."}
	rng := rand.New(rand.NewSource(1))
	for range 200000 {
		var ps []string
		for range rng.Intn(6) {
			ps = append(ps, parts[rng.Intn(len(parts))])
		}
		id := strings.Join(ps, "/") + "/f.js"
		if rng.Intn(5) == 0 {
			id = "/" + id
		}
		for _, sub := range []string{"__tests__", "src/test"} {
			want := strings.Contains("/"+path.Dir(id)+"/", "/"+sub+"/")
			if got := dirHas(path.Dir(id), sub); got != want {
				t.Fatalf("%q %q: %v want %v", id, sub, got, want)
			}
		}
	}
}
