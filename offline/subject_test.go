package offline_test

import (
	"strings"
	"testing"

	"github.com/situate/situate"
	"github.com/situate/situate/offline"
)

// TestNoStraySubject pins issue 13 item 5: on real documentation (Node.js,
// Go, pip, Valgrind) the subject extractor took a stray first word as the
// document's subject ("From Events (Much)", "These", "Stability",
// "Welcome", "Please", "NB(chrisdickinson"). Without a name, the context
// falls back to the title.
func TestNoStraySubject(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	for _, tc := range []struct{ title, text, want string }{
		{"Events", "# Events\n\n<!--introduced_in=v0.10.0-->\n\n> Stability: 2 - Stable\n\nMuch of the Node.js core API is built around an idiomatic asynchronous event-driven architecture in which certain kinds of objects emit named events.\n\nAll objects that emit events are instances of the EventEmitter class.",
			"From Events."},
		{"Asynchronous context tracking", "# Asynchronous context tracking\n\n> Stability: 2 - Stable\n\n## Introduction\n\nThese classes are used to associate state and propagate it throughout callbacks and promise chains.\n\nthese are not the only ones.",
			"From Asynchronous context tracking."},
		{"Async hooks", "# Async hooks\n\n> Stability: 1 - Experimental. Please migrate away from this API, if you can.\n\nWe do not recommend using the createHook, AsyncHook, and executionAsyncResource APIs as they have usability issues.",
			"From Async hooks."},
		{"About this documentation", "# About this documentation\n\nWelcome to the official API reference documentation for Node.js!\n\nNode.js is a JavaScript runtime built on the V8 JavaScript engine. You are welcome here.",
			"From About this documentation."},
		{"Contributing", "# Contributing\n\nPlease read the guide before you send a pull request to the project.\n\nWe thank you; please be patient.",
			"From Contributing."},
		{"Changelog", "# Changelog\n\nNB(chrisdickinson): the stream API changed again in this release of the library.\n\nSee below.",
			"From Changelog."},
	} {
		doc := situate.Document{ID: "doc.md", Title: tc.title, Format: situate.FormatMarkdown, Lang: "en", Text: tc.text}
		last := strings.LastIndex(tc.text, "\n\n") + 2
		got := contextsOf(t, c, doc, tc.text[:12], tc.text[last:last+8])
		for i, g := range got {
			if g.Text != tc.want {
				t.Errorf("%s chunk %d: context %q, want %q", tc.title, i, g.Text, tc.want)
			}
		}
	}
}

// TestNoIDTitle: a document without a title is not introduced by an
// opaque id ("From 4983."), and a title ending in a period gets no second
// one.
func TestNoIDTitle(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	for _, id := range []string{"4983", "2024-001", "3f2a9c1e-77b0-4d6e-9a51-0c4e8f1b2d3a", "9f86d081884c7d659a2feaa0c55ad015"} {
		doc := situate.Document{ID: id, Lang: "en", Text: "Preliminary report on the use of computers in the design of bridges. The study covers steel and concrete."}
		got := contextsOf(t, c, doc, "Preliminary", "The study")
		for i, g := range got {
			if strings.Contains(g.Text, id) {
				t.Errorf("id %s chunk %d: context %q names the id", id, i, g.Text)
			}
		}
	}
	doc := situate.Document{ID: "a.md", Title: "Acme Inc.", Lang: "en", Text: "Nothing names a company here at all.\n\nstill nothing"}
	for _, g := range contextsOf(t, c, doc, "Nothing", "still") {
		if strings.Contains(g.Text, "..") {
			t.Errorf("context %q has a double period", g.Text)
		}
	}
}

