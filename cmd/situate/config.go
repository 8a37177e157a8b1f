package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/situate/situate"
)

// A setting is one configuration value. It has the same name as a flag and
// as a key in situate.toml; flags override the environment, which overrides
// the file, which overrides the default.
type setting struct {
	name   string
	env    string // environment variable, if any
	def    string
	usage  string
	isBool bool
	isList bool // comma-separated or repeated flag

	value  string
	origin string
}

// settingDefs lists every setting; commands pick the ones they take.
func settingDefs() []*setting {
	d := situate.DefaultOptions()
	defs := []*setting{
		{name: "store", env: "SITUATE_STORE", def: ".situate", usage: "store directory"},
		{name: "store-url", env: "SITUATE_STORE_URL", usage: "PostgreSQL store shared by several situate processes (postgres://user@host:port/db); the --store directory then holds only this process's indexes"},
		{name: "config", env: "SITUATE_CONFIG", usage: "configuration file (default: situate.toml in the store)"},
		{name: "chunk-size", def: strconv.Itoa(d.ChunkSize), usage: "target chunk size in tokens"},
		{name: "chunk-overlap", def: strconv.Itoa(d.ChunkOverlap), usage: "overlap between chunks in tokens"},
		{name: "contextualizer", def: "offline", usage: "what writes chunk contexts: offline (extractive, no model), llm (the model named by --llm; the default when --llm is set) or none"},
		{name: "analyzer", usage: "force one BM25 analyzer (standard, english, german, spanish, russian, chinese, code); default: per document language"},
		{name: "bm25-k1", def: strconv.FormatFloat(d.BM25K1, 'g', -1, 64), usage: "BM25 k1"},
		{name: "bm25-b", def: strconv.FormatFloat(d.BM25B, 'g', -1, 64), usage: "BM25 b"},
		{name: "context-weight", def: strconv.FormatFloat(d.ContextWeight, 'g', -1, 64), usage: "0: index \"context\\n\\nchunk\" as one field; >0: chunk and context as two fields, context weighted by this"},
		{name: "compound-weight", def: strconv.FormatFloat(d.CompoundWeight, 'g', -1, 64), usage: "German: match compounds with their parts through the index vocabulary, each added term weighted by this (0: off)"},
		{name: "recipe", def: "situate", usage: "lexical ranking: situate (language + code + word-pair BM25 arms and document evidence, see EVAL.md) or lucene (one BM25 arm, exactly Lucene's ranking)"},
		{name: "parallel", def: strconv.Itoa(d.ParallelDocuments), usage: "documents contextualized at once"},
		{name: "include", isList: true, usage: "only index files whose path matches this glob (repeatable)"},
		{name: "exclude", isList: true, usage: "skip files whose path matches this glob (repeatable)"},
		{name: "max-file-size", def: strconv.Itoa(64 << 20), usage: "skip files larger than this many bytes"},
		{name: "k", def: strconv.Itoa(situate.DefaultK), usage: "number of results"},
		{name: "mode", usage: "search mode: bm25, dense or hybrid (default: hybrid with --embed, bm25 without)"},
	}
	defs = append(defs, denseSettingDefs()...)
	defs = append(defs, indexSettingDefs()...)
	return append(defs, llmSettingDefs()...)
}

type config struct {
	settings map[string]*setting
	order    []string
	file     string // configuration file read, if any
}

func newConfig() *config {
	c := &config{settings: map[string]*setting{}}
	for _, s := range settingDefs() {
		s.value, s.origin = s.def, "default"
		c.settings[s.name] = s
		c.order = append(c.order, s.name)
	}
	return c
}

// flags registers the named settings on fs; a flag given on the command line
// records its value with origin "flag".
func (c *config) flags(fs *flag.FlagSet, names ...string) {
	for _, n := range names {
		s := c.settings[n]
		if s == nil {
			panic("unknown setting " + n)
		}
		usage := s.usage
		if s.env != "" {
			usage += " (env " + s.env + ")"
		}
		if s.def != "" && !s.isBool {
			usage += " (default " + s.def + ")"
		}
		set := func(v string) error {
			if s.isList && s.origin == "flag" {
				s.value += "," + v
			} else {
				s.value = v
			}
			s.origin = "flag"
			return nil
		}
		if s.isBool {
			fs.BoolFunc(n, usage, func(v string) error {
				if _, err := strconv.ParseBool(v); err != nil {
					return fmt.Errorf("want true or false")
				}
				return set(v)
			})
		} else {
			fs.Var(settingValue{s, set}, n, usage)
		}
	}
}

// settingValue is a setting as a flag.Value; its kind is shown in help.
type settingValue struct {
	s   *setting
	set func(string) error
}

func (v settingValue) String() string     { return "" }
func (v settingValue) Set(x string) error { return v.set(x) }
func (v settingValue) kind() string       { return v.s.kind() }

// floatSettings are the settings read as numbers with a fraction.
var floatSettings = map[string]bool{"bm25-k1": true, "bm25-b": true, "context-weight": true, "compound-weight": true,
	"dense-weight": true, "lexical-weight": true, "max-cost": true}

// kind names the type of a setting's value for help: int, number,
// duration, list or string.
func (s *setting) kind() string {
	switch {
	case s.isBool:
		return ""
	case s.isList:
		return "list"
	case floatSettings[s.name]:
		return "number"
	}
	if _, err := strconv.Atoi(s.def); err == nil {
		return "int"
	}
	if _, err := time.ParseDuration(s.def); err == nil && s.def != "" {
		return "duration"
	}
	return "string"
}

