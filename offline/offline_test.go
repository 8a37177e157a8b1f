package offline_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/offline"
)

// contextsOf contextualizes doc cut at the given substrings (each chunk is
// the text from its marker to the next one) and fails on error.
func contextsOf(t *testing.T, c *offline.Contextualizer, doc situate.Document, markers ...string) []situate.Context {
	t.Helper()
	var chunks []situate.Chunk
	var starts []int
	for _, m := range markers {
		i := strings.Index(doc.Text, m)
		if i < 0 {
			t.Fatalf("marker %q not in document", m)
		}
		starts = append(starts, i)
	}
	for i, s := range starts {
		end := len(doc.Text)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		chunks = append(chunks, situate.Chunk{DocID: doc.ID, Index: i, Start: s, End: end, Text: doc.Text[s:end]})
	}
	got, err := c.Contextualize(context.Background(), doc, chunks)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(chunks) {
		t.Fatalf("%d contexts for %d chunks", len(got), len(chunks))
	}
	for i, g := range got {
		if g.Text == "" || g.Source != offline.Name {
			t.Errorf("chunk %d: bad context %+v", i, g)
		}
	}
	return got
}

func TestProsePerLanguage(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	for _, tc := range []struct {
		lang, title, text, heading string
		want                       []string
	}{
		{"en", "ACME Corp annual report 2023",
			"# Overview\n\nACME Corp is a maker of rocket skates based in Phoenix. It was founded in 1949.\n\n## Revenue\n\nThe company's revenue grew 3% over the previous quarter.",
			"Overview > Revenue",
			[]string{"From ACME Corp annual report 2023, section Overview > Revenue: ACME Corp."}},
		{"de", "Geschäftsbericht der Müller AG",
			"Copyright 2024 Müller AG. Alle Rechte vorbehalten.\n\nDie Müller AG stellt seit 1920 Werkzeugmaschinen in Stuttgart her.\n\nDer Umsatz stieg im Vergleich zum Vorjahr um 3 %.",
			"Umsatz",
			[]string{"Aus Geschäftsbericht der Müller AG, Abschnitt Umsatz: Müller AG."}},
		{"es", "Informe anual de Telefónica",
			"Telefónica es una empresa de telecomunicaciones con sede en Madrid.\n\nLos ingresos crecieron un 3 % respecto al trimestre anterior.",
			"Resultados",
			[]string{"De Informe anual de Telefónica, sección Resultados: Telefónica."}},
		{"ru", "Годовой отчёт Газпрома",
			"ПАО «Газпром» — крупнейшая газовая компания России. Штаб-квартира находится в Санкт-Петербурге.\n\nВыручка компании выросла на 3 % по сравнению с прошлым кварталом.",
			"Выручка",
			[]string{"Из «Годовой отчёт Газпрома» (ПАО «Газпром»), раздел «Выручка»: ПАО «Газпром»."}},
		{"zh", "华为年度报告",
			"华为技术有限公司是一家总部位于深圳的通信设备制造商。公司成立于1987年。\n\n公司收入比上一季度增长了百分之三。",
			"收入",
			[]string{"出自《华为年度报告》（华为技术有限公司），章节“收入”：华为技术有限公司。"}},
		{"fr", "Rapport annuel", // unknown language: English wording; no name opens the text
			"La société fabrique des avions à Toulouse depuis 1970.\n\nLe chiffre d'affaires a augmenté de 3 %.",
			"",
			[]string{"From Rapport annuel."}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			doc := situate.Document{ID: "r.md", Title: tc.title, Text: tc.text, Format: situate.FormatMarkdown, Lang: tc.lang}
			last := strings.LastIndex(tc.text, "\n\n") + 2
			chunks := []situate.Chunk{{DocID: doc.ID, Start: last, End: len(tc.text), Text: tc.text[last:], Heading: tc.heading}}
			got, err := c.Contextualize(context.Background(), doc, chunks)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if got[0].Text != w {
					t.Errorf("context\n got %q\nwant %q", got[0].Text, w)
				}
			}
		})
	}
}

func TestProseSummarySkipsBoilerplate(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	text := "---\ntitle: x\n---\n\n[![build](https://ci/badge.svg)](https://ci)\n\n# Rocket Skates\n\n" +
		"<!-- comment -->\n\nSPDX-License-Identifier: MIT\n\n```go\nfmt.Println(\"code is not a summary\")\n```\n\n" +
		"Rocket Skates is a library for going fast on wheels. See e.g. the guide.\n\n## Usage\n\nCall it twice."
	doc := situate.Document{ID: "docs/README.md", Text: text, Format: situate.FormatMarkdown, Lang: "en"}
	got := contextsOf(t, c, doc, "Call it twice.")
	want := "From README.md (Rocket Skates), section Usage: Rocket Skates."
	if got[0].Text != strings.Replace(want, ", section Usage", "", 1) {
		t.Errorf("got %q", got[0].Text)
	}
	// A chunk that names the subject itself gets it once, from the title part.
	got = contextsOf(t, c, doc, "Rocket Skates is")
	if got[0].Text != "From README.md (Rocket Skates)." {
		t.Errorf("subject repeated in its own chunk: %q", got[0].Text)
	}
}