// TestCodeContextID: code contexts name the document id, never the path of
// the machine that indexed it, and a Go file's summary is its package doc,
// not the doc comment of its first declaration, a build tag or a licence.
func TestCodeContextID(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	text := "// Copyright 2009 The Go Authors. All rights reserved.\n\n//go:build linux && amd64 && !purego\n\npackage http\n\n// A Cookie represents an HTTP cookie as sent in the Set-Cookie header of an HTTP response.\ntype Cookie struct {\n\tName string\n}\n\nfunc (c *Cookie) String() string { return c.Name }\n"
	doc := situate.Document{ID: "net/http/cookie.go", Path: "/home/alice/go/src/net/http/cookie.go", Format: situate.FormatCode, Lang: "en", Text: text}
	for i, g := range contextsOf(t, c, doc, "// A Cookie", "func (c") {
		if strings.Contains(g.Text, "/home/alice") {
			t.Errorf("chunk %d: context %q holds the absolute path", i, g.Text)
		}
		if !strings.Contains(g.Text, "File net/http/cookie.go") {
			t.Errorf("chunk %d: context %q does not name the id", i, g.Text)
		}
		for _, bad := range []string{"A Cookie represents", "go:build", "Copyright"} {
			if strings.Contains(g.Text, bad) {
				t.Errorf("chunk %d: context %q takes %q as the package summary", i, g.Text, bad)
			}
		}
	}
	pkgDoc := "// Copyright 2009 The Go Authors.\n\n// Package http provides HTTP client and server implementations.\npackage http\n\nimport \"io\"\n\n// Get issues a GET.\nfunc Get(url string) (io.Reader, error) { return nil, nil }\n"
	doc = situate.Document{ID: "net/http/client.go", Format: situate.FormatCode, Lang: "en", Text: pkgDoc}
	got := contextsOf(t, c, doc, "// Copyright", "// Get issues")
	if !strings.Contains(got[1].Text, "Package http provides HTTP client and server implementations.") {
		t.Errorf("context %q lacks the package doc", got[1].Text)
	}
}

// TestSubjectEnglishTitle pins issue 13 item 9: XQuAD-style Russian and
// Chinese articles keep their English titles, so the subject comes from the
// opening sentence, in the document's language. Before, a gloss in
// parentheses with abbreviations ("норм. Normands; фр. …") made the opening
// no sentence and the next paragraph's first word ("Норманнская") became
// the subject; a common noun defined with a dash ("Кислород — …") was
// dropped; a Chinese opening phrase ("此外", "您需要注销再登录才能") was taken
// for a name.
func TestSubjectEnglishTitle(t *testing.T) {
	c := offline.New(offline.DefaultOptions())
	for _, tc := range []struct {
		title, lang, text string
		want              [2]string // the first and the last paragraph's context
	}{
		{"Normans", "ru", "Нормандцы (норм. Normands; фр. Normands; лат. Normanni) — народ, который в X и XI веках дал своё имя Нормандии, региону во Франции.\n\nНорманнская династия оказала большое политическое влияние на средневековую Европу.",
			[2]string{"Из «Normans» (Нормандцы).", "Из «Normans» (Нормандцы): Нормандцы."}},
		{"Oxygen", "ru", "Кислород — химический элемент с символом O и атомным номером 8.\n\nПри стандартной температуре и давлении два атома элемента связываются, образуя газ; кислород бесцветен.",
			[2]string{"Из «Oxygen» (Кислород).", "Из «Oxygen» (Кислород): Кислород."}},
		{"Super Bowl 50", "ru", "Супербоул 50 — игра в американский футбол, целью которой было определить чемпиона НФЛ в сезоне 2015 года.\n\nТак как это был 50-й Супербоул, лига подчеркнула «золотую годовщину».",
			[2]string{"Из «Super Bowl 50» (Супербоул 50).", "Из «Super Bowl 50» (Супербоул 50): Супербоул 50."}},
		{"Normans", "zh", "诺曼人（诺曼语：Nourmands；法语：Normands；拉丁语：Normanni）是在 10 和 11 世纪将名字赋予法国诺曼底地区的人。\n\n他们是维京人的后裔。",
			[2]string{"出自《Normans》（诺曼人）。", "出自《Normans》（诺曼人）：诺曼人。"}},
		{"Redistributing Debian", "zh", "此外，您可以在商业产品中重新分发 Debian。\n\n所有 CD 厂商需要遵守许可证。",
			[2]string{"出自《Redistributing Debian》。", "出自《Redistributing Debian》。"}},
		{"Customizing", "zh", "您需要注销再登录才能成为该组的有效成员。\n\n要检查您属于哪些组，请执行 groups。",
			[2]string{"出自《Customizing》。", "出自《Customizing》。"}},
	} {
		doc := situate.Document{ID: "doc", Title: tc.title, Lang: tc.lang, Text: tc.text}
		last := strings.LastIndex(tc.text, "\n\n") + 2
		got := contextsOf(t, c, doc, tc.text[:last-2], tc.text[last:])
		for i, g := range got {
			if g.Text != tc.want[i] {
				t.Errorf("%s/%s chunk %d: context %q, want %q", tc.title, tc.lang, i, g.Text, tc.want[i])
			}
		}
	}
}