// load applies the environment and the configuration file below the flags
// already parsed.
func (c *config) load(e *env) error {
	for _, n := range c.order {
		s := c.settings[n]
		if s.origin == "flag" || s.env == "" {
			continue
		}
		if v := e.getenv(s.env); v != "" {
			s.value, s.origin = v, "env "+s.env
		}
	}
	path := c.settings["config"].value
	explicit := path != ""
	if !explicit {
		path = filepath.Join(c.storeDir(e), "situate.toml")
	}
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("config %s: %w", path, err)
	}
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	c.file = path
	for key, v := range raw {
		s := c.settings[key]
		if s == nil || key == "config" {
			return fmt.Errorf("config %s: unknown setting %q (known: %s)", path, key, strings.Join(c.order, ", "))
		}
		if s.origin == "flag" || strings.HasPrefix(s.origin, "env ") {
			continue
		}
		var val string
		switch x := v.(type) {
		case []any:
			parts := make([]string, len(x))
			for i, p := range x {
				parts[i] = fmt.Sprint(p)
			}
			val = strings.Join(parts, ",")
		default:
			val = fmt.Sprint(x)
		}
		s.value, s.origin = val, "config "+path
	}
	return nil
}

func (c *config) storeDir(e *env) string {
	dir := c.settings["store"].value
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(e.workDir, dir)
	}
	return dir
}

func (c *config) str(name string) string { return c.settings[name].value }

func (c *config) list(name string) []string {
	v := c.settings[name].value
	if v == "" {
		return nil
	}
	var out []string
	for _, p := range strings.Split(v, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func (c *config) int(name string) (int, error) {
	s := c.settings[name]
	n, err := strconv.Atoi(s.value)
	if err != nil {
		return 0, usagef("--%s (from %s): %q is not an integer", name, s.origin, s.value)
	}
	return n, nil
}

func (c *config) float(name string) (float64, error) {
	s := c.settings[name]
	f, err := strconv.ParseFloat(s.value, 64)
	if err != nil {
		return 0, usagef("--%s (from %s): %q is not a number", name, s.origin, s.value)
	}
	return f, nil
}

// parse parses args with fs, allowing flags after positional arguments
// ("situate search 'query' -k 5"), and loads the environment and file.
func (c *config) parse(e *env, fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fs.SetOutput(e.stdout)
				fs.Usage()
				return nil, errHelpShown
			}
			return nil, usageError{err}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			positional = append(positional, rest[1:]...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	if err := c.load(e); err != nil {
		return nil, usageError{err}
	}
	return positional, nil
}

// newFlagSet makes a command's flag set with a usage text naming its
// arguments.
func newFlagSet(name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: situate %s [flags] %s\n\n%s\n\nFlags:\n", name, args, summary)
		groups, _ := flagGroups.Load(fs)
		in := map[string]bool{}
		for _, g := range groups.([]flagGroup) {
			for _, n := range g.names {
				in[n] = true
			}
		}
		printFlags(fs, func(f *flag.Flag) bool { return !in[f.Name] })
		for _, g := range groups.([]flagGroup) {
			fmt.Fprintf(w, "\n%s:\n", g.title)
			printFlags(fs, func(f *flag.Flag) bool { return slices.Contains(g.names, f.Name) })
		}
	}
	flagGroups.Store(fs, []flagGroup(nil))
	return fs
}

// flagGroups holds, per flag set, the groups of flags its help shows apart
// under a heading (groupFlags); the other flags come first.
var flagGroups sync.Map // *flag.FlagSet -> []flagGroup

type flagGroup struct {
	title string
	names []string
}

// groupFlags shows the named flags of fs in their own group of the help,
// under title (which says when they apply).
func groupFlags(fs *flag.FlagSet, title string, names ...string) {
	groups, _ := flagGroups.Load(fs)
	flagGroups.Store(fs, append(slices.Clip(groups.([]flagGroup)), flagGroup{title, names}))
}

// printFlags prints the flags of fs that keep selects, each with its type
// and default.
func printFlags(fs *flag.FlagSet, keep func(*flag.Flag) bool) {
	w := fs.Output()
	fs.VisitAll(func(f *flag.Flag) {
		if !keep(f) || hiddenFlags[f.Name] {
			return
		}
		kind, usage := flag.UnquoteUsage(f)
		if v, ok := f.Value.(settingValue); ok {
			kind = v.kind()
		} else if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" && !strings.Contains(usage, "default") {
			usage += " (default " + f.DefValue + ")"
		}
		if kind == "value" { // a flag.Func
			kind = "string"
		}
		if kind != "" {
			kind = " " + kind
		}
		fmt.Fprintf(w, "  --%s%s\n    \t%s\n", f.Name, kind, usage)
	})
}

func runConfig(ctx context.Context, e *env, args []string) error {
	c := newConfig()
	fs := newFlagSet("config", "", "Print every setting's effective value and where it comes from (default, config file, env, flag).")
	c.flags(fs, c.order...)
	if _, err := c.parse(e, fs, args); err != nil {
		return err
	}
	names := slices.Clone(c.order)
	for _, n := range names {
		s := c.settings[n]
		fmt.Fprintf(e.stdout, "%-16s = %-22q # %s\n", n, s.value, s.origin)
	}
	return nil
}
