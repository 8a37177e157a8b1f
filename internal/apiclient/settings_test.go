package apiclient

import (
	"testing"
	"time"
)

func TestSettingsCheck(t *testing.T) {
	ok := Settings{APIKey: "k", KeyEnv: "X_KEY", DefaultBaseURL: "https://api.example.com/"}
	u, err := ok.Check()
	if err != nil || u.String() != "https://api.example.com" {
		t.Fatalf("defaults: %v %v", u, err)
	}
	for _, c := range []struct {
		mod  func(*Settings)
		want string
	}{
		{func(s *Settings) { s.APIKey = " " }, "APIKey: empty (set X_KEY)"},
		{func(s *Settings) { s.BaseURL = "ftp://x" }, `BaseURL: "ftp://x": want http(s)://host[/path]`},
		{func(s *Settings) { s.BaseURL = "http://" }, `BaseURL: "http://": want http(s)://host[/path]`},
		{func(s *Settings) { s.Dimensions = -1 }, "Dimensions: must be >= 0, got -1"},
		{func(s *Settings) { s.MaxInputTokens = -2 }, "MaxInputTokens: must be >= 0, got -2"},
		{func(s *Settings) { s.BatchSize = -3 }, "BatchSize: must be >= 0, got -3"},
		{func(s *Settings) { s.BatchTokens = -4 }, "BatchTokens: must be >= 0, got -4"},
		{func(s *Settings) { s.Timeout = -time.Second }, "Timeout: must be >= 0, got -1s"},
		{func(s *Settings) { s.APIKey, s.BatchSize = "", -1 }, "APIKey: empty (set X_KEY)"}, // field order
	} {
		s := ok
		c.mod(&s)
		if _, err := s.Check(); err == nil || err.Error() != c.want {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

func TestSettingsDescribeHidesKey(t *testing.T) {
	s := Settings{APIKey: "secret-key-123", BaseURL: "https://x", Model: "m", BatchSize: 3, Timeout: time.Second}
	want := `p.Options{APIKey:<redacted> BaseURL:"https://x" Model:"m" Dimensions:0 MaxInputTokens:0 BatchSize:3 BatchTokens:0 Timeout:1s}`
	if got := s.Describe("p.Options"); got != want {
		t.Errorf("Describe = %s, want %s", got, want)
	}
	s.APIKey = ""
	if got := s.Describe("p.Options"); got[:len("p.Options{APIKey:<unset> ")] != "p.Options{APIKey:<unset> " {
		t.Errorf("no key: %s", got)
	}
}

func TestSettingsKeyOptional(t *testing.T) {
	s := Settings{BaseURL: "http://localhost:8080", KeyEnv: "X_KEY"}
	if _, err := s.Check(); err == nil || err.Error() != "APIKey: empty (set X_KEY)" {
		t.Errorf("required key: %v", err)
	}
	s.KeyOptional = true
	if _, err := s.Check(); err != nil {
		t.Errorf("optional key: %v", err)
	}
}
