package pdf

import "testing"

func TestCleanPageJoinsHyphenationAndLigatures(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"the infor\x02\nmation desk", "the information desk"},
		{"\uFB01nished e\uFB00ort", "finished effort"},
		{"line one\r\nline two", "line one\nline two"},
		{"a real-\nhyphen", "a real-\nhyphen"},
	} {
		if got := cleanPage(tc.in); got != tc.want {
			t.Errorf("cleanPage(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