// TestSubject: the context names what the document is about, also when the
// title is only a file name, and never repeats the whole opening sentence.
func TestSubject(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	for _, tc := range []struct {
		name string
		doc  situate.Document
		want string
	}{
		{"file name title", situate.Document{ID: "notes/doc17.txt", Title: "doc17.txt", Lang: "es",
			Text: "Puerto Almenara es una villa pesquera de la costa cantábrica. El puerto tiene una lonja.\n\nSu padrón ha bajado un 7 por ciento."},
			"De doc17.txt (Puerto Almenara): Puerto Almenara."},
		{"title names it", situate.Document{ID: "a.md", Title: "Североозёрск: очерк о городе", Lang: "ru",
			Text: "Североозёрск — небольшой город на севере Карелии.\n\nЗа последние десять лет население сократилось."},
			"Из «Североозёрск: очерк о городе»: Североозёрск."},
		{"no name, file name title", situate.Document{ID: "b.txt", Title: "b.txt", Lang: "en",
			Text: "The old mill on the river, long closed, reopened as a museum.\n\nTickets cost four pounds."},
			"From b.txt: The old mill on the river."},
		{"no name, real title", situate.Document{ID: "c.txt", Title: "The old mill", Lang: "en",
			Text: "The old mill on the river, long closed, reopened as a museum.\n\nTickets cost four pounds."},
			"From The old mill."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			last := strings.LastIndex(tc.doc.Text, "\n\n") + 2
			got := contextsOf(t, c, tc.doc, tc.doc.Text[last:])
			if got[0].Text != tc.want {
				t.Errorf("context\n got %q\nwant %q", got[0].Text, tc.want)
			}
		})
	}
}

func TestBudget(t *testing.T) {
	long := strings.Repeat("The committee reviewed every long and winding clause of the agreement carefully. ", 20)
	doc := situate.Document{ID: "x", Title: strings.Repeat("Very Long Title ", 20), Text: long, Lang: "en"}
	for _, max := range []int{10, 30, 60} {
		c := offline.New(offline.Options{MaxWords: max})
		got := contextsOf(t, c, doc, "The committee")
		if n := len(strings.Fields(got[0].Text)); n > max {
			t.Errorf("MaxWords %d: context has %d words: %q", max, n, got[0].Text)
		}
	}
	// Long identifiers hit the token cap before the word budget.
	var src strings.Builder
	src.WriteString("package p\n\n")
	for i := range 40 {
		src.WriteString("func ThisIsAnExtremelyLongFunctionNameNumber" + strings.Repeat("X", i%7) + string(rune('A'+i%26)) + "() {}\n")
	}
	code := situate.Document{ID: "p/long.go", Text: src.String(), Format: situate.FormatCode}
	got := contextsOf(t, offline.New(offline.DefaultOptions()), code, "func ThisIs")
	if est := len(got[0].Text) / 4; est > 110 {
		t.Errorf("context of %d bytes (~%d tokens) exceeds the token cap: %q", len(got[0].Text), est, got[0].Text)
	}
}

