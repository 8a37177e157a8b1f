package questions

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/situate/situate/driver"
)

func TestParse(t *testing.T) {
	for _, c := range []struct{ out, q, a, why string }{
		{"QUESTION: When did Halden open?\nANSWER: in 1871", "When did Halden open?", "in 1871", ""},
		{"\n  question： Wann?\nanswer: „1871“ \n\n", "Wann?", "„1871", ""},
		{"Here is a question:\nQUESTION: When?\nANSWER: 1871", "", "", ReasonPreamble},
		{"Sure! QUESTION: When?\nANSWER: 1871", "", "", ReasonMalformed},
		{"QUESTION: When?", "", "", ReasonMalformed},
		{"QUESTION: When?\nANSWER: 1871\nNote: I paraphrased.", "", "", ReasonMalformed},
		{"QUESTION: \nANSWER: 1871", "", "", ReasonMalformed},
		{"ANSWER: 1871\nQUESTION: When?", "", "", ReasonPreamble},
		{"", "", "", ReasonMalformed},
	} {
		q, a, why := Parse(c.out)
		if q != c.q || a != c.a || why != c.why {
			t.Errorf("Parse(%q) = %q, %q, %q; want %q, %q, %q", c.out, q, a, why, c.q, c.a, c.why)
		}
	}
}

func TestSkip(t *testing.T) {
	prose := "The Halden ironworks opened its second blast furnace in 1871 after the railway reached the valley, " +
		"and output doubled within three years while the workforce grew from two hundred to almost five hundred men."
	for _, c := range []struct{ name, text, want string }{
		{"prose", prose, ""},
		{"short", "## Installation\n\nRun the installer.", SkipTooShort},
		{"spdx", "// SPDX-License-Identifier: Apache-2.0\n" + prose, SkipLicense},
		{"mit", "Permission is hereby granted, free of charge, to any person obtaining a copy of this software " + prose, SkipLicense},
		{"go imports", "import (\n\t\"context\"\n\t\"fmt\"\n\t\"os\"\n\n\t\"github.com/situate/situate\"\n)\n", SkipImports},
		{"python imports", "import os\nimport sys\nfrom pathlib import Path\nfrom typing import Any\nimport numpy as np\n", SkipImports},
		{"toc links", "- [Install](#install)\n- [Usage](#usage)\n- [Configuration](#configuration)\n- [Evaluation](#evaluation)\n", SkipTOC},
		{"toc leaders", "Introduction ........ 3\nInstallation ........ 7\nUsage ........ 12\nReference ........ 30\n", SkipTOC},
		{"inhalt", "## Inhaltsverzeichnis\n- Einleitung\n- Geschichte der Stadt\n- Wirtschaft und Handel\n- Kultur\n", SkipTOC},
	} {
		if got := Skip(c.text, driver.LangEnglish, DefaultMinChunkTerms); got != c.want {
			t.Errorf("%s: Skip = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestAnchored(t *testing.T) {
	srcs := []Source{{Lang: "en", Chunks: []driver.Chunk{
		{Text: "the furnace and the railway"}, {Text: "the furnace and the valley"},
		{Text: "the furnace of the works"}, {Text: "the furnace opened early"}, {Text: "a furnace"},
		{Text: "the furnace"}, {Text: "furnace"}, {Text: "the workforce and the furnace"},
	}}}
	df := NewDocFreq(srcs) // 8 chunks: rare means in at most 2
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"When did the furnace start?", false},      // furnace is everywhere
		{"What happened in 1871?", true},            // number
		{"When did Halden open its furnace?", true}, // a name
		{"Which option sets max_tokens?", true},     // identifier
		{"What does parseConfig return?", true},     // camelCase
		{"Why was the railway important?", true},    // rare term (one chunk)
		{"What is it about?", false},                // nothing
		{"Что открылось в Москве?", true},           // Cyrillic name
		{"这个文档讲的是什么？", false},                       // no anchor
	} {
		if got := Anchored(c.q, "en", df); got != c.want {
			t.Errorf("Anchored(%q) = %v, want %v", c.q, got, c.want)
		}
	}
}

func TestOverlap(t *testing.T) {
	chunk := "The Halden ironworks opened its second blast furnace in 1871."
	if o := Overlap("The Halden ironworks opened its second blast furnace in 1871?", chunk, "en"); o != 1 {
		t.Errorf("copied question: overlap %g, want 1", o)
	}
	if o := Overlap("When did production start at the Norwegian steel plant?", chunk, "en"); o != 0 {
		t.Errorf("paraphrase: overlap %g, want 0", o)
	}
}

// countingLLM answers every prompt the same way and counts calls.
type countingLLM struct{ calls int }

func (m *countingLLM) Name() string { return "test:model" }
func (m *countingLLM) Complete(_ context.Context, p driver.Prompt) (driver.Completion, error) {
	m.calls++
	return driver.Completion{Text: "QUESTION: What happened in 1871?\nANSWER: x", Usage: driver.Usage{InputTokens: 1000, OutputTokens: 20}}, nil
}

// TestMaxCost: the run stops once the spend reaches MaxCostUSD, returns
// what it has and an error wrapping ErrBudget.
func TestMaxCost(t *testing.T) {
	srcs := loadSources(t, 80, exampleDirs()...)
	m := &countingLLM{}
	res, err := Generate(context.Background(), m, srcs, Options{N: 50, Concurrency: 1, MaxCostUSD: 0.0045,
		Price: func(u driver.Usage) float64 { return float64(u.InputTokens) * 1e-6 }})
	if !errors.Is(err, ErrBudget) {
		t.Fatalf("err %v, want ErrBudget", err)
	}
	if m.calls != 5 || res.Calls != 5 || len(res.All) != 5 {
		t.Errorf("%d calls (%d in result, %d items), want 5 ($0.001 each, budget $0.0045)", m.calls, res.Calls, len(res.All))
	}
	if _, err := Generate(context.Background(), m, srcs, Options{N: 5, MaxCostUSD: 1}); err == nil || !strings.Contains(err.Error(), "price") {
		t.Errorf("a budget without a price: %v", err)
	}
}
