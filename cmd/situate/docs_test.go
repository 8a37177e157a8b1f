package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite the flag tables of docs/configuration.md from the commands' --help")

// The flag tables of docs/configuration.md sit between these markers and
// are written by TestDocsFlagTables -update-docs, never by hand.
const (
	flagTablesBegin = "<!-- Flag tables: written by `go test ./cmd/situate -run TestDocsFlagTables -update-docs` from every command's --help; do not edit by hand. -->"
	flagTablesEnd   = "<!-- End of the flag tables. -->"
)

// TestDocsFlagTables: docs/configuration.md, the reference a user searches
// for a flag, lists every flag that some command's --help lists, with the
// same default and meaning, so a new or changed flag cannot ship
// undocumented. -update-docs rewrites the tables.
func TestDocsFlagTables(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "configuration.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	begin, end := strings.Index(page, flagTablesBegin), strings.Index(page, flagTablesEnd)
	if begin < 0 || end < begin {
		t.Fatalf("%s: the flag tables' markers are missing:\n%s\n%s", path, flagTablesBegin, flagTablesEnd)
	}
	want := flagTables(t)
	got := page[begin+len(flagTablesBegin) : end]
	if got == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(path, []byte(page[:begin+len(flagTablesBegin)]+want+page[end:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	gotLines, wantLines := strings.Split(got, "\n"), strings.Split(want, "\n")
	for _, l := range wantLines {
		if !slices.Contains(gotLines, l) {
			t.Errorf("%s lacks %q", path, l)
		}
	}
	for _, l := range gotLines {
		if !slices.Contains(wantLines, l) {
			t.Errorf("%s has %q, which no command's --help says", path, l)
		}
	}
	t.Errorf("%s: the flag tables differ from the commands' --help; run go test ./cmd/situate -run TestDocsFlagTables -update-docs", path)
}

// helpFlag is one flag as a command's --help shows it.
type helpFlag struct{ name, kind, usage string }

var helpFlagLine = regexp.MustCompile(`^  --([a-z0-9-]+)( [a-z]+)?$`)

// helpFlags returns the flags of situate ARGS --help, in the order shown.
func helpFlags(t *testing.T, args ...string) []helpFlag {
	t.Helper()
	out, _ := mustRun(t, t.TempDir(), append(args, "--help")...)
	lines := strings.Split(out, "\n")
	var flags []helpFlag
	for i, l := range lines {
		m := helpFlagLine.FindStringSubmatch(l)
		if m == nil || i+1 == len(lines) {
			continue
		}
		flags = append(flags, helpFlag{name: m[1], kind: strings.TrimSpace(m[2]), usage: strings.TrimSpace(lines[i+1])})
	}
	if len(flags) == 0 {
		t.Fatalf("situate %s --help: no flags found; the help's layout changed", strings.Join(args, " "))
	}
	return flags
}

// row is one table row: the flag, its default, and its meaning with the
// environment variable that also sets it.
func (f helpFlag) row() string {
	usage, env, def := f.usage, "", ""
	if i := strings.Index(usage, " (env "); i >= 0 {
		j := strings.Index(usage[i:], ")")
		env, usage = usage[i+6:i+j], usage[:i]+usage[i+j+1:]
	}
	if i := strings.LastIndex(usage, " (default "); i >= 0 && strings.HasSuffix(usage, ")") {
		def, usage = usage[i+10:len(usage)-1], usage[:i]
	}
	switch {
	case f.kind == "":
		def = "off"
	case def == "":
		def = "–"
	default:
		def = "`" + def + "`"
	}
	if env != "" {
		usage += " (env `" + env + "`)"
	}
	return fmt.Sprintf("| `--%s` | %s | %s |", f.name, strings.ReplaceAll(def, "|", `\|`), strings.ReplaceAll(usage, "|", `\|`))
}

// flagTables renders the settings (situate config --help), grouped, then
// each command's own flags.
func flagTables(t *testing.T) string {
	var b strings.Builder
	settings := helpFlags(t, "config")
	isSetting := map[string]bool{}
	byName := map[string]helpFlag{}
	for _, f := range settings {
		isSetting[f.name], byName[f.name] = true, f
	}
	groups := []struct {
		title string
		in    func(name string) bool
	}{
		{"Store and files", func(n string) bool {
			return slices.Contains([]string{"store", "store-url", "config", "include", "exclude", "max-file-size"}, n)
		}},
		{"Chunks, contexts and BM25", func(n string) bool {
			return slices.Contains([]string{"chunk-size", "chunk-overlap", "contextualizer", "parallel", "analyzer",
				"bm25-k1", "bm25-b", "context-weight", "compound-weight", "recipe"}, n)
		}},
		{"Search", func(n string) bool { return n == "k" || n == "mode" }},
		{"Embeddings, fusion and reranking", func(n string) bool {
			return strings.HasPrefix(n, "embed") || strings.HasPrefix(n, "rerank") || slices.Contains([]string{"fusion", "dense-weight", "lexical-weight"}, n)
		}},
		{"Index backend (Weaviate)", func(n string) bool { return n == "index" || strings.HasPrefix(n, "weaviate") }},
		{"The LLM that writes contexts", func(n string) bool { return strings.HasPrefix(n, "llm") || n == "max-cost" }},
	}
	placed := map[string]bool{}
	b.WriteString("\n\n## Settings\n\nThese can be flags, `situate.toml` keys or, where named, environment variables; each command's\n`--help` shows the subset it takes. Durations are Go durations (`30s`, `2m`); sizes are bytes\nunless the name says otherwise.\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "\n### %s\n\n| setting | default | meaning |\n|---|---|---|\n", g.title)
		for _, f := range settings {
			if g.in(f.name) && !placed[f.name] {
				placed[f.name] = true
				b.WriteString(f.row() + "\n")
			}
		}
	}
	for _, f := range settings {
		if !placed[f.name] {
			t.Errorf("setting --%s belongs to no group of docs/configuration.md's tables; add it to a group in flagTables", f.name)
		}
	}
	b.WriteString("\n## Flags of one command\n\nThese flags belong to one command and cannot be set in `situate.toml`.\n")
	commandsHelp := [][]string{}
	for _, c := range commands {
		commandsHelp = append(commandsHelp, []string{c.name})
		switch c.name {
		case "eval":
			commandsHelp = append(commandsHelp, []string{"eval", "--generate", "1"})
		case "keys":
			commandsHelp[len(commandsHelp)-1] = []string{"keys", "create"}
		}
	}
	for _, args := range commandsHelp {
		var own []helpFlag
		for _, f := range helpFlags(t, args...) {
			if !isSetting[f.name] {
				own = append(own, f)
			}
		}
		if len(own) == 0 {
			continue
		}
		title := strings.Join(args, " ")
		if args[0] == "eval" && len(args) > 1 {
			title = "eval --generate"
		}
		fmt.Fprintf(&b, "\n### `situate %s`\n\n| flag | default | meaning |\n|---|---|---|\n", title)
		for _, f := range own {
			b.WriteString(f.row() + "\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}