func TestNeverEmpty(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	for name, doc := range map[string]situate.Document{
		"no title, no id": {Text: "just some words here"},
		"only id":         {ID: "notes", Text: "x"},
		"code, no decls":  {ID: "doc_1", Text: "x = 1\n", Format: situate.FormatCode},
		"chinese":         {ID: "a", Text: "天气很好。", Lang: "zh"},
	} {
		t.Run(name, func(t *testing.T) {
			got := contextsOf(t, c, doc, doc.Text[:1])
			t.Log(got[0].Text)
		})
	}
	got, err := c.Contextualize(context.Background(), situate.Document{ID: "e"}, nil)
	if err != nil || len(got) != 0 {
		t.Errorf("no chunks: %v, %v", got, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Contextualize(ctx, situate.Document{ID: "e"}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
	if err := (offline.Options{MaxWords: -1}).Validate(); !errors.Is(err, situate.ErrInvalid) || !strings.Contains(err.Error(), "MaxWords") {
		t.Errorf("Validate(-1) = %v", err)
	}
}

func TestCode(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	for _, tc := range []struct {
		name    string
		doc     situate.Document
		markers []string
		want    []string // substrings expected in each chunk's context
	}{
		{"go", situate.Document{ID: "store/store.go", Format: situate.FormatCode, Lang: "en", Text: `// Package store keeps the records of the warehouse.
package store

// Store holds records.
type Store struct {
	items map[string]int
}

// Add puts n items under key.
func (s *Store) Add(key string, n int) {
	if s.items == nil {
		s.items = map[string]int{}
	}
	s.items[key] += n
}

func helper() {}
`}, []string{"// Package", "	if s.items == nil", "func helper"},
			[]string{
				"File store/store.go, package store. Defines Store, (Store) Add, helper. This chunk defines struct Store, func (Store) Add.",
				"File store/store.go, package store: Package store keeps the records of the warehouse. Defines Store, (Store) Add, helper. This chunk is in func (Store) Add.",
				"This chunk defines func helper.",
			}},
		{"python", situate.Document{ID: "doc_9", Format: situate.FormatCode, Lang: "en", Text: `"""Decoders for the Morse code cipher."""
import re


class Morse_code:
    """Decodes Morse code."""

    def decode(self, ctext):
        result = ""
        for ch in ctext:
            result += ch
        return result

    def priority(self):
        return 0.05


def main():
    print(Morse_code().decode("..."))
`}, []string{"\"\"\"Decoders", "        for ch in ctext", "    def priority", "def main"},
			[]string{
				"Python code. Defines Morse_code, main, decode, priority. This chunk defines class Morse_code, def decode (morse code).",
				"Python code: Decoders for the Morse code cipher. Defines Morse_code, main, decode, priority. This chunk is in class Morse_code > def decode (morse code).",
				"This chunk is in class Morse_code and defines def priority (morse code).",
				"This chunk defines def main.",
			}},
		{"rust", situate.Document{ID: "src/executors/differential.rs", Format: situate.FormatCode, Lang: "de", Text: `//! Executor for differential fuzzing.
use core::fmt::Debug;

/// A DiffExecutor wraps two executors.
pub struct DiffExecutor<A, B> {
    primary: A,
    secondary: B,
}

impl<A, B> Executor for DiffExecutor<A, B>
where
    A: Executor,
{
    fn run_target(&mut self) -> ExitKind {
        let ret1 = self.primary.run_target();
        let s = "}"; // a brace in a string
        ret1
    }
}
`}, []string{"//! Executor", "        let ret1"},
			[]string{
				"Datei src/executors/differential.rs. Definiert DiffExecutor, run_target. Dieser Abschnitt definiert struct DiffExecutor, impl Executor for DiffExecutor, fn run_target (diff executor run target).",
				"Datei src/executors/differential.rs: Executor for differential fuzzing. Definiert DiffExecutor, run_target. Dieser Abschnitt liegt in impl Executor for DiffExecutor > fn run_target (run target diff executor).",
			}},
		{"java", situate.Document{ID: "doc_41", Format: situate.FormatCode, Lang: "en", Text: `/*
 * Copyright 2020 Example LLC. Licensed under the Apache License, Version 2.0.
 */
package com.password4j;

import org.junit.Test;

/**
 * Tests for {@link PepperGenerator}, which makes random peppers.
 */
public class PepperGeneratorTest {

    private static final int DEFAULT_LENGTH = 24;

    @Test
    public void testSaltLength() {
        String pepper = PepperGenerator.generate(23);
        Assert.assertEquals(23, pepper.length());
    }

    @Test
    public void testSaltNoLength() {
        String pepper = PepperGenerator.generate();
    }
}
`}, []string{"/*", "        String pepper = PepperGenerator.generate(23)", "    @Test\n    public void testSaltNoLength"},
			[]string{
				"This chunk defines class PepperGeneratorTest, const DEFAULT_LENGTH, testSaltLength (pepper generator default length salt).",
				"Java code, package com.password4j: Tests for PepperGenerator, which makes random peppers. Defines PepperGeneratorTest, PepperGenerator, DEFAULT_LENGTH, testSaltLength, testSaltNoLength. This chunk is in class PepperGeneratorTest > testSaltLength (salt length pepper generator).",
				"This chunk is in class PepperGeneratorTest and defines testSaltNoLength (pepper generator salt no length).",
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := contextsOf(t, c, tc.doc, tc.markers...)
			for i, w := range tc.want {
				if !strings.Contains(got[i].Text, w) {
					t.Errorf("chunk %d:\n got %q\nwant it to contain %q", i, got[i].Text, w)
				}
			}
		})
	}
}
