package questions_test

import (
	"strings"
	"testing"

	"github.com/situate/situate/questions"
)

func TestReview(t *testing.T) {
	items := []questions.Item{{ID: "q1", Question: "a?"}, {ID: "q2", Question: "b?"}, {ID: "q3", Question: "c?"}, {ID: "q4", Question: "d?"}}
	for _, c := range []struct {
		in   string
		want string
	}{
		{"y\nn\n\nn\n", "q1 q3"},
		{"n\nq\n", "q2 q3 q4"}, // q keeps the rest unreviewed
		{"n\n", "q2 q3 q4"},    // so does the end of input
	} {
		var out strings.Builder
		kept, err := questions.Review(strings.NewReader(c.in), &out, items)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, it := range kept {
			ids = append(ids, it.ID)
		}
		if got := strings.Join(ids, " "); got != c.want {
			t.Errorf("answers %q: kept %s, want %s", c.in, got, c.want)
		}
		if !strings.Contains(out.String(), "[1/4] q1") {
			t.Errorf("listing lacks the first item:\n%s", out.String())
		}
	}
}
